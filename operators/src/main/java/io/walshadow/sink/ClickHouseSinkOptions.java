package io.walshadow.sink;

import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.SinkTables;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how the sink writes. The password travels inside the job graph (as any Flink connector's does), but
 * never into logs: {@link #toString()} masks it.
 *
 * @param endpoint {@code http://host:8123} or {@code https://...}
 * @param rootCertificate PEM CA file for an https endpoint whose CA the JVM does not trust, or null
 * @param sinkId names this sink's staging tables and watermark rows (two jobs writing one database need two)
 * @param dropTables a source DROP TABLE drops the destination (true) or renames it aside (false, "retain")
 * @param flushBytes staged rows buffered per writer before they go to the staging tables
 * @param retryTimeout how long ClickHouse calls are retried before the job fails
 * @param toastMirrors chunk rows of TOAST relations go to TOAST mirrors (toast.mode clickhouse)
 * @param quarantine a value the sink cannot write quarantines its table (the others go on) instead of failing the
 *     job ({@code clickhouse.unwritable})
 * @param tables the table filter's spec ({@link io.walshadow.catalog.CatalogFilter#spec()}; null: every table): a
 *     restore releases quarantined tables it excludes
 * @param statementTimeout how long one statement is waited for before it counts as failed (transiently: retried,
 *     the retry replacing the attempt if the server still runs it); the server gives up a sixth sooner
 * @param keepDetachedRows a detached (or dropped, or truncated) partition's rows stay in its root's table
 *     ({@code tables.partitions.detached keep}) instead of ending there
 * @param directWrites null: rows become visible when the checkpoint that staged them completes
 *     ({@code clickhouse.visibility=checkpoint}); else they are written straight into their destinations after each
 *     commit, at least this often ({@code clickhouse.visibility=commit}, {@code clickhouse.visibility.interval})
 */
public record ClickHouseSinkOptions(String endpoint, String user, String password, String database,
                                    String rootCertificate, String sinkId, boolean dropTables, long flushBytes,
                                    Duration retryTimeout, boolean toastMirrors, boolean quarantine, String tables,
                                    Duration statementTimeout, boolean keepDetachedRows, Duration directWrites)
        implements Serializable {
    /** Failing the job on a value it cannot write, for every table. */
    public ClickHouseSinkOptions(String endpoint, String user, String password, String database,
                                 String rootCertificate, String sinkId, boolean dropTables, long flushBytes,
                                 Duration retryTimeout, boolean toastMirrors) {
        this(endpoint, user, password, database, rootCertificate, sinkId, dropTables, flushBytes, retryTimeout,
                toastMirrors, false, null, ClickHouseConnection.DEFAULT_TIMEOUT, false, null);
    }

    /** {@code clickhouse.visibility=commit}: rows written straight into their destinations at least this often. */
    public boolean visibleAtCommit() {
        return directWrites != null;
    }

    public ClickHouseSinkOptions {
        Objects.requireNonNull(endpoint, "clickhouse.url");
        Objects.requireNonNull(user, "clickhouse.user");
        Objects.requireNonNull(database, "clickhouse.database");
        SinkTables.checkSinkId(sinkId);
        Objects.requireNonNull(statementTimeout, "clickhouse.statement.timeout");
        ClickHouseConnection.checkTimeout(statementTimeout); // at once, not when the first connection opens
        if (directWrites != null && (directWrites.toMillis() < 1 || directWrites.toMillis() > 60_000)) {
            throw new IllegalArgumentException("clickhouse.visibility.interval must be between 1ms and 60s, got "
                    + directWrites);
        }
        if (flushBytes < 1024) {
            throw new IllegalArgumentException("clickhouse.flush.bytes must be at least 1024, got " + flushBytes);
        }
    }

    /** The tables the job replicates. */
    public io.walshadow.catalog.CatalogFilter filter() {
        return tables == null ? io.walshadow.catalog.CatalogFilter.all() : io.walshadow.catalog.CatalogFilter.fromSpec(tables);
    }

    public ClickHouseConnection connect() {
        return new ClickHouseConnection(endpoint, user, password == null ? "" : password, database, rootCertificate,
                statementTimeout);
    }

    @Override
    public String toString() {
        return "ClickHouseSinkOptions{" + user + "@" + endpoint + "/" + database + ", sink " + sinkId + ", password="
                + (password == null || password.isEmpty() ? "<none>" : "******") + ", on drop "
                + (dropTables ? "drop" : "retain") + (toastMirrors ? ", TOAST mirrors" : "")
                + (quarantine ? ", unwritable values quarantine their table" : "")
                + (directWrites != null ? ", visible at commit (writes every " + directWrites.toMillis() + " ms)" : "")
                + "}";
    }
}
