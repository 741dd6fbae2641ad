package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.buffer.TestMetricReporter;
import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Out-of-line TOAST values end to end: written and updated in one transaction, then left unchanged by UPDATEs of
 * other columns in later transactions (logical decoding would send "unchanged toast" there; the value must arrive
 * whole), across restarts, through DELETE, TRUNCATE, VACUUM FULL, a rewriting ALTER and DROP. Oracles: PostgreSQL's
 * tables (the harness compare) and PostgreSQL's own {@code pg_toast} relation against its ClickHouse mirror, TID by
 * TID.
 */
@ExpectedFaults("the job cancelled and restored, a TOAST value missing from the mirror stopping it")
class ToastEndToEndIT {
    /** Columns: pglz- and lz4-compressed text, incompressible bytea, jsonb, and text stored EXTERNAL (uncompressed). */
    private static final String COLUMNS = "id int PRIMARY KEY, note text, body text COMPRESSION pglz,"
            + " body4 text COMPRESSION lz4, raw bytea, doc jsonb, ext text";

    @BeforeEach
    void clearMetrics() {
        TestMetricReporter.METRICS.clear();
    }

    /** Values of row {@code g} ({@code salt} varies them between statements); each one goes out of line. */
    private static String values(String g, String salt) {
        // 16 KB of md5 blocks, each repeated 4 times: compresses well, still far above the 2 kB TOAST threshold
        String compressible = "(SELECT string_agg(md5((" + g + " * 1000 + g2 / 4)::text || '" + salt + "'), '')"
                + " FROM generate_series(1, 2000) g2)";
        return g + ", 'n' || " + g + ", " + compressible + ", upper(" + compressible + "),"
                + " decode((SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 200 + " + g + ")), 'hex'),"
                + " (SELECT jsonb_agg(jsonb_build_object('k', g2, 'v', md5((g2 % 40)::text || '" + salt + "')))"
                + " FROM generate_series(1, 300) g2),"
                + " repeat('" + salt + "', 3000) || " + g;
    }

    /** The second compression method: lz4, or pglz on a server built without lz4 (printed). */
    private static String lz4(E2e e) throws Exception {
        return LocalPg.lz4OrPglz(e.pg);
    }

    private static void create(E2e e, String table) throws Exception {
        String columns = COLUMNS.replace("COMPRESSION lz4", "COMPRESSION " + lz4(e));
        LocalPg.exec(e.pg, "CREATE TABLE " + e.schema + "." + table + " (" + columns + ")",
                "ALTER TABLE " + e.schema + "." + table + " ALTER COLUMN ext SET STORAGE EXTERNAL");
    }

    private static void insert(E2e e, String table, int from, int to, String salt) throws Exception {
        LocalPg.exec(e.pg, "INSERT INTO " + e.schema + "." + table + " SELECT " + values("g", salt)
                + " FROM generate_series(" + from + ", " + to + ") g");
    }

    private static long metric(String name) {
        return TestMetricReporter.value(name);
    }

    private static void assertNoFills() {
        assertEquals(0, metric("toast_values_filled_default"), "filled default");
        assertEquals(0, metric("toast_values_filled_superseded"), "filled superseded");
        assertEquals(0, metric("toast_values_filled_mismatch"), "filled mismatch");
        assertEquals(0, metric("toast_fetch_miss"), "fetch misses");
        assertEquals(0, metric("toast_chunks_malformed"), "malformed chunks");
    }

    /** Waits until the TOAST stage holds no chunks: the mirror is the only place left to find earlier values. */
    private static void awaitChunksInMirrorOnly(E2e e) throws Exception {
        e.awaitCaughtUp(Duration.ofSeconds(120));
        FlinkTestJobs.awaitTrue(() -> "buffered chunks pruned (" + metric("toast_buffered_chunks") + ")",
                Duration.ofSeconds(60), () -> {
                    e.failFastIfAJobFailed();
                    return metric("toast_buffered_chunks") == 0;
                });
    }

