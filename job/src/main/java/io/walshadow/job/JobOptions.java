package io.walshadow.job;

import io.walshadow.buffer.XactBuffer;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.snapshot.SnapshotOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Every {@code --key} the job reads, typed, with its default and meaning: {@link JobConfig} reads through them,
 * and the table in {@code docs/configuration.md} is generated from them ({@code JobOptionsDocTest} fails when the
 * two differ, and rewrites the table with {@code -Dwalshadow.docs.write=true}). In the order of that table.
 */
public final class JobOptions {
    private JobOptions() {}

    public static final ConfigOption<String> PG_HOST = ConfigOptions.key("pg.host").stringType()
            .noDefaultValue()
            .withDescription("source PostgreSQL host");
    public static final ConfigOption<Integer> PG_PORT = ConfigOptions.key("pg.port").intType()
            .defaultValue(5432)
            .withDescription("source PostgreSQL port");
    public static final ConfigOption<String> PG_DATABASE = ConfigOptions.key("pg.database").stringType()
            .noDefaultValue()
            .withDescription("database whose relations are replicated (the WAL carries every database)");
    public static final ConfigOption<String> PG_USER = ConfigOptions.key("pg.user").stringType()
            .noDefaultValue()
            .withDescription("a role with `REPLICATION` (and, for the catalog, `SELECT` on the replicated tables)");
    public static final ConfigOption<String> PG_PASSWORD_FILE = ConfigOptions.key("pg.password.file").stringType()
            .noDefaultValue()
            .withDescription("a file holding the PostgreSQL password (one trailing line break ignored), e.g. a mounted Kubernetes secret; wins over `WALSHADOW_PG_PASSWORD`");
    public static final ConfigOption<String> PG_SSLMODE = ConfigOptions.key("pg.sslmode").stringType()
            .defaultValue("verify-full")
            .withDescription("pgjdbc `sslmode`: disable, prefer, require, verify-ca, verify-full. The default checks the server's certificate and name: the WAL carries every database of the cluster. `prefer` would fall back to plaintext silently; the local stack passes `disable` on loopback");
    public static final ConfigOption<String> PG_SSLROOTCERT = ConfigOptions.key("pg.sslrootcert").stringType()
            .noDefaultValue()
            .withDescription("CA certificate file for `verify-ca` / `verify-full`");
    public static final ConfigOption<String> TABLES_INCLUDE = ConfigOptions.key("tables.include").stringType()
            .noDefaultValue()
            .withDescription("comma-separated `schema.table` globs to replicate, e.g. `public.*,sales.orders`; a partitioned table is matched by its root's name and its partitions come with it (`tables.partitions`); changed on a restored job, the tables it newly includes are copied (`snapshot.mode=initial`) and replicated from the restore on, those it no longer includes stop (`docs/operations.md`, Adding or removing tables)");
    public static final ConfigOption<Boolean> TABLES_ALLOW_UNMATCHED = ConfigOptions.key("tables.allow.unmatched").booleanType()
            .defaultValue(false)
            .withDescription("`true`: start even when a `tables.include` pattern matches no table yet (tables created later are replicated from their creation)");
    public static final ConfigOption<String> TABLES_EXCLUDE = ConfigOptions.key("tables.exclude").stringType()
            .noDefaultValue()
            .withDescription("globs to leave out (system schemas are never replicated)");
    public static final ConfigOption<String> TABLES_PARTITIONS = ConfigOptions.key("tables.partitions").stringType()
            .defaultValue("root")
            .withDescription("`root`: a partitioned table replicates into one ClickHouse table named after its root (all levels), columns mapped by name, `_partition` holding each row's partition oid; the include / exclude patterns match the root, and its partitions come with it. `leaf`: each partition is a table of its own, matched by its own name (earlier builds' behaviour). Not changeable on a restored job that replicates partitions (`docs/clickhouse.md`, Partitioned tables)");
    public static final ConfigOption<String> TABLES_PARTITIONS_DETACHED = ConfigOptions.key("tables.partitions.detached")
            .stringType().defaultValue("remove")
            .withDescription("with `tables.partitions=root`, what happens in the root's table to the rows of a partition that is detached, dropped or truncated alone: `remove` (they end there, as in PostgreSQL's root) or `keep` (they stay, an archive of partitions PostgreSQL let go). A detached partition that the filter includes becomes a table of its own either way, starting with its rows as of the detach");
    public static final ConfigOption<String> SLOT = ConfigOptions.key("slot").stringType()
            .defaultValue("walshadow")
            .withDescription("physical replication slot (`[a-z0-9_]`, ≤ 63)");
    public static final ConfigOption<Boolean> SLOT_CREATE = ConfigOptions.key("slot.create").booleanType()
            .defaultValue(true)
            .withDescription("create the slot with reserved WAL when it does not exist");
    public static final ConfigOption<Integer> STATUS_INTERVAL_MS = ConfigOptions.key("status.interval.ms").intType()
            .defaultValue(10_000)
            .withDescription("standby status interval (keep below the server's `wal_sender_timeout`)");
    public static final ConfigOption<Integer> FETCH_MAX_RECORDS = ConfigOptions.key("fetch.max.records").intType()
            .defaultValue(4096)
            .withDescription("records handed from the fetcher thread to the task per batch");
    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL = ConfigOptions.key("checkpoint.interval").durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("Flink checkpoint interval (the slot advances at each completed checkpoint)");
    public static final ConfigOption<String> CHECKPOINT_DIR = ConfigOptions.key("checkpoint.dir").stringType()
            .noDefaultValue()
            .withDescription("checkpoint storage URI, e.g. `file:///var/lib/walshadow/checkpoints`");
    public static final ConfigOption<Duration> PROGRESS_INTERVAL = ConfigOptions.key("progress.interval").durationType()
            .defaultValue(Duration.ofSeconds(5))
            .withDescription("run from a plain JVM: how often the job logs its status line (WAL lag, rows/s, the watermark visible in ClickHouse, a copy's progress)");
    public static final ConfigOption<Integer> LOCAL_WEB_PORT = ConfigOptions.key("local.web.port").intType()
            .defaultValue(8081)
            .withDescription("run from a plain JVM (the embedded MiniCluster, `deploy/run-local.sh`): the port of Flink's web dashboard on localhost (`0`: none). A job submitted to a cluster ignores it: the cluster serves its own (`rest.port`)");
    public static final ConfigOption<Integer> LOCAL_METRICS_PORT = ConfigOptions.key("local.metrics.port").intType()
            .defaultValue(9249)
            .withDescription("run from a plain JVM: the port of the Prometheus endpoint (`http://localhost:<port>/metrics`, every metric of the job; `0`: none). On a cluster, configure Flink's Prometheus reporter instead (`k8s/`)");
    public static final ConfigOption<String> LOCAL_RESTORE_FROM = ConfigOptions.key("local.restore.from").stringType()
            .noDefaultValue()
            .withDescription("run from a plain JVM: a savepoint or retained checkpoint (a `chk-N` directory or its `_metadata`) to restore from, as `flink run -s` does on a cluster; `deploy/run-local.sh` passes its newest retained checkpoint to resume");
    public static final ConfigOption<String> XACT_PREPARED_DROP = ConfigOptions.key("xact.prepared.drop").stringType()
            .noDefaultValue()
            .withDescription("comma-separated GIDs of stranded prepared transactions to discard at start-up (see below)");
    public static final ConfigOption<Long> XACT_BUFFER_HEAP_BYTES = ConfigOptions.key("xact.buffer.heap.bytes").longType()
            .defaultValue(XactBuffer.DEFAULT_HEAP_BYTES)
            .withDescription("bytes of open transactions the buffer keeps on the heap (per subtask) before they go to RocksDB; 0: all go at once");
    public static final ConfigOption<Long> XACT_BUFFER_HEAP_FAMILY_BYTES = ConfigOptions.key("xact.buffer.heap.family.bytes").longType()
            .defaultValue(XactBuffer.DEFAULT_HEAP_FAMILY_BYTES)
            .withDescription("size from which one open transaction goes to RocksDB (every open one goes there at each checkpoint anyway)");
    public static final ConfigOption<Long> XACT_BUFFER_PARALLELISM = ConfigOptions.key("xact.buffer.parallelism").longType()
            .defaultValue(1L)
            .withDescription("subtasks of the transaction buffer (at most " + WalshadowJob.BUFFER_MAX_PARALLELISM + "), each holding the open transactions of its share of xids (and each a task slot of the job); their drains go back into commit order before the TOAST stage and the sink, which run with parallelism 1. A savepoint restores at any value");
    public static final ConfigOption<String> TOAST_MODE = ConfigOptions.key("toast.mode").stringType()
            .defaultValue("clickhouse")
            .withDescription("`clickhouse`: chunks are mirrored in ClickHouse (`pg_toast_<oid>` tables) and values of earlier transactions fetched from there; `disabled`: only values written in the same transaction resolve, others are delivered NULL/empty and counted (`toast_values_filled_default`)");
    public static final ConfigOption<String> TOAST_MISSING = ConfigOptions.key("toast.missing").stringType()
            .defaultValue("fail")
            .withDescription("a value the TOAST mirror does not hold at the referring row's LSN, or a `pg_toast` row that is not a chunk: `fail` stops the job naming the table, column, value and LSN (the mirror cannot tell a value superseded and merged away from one written before the job that no snapshot seeded, which filling would leave wrong for good); `fill` delivers such values NULL/empty and counts them (`toast_values_filled_superseded`, `_mismatch`, `toast_chunks_malformed`)");
    public static final ConfigOption<Long> TOAST_VALUE_MAX_BYTES = ConfigOptions.key("toast.value.max.bytes").longType()
            .defaultValue(256L << 20)
            .withDescription("largest out-of-line value (raw or stored size) the TOAST stage reassembles; a larger one stops the job with an error naming it");
    public static final ConfigOption<Long> TOAST_FETCH_BATCH_BYTES = ConfigOptions.key("toast.fetch.batch.bytes").longType()
            .defaultValue(64L << 20)
            .withDescription("raw bytes of values that rows waiting for one batched mirror fetch may need (with at most 1000 rows); the fetched values are on the heap until those rows move on");
    public static final ConfigOption<String> TYPES_UNDECODABLE = ConfigOptions.key("types.undecodable").stringType()
            .defaultValue("fail")
            .withDescription("a column whose type has no decoder (an extension's type, say; `docs/clickhouse-types.md`): `fail` stops the job at start-up naming the table, column and type; `skip` leaves the column out of the destination (counter `values_skipped`); `raw` writes its on-disk bytes as `\\x` hex text to a `Nullable(String)` column (counter `values_raw`); a column of the row's key is never left out (`skip` writes it raw)");
    public static final ConfigOption<String> TYPES_UNDECODABLE_COLUMNS = ConfigOptions.key("types.undecodable.columns").stringType()
            .noDefaultValue()
            .withDescription("per-column exceptions to `types.undecodable`: comma-separated `schema.table.column=fail|skip|raw`, globs (`*`, `?`) in each part, `\\` escaping a dot, comma, equals sign or star in a name; the first entry that matches wins");
    public static final ConfigOption<String> SNAPSHOT_MODE = ConfigOptions.key("snapshot.mode").stringType()
            .defaultValue("initial")
            .withDescription("`initial`: on the job's first start, and for tables a restored job's filter newly includes, copy the existing rows and seed their TOAST mirrors (see `docs/architecture.md`, Initial snapshot); `never`: replicate from the WAL only");
    public static final ConfigOption<Long> SNAPSHOT_PARALLELISM = ConfigOptions.key("snapshot.parallelism").longType()
            .defaultValue((long) SnapshotOptions.DEFAULT_PARALLELISM)
            .withDescription("chunk readers of the initial snapshot, each one PostgreSQL connection (and a slot of the Flink job)");
    public static final ConfigOption<Long> SNAPSHOT_CHUNK_PAGES = ConfigOptions.key("snapshot.chunk.pages").longType()
            .defaultValue((long) SnapshotOptions.DEFAULT_CHUNK_PAGES)
            .withDescription("heap pages (8 kB) per snapshot chunk: the unit of parallel copy and of restart (a restored job resumes inside its chunk)");
    public static final ConfigOption<Long> SNAPSHOT_FETCH_ROWS = ConfigOptions.key("snapshot.fetch.rows").longType()
            .defaultValue((long) SnapshotOptions.DEFAULT_FETCH_ROWS)
            .withDescription("rows of a chunk's copy per fetch of the source reader");
    public static final ConfigOption<String> CLICKHOUSE_URL = ConfigOptions.key("clickhouse.url").stringType()
            .noDefaultValue()
            .withDescription("ClickHouse HTTP endpoint, `http://host:8123` or `https://host:8443` (TLS); credentials in it (`user:pw@host`) are refused: they would be logged");
    public static final ConfigOption<String> CLICKHOUSE_USER = ConfigOptions.key("clickhouse.user").stringType()
            .defaultValue("default")
            .withDescription("ClickHouse user (needs CREATE/ALTER/DROP/INSERT/SELECT in the database)");
    public static final ConfigOption<String> CLICKHOUSE_PASSWORD_FILE = ConfigOptions.key("clickhouse.password.file").stringType()
            .noDefaultValue()
            .withDescription("a file holding the ClickHouse password (one trailing line break ignored); wins over `WALSHADOW_CH_PASSWORD`");
    public static final ConfigOption<String> CLICKHOUSE_DATABASE = ConfigOptions.key("clickhouse.database").stringType()
            .noDefaultValue()
            .withDescription("existing ClickHouse database the destination tables go to");
    public static final ConfigOption<String> CLICKHOUSE_SSLROOTCERT = ConfigOptions.key("clickhouse.sslrootcert").stringType()
            .noDefaultValue()
            .withDescription("PEM file of the CA that signed the server certificate, for an `https` URL the JVM does not trust");
    public static final ConfigOption<String> CLICKHOUSE_SINK_ID = ConfigOptions.key("clickhouse.sink.id").stringType()
            .noDefaultValue()
            .withDescription("names the sink's staging tables and its rows in `_walshadow_watermark` (`[A-Za-z0-9_]`, ≤ 64); two jobs writing one database need distinct ids");
    public static final ConfigOption<String> CLICKHOUSE_ON_DROP = ConfigOptions.key("clickhouse.on.drop").stringType()
            .defaultValue("retain")
            .withDescription("a source `DROP TABLE`: `retain` renames the destination to `<table>__dropped_<commit LSN>`, `drop` drops it");
    public static final ConfigOption<Long> CLICKHOUSE_FLUSH_BYTES = ConfigOptions.key("clickhouse.flush.bytes").longType()
            .defaultValue(16L << 20)
            .withDescription("RowBinary bytes the sink buffers before it writes them to the staging tables (the write blocks: backpressure)");
    public static final ConfigOption<String> CLICKHOUSE_VISIBILITY = ConfigOptions.key("clickhouse.visibility").stringType()
            .defaultValue("commit")
            .withDescription("when committed rows appear in the destination tables: `commit` straight after each commit, written directly and idempotently (a few hundred ms; a multi-table transaction lands table by table: `_walshadow_visible` says which commit the tables are complete up to, `_walshadow_committed` is the checkpointed cut; the end state after failures is the same exactly-once state); `checkpoint` after the checkpoint that staged them completes (every transaction appears whole, and a ClickHouse reader never sees a commit the job could still roll back to re-stage; latency about one checkpoint interval); see clickhouse.md, \"Visible at commit\"");
    public static final ConfigOption<Duration> CLICKHOUSE_VISIBILITY_INTERVAL = ConfigOptions.key("clickhouse.visibility.interval").durationType()
            .defaultValue(Duration.ofMillis(100))
            .withDescription("with `clickhouse.visibility` `commit`: how often at most the sink writes (one INSERT per table written to, per interval); lower is fresher and makes more, smaller ClickHouse parts");
    public static final ConfigOption<String> CLICKHOUSE_UNWRITABLE = ConfigOptions.key("clickhouse.unwritable").stringType()
            .defaultValue("fail")
            .withDescription("a value the destination column cannot hold (a date outside ClickHouse's range, a numeric too wide for its `Decimal`, …): `fail` stops the job naming the table, column, value and LSN; `quarantine` stops only that table (listed in `_walshadow_quarantine`, gauge `tables_quarantined`, counter `rows_quarantined`, one ERROR line) and the other tables go on; see operations.md, \"A quarantined table\"");
    public static final ConfigOption<Boolean> CLICKHOUSE_RESET = ConfigOptions.key("clickhouse.reset").booleanType()
            .defaultValue(false)
            .withDescription("`true`: a fresh start (not restored) into a database that holds this sink id's commits from an earlier run drops every table of that database first (one WARN line), instead of being refused; ignored on a restore");
    public static final ConfigOption<Duration> CLICKHOUSE_RETRY_TIMEOUT = ConfigOptions.key("clickhouse.retry.timeout").durationType()
            .defaultValue(Duration.ofMinutes(5))
            .withDescription("how long ClickHouse calls that failed transiently (no answer, overload) are retried with backoff before the job fails and restarts from its checkpoint");
    public static final ConfigOption<Duration> CLICKHOUSE_STATEMENT_TIMEOUT = ConfigOptions.key("clickhouse.statement.timeout").durationType()
            .defaultValue(ClickHouseConnection.DEFAULT_TIMEOUT)
            .withDescription("how long one ClickHouse statement is waited for (at least `2s`); a statement without an answer by then fails transiently and is retried under the same query id, which replaces the attempt if the server still runs it (`replace_running_query`); the server is told to give up a sixth sooner (`max_execution_time`, one to ten seconds less), so an abandoned attempt cannot finish after later steps");

