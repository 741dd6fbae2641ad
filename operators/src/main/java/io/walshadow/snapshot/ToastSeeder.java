package io.walshadow.snapshot;

import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.DestinationSchema;
import io.walshadow.clickhouse.Retrier;
import io.walshadow.clickhouse.RowBinaryBuffer;
import io.walshadow.clickhouse.ServerCapabilities;
import io.walshadow.clickhouse.ToastMirror;
import io.walshadow.heap.Tid;
import io.walshadow.sink.ClickHouseSinkOptions;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

/**
 * Copies chunks of {@code pg_toast.pg_toast_<oid>} straight into the relation's ClickHouse mirror, at their TIDs and
 * the snapshot's version, so that a later WAL row referring to an unchanged old value finds it. Straight, not through
 * the sink's batches: the TOAST stage may have to wait for the seed, and the sink sits behind it. Written again after
 * a restart, a chunk's rows are identical copies (same TID, version and bytes), which the mirror's
 * ReplacingMergeTree folds and its fetch reads as one.
 */
final class ToastSeeder implements AutoCloseable {
    /** Rows go to ClickHouse in inserts of about this size. */
    static final int FLUSH_BYTES = 8 << 20;

    private final ClickHouseSinkOptions options;
    private ClickHouseConnection ch;
    private Retrier retry;
    private ServerCapabilities caps;
    private final Set<Integer> created = new HashSet<>();

    ToastSeeder(ClickHouseSinkOptions options) {
        this.options = options;
    }

    /** Copies the cursor's rows ({@code chunk_id, chunk_seq, chunk_data} as text) into the mirror; returns them. */
    long copy(SnapshotChunkReader.Cursor cursor, int toastRelOid, long version)
            throws SQLException, InterruptedException {
        connect();
        String mirror = ToastMirror.name(toastRelOid);
        if (created.add(toastRelOid)) {
            String sql = ToastMirror.createSql(ch.database(), toastRelOid, caps);
            retry.run(sql, () -> ch.execute(sql));
        }
        String table = DestinationSchema.quote(ch.database()) + "." + DestinationSchema.quote(mirror);
        RowBinaryBuffer out = new RowBinaryBuffer(1 << 20);
        long n = 0;
        for (SnapshotChunkReader.Row r = cursor.next(); r != null; r = cursor.next()) {
            String[] v = r.values();
            String hex = v[2];
            if (hex == null || !hex.startsWith("\\x")) {
                throw new SQLException("TOAST chunk at (" + r.block() + "," + r.offset() + ") of " + mirror
                        + " has no hex chunk_data");
            }
            ToastMirror.seedBirth(out, new Tid(r.block(), r.offset()), Long.parseLong(v[0]), Integer.parseInt(v[1]),
                    HexFormat.of().parseHex(hex, 2, hex.length()), version);
            n++;
            if (out.size() >= FLUSH_BYTES) {
                flush(table, out);
            }
        }
        flush(table, out);
        return n;
    }

    private void flush(String table, RowBinaryBuffer out) throws InterruptedException {
        if (out.size() > 0) {
            retry.call("INSERT INTO " + table, () -> ch.insertRowBinary(table, out));
            out.clear();
        }
    }

    private void connect() throws InterruptedException {
        if (ch == null) {
            ch = options.connect();
            retry = new Retrier(options.retryTimeout(), () -> {});
            caps = retry.call("SELECT version()", () -> ServerCapabilities.probe(ch));
        }
    }

    @Override
    public void close() {
        if (ch != null) {
            ch.close();
            ch = null;
        }
    }
}
