package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.buffer.TestMetricReporter;
import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;

/**
 * The initial snapshot against real PostgreSQL, ClickHouse and a MiniCluster with RocksDB state: tables filled before
 * the job started arrive whole, with the writes made while they are copied, and a job killed in the middle of the
 * copy resumes from its checkpoint without copying a chunk twice.
 */
@ExpectedFaults("the job killed during the initial copy, copy chunks held and failed")
class SnapshotEndToEndIT {
    /** Rows of the large table ({@code -Dwalshadow.snapshot.rows}; the suite's run uses 5 M). */
    private static final long ROWS = Long.getLong("walshadow.snapshot.rows", 5_000_000L);

    @Test
    void preExistingTablesWithConcurrentWritesEqualPostgres() throws Exception {
        try (E2e e = new E2e("e2e_snap")) {
            String s = e.schema;
            long t0 = System.nanoTime();
            LocalPg.exec(e.pg,
                    "CREATE TABLE " + s + ".big (id bigint PRIMARY KEY, v text, n numeric(12,2), f float8, at timestamptz,"
                            + " d date, flag bool, u uuid, b bytea, tags text[], nums int[], j jsonb)",
                    "INSERT INTO " + s + ".big SELECT g, 'row ' || g, g / 7.0, g * 0.25, timestamptz '2020-01-01 00:00:00+00'"
                            + " + g * interval '1 second', date '2000-01-01' + (g % 9000)::int, g % 3 = 0,"
                            + " md5(g::text)::uuid, decode(lpad(to_hex(g), 8, '0'), 'hex'),"
                            + " CASE WHEN g % 5 = 0 THEN NULL ELSE ARRAY['a' || g, 'b,\"' || g] END, ARRAY[g::int % 1000, -1],"
                            + " CASE WHEN g % 4 = 0 THEN NULL ELSE jsonb_build_object('k', g) END"
                            + " FROM generate_series(1, " + ROWS + ") g",
                    // no primary key: replicated by TID, with duplicate rows
                    "CREATE TABLE " + s + ".keyless (a int, b text)",
                    "INSERT INTO " + s + ".keyless SELECT g % 500, 'k' || (g % 250) FROM generate_series(1, 20000) g",
                    "CREATE TABLE " + s + ".empty_t (id int PRIMARY KEY)",
                    "VACUUM ANALYZE " + s + ".big",
                    "CHECKPOINT"); // a new slot reserves WAL from the last redo point
            System.out.printf("snapshot e2e: %d rows loaded in %.1f s (%s)%n", ROWS, (System.nanoTime() - t0) / 1e9,
                    LocalPg.queryColumn(e.pg, "SELECT pg_size_pretty(pg_table_size('" + s + ".big'))"));

            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> error = new AtomicReference<>();
            AtomicLong writes = new AtomicLong();
            Thread writer = new Thread(() -> writes(s, ROWS, stop, error, writes), "snapshot-writer");

            TestMetricReporter.METRICS.clear(); // another test's job may have left its gauges
            long started = System.nanoTime();
            JobClient job = e.start(e.config("--snapshot.chunk.pages", String.valueOf(Math.max(64, ROWS / 4000)),
                    "--checkpoint.interval", "2s"), null, 0);
            writer.start();
            e.awaitSnapshotComplete(Duration.ofMinutes(20));
            double copySeconds = (System.nanoTime() - started) / 1e9;
            stop.set(true);
            writer.join();
            if (error.get() != null) {
                throw new AssertionError("workload failed", error.get());
            }
            e.awaitStreamCaughtUp(Duration.ofMinutes(5));
            long chunks = TestMetricReporter.value("chunks_total");
            System.out.printf("snapshot e2e: %d rows + 20000 copied in %.1f s (%.0f rows/s) in %d chunks, %d concurrent"
                    + " writes%n", ROWS, copySeconds, ROWS / copySeconds, chunks, writes.get());
            assertTrue(chunks > 2, "the large table is copied in several chunks: " + chunks);
            assertEquals(chunks, TestMetricReporter.value("chunks_done"));
            assertTrue(writes.get() > 0, "writes ran during the copy");

            int compared = 0;
            long step = 500_000;
            for (long lo = 0; lo <= ROWS + 100_000; lo += step) {
                compared += TableComparison.assertEqual(e.pg, e.ch, s, "big", "id >= " + lo + " AND id < " + (lo + step));
            }
            assertEquals(Long.parseLong(LocalPg.queryColumn(e.pg, "SELECT count(*) FROM " + s + ".big").get(0)), compared);
            assertTrue(TableComparison.assertEqual(e.pg, e.ch, s, "keyless") > 19_000);
            assertEquals(0, TableComparison.assertEqual(e.pg, e.ch, s, "empty_t"));
            // the overlap rule: what the snapshot copied is versioned below every WAL change of the stream
            String version = e.ch.queryString("SELECT min(_lsn) FROM `" + e.chDatabase + "`.`" + s + "__big`");
            String firstWal = e.ch.queryString("SELECT min(_lsn) FROM `" + e.chDatabase + "`.`" + s + "__big` WHERE _xid <> 0");
            assertTrue(Long.parseLong(version) < Long.parseLong(firstWal), version + " < " + firstWal);
            job.cancel().get();
        }
    }

    /** Inserts above, updates and deletes across the table, in small transactions, until stopped. */
    private static void writes(String s, long rows, AtomicBoolean stop, AtomicReference<Throwable> error, AtomicLong n) {
        Random rnd = new Random(42);
        long next = rows + 1;
        try (Connection c = LocalPg.connect(); Statement st = c.createStatement()) {
            while (!stop.get()) {
                long id = 1 + (long) (rnd.nextDouble() * rows);
                switch (rnd.nextInt(5)) {
                    case 0 -> st.execute("INSERT INTO " + s + ".big (id, v, n, tags) VALUES (" + next++ + ", 'new', 1.5,"
                            + " '{x,y}')");
                    case 1 -> st.execute("DELETE FROM " + s + ".big WHERE id = " + id);
                    case 2 -> st.execute("UPDATE " + s + ".keyless SET b = b || '+' WHERE ctid = (SELECT ctid FROM " + s
                            + ".keyless WHERE a = " + rnd.nextInt(500) + " LIMIT 1)");
                    default -> st.execute("UPDATE " + s + ".big SET v = 'upd ' || id, n = n + 1, nums = nums || 7"
                            + " WHERE id BETWEEN " + id + " AND " + (id + 20));
                }
                n.incrementAndGet();
                Thread.sleep(2);
            }
        } catch (Throwable t) {
            error.set(t);
        }
    }