    private static int toastRelOid(E2e e, String table) throws Exception {
        return Integer.parseInt(LocalPg.queryString(e.pg, "SELECT reltoastrelid FROM pg_class WHERE oid = '"
                + e.schema + "." + table + "'::regclass"));
    }

    /**
     * PostgreSQL's TOAST relation of {@code table} (its live tuples: TID, chunk_id, chunk_seq, md5 of the data)
     * equals the live rows of its ClickHouse mirror; returns the number of chunks.
     */
    private static int assertMirrorEqualsPgToast(E2e e, String table) throws Exception {
        int toast = toastRelOid(e, table);
        List<String> pg = LocalPg.queryColumn(e.pg, "SELECT (ctid::text::point)[0]::bigint || ',' ||"
                + " (ctid::text::point)[1]::int || ',' || chunk_id || ',' || chunk_seq || ',' || md5(chunk_data)"
                + " FROM " + LocalPg.queryString(e.pg, "SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = '"
                + e.schema + "." + table + "'::regclass"));
        List<String> ch = new ArrayList<>();
        for (String[] r : e.ch.queryTsv("SELECT concat(toString(blkno), ',', toString(offnum), ',', toString(chunk_id),"
                + " ',', toString(chunk_seq), ',', lower(hex(MD5(chunk_data)))) AS r FROM `" + e.chDatabase
                + "`.`pg_toast_" + toast + "` FINAL WHERE _is_deleted = 0 ORDER BY r")) {
            ch.add(r[0]);
        }
        java.util.Set<String> missing = new java.util.TreeSet<>(pg);
        ch.forEach(missing::remove);
        java.util.Set<String> extra = new java.util.TreeSet<>(ch);
        pg.forEach(extra::remove);
        assertTrue(missing.isEmpty() && extra.isEmpty() && pg.size() == ch.size(), "mirror pg_toast_" + toast + " of "
                + table + " against PostgreSQL's TOAST relation (blkno,offnum,chunk_id,chunk_seq,md5): " + pg.size()
                + " chunks in PostgreSQL, " + ch.size() + " live in the mirror; missing " + missing + "; extra " + extra);
        return pg.size();
    }

