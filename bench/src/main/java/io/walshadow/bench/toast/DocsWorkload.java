package io.walshadow.bench.toast;

import io.walshadow.bench.e2e.E2eBenchmark;
import io.walshadow.bench.e2e.Source;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.testing.LocalPg;
import java.io.OutputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.postgresql.PGConnection;

/**
 * The TOAST workload: table {@code docs (id int primary key, note text, body text COMPRESSION pglz, blob bytea)} in
 * the scratch database {@value #DB}, every {@code body} and {@code blob} stored out of line. {@code body} is hex
 * text whose 32-character blocks each repeat 4 times (pglz keeps about 30 %), {@code blob} random bytes (pglz gives
 * up: stored uncompressed); each value's length is uniform in [min, max] KiB, from a generator seeded by the row id,
 * so every round writes the same bytes. Written from here (JDBC batches), not by SQL generators: the write is set-up,
 * its speed is not measured.
 *
 * <p>The {@link #insert INSERT phase} writes the rows ({@code rowsPerCommit} per transaction), the {@link #update
 * UPDATE phase} sets {@code note} of every row and leaves the large values as they are (the same TOAST pointers).
 */
final class DocsWorkload {
    static final String DB = "walshadow_bench_toast";
    static final String TABLE = "public.docs";
    /** What logical decoding sends for an unchanged TOAST value, and Debezium delivers (its default placeholder). */
    static final String PLACEHOLDER = "__debezium_unavailable_value";

    /** What a phase wrote: row changes, WAL, and the sizes of the large values the changed rows carry. */
    record Phase(String name, long rows, long walBytes, double seconds, Payload payload) {}

    /** The large values of the table: how many, raw ({@code octet_length}) and stored ({@code pg_column_size}). */
    record Payload(long rows, long values, long outOfLine, long rawBytes, long storedBytes, long chunks) {}

    private final Source source;
    private final long targetBytes;
    private final int minBytes;
    private final int maxBytes;
    private final int rowsPerCommit;

    DocsWorkload(long targetBytes, int minBytes, int maxBytes, int rowsPerCommit) {
        this.source = new Source(LocalPg.host(), LocalPg.port(), LocalPg.user(), LocalPg.password(), DB, List.of(TABLE));
        this.targetBytes = targetBytes;
        this.minBytes = minBytes;
        this.maxBytes = maxBytes;
        this.rowsPerCommit = rowsPerCommit;
    }

    Source source() {
        return source;
    }

    /**
     * (Re)creates the scratch database: leftover slots on it (a logical slot keeps DROP DATABASE from working) and the
     * physical slots named by the contenders are dropped first by the caller's {@code prepare}s; here those on the
     * database.
     */
    void createDatabase() throws Exception {
        Source.freshDatabase(DB, "database = '" + DB + "'");
    }

    void dropDatabase() throws SQLException {
        try (Connection admin = LocalPg.connect()) {
            LocalPg.exec(admin, "DROP DATABASE IF EXISTS " + DB);
        }
    }

    /** An empty table, before the contenders' slots exist (its DDL is not captured). */
    void recreateTable() throws SQLException {
        try (Connection c = source.connect()) {
            LocalPg.exec(c, "DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE
                    + " (id int PRIMARY KEY, note text, body text COMPRESSION pglz, blob bytea)");
        }
    }