    @Test
    void killedMidSnapshotResumesFromItsCheckpointWithoutCopyingAChunkTwice() throws Exception {
        try (E2e e = new E2e("e2e_snapkill")) {
            String s = e.schema;
            long rows = 400_000;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, pad text)",
                    "INSERT INTO " + s + ".t SELECT g, repeat('x', 100) || g FROM generate_series(1, " + rows + ") g",
                    "CHECKPOINT");
            String[] opts = {"--snapshot.chunk.pages", "200", "--snapshot.fetch.rows", "500", "--checkpoint.interval",
                    "1s", "--snapshot.parallelism", "1"};
            // merges off: a row copied twice would stay visible as two rows
            e.ch.execute("SYSTEM STOP MERGES");
            try {
                Path checkpoint = killMidSnapshot(e, opts, 3); // restored from there: nothing committed is re-read
                long doneAtKill = TestMetricReporter.value("chunks_done");
                long total = TestMetricReporter.value("chunks_total");
                assertTrue(doneAtKill < total, "killed before the end: " + doneAtKill + " of " + total);

                JobClient second = e.start(e.config(opts), checkpoint, 0);
                e.awaitSnapshotComplete(Duration.ofMinutes(5));
                e.awaitStreamCaughtUp(Duration.ofMinutes(3));
                assertEquals(total, TestMetricReporter.value("chunks_total"), "the resumed job keeps the plan");
                String dest = "`" + e.chDatabase + "`.`" + s + "__t`";
                // each row copied by the snapshot exactly once (merges are off, so copies would show)
                assertEquals(String.valueOf(rows), e.ch.queryString("SELECT count() FROM " + dest + " WHERE _xid = 0"));
                assertEquals(String.valueOf(rows), e.ch.queryString("SELECT uniqExact(id) FROM " + dest + " WHERE _xid = 0"));
                e.ch.execute("SYSTEM START MERGES");
                assertEquals(rows, TableComparison.assertEqual(e.pg, e.ch, s, "t"));
                second.cancel().get();
            } finally {
                e.ch.execute("SYSTEM START MERGES");
            }
        }
    }

    @Test
    void preWindowToastValuesResolveWhenLaterUpdatesLeaveThemUnchanged() throws Exception {
        try (E2e e = new E2e("e2e_snaptoast")) {
            String s = e.schema;
            int rows = 300;
            // ~40 kB of incompressible text per value (stored out of line, uncompressed), and a bytea
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".docs (id int PRIMARY KEY, n int, body text, blob bytea)",
                    "ALTER TABLE " + s + ".docs ALTER COLUMN blob SET STORAGE EXTERNAL",
                    "INSERT INTO " + s + ".docs SELECT g, 0, (SELECT string_agg(md5(g::text || ':' || i), '')"
                            + " FROM generate_series(1, 1250) i), decode(repeat(lpad(to_hex(g), 8, '0'), 1000), 'hex')"
                            + " FROM generate_series(1, " + rows + ") g",
                    "CREATE TABLE " + s + ".plain (id int PRIMARY KEY, note text)", // no TOAST chunks at all
                    "INSERT INTO " + s + ".plain VALUES (1, 'short')",
                    "CHECKPOINT");
            long toastRows = Long.parseLong(LocalPg.queryColumn(e.pg, "SELECT count(*) FROM pg_toast.pg_toast_"
                    + LocalPg.queryColumn(e.pg, "SELECT '" + s + ".docs'::regclass::oid").get(0)).get(0));
            String toastOid = LocalPg.queryColumn(e.pg, "SELECT reltoastrelid::text FROM pg_class WHERE oid = '" + s
                    + ".docs'::regclass").get(0);
            TestMetricReporter.METRICS.clear();
            JobClient job = e.start(e.config("--snapshot.chunk.pages", "16", "--checkpoint.interval", "2s"), null, 0);
            // at once, while the snapshot may still be copying: only n changes, body and blob stay TOAST pointers
            try (Connection c = LocalPg.connect(); Statement st = c.createStatement()) {
                for (int i = 1; i <= rows; i += 3) {
                    st.execute("UPDATE " + s + ".docs SET n = n + 1 WHERE id = " + i);
                }
                st.execute("UPDATE " + s + ".plain SET note = 'changed'");
            }
            e.awaitSnapshotComplete(Duration.ofMinutes(5));
            try (Connection c = LocalPg.connect(); Statement st = c.createStatement()) {
                st.execute("UPDATE " + s + ".docs SET n = n + 10 WHERE id % 2 = 0"); // after the copy
            }
            e.awaitStreamCaughtUp(Duration.ofMinutes(3));
            assertEquals(rows, TableComparison.assertEqual(e.pg, e.ch, s, "docs"));
            assertEquals(1, TableComparison.assertEqual(e.pg, e.ch, s, "plain"));
            long fromMirror = TestMetricReporter.value("toast_values_resolved_mirror");
            assertTrue(fromMirror >= rows, "unchanged old values came from the seeded mirror: " + fromMirror);
            assertNoToastValueFilled();
            // the mirror holds each chunk once at the snapshot's version (merges may fold copies; count distinct TIDs)
            assertEquals(String.valueOf(toastRows), e.ch.queryString("SELECT uniqExact(blkno, offnum) FROM `"
                    + e.chDatabase + "`.`pg_toast_" + toastOid + "` WHERE _lsn < " + firstWalLsn(e, "docs")));
            job.cancel().get();
        }
    }

    @Test
    void tableIncludedWhenTheJobIsRestoredArrivesWholeAndOneExcludedStops() throws Exception {
        try (E2e e = new E2e("e2e_snapinc")) {
            String s = e.schema;
            int rows = 200_000;
            int docs = 200;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".a (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + s + ".a SELECT g, 'a' || g FROM generate_series(1, 1000) g",
                    "CREATE TABLE " + s + ".b (id int PRIMARY KEY, n int, v text, body text)",
                    // ~40 kB of incompressible text in some rows: out of line, in pg_toast before b is included
                    "INSERT INTO " + s + ".b SELECT g, 0, 'b' || g, CASE WHEN g <= " + docs + " THEN (SELECT"
                            + " string_agg(md5(g::text || ':' || i), '') FROM generate_series(1, 1250) i) END"
                            + " FROM generate_series(1, " + rows + ") g",
                    "CHECKPOINT");
            String first = s + "._marker," + s + ".a";
            String[] opts = {"--snapshot.chunk.pages", "256", "--checkpoint.interval", "1s"};
            TestMetricReporter.METRICS.clear();
            JobClient job = e.start(e.config(concat(opts, "--tables.include", first)), null, 0);
            e.awaitSnapshotComplete(Duration.ofMinutes(3));
            LocalPg.exec(e.pg, "UPDATE " + s + ".b SET v = 'while excluded' WHERE id % 10 = 0",
                    "UPDATE " + s + ".a SET v = 'replicated' WHERE id <= 10");
            e.awaitStreamCaughtUp(Duration.ofMinutes(2));
            assertEquals(1000, TableComparison.assertEqual(e.pg, e.ch, s, "a"));
            assertEquals("0", e.ch.queryString("SELECT count() FROM system.tables WHERE database = '" + e.chDatabase
                    + "' AND name = '" + s + "__b'"), "b is not replicated by the first job");
            Path savepoint = E2e.stopWithSavepoint(job);
            LocalPg.exec(e.pg, "DELETE FROM " + s + ".b WHERE id % 97 = 0", "UPDATE " + s + ".b SET n = 1 WHERE id <= 50");

            // restored with b included and a excluded; writes to both go on while b is copied
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> error = new AtomicReference<>();
            AtomicLong writes = new AtomicLong();
            Thread writer = new Thread(() -> {
                Random rnd = new Random(7);
                int next = rows + 1;
                try (Connection c = LocalPg.connect(); Statement st = c.createStatement()) {
                    while (!stop.get()) {
                        int id = 1 + rnd.nextInt(rows);
                        switch (rnd.nextInt(4)) {
                            case 0 -> st.execute("INSERT INTO " + s + ".b (id, n, v) VALUES (" + next++ + ", 0, 'new')");
                            case 1 -> st.execute("DELETE FROM " + s + ".b WHERE id = " + id);
                            default -> st.execute("UPDATE " + s + ".b SET n = n + 1 WHERE id BETWEEN " + id + " AND "
                                    + (id + 5));
                        }
                        writes.incrementAndGet();
                        Thread.sleep(2);
                    }
                } catch (Throwable t) {
                    error.set(t);
                }
            }, "included-writer");
            TestMetricReporter.METRICS.clear();
            JobClient second = e.start(e.config(concat(opts, "--tables.include", s + ".*", "--tables.exclude",
                    s + ".a")), savepoint, 0);
            writer.start();
            // large values of b left unchanged by updates of another column, right after the restore
            LocalPg.exec(e.pg, "UPDATE " + s + ".b SET n = n + 100 WHERE id <= " + docs,
                    "UPDATE " + s + ".a SET v = 'after the exclusion' WHERE id <= 10");
            e.awaitSnapshotComplete(Duration.ofMinutes(5)); // every round: the newly included table's too
            stop.set(true);
            writer.join();
            if (error.get() != null) {
                throw new AssertionError("workload failed", error.get());
            }
            LocalPg.exec(e.pg, "UPDATE " + s + ".b SET n = n + 1000 WHERE id <= " + docs); // after the copy
            e.awaitStreamCaughtUp(Duration.ofMinutes(3));
            assertTrue(writes.get() > 0, "writes ran during the copy");
            long inPg = Long.parseLong(LocalPg.queryColumn(e.pg, "SELECT count(*) FROM " + s + ".b").get(0));
            assertEquals(inPg, TableComparison.assertEqual(e.pg, e.ch, s, "b"));
            assertEquals(1, TestMetricReporter.value("catalog_relations_entered_filter") > 0 ? 1 : 0,
                    "b entered the filter at the restore");
            assertTrue(TestMetricReporter.value("catalog_relations_left_filter") > 0, "a left it");
            // a is no longer replicated: the update after the restore did not arrive, the one before it did
            assertEquals("replicated", e.ch.queryString("SELECT argMax(v, _lsn) FROM `" + e.chDatabase + "`.`" + s
                    + "__a` WHERE id = 1"));
            // b's copy is versioned below every WAL change applied to it, and its old values came from the mirror
            String version = e.ch.queryString("SELECT min(_lsn) FROM `" + e.chDatabase + "`.`" + s + "__b`");
            assertTrue(Long.parseLong(version) < Long.parseLong(firstWalLsn(e, "b")), version + " < WAL");
            long fromMirror = TestMetricReporter.value("toast_values_resolved_mirror");
            assertTrue(fromMirror >= docs, "unchanged old values came from the mirror seeded at the restore: "
                    + fromMirror);
            assertNoToastValueFilled();
            System.out.printf("snapshot e2e: table included at the restore copied (%d rows now, %d concurrent writes,"
                    + " %d chunks)%n", inPg, writes.get(), TestMetricReporter.value("chunks_total"));
            second.cancel().get();
        }
    }

    @Test
    void killedWhileCopyingANewlyIncludedTableResumesWithoutCopyingAChunkTwice() throws Exception {
        try (E2e e = new E2e("e2e_snapinckill")) {
            String s = e.schema;
            long rows = 300_000;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".a (id int PRIMARY KEY)", "INSERT INTO " + s + ".a VALUES (1)",
                    "CREATE TABLE " + s + ".b (id int PRIMARY KEY, pad text)",
                    "INSERT INTO " + s + ".b SELECT g, repeat('x', 100) || g FROM generate_series(1, " + rows + ") g",
                    "CHECKPOINT");
            String[] opts = {"--snapshot.chunk.pages", "200", "--snapshot.fetch.rows", "500", "--checkpoint.interval",
                    "1s", "--snapshot.parallelism", "1"};
            TestMetricReporter.METRICS.clear();
            JobClient job = e.start(e.config(concat(opts, "--tables.include", s + "._marker," + s + ".a")), null, 0);
            e.awaitSnapshotComplete(Duration.ofMinutes(3));
            e.awaitStreamCaughtUp(Duration.ofMinutes(2));
            long firstChunks = TestMetricReporter.value("chunks_total");
            Path savepoint = E2e.stopWithSavepoint(job);
            try (var old = java.nio.file.Files.walk(e.checkpoints)) { // the restored job's checkpoints only, below
                old.sorted(java.util.Comparator.reverseOrder()).filter(p -> !p.equals(e.checkpoints))
                        .forEach(p -> p.toFile().delete());
            }
            String[] widened = concat(opts, "--tables.include", s + ".*");
            e.ch.execute("SYSTEM STOP MERGES"); // a row copied twice would stay visible as two rows
            try {
                Path checkpoint = killMidSnapshot(e, widened, savepoint, (int) firstChunks + 3);
                long total = TestMetricReporter.value("chunks_total");
                assertTrue(TestMetricReporter.value("chunks_done") < total, "killed before the end of the copy");
                JobClient third = e.start(e.config(widened), checkpoint, 0);
                e.awaitSnapshotComplete(Duration.ofMinutes(5));
                LocalPg.exec(e.pg, "UPDATE " + s + ".b SET pad = 'after' WHERE id <= 100");
                e.awaitStreamCaughtUp(Duration.ofMinutes(3));
                assertEquals(total, TestMetricReporter.value("chunks_total"), "the resumed job keeps the round's plan");
                String dest = "`" + e.chDatabase + "`.`" + s + "__b`";
                assertEquals(String.valueOf(rows), e.ch.queryString("SELECT count() FROM " + dest + " WHERE _xid = 0"));
                assertEquals(String.valueOf(rows), e.ch.queryString("SELECT uniqExact(id) FROM " + dest + " WHERE _xid = 0"));
                e.ch.execute("SYSTEM START MERGES");
                assertEquals(rows, TableComparison.assertEqual(e.pg, e.ch, s, "b"));
                assertEquals(1, TableComparison.assertEqual(e.pg, e.ch, s, "a"));
                third.cancel().get();
            } finally {
                e.ch.execute("SYSTEM START MERGES");
            }
        }
    }

    private static void assertNoToastValueFilled() {
        assertEquals(0, TestMetricReporter.value("toast_values_filled_superseded"), "no value filled");
        assertEquals(0, TestMetricReporter.value("toast_values_filled_mismatch"), "no value filled");
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void filterChangedWhileTheFirstCopyIsUnfinishedCopiesTheNewTableAndDropsTheExcludedOnesChunks() throws Exception {
        try (E2e e = new E2e("e2e_snapmidinc")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".a (id int PRIMARY KEY, pad text)",
                    "INSERT INTO " + s + ".a SELECT g, repeat('a', 100) || g FROM generate_series(1, 150000) g",
                    "CREATE TABLE " + s + ".c (id int PRIMARY KEY, pad text)",
                    "INSERT INTO " + s + ".c SELECT g, repeat('c', 100) || g FROM generate_series(1, 150000) g",
                    "CREATE TABLE " + s + ".b (id int PRIMARY KEY, pad text)",
                    "INSERT INTO " + s + ".b SELECT g, repeat('b', 100) || g FROM generate_series(1, 50000) g",
                    "CHECKPOINT");
            String[] opts = {"--snapshot.chunk.pages", "100", "--snapshot.fetch.rows", "200", "--checkpoint.interval",
                    "1s", "--snapshot.parallelism", "1"};
            Path checkpoint = killMidSnapshot(e, concat(opts, "--tables.include", s + "._marker," + s + ".a," + s
                    + ".c"), 3);
            long plannedFirst = TestMetricReporter.value("chunks_total");
            // restored with b added and c taken out while a's and c's chunks are still being copied
            TestMetricReporter.METRICS.clear();
            JobClient second = e.start(e.config(concat(opts, "--tables.include", s + ".*", "--tables.exclude",
                    s + ".c")), checkpoint, 0);
            LocalPg.exec(e.pg, "UPDATE " + s + ".a SET pad = 'after' WHERE id % 1000 = 0",
                    "UPDATE " + s + ".b SET pad = 'after' WHERE id % 1000 = 0",
                    "UPDATE " + s + ".c SET pad = 'after' WHERE id % 1000 = 0");
            e.awaitSnapshotComplete(Duration.ofMinutes(5));
            e.awaitStreamCaughtUp(Duration.ofMinutes(3));
            assertEquals(150000, TableComparison.assertEqual(e.pg, e.ch, s, "a"));
            assertEquals(50000, TableComparison.assertEqual(e.pg, e.ch, s, "b"));
            assertTrue(TestMetricReporter.value("chunks_total") > plannedFirst, "b's chunks were added to the plan");
            assertEquals(TestMetricReporter.value("chunks_total"), TestMetricReporter.value("chunks_done"));
            // c: what was copied of it before the change stays (its destination exists only if a chunk got there)
            String c = "`" + e.chDatabase + "`.`" + s + "__c`";
            boolean cExists = "1".equals(e.ch.queryString("SELECT count() FROM system.tables WHERE database = '"
                    + e.chDatabase + "' AND name = '" + s + "__c'"));
            if (cExists) {
                assertEquals("0", e.ch.queryString("SELECT count() FROM " + c + " FINAL WHERE pad = 'after'"),
                        "c is no longer replicated");
                long copiedOfC = Long.parseLong(e.ch.queryString("SELECT count() FROM " + c + " FINAL"));
                assertTrue(copiedOfC < 150000, "c's copy stopped with the filter change: " + copiedOfC);
            }
            second.cancel().get();
        }
    }

    @Test
    void tableIncludedAgainLosesTheRowsDeletedWhileItWasExcluded() throws Exception {
        try (E2e e = new E2e("e2e_snapreinc")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".r (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + s + ".r SELECT g, 'r' || g FROM generate_series(1, 1000) g", "CHECKPOINT");
            TestMetricReporter.METRICS.clear();
            JobClient job = e.start(e.config(), null, 0);
            e.awaitSnapshotComplete(Duration.ofMinutes(3));
            LocalPg.exec(e.pg, "UPDATE " + s + ".r SET v = 'replicated' WHERE id <= 300");
            e.awaitStreamCaughtUp(Duration.ofMinutes(2));
            assertEquals(1000, TableComparison.assertEqual(e.pg, e.ch, s, "r"));
            for (String[] filter : List.of(new String[] {"--tables.include", s + "._marker"},
                    new String[] {"--tables.include", s + ".*"})) {
                Path sp = E2e.stopWithSavepoint(job);
                TestMetricReporter.METRICS.clear();
                job = e.start(e.config(filter), sp, 0);
                e.awaitSnapshotComplete(Duration.ofMinutes(3));
                e.awaitStreamCaughtUp(Duration.ofMinutes(2));
                if (filter[1].endsWith("_marker")) { // excluded now: what happens to r is not replicated
                    LocalPg.exec(e.pg, "DELETE FROM " + s + ".r WHERE id <= 100",
                            "UPDATE " + s + ".r SET v = 'while excluded' WHERE id BETWEEN 101 AND 200");
                    e.awaitStreamCaughtUp(Duration.ofMinutes(2));
                    assertEquals("1000", e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`" + s
                            + "__r` FINAL WHERE NOT _is_deleted"), "r stays as it was while excluded");
                }
            }
            FlinkTestJobs.awaitTrue(() -> "the mutation removing r's old rows is done", Duration.ofMinutes(2),
                    () -> "0".equals(e.ch.queryString("SELECT count() FROM system.mutations WHERE database = '"
                            + e.chDatabase + "' AND NOT is_done")));
            assertEquals(900, TableComparison.assertEqual(e.pg, e.ch, s, "r"));
            job.cancel().get();
        }
    }

    @Test
    void aTransactionRunningAtTheStartIsWaitedForAndItsRowsWrittenBeforeTheStartArrive() throws Exception {
        try (E2e e = new E2e("e2e_snapxact")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + s + ".t SELECT g, 'v' || g FROM generate_series(1, 1000) g", "CHECKPOINT");
            try (Connection open = LocalPg.connect(); Statement st = open.createStatement()) {
                // written before the job's start point, committed after it: its insert record precedes the WAL the
                // job decodes, so only a snapshot taken after the commit can carry the row
                open.setAutoCommit(false);
                st.execute("INSERT INTO " + s + ".t VALUES (5000, 'before the start, committed after')");
                st.execute("UPDATE " + s + ".t SET v = 'updated before the start' WHERE id = 1");
                TestMetricReporter.METRICS.clear();
                JobClient job = e.start(e.config(), null, 0);
                FlinkTestJobs.awaitTrue(() -> "the export waits for the open transaction", Duration.ofMinutes(2), () -> {
                    e.failFastIfAJobFailed();
                    return TestMetricReporter.value("waiting_for_start_transactions_ms") > 2000;
                });
                assertEquals(0, TestMetricReporter.value("chunks_done"), "nothing copied while it runs");
                open.commit();
                e.awaitSnapshotComplete(Duration.ofMinutes(2));
                assertEquals(0, TestMetricReporter.value("waiting_for_start_transactions_ms"));
                e.awaitStreamCaughtUp(Duration.ofMinutes(2));
                assertEquals(1001, TableComparison.assertEqual(e.pg, e.ch, s, "t"));
                job.cancel().get();
            }
        }
    }

    @Test
    void rowsWaitingForASlowToastSeedAreHeldWhileCheckpointsGoOnAndSurviveARestore() throws Exception {
        try (E2e e = new E2e("e2e_snapseedwait")) {
            String s = e.schema;
            int rows = 60;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".docs (id int PRIMARY KEY, n int, body text)",
                    "INSERT INTO " + s + ".docs SELECT g, 0, (SELECT string_agg(md5(g::text || ':' || i), '')"
                            + " FROM generate_series(1, 1250) i) FROM generate_series(1, " + rows + ") g",
                    "CHECKPOINT");
            long seedMs = 20_000; // longer than a few checkpoint intervals: a blocked stage would stall them
            java.util.concurrent.atomic.AtomicBoolean slowed = new java.util.concurrent.atomic.AtomicBoolean();
            io.walshadow.clickhouse.Faults.install(point -> {
                if (point.equals("snapshot.toast.seed") && slowed.compareAndSet(false, true)) {
                    try {
                        Thread.sleep(seedMs);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            try {
                TestMetricReporter.METRICS.clear();
                JobClient job = e.start(e.config("--checkpoint.interval", "1s"), null, 0);
                // unchanged large values: the rows need the seed, which is held up
                LocalPg.exec(e.pg, "UPDATE " + s + ".docs SET n = n + 1");
                FlinkTestJobs.awaitTrue(() -> "rows held for the seed", Duration.ofMinutes(2), () -> {
                    e.failFastIfAJobFailed();
                    return TestMetricReporter.value("toast_held_for_seed") > 0;
                });
                long[] ids = {-1, -1}; // the first checkpoint seen while held, the latest
                FlinkTestJobs.awaitTrue(() -> "checkpoints complete while rows are held (" + ids[0] + ", " + ids[1]
                        + ")", Duration.ofSeconds(15), () -> {
                            e.failFastIfAJobFailed();
                            ids[1] = checkpointId(e);
                            if (ids[0] < 0) {
                                ids[0] = ids[1];
                            }
                            return ids[0] >= 0 && ids[1] >= ids[0] + 3;
                        });
                long held = TestMetricReporter.value("toast_held_for_seed");
                assertTrue(held > 0, "still held: the seed is not done");
                // killed while holding: the held rows are in the checkpoint, and the restored job resumes them
                job.cancel().get();
                TestMetricReporter.METRICS.clear();
                job = e.start(e.config("--checkpoint.interval", "1s"), latestCheckpoint(e.checkpoints), 0);
                e.awaitSnapshotComplete(Duration.ofMinutes(3));
                e.awaitStreamCaughtUp(Duration.ofMinutes(2));
                assertEquals(0, TestMetricReporter.value("toast_held_for_seed"));
                assertEquals(rows, TableComparison.assertEqual(e.pg, e.ch, s, "docs"));
                assertTrue(TestMetricReporter.value("toast_values_resolved_mirror") >= rows);
                assertNoToastValueFilled();
                System.out.printf("snapshot e2e: %d events held for a slowed TOAST seed while checkpoints %d..%d"
                        + " completed, then a restore%n", held, ids[0], ids[1]);
                job.cancel().get();
            } finally {
                io.walshadow.clickhouse.Faults.install(null);
            }
        }
    }

    /** The newest completed checkpoint's id, -1 while there is none. */
    private static long checkpointId(E2e e) {
        Path p = latestCheckpoint(e.checkpoints);
        return p == null ? -1 : Long.parseLong(p.getFileName().toString().substring("chk-".length()));
    }

    /** The smallest _lsn of a WAL change (not the snapshot's) in the table's destination. */
    private static String firstWalLsn(E2e e, String table) {
        return e.ch.queryString("SELECT min(_lsn) FROM `" + e.chDatabase + "`.`" + e.schema + "__" + table
                + "` WHERE _xid <> 0");
    }

    @Test
    void ddlWhileAJobIsDownMidSnapshotIsReadAroundByTheResumedCopy() throws Exception {
        try (E2e e = new E2e("e2e_snapddl")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, pad text, note text)",
                    "INSERT INTO " + s + ".t SELECT g, repeat('x', 100) || g, 'n' || g FROM generate_series(1, 200000) g",
                    "CREATE TABLE " + s + ".rw (id int PRIMARY KEY, v int)",
                    "INSERT INTO " + s + ".rw SELECT g, g FROM generate_series(1, 50000) g",
                    "CHECKPOINT");
            String[] opts = {"--snapshot.chunk.pages", "100", "--snapshot.fetch.rows", "200", "--checkpoint.interval",
                    "1s", "--snapshot.parallelism", "1"};
            Path checkpoint = killMidSnapshot(e, opts, 3);
            // while the job is down: columns added, renamed, dropped (read by attnum from the fresh export on), and
            // a rewrite of a table whose chunks are not read yet (skipped: the stream re-inserts its rows)
            LocalPg.exec(e.pg, "ALTER TABLE " + s + ".t ADD COLUMN extra int DEFAULT 7",
                    "ALTER TABLE " + s + ".t RENAME COLUMN pad TO pad2",
                    "ALTER TABLE " + s + ".t DROP COLUMN note",
                    "UPDATE " + s + ".t SET extra = 1 WHERE id % 997 = 0",
                    "ALTER TABLE " + s + ".rw ALTER COLUMN v TYPE bigint",
                    "UPDATE " + s + ".rw SET v = v * 100000 WHERE id % 13 = 0");
            e.start(e.config(opts), checkpoint, 0);
            e.awaitSnapshotComplete(Duration.ofMinutes(4));
            e.awaitStreamCaughtUp(Duration.ofMinutes(3));
            Map<String, Integer> compared = e.assertAllTablesEqual();
            assertEquals(200000, compared.get("t"));
            assertEquals(50000, compared.get("rw"));
        }
    }

    @Test
    void ddlDuringTheCopyWaitsForOneChunkNotTheWholeCopyAndTheEndStateEqualsPostgres() throws Exception {
        try (E2e e = new E2e("e2e_snapddlrun")) {
            String s = e.schema;
            // in plan order (by oid): early is copied before the DDL, t around it, the others after it
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".early (id int PRIMARY KEY, v int, w text)",
                    "INSERT INTO " + s + ".early SELECT g, g, 'w' || g FROM generate_series(1, 5000) g",
                    "CREATE TABLE " + s + ".t (id int PRIMARY KEY, pad text, note text NOT NULL, n int)",
                    "INSERT INTO " + s + ".t SELECT g, repeat('x', 100) || g, 'n' || g, g FROM generate_series(1, 150000) g",
                    "CREATE TABLE " + s + ".nk (a int, b text)",
                    "INSERT INTO " + s + ".nk SELECT g % 300, 'b' || g FROM generate_series(1, 20000) g",
                    "CREATE TABLE " + s + ".tr (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + s + ".tr SELECT g, 'v' || g FROM generate_series(1, 20000) g",
                    "CREATE TABLE " + s + ".gone (id int PRIMARY KEY)",
                    "INSERT INTO " + s + ".gone SELECT generate_series(1, 5000)",
                    "CREATE TABLE " + s + ".rw (id int PRIMARY KEY, v int)",
                    "INSERT INTO " + s + ".rw SELECT g, g FROM generate_series(1, 20000) g",
                    "CHECKPOINT");
            String[] opts = {"--snapshot.chunk.pages", "100", "--snapshot.fetch.rows", "200", "--checkpoint.interval",
                    "1s", "--snapshot.parallelism", "1"};
            // each table chunk takes at least 250 ms with its table locked: the copy outlasts the DDL below
            io.walshadow.clickhouse.Faults.install(point -> {
                if (point.equals("snapshot.chunk.locked")) {
                    try {
                        Thread.sleep(250);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            try {
                TestMetricReporter.METRICS.clear();
                e.start(e.config(opts), null, 0);
                FlinkTestJobs.awaitTrue(() -> "the copy is under way", Duration.ofMinutes(3), () -> {
                    e.failFastIfAJobFailed();
                    return TestMetricReporter.value("chunks_done") >= 8; // TOAST chunks, early, some of t
                });
                List<String> ddl = List.of(
                        "ALTER TABLE " + s + ".t ADD COLUMN extra int DEFAULT 7",
                        "UPDATE " + s + ".t SET extra = 1, n = -n WHERE id % 1000 = 0",
                        "ALTER TABLE " + s + ".t RENAME COLUMN pad TO pad2",
                        "INSERT INTO " + s + ".t (id, pad2, note) VALUES (-1, 'new', 'row')",
                        "ALTER TABLE " + s + ".t DROP COLUMN note",
                        "ALTER TABLE " + s + ".t RENAME TO t2",
                        "DELETE FROM " + s + ".t2 WHERE id % 1000 = 1",
                        "ALTER TABLE " + s + ".early ALTER COLUMN v TYPE bigint",
                        "UPDATE " + s + ".early SET v = v * 10000000000 WHERE id % 7 = 0",
                        "VACUUM FULL " + s + ".nk",
                        "UPDATE " + s + ".nk SET b = 'after' WHERE a = 5",
                        "TRUNCATE " + s + ".tr",
                        "INSERT INTO " + s + ".tr SELECT g, 'again' || g FROM generate_series(1, 10) g",
                        "DROP TABLE " + s + ".gone",
                        "ALTER TABLE " + s + ".rw ALTER COLUMN v TYPE bigint",
                        "UPDATE " + s + ".rw SET v = v + 5000000000 WHERE id % 3 = 0");
                long slowest = 0;
                try (Connection c = LocalPg.connect(); Statement st = c.createStatement()) {
                    st.execute("SET lock_timeout = '20s'"); // under the old per-copy locks the first ALTER failed here
                    for (String sql : ddl) {
                        long t0 = System.nanoTime();
                        st.execute(sql);
                        slowest = Math.max(slowest, (System.nanoTime() - t0) / 1_000_000);
                    }
                }
                long done = TestMetricReporter.value("chunks_done");
                long total = TestMetricReporter.value("chunks_total");
                System.out.printf("snapshot DDL e2e: %d statements during the copy, slowest %d ms, %d of %d chunks"
                        + " done after them%n", ddl.size(), slowest, done, total);
                assertTrue(done < total, "the DDL completed while the copy still ran: " + done + " of " + total);
                e.awaitSnapshotComplete(Duration.ofMinutes(4));
                e.awaitStreamCaughtUp(Duration.ofMinutes(3));
                Map<String, Integer> compared = e.assertAllTablesEqual();
                assertEquals(150000 - 150 + 1, compared.get("t2"));
                assertEquals(10, compared.get("tr"));
                assertEquals(20000, compared.get("nk"));
                assertEquals("0", e.ch.queryString("SELECT count() FROM system.tables WHERE database = '"
                        + e.chDatabase + "' AND name = '" + s + "__gone'"), "the dropped table is not brought back");
                System.out.printf("snapshot DDL e2e: %d snapshot rows dropped as superseded by the stream%n",
                        TestMetricReporter.value("snapshot_rows_superseded"));
            } finally {
                io.walshadow.clickhouse.Faults.install(null);
            }
        }
    }

    /**
     * A migration that creates, truncates, rewrites, renames and drops tables without a pause while the job starts:
     * the copy locks each included table once it holds still and exports as soon as all are locked (before, five
     * listings that each saw a change failed the job).
     */
    @Test
    void aMigrationRunningWhileTheSnapshotIsExportedDoesNotStopIt() throws Exception {
        try (E2e e = new E2e("e2e_snapmig")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".base (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + s + ".base SELECT g, 'v' || g FROM generate_series(1, 20000) g",
                    "CREATE TABLE " + s + ".churn (id int PRIMARY KEY, v int)",
                    "INSERT INTO " + s + ".churn SELECT g, g FROM generate_series(1, 1000) g",
                    "CHECKPOINT");
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> error = new AtomicReference<>();
            AtomicLong statements = new AtomicLong();
            Thread migration = new Thread(() -> {
                try (Connection c = LocalPg.connect(); Statement st = c.createStatement()) {
                    st.execute("SET lock_timeout = '60s'"); // a lock cycle with the copy fails the test, not hangs it
                    for (int i = 0; !stop.get(); i++) {
                        st.execute("CREATE TABLE " + s + ".m" + i + " (id int PRIMARY KEY, v text)");
                        st.execute("INSERT INTO " + s + ".m" + i + " SELECT g, 'm' || g FROM generate_series(1, 50) g");
                        st.execute("TRUNCATE " + s + ".churn");
                        st.execute("INSERT INTO " + s + ".churn SELECT g, g + " + i + " FROM generate_series(1, 100) g");
                        st.execute("ALTER TABLE " + s + ".m" + i + " ADD COLUMN w int DEFAULT " + i);
                        st.execute("ALTER TABLE " + s + ".m" + i + " RENAME TO r" + i);
                        if (i >= 3) {
                            st.execute("DROP TABLE " + s + ".r" + (i - 3));
                        }
                        statements.addAndGet(i >= 3 ? 7 : 6);
                        Thread.sleep(50); // a fast migration, not a flood the stream needs minutes to follow
                    }
                } catch (Throwable t) {
                    error.set(t);
                }
            }, "migration");
            migration.start();
            try {
                TestMetricReporter.METRICS.clear();
                e.start(e.config("--checkpoint.interval", "1s"), null, 0);
                FlinkTestJobs.awaitTrue(() -> "the copy is planned", Duration.ofMinutes(2), () -> {
                    e.failFastIfAJobFailed();
                    return TestMetricReporter.value("chunks_total") > 0;
                });
                long during = statements.get();
                Thread.sleep(1_000); // and the migration goes on while the chunks are read
                stop.set(true);
                migration.join();
                if (error.get() != null) {
                    throw new AssertionError("the migration failed", error.get());
                }
                System.out.printf("snapshot migration e2e: %d statements until the copy was planned, %d in all%n",
                        during, statements.get());
                e.awaitSnapshotComplete(Duration.ofMinutes(3));
                e.awaitStreamCaughtUp(Duration.ofMinutes(3));
                Map<String, Integer> compared = e.assertAllTablesEqual();
                assertEquals(20000, compared.get("base"));
                assertEquals(100, compared.get("churn"));
            } finally {
                stop.set(true);
                migration.join();
            }
        }
    }

    @Test
    void snapshotRowsOvertakenByATruncateARewriteOrADropAreDroppedBySink() throws Exception {
        try (E2e e = new E2e("e2e_snaplate")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".a (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + s + ".a SELECT g, 'a' || g FROM generate_series(1, 1000) g",
                    "CREATE TABLE " + s + ".b (x int, y text)", // keyless: its rows are keyed by TID
                    "INSERT INTO " + s + ".b SELECT g, 'b' || g FROM generate_series(1, 1000) g",
                    "DELETE FROM " + s + ".b WHERE x % 3 = 0", // VACUUM FULL moves the rest to other TIDs
                    "CREATE TABLE " + s + ".c (id int PRIMARY KEY)",
                    "INSERT INTO " + s + ".c SELECT generate_series(1, 1000)",
                    "CHECKPOINT");
            Map<String, String> ddl = Map.of(
                    s + ".a", "TRUNCATE " + s + ".a; INSERT INTO " + s + ".a VALUES (5, 'after the truncate')",
                    s + ".b", "VACUUM FULL " + s + ".b",
                    s + ".c", "DROP TABLE " + s + ".c");
            // each table's one chunk is read whole, its lock released, and its rows held back until its DDL is
            // committed in ClickHouse: they reach the sink after the stream replaced (or dropped) what they were read from
            java.util.concurrent.BlockingQueue<String> reached = new java.util.concurrent.LinkedBlockingQueue<>();
            java.util.concurrent.Semaphore release = new java.util.concurrent.Semaphore(0);
            io.walshadow.clickhouse.Faults.install(point -> {
                if (point.startsWith("snapshot.chunk.read ") && ddl.containsKey(point.substring(20))) {
                    reached.add(point.substring(20));
                    release.acquireUninterruptibly();
                }
            });
            try {
                TestMetricReporter.METRICS.clear();
                e.start(e.config("--snapshot.fetch.rows", "5000", "--snapshot.parallelism", "1",
                        "--checkpoint.interval", "1s"), null, 0);
                for (int i = 0; i < ddl.size(); i++) {
                    String table = reached.poll(3, java.util.concurrent.TimeUnit.MINUTES);
                    assertTrue(table != null, "a held chunk");
                    e.failFastIfAJobFailed();
                    try (Connection c = LocalPg.connect(); Statement st = c.createStatement()) {
                        st.execute("SET lock_timeout = '20s'");
                        st.execute(ddl.get(table));
                    }
                    e.awaitStreamCaughtUp(Duration.ofMinutes(2));
                    release.release();
                }
                e.awaitSnapshotComplete(Duration.ofMinutes(2));
                e.awaitStreamCaughtUp(Duration.ofMinutes(2));
                Map<String, Integer> compared = e.assertAllTablesEqual();
                assertEquals(1, compared.get("a"), "only the row inserted after the TRUNCATE");
                assertEquals(667, compared.get("b"));
                assertEquals("0", e.ch.queryString("SELECT count() FROM system.tables WHERE database = '"
                        + e.chDatabase + "' AND name = '" + s + "__c'"), "the dropped table is not brought back");
                long dropped = TestMetricReporter.value("snapshot_rows_superseded");
                assertTrue(dropped >= 1000 + 667 + 1000, "the late rows were dropped and counted: " + dropped);
            } finally {
                io.walshadow.clickhouse.Faults.install(null);
                release.release(100);
            }
        }
    }

    /**
     * A chunk read, its lock released and its rows held back while the stream drops a column of its table and the
     * job is killed: the restored job reads the chunk again under a fresh export, without the dropped column, and
     * the table ends equal to PostgreSQL (also the rows written while the job was down).
     */
    @Test
    void aChunkHeldAcrossADropColumnAndAKillIsReadAgainWithoutTheColumn() throws Exception {
        try (E2e e = new E2e("e2e_snapdrop")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, a text, b int)",
                    "INSERT INTO " + s + ".t SELECT g, 'a' || g, g FROM generate_series(1, 40) g",
                    "CREATE TABLE " + s + ".nk (x int, y text)",
                    "INSERT INTO " + s + ".nk SELECT g, 'y' || g FROM generate_series(1, 30) g");
            String held = "snapshot.chunk.read " + s + ".nk";
            java.util.concurrent.CountDownLatch reached = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            io.walshadow.clickhouse.Faults.install(point -> {
                if (point.equals(held)) {
                    reached.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            try {
                String[] opts = {"--snapshot.parallelism", "1", "--checkpoint.interval", "1s"};
                JobClient job = e.start(e.config(opts), null, 0);
                assertTrue(reached.await(3, java.util.concurrent.TimeUnit.MINUTES), "the chunk of nk is held");
                e.awaitStreamCaughtUp(Duration.ofMinutes(2));
                LocalPg.exec(e.pg, "ALTER TABLE " + s + ".t DROP COLUMN b", "ALTER TABLE " + s + ".nk DROP COLUMN y");
                e.awaitStreamCaughtUp(Duration.ofMinutes(2));
                job.cancel().get(); // the chunk still held: not done in any checkpoint
                release.countDown();
                LocalPg.exec(e.pg, "INSERT INTO " + s + ".nk VALUES (99)", "UPDATE " + s + ".t SET a = 'down' WHERE id = 3");
                TestMetricReporter.METRICS.clear();
                e.start(e.config(opts), FlinkTestJobs.latestCheckpoint(e.checkpoints), 0);
                LocalPg.exec(e.pg, "DELETE FROM " + s + ".nk WHERE x = 5");
                e.awaitCaughtUp(Duration.ofMinutes(2)); // the stream, then the copy
                Map<String, Integer> rows = e.assertAllTablesEqual();
                assertEquals(30, rows.get("nk"));
                assertEquals(40, rows.get("t"));
            } finally {
                release.countDown();
                io.walshadow.clickhouse.Faults.install(null);
            }
        }
    }

    /**
     * Starts the job and cancels it once at least {@code margin} chunks are done, as many are left, and a checkpoint
     * completed; returns its latest completed checkpoint.
     */
    private static Path killMidSnapshot(E2e e, String[] opts, int margin) throws Exception {
        return killMidSnapshot(e, opts, null, margin);
    }

    /** As {@link #killMidSnapshot(E2e, String[], int)}, the job restored from {@code restoreFrom} (null: fresh). */
    private static Path killMidSnapshot(E2e e, String[] opts, Path restoreFrom, int margin) throws Exception {
        TestMetricReporter.METRICS.clear();
        JobClient job = e.start(e.config(opts), restoreFrom, 0);
        FlinkTestJobs.awaitTrue(() -> "some chunks are done and checkpointed", Duration.ofMinutes(3), () -> {
            e.failFastIfAJobFailed();
            long done = TestMetricReporter.value("chunks_done");
            return done >= margin && done < TestMetricReporter.value("chunks_total") - margin
                    && latestCheckpoint(e.checkpoints) != null;
        });
        job.cancel().get();
        return latestCheckpoint(e.checkpoints); // the newest: batches committed after an older one would come again
    }

    /** The newest completed checkpoint directory, or null while there is none. */
    static Path latestCheckpoint(Path root) {
        try {
            return FlinkTestJobs.latestCheckpoint(root);
        } catch (Exception | AssertionError none) {
            return null;
        }
    }
}