    @Test
    void valuesArriveWholeWhenOtherColumnsChange() throws Exception {
        try (E2e e = new E2e("toast_whole")) {
            String t = e.schema + ".docs";
            create(e, "docs");
            e.start();
            // written and changed again in one transaction: the transaction's own chunks
            LocalPg.exec(e.pg, "BEGIN", "INSERT INTO " + t + " SELECT " + values("g", "a") + " FROM generate_series(1, 20) g",
                    "UPDATE " + t + " SET body = body || 'changed', doc = doc || '{\"x\": 1}' WHERE id <= 5", "COMMIT");
            assertEquals("20", LocalPg.queryString(e.pg, "SELECT count(*) FROM " + t + " WHERE pg_column_compression(body)"
                    + " = 'pglz' AND pg_column_compression(body4) = '" + lz4(e) + "' AND pg_column_compression(raw) IS NULL"
                    + " AND pg_column_compression(ext) IS NULL"), "both compression methods, and uncompressed values");
            // the server's default method for columns without their own (doc): lz4 for these rows
            LocalPg.exec(e.pg, "SET default_toast_compression = '" + lz4(e) + "'", "INSERT INTO " + t + " SELECT "
                    + values("g", "z") + " FROM generate_series(21, 24) g", "RESET default_toast_compression");
            assertEquals("4", LocalPg.queryString(e.pg, "SELECT count(*) FROM " + t + " WHERE id > 20 AND"
                    + " pg_column_compression(doc) = '" + lz4(e) + "'"));
            assertEquals("20", LocalPg.queryString(e.pg, "SELECT count(*) FROM " + t + " WHERE id <= 20 AND"
                    + " pg_column_compression(doc) = 'pglz'"));
            // aborted chunks never reach the mirror (the comparison with pg_toast below would show them)
            LocalPg.exec(e.pg, "BEGIN", "INSERT INTO " + t + " SELECT " + values("g", "x") + " FROM generate_series(30, 32) g",
                    "ROLLBACK", "BEGIN", "SAVEPOINT s", "INSERT INTO " + t + " SELECT " + values("g", "y")
                            + " FROM generate_series(33, 34) g", "ROLLBACK TO SAVEPOINT s", "UPDATE " + t
                            + " SET note = 'in the savepoint''s transaction' WHERE id = 19", "COMMIT");
            // right away, another column of other rows: the chunks are not committed in ClickHouse yet
            LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'soon' WHERE id BETWEEN 6 AND 10");
            awaitChunksInMirrorOnly(e);
            long fromMirrorBefore = metric("toast_values_resolved_mirror");
            // later: the values can only come from the mirror
            LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'later' WHERE id BETWEEN 11 AND 15 OR id IN (21, 22)",
                    "DELETE FROM " + t + " WHERE id IN (1, 16)",
                    "UPDATE " + t + " SET id = id + 100 WHERE id = 17"); // new key, values carried over
            e.awaitCaughtUp(Duration.ofSeconds(120));
            assertEquals(Map.of("docs", 22), e.assertAllTablesEqual());
            int chunks = assertMirrorEqualsPgToast(e, "docs");
            assertNoFills();
            // 8 rows (11..15, 17, 21, 22) x 5 out-of-line columns
            assertEquals(40, metric("toast_values_resolved_mirror") - fromMirrorBefore, "values fetched from the mirror");
            assertTrue(metric("toast_values_resolved_buffered") >= 24 * 5 + 5 * 5, "values from buffered chunks");
            System.out.println("TOAST: " + chunks + " chunks mirrored; " + TestMetricReporter.METRICS.keySet().stream()
                    .filter(k -> k.startsWith("toast_")).sorted().map(k -> k + "=" + metric(k)).toList());
        }
    }

    /**
     * Many small transactions that each keep unchanged out-of-line values (an UPDATE of another column, one row per
     * commit): their mirror lookups are batched across commits, so ClickHouse answers far fewer queries than there
     * are commits (one per commit before), and every value still arrives whole.
     */
    @Test
    void smallCommitsKeepingValuesShareMirrorLookups() throws Exception {
        try (E2e e = new E2e("toast_small")) {
            String t = e.schema + ".docs";
            create(e, "docs");
            e.start();
            int rows = 200;
            insert(e, "docs", 1, rows, "a");
            awaitChunksInMirrorOnly(e);
            long fetchesBefore = metric("toast_mirror_fetches");
            long fromMirrorBefore = metric("toast_values_resolved_mirror");
            String[] commits = new String[rows];
            for (int i = 0; i < rows; i++) {
                commits[i] = "UPDATE " + t + " SET note = 'commit " + i + "' WHERE id = " + (i + 1);
            }
            LocalPg.exec(e.pg, commits); // each its own transaction
            e.awaitCaughtUp(Duration.ofSeconds(120));
            assertEquals(Map.of("docs", rows), e.assertAllTablesEqual());
            assertMirrorEqualsPgToast(e, "docs");
            assertNoFills();
            assertEquals(rows * 5L, metric("toast_values_resolved_mirror") - fromMirrorBefore,
                    "every row's five out-of-line values from the mirror");
            long fetches = metric("toast_mirror_fetches") - fetchesBefore;
            System.out.println("TOAST: " + rows + " commits' values in " + fetches + " mirror queries");
            assertTrue(fetches > 0 && fetches <= rows / 2, rows + " commits took " + fetches + " mirror queries");
        }
    }

    /**
     * Also with the transaction buffer on two subtasks, rescaled to three at the savepoint: a commit's chunks and the
     * later commit that points to them drained by different subtasks, put back into commit order.
     */
    @ParameterizedTest(name = "buffer parallelism {0}, then {1}")
    @CsvSource({"1, 1", "2, 3"})
    void restartsKeepValuesWhole(int buffers, int buffersRestored) throws Exception {
        try (E2e e = new E2e("toast_restart")) {
            try {
                restarts(e, new String[] {"--xact.buffer.parallelism", String.valueOf(buffers)},
                        new String[] {"--xact.buffer.parallelism", String.valueOf(buffersRestored)});
            } finally {
                // a failed run must not leave the prepared transaction holding its locks
                for (String gid : LocalPg.queryColumn(e.pg, "SELECT gid FROM pg_prepared_xacts WHERE gid = '"
                        + e.name + "_gid'")) {
                    LocalPg.exec(e.pg, "ROLLBACK PREPARED '" + gid + "'");
                }
            }
        }
    }

    private static void restarts(E2e e, String[] options, String[] restored) throws Exception {
        String t = e.schema + ".docs";
        create(e, "docs");
        JobClient job = e.start(options);
        insert(e, "docs", 1, 10, "r");
        // chunks still buffered by the TOAST stage (not yet in ClickHouse) go into the savepoint; a prepared
        // transaction's chunks go into it with the transaction buffer's state
        LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'before savepoint' WHERE id <= 3",
                "BEGIN", "INSERT INTO " + t + " SELECT " + values("g", "p") + " FROM generate_series(20, 21) g",
                "UPDATE " + t + " SET doc = doc || '{\"p\": 1}' WHERE id = 20",
                "PREPARE TRANSACTION '" + e.name + "_gid'");
        Path savepoints = Files.createTempDirectory("walshadow-toast-sp");
        String savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(),
                SavepointFormatType.CANONICAL).get();
        LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'while stopped' WHERE id BETWEEN 4 AND 6");
        job = e.start(e.config(restored), Path.of(java.net.URI.create(savepoint)), 0);
        e.awaitCaughtUp(Duration.ofSeconds(120));
        LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'after restore' WHERE id BETWEEN 7 AND 8",
                "COMMIT PREPARED '" + e.name + "_gid'", "UPDATE " + t + " SET note = 'prepared, later' WHERE id = 21");
        insert(e, "docs", 11, 14, "s");
        e.awaitCaughtUp(Duration.ofSeconds(120));
        // killed (cancelled), restored from the latest checkpoint: the replayed commits fetch what they need again
        job.cancel().get();
        LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'while killed' WHERE id IN (9, 11, 12)");
        e.start(e.config(restored), FlinkTestJobs.latestCheckpoint(e.checkpoints), 0);
        e.awaitCaughtUp(Duration.ofSeconds(120));
        assertEquals(Map.of("docs", 16), e.assertAllTablesEqual());
        assertMirrorEqualsPgToast(e, "docs");
        assertNoFills();
    }

    @Test
    void truncateVacuumFullRewriteAndDrop() throws Exception {
        try (E2e e = new E2e("toast_life")) {
            String t = e.schema + ".docs";
            create(e, "docs");
            create(e, "gone");
            e.start();
            insert(e, "docs", 1, 10, "a");
            insert(e, "gone", 1, 3, "g");
            LocalPg.exec(e.pg, "TRUNCATE " + t);
            insert(e, "docs", 1, 6, "b");
            // TRUNCATE and refill in one transaction: the chunks land in the TOAST relation's new storage
            LocalPg.exec(e.pg, "BEGIN", "TRUNCATE " + t, "INSERT INTO " + t + " SELECT " + values("g", "c")
                    + " FROM generate_series(1, 8) g", "COMMIT");
            e.awaitCaughtUp(Duration.ofSeconds(120));
            assertEquals(8, e.assertAllTablesEqual().get("docs"));
            assertMirrorEqualsPgToast(e, "docs");

            // VACUUM FULL moves every chunk to new TIDs (same value ids, same TOAST oid); later updates of other
            // columns must still find the values
            LocalPg.exec(e.pg, "DELETE FROM " + t + " WHERE id IN (2, 3)", "VACUUM FULL " + t,
                    "UPDATE " + t + " SET note = 'between' WHERE id = 8");
            // (one rewrite at a time: a second one before the job reached the first fails closed, see DdlEndToEndIT)
            e.awaitCaughtUp(Duration.ofSeconds(120));
            LocalPg.exec(e.pg, "CLUSTER " + t + " USING docs_pkey");
            LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'after vacuum' WHERE id IN (4, 5)");
            awaitChunksInMirrorOnly(e);
            LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'later' WHERE id IN (6, 7)");
            e.awaitCaughtUp(Duration.ofSeconds(120));
            assertEquals(6, e.assertAllTablesEqual().get("docs"));
            assertMirrorEqualsPgToast(e, "docs");

            // a rewriting ALTER gives the table a new TOAST relation (new oid, new value ids)
            int oldToast = toastRelOid(e, "docs");
            LocalPg.exec(e.pg, "ALTER TABLE " + t + " ALTER COLUMN id TYPE bigint");
            LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'after rewrite' WHERE id IN (1, 4)");
            e.awaitCaughtUp(Duration.ofSeconds(120));
            assertTrue(toastRelOid(e, "docs") != oldToast, "the rewrite replaced the TOAST relation");
            assertEquals(6, e.assertAllTablesEqual().get("docs"));
            assertMirrorEqualsPgToast(e, "docs");

            // DROP: the mirrors of dropped TOAST relations are emptied once a later checkpoint completed
            int goneToast = toastRelOid(e, "gone");
            LocalPg.exec(e.pg, "DROP TABLE " + e.schema + ".gone");
            for (int rel : new int[] {oldToast, goneToast}) {
                String q = "SELECT count() FROM `" + e.chDatabase + "`.`pg_toast_" + rel + "`";
                FlinkTestJobs.awaitTrue(() -> "mirror pg_toast_" + rel + " retired (" + e.ch.queryString(q) + " rows)",
                        Duration.ofSeconds(60), () -> {
                            e.failFastIfAJobFailed();
                            try {
                                LocalPg.exec(e.pg, "INSERT INTO " + e.schema + "._marker DEFAULT VALUES");
                            } catch (java.sql.SQLException ex) {
                                throw new IllegalStateException(ex);
                            }
                            return "0".equals(e.ch.queryString(q));
                        });
            }
            assertNoFills();
        }
    }

    @Test
    void disabledModeFillsAndCounts() throws Exception {
        try (E2e e = new E2e("toast_off")) {
            String t = e.schema + ".docs";
            create(e, "docs");
            e.start("--toast.mode", "disabled");
            insert(e, "docs", 1, 6, "d");
            LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'unchanged toast' WHERE id IN (2, 3)");
            e.awaitCaughtUp(Duration.ofSeconds(120));
            assertEquals(10, metric("toast_values_filled_default"), "2 rows x 5 out-of-line columns filled");
            assertTrue(metric("toast_values_resolved_buffered") >= 30, "the inserting transaction's own chunks resolve");
            Map<String, String> filled = new TreeMap<>();
            for (String[] r : e.ch.queryTsv("SELECT id, concat(toString(isNull(body)), toString(isNull(body4)),"
                    + " toString(isNull(raw)), toString(isNull(doc)), toString(isNull(ext)), note) FROM `" + e.chDatabase
                    + "`.`" + e.schema + "__docs` FINAL WHERE _is_deleted = 0 ORDER BY id")) {
                filled.put(r[0], r[1]);
            }
            assertEquals(Map.of("1", "00000n1", "2", "11111unchanged toast", "3", "11111unchanged toast",
                    "4", "00000n4", "5", "00000n5", "6", "00000n6"), filled);
            assertEquals("0", e.ch.queryString("SELECT count() FROM system.tables WHERE database = '" + e.chDatabase
                    + "' AND name LIKE 'pg\\\\_toast\\\\_%'"), "no mirrors in mode disabled");
        }
    }

    @Test
    void aValueOlderThanTheJobWithoutASnapshotStopsItUnlessFillingIsAllowed() throws Exception {
        for (boolean fill : new boolean[] {false, true}) {
            try (E2e e = new E2e(fill ? "toast_nosnap_fill" : "toast_nosnap")) {
                String t = e.schema + ".docs";
                create(e, "docs");
                insert(e, "docs", 1, 2, "o"); // before the job, and no snapshot copies them
                List<String> opts = new ArrayList<>(List.of("--snapshot.mode", "never"));
                if (fill) {
                    opts.addAll(List.of("--toast.missing", "fill"));
                }
                e.start(opts.toArray(String[]::new));
                e.awaitCaughtUp(Duration.ofMinutes(2));
                LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'later' WHERE id = 1"); // its values are unchanged
                if (!fill) {
                    String failure = awaitFailure(e);
                    assertTrue(failure.contains("ToastResolutionException") && failure.contains(" of " + t + ".body ")
                            && failure.contains("holds no chunk of it at that LSN")
                            && failure.contains("--toast.missing fill"), failure);
                    assertEquals(0, metric("toast_values_filled_superseded"), "nothing filled");
                    e.cancelJobs();
                } else {
                    e.awaitCaughtUp(Duration.ofMinutes(2));
                    assertEquals(5, metric("toast_values_filled_superseded"), "the row's 5 out-of-line values");
                    assertEquals("1\tlater\t1", String.join("\t", e.ch.queryTsv("SELECT id, note, isNull(body) FROM `"
                            + e.chDatabase + "`.`" + e.schema + "__docs` FINAL WHERE _is_deleted = 0").get(0)));
                }
            }
        }
    }

    @Test
    void aVanishedMirrorOrAnOversizedValueStopsTheJob() throws Exception {
        try (E2e e = new E2e("toast_fail")) {
            String t = e.schema + ".docs";
            create(e, "docs");
            e.start();
            insert(e, "docs", 1, 3, "f");
            awaitChunksInMirrorOnly(e);
            // someone drops the mirror: filling would write NULL over values nothing later corrects
            e.ch.execute("DROP TABLE `" + e.chDatabase + "`.`pg_toast_" + toastRelOid(e, "docs") + "`");
            LocalPg.exec(e.pg, "UPDATE " + t + " SET note = 'x' WHERE id = 1");
            String failure = awaitFailure(e);
            assertTrue(failure.contains("ToastResolutionException") && failure.contains("is gone")
                    && failure.contains(e.schema + ".docs."), failure);
            e.cancelJobs();
        }
        try (E2e e = new E2e("toast_cap")) {
            create(e, "docs");
            e.start("--toast.value.max.bytes", "20000");
            insert(e, "docs", 1, 1, "c"); // the 32 kB body is over the cap
            String failure = awaitFailure(e);
            assertTrue(failure.contains("exceeds toast.value.max.bytes = 20000") && failure.contains(e.schema
                    + ".docs.body"), failure);
            boolean created = !"0".equals(e.ch.queryString("SELECT count() FROM system.tables WHERE database = '"
                    + e.chDatabase + "' AND name = '" + e.schema + "__docs'"));
            assertTrue(!created || "0".equals(e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`" + e.schema
                    + "__docs`")), "nothing of that transaction is visible");
        }
    }

    private static String awaitFailure(E2e e) throws Exception {
        String[] failure = {null};
        FlinkTestJobs.awaitTrue("the job fails", Duration.ofSeconds(60), () -> {
            try {
                e.failFastIfAJobFailed();
                return false;
            } catch (IllegalStateException ex) {
                failure[0] = ex.getMessage();
                return true;
            }
        });
        return failure[0];
    }
}