    /** Writes rows until their values add up to the target size. */
    Phase insert() throws SQLException {
        try (Connection c = source.connect()) {
            long lsn0 = LocalPg.currentLsn(c);
            long t0 = System.nanoTime();
            c.setAutoCommit(false);
            long raw = 0;
            int id = 0;
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " VALUES (?, ?, ?, ?)")) {
                while (raw < targetBytes) {
                    id++;
                    SplittableRandom r = new SplittableRandom(id * 0x9E3779B97F4A7C15L);
                    String body = body(r, size(r));
                    byte[] blob = new byte[size(r)];
                    r.nextBytes(blob);
                    raw += body.length() + blob.length;
                    ps.setInt(1, id);
                    ps.setString(2, "n" + id);
                    ps.setString(3, body);
                    ps.setBytes(4, blob);
                    ps.addBatch();
                    if (id % rowsPerCommit == 0) {
                        ps.executeBatch();
                        c.commit();
                    }
                }
                ps.executeBatch();
                c.commit();
            }
            c.setAutoCommit(true);
            return phase("INSERT", c, id, lsn0, t0);
        }
    }

    /** Sets {@code note} of every row, {@code rowsPerCommit} rows per transaction. */
    Phase update() throws SQLException {
        try (Connection c = source.connect()) {
            long lsn0 = LocalPg.currentLsn(c);
            long t0 = System.nanoTime();
            long rows = 0;
            int max = Integer.parseInt(LocalPg.queryString(c, "SELECT max(id) FROM " + TABLE));
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET note = 'updated ' || id"
                    + " WHERE id BETWEEN ? AND ?")) {
                for (int from = 1; from <= max; from += rowsPerCommit) {
                    ps.setInt(1, from);
                    ps.setInt(2, from + rowsPerCommit - 1);
                    rows += ps.executeUpdate();
                }
            }
            return phase("UPDATE note", c, rows, lsn0, t0);
        }
    }

    private Phase phase(String name, Connection c, long rows, long lsn0, long t0) throws SQLException {
        double seconds = (System.nanoTime() - t0) / 1e9;
        long wal = LocalPg.currentLsn(c) - lsn0;
        Payload p = payload(c);
        E2eBenchmark.log(String.format(Locale.ROOT, "workload %s: %d rows in %.1f s, %.1f MB of WAL; values: %d (%d out"
                        + " of line, %d chunks), %.1f MB raw, %.1f MB stored", name, rows, seconds, mb(wal), p.values,
                p.outOfLine, p.chunks, mb(p.rawBytes), mb(p.storedBytes)));
        return new Phase(name, rows, wal, seconds, p);
    }

    private int size(SplittableRandom r) {
        return minBytes + r.nextInt(maxBytes - minBytes + 1);
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** Hex text of {@code n} characters, each 32-character block 4 times over. */
    private static String body(SplittableRandom r, int n) {
        char[] out = new char[n];
        char[] block = new char[32];
        for (int pos = 0; pos < n; ) {
            for (int i = 0; i < block.length; i++) {
                block[i] = HEX[r.nextInt(16)];
            }
            for (int k = 0; k < 4 && pos < n; k++) {
                int len = Math.min(block.length, n - pos);
                System.arraycopy(block, 0, out, pos, len);
                pos += len;
            }
        }
        return new String(out);
    }

    /** Sizes of the large values now; out of line = distinct values in the TOAST relation. */
    Payload payload(Connection c) throws SQLException {
        String toast = LocalPg.queryString(c, "SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = '"
                + TABLE + "'::regclass");
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT (SELECT count(*) FROM " + TABLE
                + "), (SELECT count(DISTINCT chunk_id) FROM " + toast + "), (SELECT count(*) FROM " + toast + "),"
                + " (SELECT sum(octet_length(body)) + sum(octet_length(blob)) FROM " + TABLE + "),"
                + " (SELECT sum(pg_column_size(body)) + sum(pg_column_size(blob)) FROM " + TABLE + "),"
                + " (SELECT count(body) + count(blob) FROM " + TABLE + ")")) {
            rs.next();
            return new Payload(rs.getLong(1), rs.getLong(6), rs.getLong(2), rs.getLong(4), rs.getLong(5), rs.getLong(3));
        }
    }

    /**
     * Per row: id, note, and the length and md5 of body and blob, in PostgreSQL and in the ClickHouse destination
     * table (its live rows); throws on the first rows that differ. Returns the rows compared.
     */
    int verify(ClickHouseConnection ch, String chDatabase, String phase) throws SQLException {
        List<String> pg = new ArrayList<>();
        try (Connection c = source.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT id, note, octet_length(body), md5(body), octet_length(blob), md5(blob) FROM " + TABLE
                        + " ORDER BY id")) {
            while (rs.next()) {
                pg.add(rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getString(4) + "|"
                        + rs.getString(5) + "|" + rs.getString(6));
            }
        }
        List<String> got = new ArrayList<>();
        for (String[] r : ch.queryTsv("SELECT id, note, length(body), lower(hex(MD5(body))), length(blob),"
                + " lower(hex(MD5(blob))) FROM `" + chDatabase + "`.`public__docs` FINAL WHERE _is_deleted = 0"
                + " ORDER BY id")) {
            got.add(String.join("|", java.util.Arrays.stream(r).map(String::valueOf).toList()));
        }
        List<String> diffs = new ArrayList<>();
        for (int i = 0; i < Math.max(pg.size(), got.size()) && diffs.size() < 5; i++) {
            String a = i < pg.size() ? pg.get(i) : "(none)";
            String b = i < got.size() ? got.get(i) : "(none)";
            if (!a.equals(b)) {
                diffs.add("PostgreSQL " + a + " / ClickHouse " + b);
            }
        }
        if (!diffs.isEmpty() || pg.size() != got.size()) {
            throw new IllegalStateException("after the " + phase + " phase, ClickHouse " + chDatabase + ".public__docs ("
                    + got.size() + " rows) differs from PostgreSQL (" + pg.size() + " rows), rows id|note|length(body)|"
                    + "md5(body)|length(blob)|md5(blob): " + String.join("; ", diffs));
        }
        return pg.size();
    }

    /** One COPY of the table to a discarding stream: bytes streamed and seconds. */
    record Copy(long bytes, double seconds) {}

    /** {@code COPY (SELECT * FROM docs) TO STDOUT} in {@code format} (text, binary), through pgjdbc's CopyManager. */
    Copy copyOut(String format) throws Exception {
        try (Connection c = source.connect()) {
            Counting out = new Counting();
            long t0 = System.nanoTime();
            c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SELECT * FROM " + TABLE + ") TO STDOUT"
                    + (format.equals("text") ? "" : " (FORMAT " + format + ")"), out);
            return new Copy(out.bytes, (System.nanoTime() - t0) / 1e9);
        }
    }

    /** Discards what it is given, counting bytes. */
    private static final class Counting extends OutputStream {
        long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }

    static double mb(long bytes) {
        return bytes / 1048576.0;
    }
}
