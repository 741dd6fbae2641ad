package io.walshadow.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.catalog.Column;
import io.walshadow.change.BufferEvent;
import io.walshadow.change.RowChange;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.source.WalSource;
import io.walshadow.source.WalSourceOptions;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The transaction buffer on real WAL, in a MiniCluster with RocksDB and checkpoints: only committed rows come out,
 * per commit in WAL order, commits in commit order with increasing commit sequence; rolled-back savepoints and
 * aborted transactions leave nothing (in the output and in the keyed state); prepared transactions survive a
 * restore from a checkpoint and drain exactly once at COMMIT PREPARED, or never at ROLLBACK PREPARED.
 */
class XactBufferIT {
    /** Drained output by test table, in arrival order, tagged with the run ("1", "2"). */
    static final Map<String, List<Object[]>> OUT = new ConcurrentHashMap<>();

    /** With and without discarding at the savepoint's ABORT record: the commit's subxid list alone must suffice. */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void onlyCommittedRowsDrainInCommitOrder(boolean discardAtSubxactAbort) throws Exception {
        String slot = "ws_xb_" + Long.toString(System.nanoTime(), 36);
        String table = "xb_commit_" + Long.toString(System.nanoTime(), 36);
        Path checkpoints = Files.createTempDirectory("walshadow-xb-ck");
        List<Object[]> out = OUT.computeIfAbsent(table, k -> new CopyOnWriteArrayList<>());
        JobClient job = null;
        try (Connection c = LocalPg.connect(); Connection a = LocalPg.connect(); Connection b = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE TABLE " + table + " (id int PRIMARY KEY, v text)");
            job = startJob(slot, table, checkpoints, null, "1", discardAtSubxactAbort);
            probe(c, table, out);

            // a. one savepoint rolled back
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + table + " VALUES (1, 'keep')", "SAVEPOINT s1",
                    "INSERT INTO " + table + " VALUES (2, 'rolled back')", "ROLLBACK TO SAVEPOINT s1",
                    "INSERT INTO " + table + " VALUES (3, 'keep')", "COMMIT");
            // b. nested savepoints: 10, 11, 13, 16 survive; 12 (inner rollback), 14 and 15 (outer rollback) do not
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + table + " VALUES (10, 'keep')", "SAVEPOINT a",
                    "INSERT INTO " + table + " VALUES (11, 'keep')", "SAVEPOINT b",
                    "INSERT INTO " + table + " VALUES (12, 'rolled back')", "ROLLBACK TO SAVEPOINT b",
                    "INSERT INTO " + table + " VALUES (13, 'keep')", "RELEASE SAVEPOINT a", "SAVEPOINT c",
                    "INSERT INTO " + table + " VALUES (14, 'rolled back')", "SAVEPOINT d",
                    "INSERT INTO " + table + " VALUES (15, 'rolled back')", "RELEASE SAVEPOINT d",
                    "ROLLBACK TO SAVEPOINT c", "INSERT INTO " + table + " VALUES (16, 'keep')",
                    "UPDATE " + table + " SET v = 'updated' WHERE id = 11", "COMMIT");
            // c. 100 subtransactions (more than PGPROC_MAX_CACHED_SUBXIDS = 64: XLOG_XACT_ASSIGNMENT records),
            //    every 10th rolled back, with updates and deletes inside subtransactions
            List<String> many = new ArrayList<>();
            many.add("BEGIN");
            for (int i = 0; i < 100; i++) {
                many.add("SAVEPOINT sp" + i);
                many.add("INSERT INTO " + table + " VALUES (" + (100 + i) + ", 'sub " + i + "')");
                if (i % 7 == 3) {
                    many.add("UPDATE " + table + " SET v = 'sub updated " + i + "' WHERE id = " + (100 + i - 1));
                }
                if (i % 10 == 0) {
                    many.add("ROLLBACK TO SAVEPOINT sp" + i);
                } else if (i % 10 == 5) {
                    many.add("DELETE FROM " + table + " WHERE id = " + (100 + i - 2));
                    many.add("RELEASE SAVEPOINT sp" + i);
                } else if (i % 2 == 0) {
                    many.add("RELEASE SAVEPOINT sp" + i);
                } // otherwise the subtransaction stays open (nested) until the commit
            }
            many.add("COMMIT");
            LocalPg.exec(c, many.toArray(new String[0]));
            // d. an aborted transaction
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + table + " SELECT g, 'aborted' FROM generate_series(500, 509) g",
                    "SAVEPOINT x", "INSERT INTO " + table + " VALUES (510, 'aborted')", "ROLLBACK");
            // e. interleaved transactions on two connections, committed in the opposite order of their start
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            LocalPg.exec(a, "INSERT INTO " + table + " VALUES (600, 'A')");
            LocalPg.exec(b, "INSERT INTO " + table + " VALUES (700, 'B')");
            LocalPg.exec(a, "INSERT INTO " + table + " VALUES (601, 'A')");
            LocalPg.exec(b, "INSERT INTO " + table + " VALUES (701, 'B')");
            LocalPg.exec(a, "UPDATE " + table + " SET v = 'A updated' WHERE id = 600");
            b.commit();
            LocalPg.exec(a, "INSERT INTO " + table + " VALUES (602, 'A')");
            a.commit();
            a.setAutoCommit(true);
            b.setAutoCommit(true);
            // f. DDL then DML in one transaction: the decoder defers the rows, the buffer decodes them at the
            //    commit with the shape the commit published (the envelope's descriptors)
            //    The row before the ALTER decodes at once with the old shape; the catalog event still comes first.
            a.setAutoCommit(false);
            LocalPg.exec(a, "INSERT INTO " + table + " VALUES (799, 'before ddl')");
            long fullXidF = Long.parseLong(LocalPg.queryString(a, "SELECT pg_current_xact_id()::text"));
            LocalPg.exec(a, "ALTER TABLE " + table + " ADD COLUMN w int");
            LocalPg.exec(a, "INSERT INTO " + table + " VALUES (800, 'ddl', 6)");
            LocalPg.exec(a, "SAVEPOINT s");
            LocalPg.exec(a, "INSERT INTO " + table + " VALUES (801, 'rolled back', 7)");
            LocalPg.exec(a, "ROLLBACK TO SAVEPOINT s");
            LocalPg.exec(a, "UPDATE " + table + " SET w = 9 WHERE id = 1");
            a.commit();
            a.setAutoCommit(true);
            // g. DDL alone: no rows, but a commit marker carrying the catalog change
            LocalPg.exec(c, "ALTER TABLE " + table + " ADD COLUMN z text");
            // h. a family of more entries than the buffer reads by point lookups: drained by RocksDB's iteration,
            //    with a rolled-back savepoint inside, cleared by MapState.clear()
            assertTrue(XactBuffer.POINT_LOOKUP_MAX_ENTRIES < 2000);
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + table + " (id, v) SELECT -g, 'large' FROM generate_series(1, 1500) g",
                    "SAVEPOINT l", "INSERT INTO " + table + " (id, v) SELECT -g, 'rolled back'"
                            + " FROM generate_series(1501, 2000) g", "ROLLBACK TO SAVEPOINT l",
                    "UPDATE " + table + " SET v = 'large updated' WHERE id = -1",
                    "DELETE FROM " + table + " WHERE id = -2", "COMMIT");
            LocalPg.exec(c, "INSERT INTO " + table + " VALUES (999, 'end')");

            awaitTrue(Duration.ofSeconds(120), () -> rows(out).stream().anyMatch(r -> r.contains("v=end")), out);
            awaitTrue(Duration.ofSeconds(30), () -> TestMetricReporter.value("in_flight_transactions") == 0, out);
            // DDL-only commit: its catalog event, then a marker without changes.
            DrainedCatalog ddlOnly = catalogs(out).stream()
                    .filter(dc -> dc.changes().get(0).after().natts() == 4).findFirst().orElse(null);
            assertTrue(ddlOnly != null && ddlOnly.changes().get(0).after().column(4).name().equals("z"),
                    "DDL-only catalog event: " + catalogs(out));
            assertTrue(commits(out).stream().anyMatch(dc -> dc.commitSeq() == ddlOnly.commitSeq() && dc.changes() == 0
                    && dc.schemaChange() && dc.relations().equals(List.of("public." + table))),
                    "DDL-only commit marker: " + commits(out));
            // Commit f: catalog event first, then its rows (the pre-ALTER row with the old shape), then the marker
            // with the full xid PostgreSQL reported and the relation touched.
            List<Drained> f = drainOf(out, fullXidF);
            assertTrue(f.get(0) instanceof DrainedCatalog cat && cat.changes().get(0).after().natts() == 3,
                    "catalog event first in commit f: " + f);
            assertTrue(f.get(1) instanceof DrainedChange dc && dc.change() instanceof RowChange r
                    && r.descriptor().natts() == 2 && r.newValues()[0].equals(799), "pre-ALTER row next: " + f);
            DrainedCommit fc = (DrainedCommit) f.get(f.size() - 1);
            assertEquals(fullXidF, fc.fullXid(), "full xid (with epoch) of commit f");
            assertEquals(List.of("public." + table), fc.relations());
            assertTrue(fc.schemaChange() && fc.changes() == 3, "commit f marker: " + fc);
            assertTrue(rows(out).contains("id=999,v=end,w=null,z=null"), rows(out).toString());
            assertTrue(rows(out).contains("id=800,v=ddl,w=6"), "deferred row decoded at commit: " + rows(out));
            assertTrue(rows(out).contains("id=1,v=keep,w=9"), "deferred update decoded at commit: " + rows(out));
            assertTrue(TestMetricReporter.value("aborts") >= 1, "aborts counter");
            long spilled = TestMetricReporter.value("families_spilled");
            long drainedCommits = TestMetricReporter.value("commits_drained");
            assertTrue(discardAtSubxactAbort ? spilled * 2 < drainedCommits : spilled == 0,
                    "families that went to RocksDB before their end: " + spilled + " of " + drainedCommits + " drained");
            assertTrue(TestMetricReporter.value("subxact_aborts") >= 13, "subtransaction aborts counted: "
                    + TestMetricReporter.value("subxact_aborts"));
            assertTrue(TestMetricReporter.value("changes_discarded") >= 11 + 2 + 10,
                    "discarded: " + TestMetricReporter.value("changes_discarded"));

            // The drained changes replayed by key equal the table in PostgreSQL.
            Map<Integer, String> replayed = replay(out);
            Map<Integer, String> pgRows = new TreeMap<>();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id, v FROM " + table)) {
                while (rs.next()) {
                    pgRows.put(rs.getInt(1), rs.getString(2));
                }
            }
            pgRows.keySet().removeIf(id -> id >= 1000); // probe rows
            replayed.keySet().removeIf(id -> id >= 1000);
            assertEquals(pgRows, replayed);
            for (int gone : new int[] {2, 12, 14, 15, 100, 110, 190, 500, 505, 510}) {
                assertFalse(replayed.containsKey(gone), "row " + gone + " of a rolled back (sub)transaction drained");
            }
            assertTrue(rows(out).stream().noneMatch(r -> r.contains("rolled back") || r.contains("aborted")),
                    "rows of rolled back work drained: " + rows(out));

            // Commit markers: commit seq strictly increasing, each change carries the seq of the commit after it.
            List<DrainedCommit> commits = commits(out);
            long prev = 0;
            int at = 0;
            for (Object[] o : out) {
                Drained d = (Drained) o[1];
                if (d instanceof DrainedCommit dc) {
                    assertTrue(dc.commitSeq() > prev, "commit seq not increasing: " + dc + " after " + prev);
                    prev = dc.commitSeq();
                    at++;
                } else {
                    DrainedCommit next = commits.get(at);
                    assertEquals(next.commitSeq(), d.commitSeq());
                    assertEquals(next.fullXid(), d.fullXid());
                }
            }
            // Our commits: those with a change of a row other than the probe rows (ids from 1000), in drain order.
            java.util.Set<Long> ourSeqs = new java.util.HashSet<>();
            for (Object[] o : out) {
                if (o[1] instanceof DrainedChange dc && dc.change() instanceof RowChange r) {
                    Object[] vals = r.newValues() != null ? r.newValues() : r.oldValues();
                    if ((Integer) vals[0] < 1000) {
                        ourSeqs.add(dc.commitSeq());
                    }
                }
            }
            List<DrainedCommit> ours = commits.stream().filter(dc -> ourSeqs.contains(dc.commitSeq())).toList();
            assertEquals(8, ours.size(), "commits a, b, c, B, A, f, h, end (the abort drains nothing): " + ours);
            assertEquals(1502, ours.get(6).changes(), "the large family h: 1500 inserts, an update, a delete");
            // B committed first: its rows come out first, in its commit, in WAL order.
            List<String> interleaved = new ArrayList<>();
            for (Object[] o : out) {
                if (o[1] instanceof DrainedChange dc && dc.change() instanceof RowChange r && r.newValues() != null
                        && (r.newValues()[1].toString().startsWith("A") || r.newValues()[1].toString().startsWith("B"))) {
                    interleaved.add(r.newValues()[0] + ":" + dc.commitSeq());
                }
            }
            long seqB = ours.get(3).commitSeq();
            long seqA = ours.get(4).commitSeq();
            assertTrue(seqB < seqA, "B committed first");
            assertEquals(List.of("700:" + seqB, "701:" + seqB, "600:" + seqA, "601:" + seqA, "600:" + seqA,
                    "602:" + seqA), interleaved);
            assertEquals(4, ours.get(4).changes(), "A's commit drains its 3 inserts and 1 update: " + ours.get(4));
            assertEquals(2, ours.get(3).changes(), "B's commit: " + ours.get(3));
        } finally {
            cancel(job);
            cleanup(slot, table);
        }
    }

    @Test
    void preparedTransactionSurvivesRestoreAndDrainsOnce() throws Exception {
        String slot = "ws_xb_" + Long.toString(System.nanoTime(), 36);
        String table = "xb_2pc_" + Long.toString(System.nanoTime(), 36);
        String gidA = "ws_xb_a_" + Long.toString(System.nanoTime(), 36);
        String gidB = "ws_xb_b_" + Long.toString(System.nanoTime(), 36);
        Path checkpoints = Files.createTempDirectory("walshadow-xb-ck");
        List<Object[]> out = OUT.computeIfAbsent(table, k -> new CopyOnWriteArrayList<>());
        JobClient first = null;
        JobClient second = null;
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE TABLE " + table + " (id int PRIMARY KEY, v text)");
            first = startJob(slot, table, checkpoints, null, "1", true);
            probe(c, table, out);
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + table + " SELECT g, 'prepared' FROM generate_series(1, 5) g",
                    "SAVEPOINT s", "INSERT INTO " + table + " VALUES (6, 'rolled back')", "ROLLBACK TO SAVEPOINT s",
                    "PREPARE TRANSACTION '" + gidA + "'");
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + table + " SELECT g, 'to roll back' FROM generate_series(20, 22) g",
                    "PREPARE TRANSACTION '" + gidB + "'");
            awaitTrue(Duration.ofSeconds(60), () -> TestMetricReporter.value("prepared_transactions_held") == 2, out);
            assertTrue(TestMetricReporter.value("prepares") >= 2);
            long checkpointsAt = newestCheckpointId(checkpoints);
            // two more completed checkpoints: the second was triggered after the PREPAREs were in the buffer
            awaitTrue(Duration.ofSeconds(30), () -> newestCheckpointId(checkpoints) >= checkpointsAt + 2, out);
            first.cancel().get();
            assertTrue(rows(out).stream().noneMatch(r -> r.contains("prepared") || r.contains("roll")),
                    "prepared rows drained before COMMIT PREPARED: " + rows(out));
            Path restoreFrom = FlinkTestJobs.latestCheckpoint(checkpoints);

            // While the job is down: resolve both prepared transactions.
            LocalPg.exec(c, "COMMIT PREPARED '" + gidA + "'");
            LocalPg.exec(c, "ROLLBACK PREPARED '" + gidB + "'");
            LocalPg.exec(c, "INSERT INTO " + table + " VALUES (999, 'end')");

            second = startJob(slot, table, checkpoints, restoreFrom, "2", true);
            awaitTrue(Duration.ofSeconds(120), () -> rows(out).stream().anyMatch(r -> r.contains("v=end")), out);
            awaitTrue(Duration.ofSeconds(30), () -> TestMetricReporter.value("prepared_transactions_held") == 0
                    && TestMetricReporter.value("in_flight_transactions") == 0, out);
            // The restored run never re-read the PREPAREs (its counter starts at 0): the rows came from the
            // checkpointed keyed state, not from re-decoding the WAL.
            assertEquals(0, TestMetricReporter.value("prepares"));
            assertEquals(1, TestMetricReporter.value("commit_prepared"));
            assertEquals(1, TestMetricReporter.value("rollback_prepared"));
        } finally {
            cancel(first);
            cancel(second);
            try (Connection c = LocalPg.connect()) {
                for (String g : new String[] {gidA, gidB}) {
                    if (!LocalPg.queryColumn(c, "SELECT gid FROM pg_prepared_xacts WHERE gid = '" + g + "'").isEmpty()) {
                        LocalPg.exec(c, "ROLLBACK PREPARED '" + g + "'");
                    }
                }
            }
            cleanup(slot, table);
        }
        List<String> prepared = new ArrayList<>();
        DrainedCommit commitA = null;
        for (Object[] o : out) {
            if (o[1] instanceof DrainedChange dc && dc.change() instanceof RowChange r && r.newValues() != null) {
                String v = String.valueOf(r.newValues()[1]);
                if (v.equals("prepared") || v.contains("roll")) {
                    prepared.add(o[0] + ":" + r.newValues()[0] + ":" + v);
                }
            }
            if (o[1] instanceof DrainedCommit dc && dc.gid() != null) {
                assertEquals(null, commitA, "one COMMIT PREPARED drain");
                commitA = dc;
            }
        }
        assertEquals(List.of("2:1:prepared", "2:2:prepared", "2:3:prepared", "2:4:prepared", "2:5:prepared"),
                prepared, "rows of the committed prepared transaction, once, after the restore");
        assertTrue(commitA != null && commitA.gid().equals(gidA) && commitA.changes() == 5, "commit marker " + commitA);
    }

    // ---- helpers

    static void cancel(JobClient job) {
        if (job != null) {
            try {
                job.cancel().get();
            } catch (Exception e) {
                // already finished or cancelled
            }
        }
    }

    private static void probe(Connection c, String table, List<Object[]> out) throws Exception {
        int probe = 1000;
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (rows(out).stream().noneMatch(r -> r.contains("v=probe"))) {
            LocalPg.exec(c, "INSERT INTO " + table + " VALUES (" + probe++ + ", 'probe')");
            if (System.nanoTime() > deadline) {
                fail("the buffer never drained a row of " + table);
            }
            Thread.sleep(300);
        }
    }

    static List<String> rows(List<Object[]> out) {
        List<String> l = new ArrayList<>();
        for (Object[] o : out) {
            if (o[1] instanceof DrainedChange dc && dc.change() instanceof RowChange r && r.newValues() != null) {
                StringBuilder sb = new StringBuilder();
                for (Column col : r.descriptor().columns()) {
                    if (!col.dropped()) {
                        sb.append(sb.length() == 0 ? "" : ",").append(col.name()).append('=')
                                .append(r.newValues()[col.attnum() - 1]);
                    }
                }
                l.add(sb.toString());
            }
        }
        return l;
    }

    static List<DrainedCommit> commits(List<Object[]> out) {
        List<DrainedCommit> l = new ArrayList<>();
        for (Object[] o : out) {
            if (o[1] instanceof DrainedCommit dc) {
                l.add(dc);
            }
        }
        return l;
    }

    static List<DrainedCatalog> catalogs(List<Object[]> out) {
        List<DrainedCatalog> l = new ArrayList<>();
        for (Object[] o : out) {
            if (o[1] instanceof DrainedCatalog dc) {
                l.add(dc);
            }
        }
        return l;
    }

    /** Everything drained for the commit of the transaction with this full xid, in order. */
    static List<Drained> drainOf(List<Object[]> out, long fullXid) {
        List<Drained> l = new ArrayList<>();
        for (Object[] o : out) {
            if (((Drained) o[1]).fullXid() == fullXid) {
                l.add((Drained) o[1]);
            }
        }
        return l;
    }

    /** Applies drained changes by primary key (id, column 1). */
    static Map<Integer, String> replay(List<Object[]> out) {
        Map<Integer, String> t = new TreeMap<>();
        for (Object[] o : out) {
            if (o[1] instanceof DrainedChange dc && dc.change() instanceof RowChange r) {
                switch (r.op()) {
                    case INSERT, UPDATE -> {
                        if (r.op() == RowChange.Op.UPDATE && r.oldValues() != null) {
                            t.remove((Integer) r.oldValues()[0]);
                        }
                        t.put((Integer) r.newValues()[0], (String) r.newValues()[1]);
                    }
                    case DELETE -> t.remove((Integer) r.oldValues()[0]);
                    default -> fail("unexpected op " + r);
                }
            }
        }
        return t;
    }

    static JobClient startJob(String slot, String table, Path checkpoints, Path restoreFrom, String run,
                                      boolean discardAtSubxactAbort) throws Exception {
        Configuration conf = FlinkTestJobs.checkpointed(checkpoints, restoreFrom);
        conf.setString("metrics.reporter.wstest.factory.class", TestMetricReporter.class.getName());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.getConfig().enableObjectReuse();
        PgConnectionConfig pg = FlinkTestJobs.localPg();
        env.fromSource(new WalSource(pg, WalSourceOptions.defaults(slot)), WatermarkStrategy.noWatermarks(), "wal")
                .uid("wal-source")
                .process(FlinkTestJobs.decoder(pg, slot, "public." + table, restoreFrom)).returns(BufferEventSerializer.typeInfo())
                .uid("wal-decoder")
                .keyBy(BufferEvent::topXid, Types.INT)
                // the operator the job uses: families stay on the heap between checkpoints; the run that keeps
                // rolled-back savepoints' entries also keeps nothing on the heap, so every family takes the RocksDB
                // paths (point lookups, and iteration for the 2000-entry one)
                .transform("transaction buffer", DrainedSerializer.typeInfo(), new XactBufferOperator(
                        new XactBuffer(pg, discardAtSubxactAbort, discardAtSubxactAbort ? XactBuffer.DEFAULT_HEAP_BYTES : 0,
                                XactBuffer.DEFAULT_HEAP_FAMILY_BYTES), java.util.Set.of()))
                .uid("xact-buffer")
                .map(new Collect(table, run)).uid("collect")
                .sinkTo(new DiscardingSink<>());
        return env.executeAsync("xact-buffer-test");
    }

    /** Records each drained element with the run it came from. */
    static final class Collect implements MapFunction<Drained, Long> {
        private final String table;
        private final String run;

        Collect(String table, String run) {
            this.table = table;
            this.run = run;
        }

        @Override
        public Long map(Drained d) {
            OUT.get(table).add(new Object[] {run, d});
            return d.commitSeq();
        }
    }

    private static long newestCheckpointId(Path checkpoints) {
        try (Stream<Path> s = Files.walk(checkpoints)) {
            return s.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .mapToLong(p -> Long.parseLong(p.getParent().getFileName().toString().substring(4))).max().orElse(0);
        } catch (Exception e) {
            return 0;
        }
    }

    static void cleanup(String slot, String table) throws Exception {
        try (Connection c = LocalPg.connect()) {
            FlinkTestJobs.dropSlot(c, slot);
            LocalPg.exec(c, "DROP TABLE IF EXISTS " + table);
        }
    }

    /** Waits for {@code condition}; when it times out, says what the metrics and the drained rows were. */
    private static void awaitTrue(Duration timeout, BooleanSupplier condition, List<Object[]> out)
            throws InterruptedException {
        FlinkTestJobs.awaitTrue(() -> {
            Map<String, Long> m = new HashMap<>();
            TestMetricReporter.METRICS.keySet().forEach(k -> m.put(k, TestMetricReporter.value(k)));
            return "the condition (metrics " + m + "; drained rows so far: " + rows(out) + ")";
        }, timeout, condition);
    }
}