    /** All of them, in the table's order. */
    public static final List<ConfigOption<?>> ALL = List.of(PG_HOST, PG_PORT, PG_DATABASE, PG_USER, PG_PASSWORD_FILE, PG_SSLMODE, PG_SSLROOTCERT,
            TABLES_INCLUDE, TABLES_ALLOW_UNMATCHED, TABLES_EXCLUDE, TABLES_PARTITIONS, TABLES_PARTITIONS_DETACHED, SLOT, SLOT_CREATE, STATUS_INTERVAL_MS,
            FETCH_MAX_RECORDS, CHECKPOINT_INTERVAL, CHECKPOINT_DIR, PROGRESS_INTERVAL, LOCAL_WEB_PORT, LOCAL_METRICS_PORT, LOCAL_RESTORE_FROM,
            XACT_PREPARED_DROP,
            XACT_BUFFER_HEAP_BYTES, XACT_BUFFER_HEAP_FAMILY_BYTES, XACT_BUFFER_PARALLELISM, TOAST_MODE, TOAST_MISSING,
            TOAST_VALUE_MAX_BYTES, TOAST_FETCH_BATCH_BYTES, TYPES_UNDECODABLE, TYPES_UNDECODABLE_COLUMNS, SNAPSHOT_MODE, SNAPSHOT_PARALLELISM,
            SNAPSHOT_CHUNK_PAGES, SNAPSHOT_FETCH_ROWS, CLICKHOUSE_URL, CLICKHOUSE_USER,
            CLICKHOUSE_PASSWORD_FILE, CLICKHOUSE_DATABASE, CLICKHOUSE_SSLROOTCERT, CLICKHOUSE_SINK_ID,
            CLICKHOUSE_ON_DROP, CLICKHOUSE_FLUSH_BYTES, CLICKHOUSE_VISIBILITY, CLICKHOUSE_VISIBILITY_INTERVAL,
            CLICKHOUSE_UNWRITABLE, CLICKHOUSE_RESET,
            CLICKHOUSE_RETRY_TIMEOUT, CLICKHOUSE_STATEMENT_TIMEOUT);

    /** What the table shows as the default of the options without one (the value's absence means this). */
    static final Map<ConfigOption<?>, String> SHOWN_DEFAULTS = Map.ofEntries(
            Map.entry(PG_HOST, "required"),
            Map.entry(PG_DATABASE, "required"),
            Map.entry(PG_USER, "required"),
            Map.entry(PG_PASSWORD_FILE, "unset"),
            Map.entry(PG_SSLROOTCERT, "—"),
            Map.entry(TABLES_INCLUDE, "all"),
            Map.entry(TABLES_EXCLUDE, "none"),
            Map.entry(CHECKPOINT_DIR, "cluster default"),
            Map.entry(LOCAL_RESTORE_FROM, "none: a fresh start"),
            Map.entry(XACT_PREPARED_DROP, "none"),
            Map.entry(TYPES_UNDECODABLE_COLUMNS, "none"),
            Map.entry(CLICKHOUSE_URL, "required"),
            Map.entry(CLICKHOUSE_PASSWORD_FILE, "unset"),
            Map.entry(CLICKHOUSE_DATABASE, "`pg.database`"),
            Map.entry(CLICKHOUSE_SSLROOTCERT, "—"),
            Map.entry(CLICKHOUSE_SINK_ID, "`slot`"));
}
