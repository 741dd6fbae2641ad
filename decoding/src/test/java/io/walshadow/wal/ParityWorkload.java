package io.walshadow.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.walshadow.testing.LocalPg;
import java.io.IOException;
import java.io.StringReader;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * The statements whose WAL is compared (PgWaldumpParityIT, WalinspectParityIT). Table names carry a per-run suffix;
 * all of them are dropped. Runs on PostgreSQL 14..18: full-page images are compressed with each method the server
 * was built with ({@link #compressionMethods}; 14's wal_compression is a boolean, pglz).
 */
final class ParityWorkload {
    private final Connection c;
    private final Connection c2;
    private final String sfx;
    private final int segSize;
    private final String pk;
    private final String nopk;
    private final String geo;
    private final String origin;
    private final Random random = new SecureRandom();
    private String initialCompression;
    private boolean booleanCompression;
    private List<String> methods;

    ParityWorkload(Connection c, Connection c2, String sfx, int segSize) {
        this.c = c;
        this.c2 = c2;
        this.sfx = sfx;
        this.segSize = segSize;
        this.pk = "parity_pk_" + sfx;
        this.nopk = "parity_nopk_" + sfx;
        this.geo = "parity_geo_" + sfx;
        this.origin = "walshadow_parity_" + sfx;
    }

    /**
     * The image compression methods the server offers, of pglz, lz4, zstd: what the workload compresses images
     * with (a build without lz4 or zstd leaves them out of wal_compression's values).
     */
    List<String> compressionMethods() throws SQLException {
        if (methods == null) {
            booleanCompression = "bool".equals(LocalPg.queryString(c,
                    "SELECT vartype FROM pg_settings WHERE name = 'wal_compression'"));
            List<String> offered = booleanCompression ? List.of("pglz") : LocalPg.queryColumn(c,
                    "SELECT unnest(enumvals) FROM pg_settings WHERE name = 'wal_compression'");
            methods = new ArrayList<>();
            for (String m : List.of("pglz", "lz4", "zstd")) {
                if (offered.contains(m)) {
                    methods.add(m);
                }
            }
        }
        return methods;
    }

    void run() throws Exception {
        initialCompression = LocalPg.queryString(c, "SHOW wal_compression");
        List<String> compress = compressionMethods();

        // --- DDL, DML and transaction shapes, wal_compression as configured (off) ---
        exec("CREATE TABLE " + pk + " (id int PRIMARY KEY, n int, v text, b bytea) WITH (fillfactor = 50)",
                "ALTER TABLE " + pk + " ALTER COLUMN v SET STORAGE EXTERNAL",
                "CREATE TABLE " + nopk + " (a serial, b text, c int)",
                "CREATE INDEX ON " + nopk + " USING hash (c)",
                "CREATE INDEX ON " + nopk + " USING brin (a)",
                "CREATE TABLE " + geo + " (p point, tags text[])",
                "CREATE INDEX ON " + geo + " USING gist (p)",
                "CREATE INDEX ON " + geo + " USING spgist (p)",
                "CREATE INDEX ON " + geo + " USING gin (tags)");
        exec("INSERT INTO " + pk + " VALUES (1, 1, 'one', NULL)",
                "INSERT INTO " + pk + " VALUES (2, 2, 'two', '\\x02'), (3, 3, 'three', NULL), (4, 4, 'four', NULL)",
                "INSERT INTO " + pk + " SELECT g, g, md5(g::text), NULL FROM generate_series(5, 3000) g",
                "INSERT INTO " + geo + " SELECT point(g % 97, g / 97), ARRAY['t' || (g % 13), 'u' || (g % 7)]"
                        + " FROM generate_series(1, 2000) g");
        copyRows(5000);
        exec("UPDATE " + pk + " SET n = n + 1 WHERE id <= 500", // n is not indexed: HOT
                "UPDATE " + pk + " SET id = id + 100000 WHERE id BETWEEN 501 AND 700", // key change: not HOT
                "DELETE FROM " + pk + " WHERE id % 10 = 3",
                "DELETE FROM " + nopk + " WHERE a % 10 = 3");
        // savepoints: one rolled back (its subxact's ABORT), one released
        exec("BEGIN", "INSERT INTO " + nopk + " (b, c) VALUES ('top', 1)", "SAVEPOINT s1",
                "INSERT INTO " + nopk + " (b, c) VALUES ('rolled back', 2)", "ROLLBACK TO SAVEPOINT s1",
                "SAVEPOINT s2", "INSERT INTO " + nopk + " (b, c) VALUES ('released', 3)", "RELEASE SAVEPOINT s2",
                "COMMIT");
        // more than PGPROC_MAX_CACHED_SUBXIDS (64) subtransactions with xids: XLOG_XACT_ASSIGNMENT
        exec("BEGIN");
        for (int i = 0; i < 100; i++) {
            exec("SAVEPOINT sp" + i, "INSERT INTO " + nopk + " (b, c) VALUES ('sub', " + i + ")");
        }
        exec("COMMIT");
        // two-phase commit
        exec("BEGIN", "INSERT INTO " + nopk + " (b, c) VALUES ('prepared, committed', 1)",
                "PREPARE TRANSACTION 'parity_c_" + sfx + "'", "COMMIT PREPARED 'parity_c_" + sfx + "'");
        exec("BEGIN", "INSERT INTO " + nopk + " (b, c) VALUES ('prepared, rolled back', 1)",
                "PREPARE TRANSACTION 'parity_r_" + sfx + "'", "ROLLBACK PREPARED 'parity_r_" + sfx + "'");
        // two share lockers of one row: a multixact
        exec("BEGIN", "SELECT id FROM " + pk + " WHERE id = 1 FOR SHARE");
        LocalPg.exec(c2, "BEGIN", "SELECT id FROM " + pk + " WHERE id = 1 FOR SHARE", "COMMIT");
        exec("COMMIT");
        // a replication origin: records carrying an origin id, then SET and DROP records
        exec("SELECT pg_replication_origin_create('" + origin + "')",
                "SELECT pg_replication_origin_session_setup('" + origin + "')",
                "BEGIN", "SELECT pg_replication_origin_xact_setup('0/AB', now())",
                "INSERT INTO " + nopk + " (b, c) VALUES ('from origin', 1)", "COMMIT",
                "SELECT pg_replication_origin_session_reset()",
                "SELECT pg_replication_origin_advance('" + origin + "', '0/CD')",
                "SELECT pg_replication_origin_drop('" + origin + "')");
        // multi-MB TOASTed values of random (incompressible) data: thousands of toast chunks
        try (PreparedStatement ps =
                     c.prepareStatement("INSERT INTO " + pk + " (id, n, v, b) VALUES (?, 0, ?, ?)")) {
            ps.setInt(1, 900001);
            ps.setString(2, randomText(4 << 20));
            ps.setBytes(3, randomBytes(4 << 20));
            ps.executeUpdate();
        }
        // a logical message: one record over thousands of pages; longer than a segment, so it crosses a
        // segment boundary (a long page header inside the record) wherever it starts
        int size = segSize + (1 << 20);
        try (PreparedStatement ps =
                     c.prepareStatement("SELECT pg_logical_emit_message(false, 'walshadow_parity', ?)")) {
            ps.setBytes(1, randomBytes(size));
            ps.execute();
        }
        exec("BEGIN", "SELECT pg_logical_emit_message(true, 'walshadow_parity', 'transactional')",
                "INSERT INTO " + geo + " VALUES (point(1, 1), ARRAY['x'])", "COMMIT");
        exec("VACUUM " + pk, "VACUUM " + geo);
        exec("CHECKPOINT", "SELECT pg_switch_wal()");

        // --- full-page images compressed with each method; a checkpoint first so the pages get new FPIs ---
        setCompression(compress.get(0)); // pglz, always there
        exec("CHECKPOINT",
                "UPDATE " + pk + " SET n = n + 1 WHERE id < 100000",
                "ALTER TABLE " + pk + " ADD COLUMN extra int DEFAULT 7",
                "UPDATE " + geo + " SET tags = tags || 'v'::text WHERE p[0] < 10",
                "ALTER TABLE " + pk + " DROP COLUMN extra");
        setCompression(compress.size() > 1 ? compress.get(1) : compress.get(0));
        exec("CHECKPOINT",
                "UPDATE " + nopk + " SET c = c + 1 WHERE a % 2 = 0",
                "ALTER TABLE " + nopk + " ALTER COLUMN c TYPE bigint"); // rewrite: XLOG/FPI per page
        setCompression(compress.get(compress.size() - 1));
        exec("CHECKPOINT",
                "UPDATE " + pk + " SET n = n + 1 WHERE id % 2 = 0",
                "VACUUM FULL " + pk);
        setCompression("off");

        // --- images logged only for wal_consistency_checking ("FPW for WAL verification") ---
        exec("SET wal_consistency_checking = 'heap,heap2,btree'",
                "INSERT INTO " + pk + " SELECT g, g, 'wcc', NULL FROM generate_series(200001, 200200) g",
                "UPDATE " + pk + " SET n = -n WHERE id BETWEEN 200001 AND 200100",
                "DELETE FROM " + pk + " WHERE id BETWEEN 200101 AND 200150",
                "RESET wal_consistency_checking");

        exec("TRUNCATE " + nopk, "DROP TABLE " + geo);
    }

    void cleanup() {
        quietly("ROLLBACK");
        quietly("RESET wal_consistency_checking");
        quietly("SELECT pg_replication_origin_session_reset()");
        quietly("SELECT pg_replication_origin_drop(roname) FROM pg_replication_origin"
                + " WHERE roname = '" + origin + "'");
        quietly("ROLLBACK PREPARED 'parity_c_" + sfx + "'");
        quietly("ROLLBACK PREPARED 'parity_r_" + sfx + "'");
        try {
            LocalPg.exec(c2, "ROLLBACK");
        } catch (SQLException ignored) {
            // best effort
        }
        quietly("DROP TABLE IF EXISTS " + pk + ", " + nopk + ", " + geo);
        try {
            LocalPg.exec(c, "ALTER SYSTEM RESET wal_compression", "SELECT pg_reload_conf()");
            if (initialCompression != null) {
                awaitSetting("wal_compression", initialCompression);
            }
        } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException("could not reset wal_compression", e);
        }
    }

    private void setCompression(String method) throws SQLException, InterruptedException {
        String value = booleanCompression ? (method.equals("off") ? "off" : "on") : method;
        exec("ALTER SYSTEM SET wal_compression = '" + value + "'", "SELECT pg_reload_conf()");
        awaitSetting("wal_compression", value);
    }

    /** pg_reload_conf() only signals: a backend applies the change at its next command after the signal. */
    private void awaitSetting(String name, String value) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        String now;
        while (!value.equals(now = LocalPg.queryString(c, "SHOW " + name))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " is still " + now + ", expected " + value);
            }
            Thread.sleep(20);
        }
    }

    private void copyRows(int n) throws SQLException, IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append("copied row ").append(i).append('\t').append(i % 500).append('\n');
        }
        CopyManager cm = c.unwrap(PGConnection.class).getCopyAPI();
        long copied = cm.copyIn("COPY " + nopk + " (b, c) FROM STDIN", new StringReader(sb.toString()));
        assertEquals(n, copied);
    }

    private String randomText(int n) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        char[] cs = new char[n];
        for (int i = 0; i < n; i++) {
            cs[i] = alphabet.charAt(random.nextInt(alphabet.length()));
        }
        return new String(cs);
    }

    private byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private void exec(String... sql) throws SQLException {
        LocalPg.exec(c, sql);
    }

    private void quietly(String sql) {
        try {
            LocalPg.exec(c, sql);
        } catch (SQLException ignored) {
            // cleanup is best effort: the object may not exist
        }
    }
}
