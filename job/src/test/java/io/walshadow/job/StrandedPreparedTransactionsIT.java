package io.walshadow.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.buffer.PreparedTransaction;
import io.walshadow.buffer.TestMetricReporter;
import io.walshadow.buffer.Drained;
import io.walshadow.buffer.DrainedChange;
import io.walshadow.buffer.DrainedCommit;
import io.walshadow.change.RowChange;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;

/**
 * The operator surface for stranded prepared transactions, on real WAL in a MiniCluster with RocksDB, through the
 * job's own topology and arguments: the offline listing of a retained checkpoint and of a savepoint agrees with
 * {@code pg_prepared_xacts}; a restore with {@code --xact.prepared.drop} discards that prepared transaction (its
 * COMMIT PREPARED then drains nothing) and keeps the other; and the same request left in the arguments does not
 * drop a later prepared transaction that reuses the GID.
 */
class StrandedPreparedTransactionsIT {
    /** Drained output by test table: {run, element}. */
    static final Map<String, List<Object[]>> OUT = new ConcurrentHashMap<>();

    @Test
    void listDropAndGidReuse() throws Exception {
        String id = Long.toString(System.nanoTime(), 36);
        String slot = "ws_spx_" + id;
        String table = "spx_" + id;
        String gidDrop = "ws_spx_drop_" + id;
        String gidKeep = "ws_spx_keep_" + id;
        List<Object[]> out = OUT.computeIfAbsent(table, k -> new CopyOnWriteArrayList<>());
        JobClient run1 = null;
        JobClient run2 = null;
        JobClient run3 = null;
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE TABLE " + table + " (id int PRIMARY KEY, v text)");
            Path ck1 = Files.createTempDirectory("walshadow-spx-ck1");
            run1 = start(slot, table, ck1, null, "1");
            probe(c, table, out);
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + table + " SELECT g, 'dropme' FROM generate_series(1, 3) g",
                    "UPDATE " + table + " SET v = 'dropme' WHERE id = 2", "PREPARE TRANSACTION '" + gidDrop + "'");
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + table + " SELECT g, 'keep' FROM generate_series(20, 21) g",
                    "PREPARE TRANSACTION '" + gidKeep + "'");
            Map<String, PreparedTransaction> pg = pgPrepared(c, gidDrop, gidKeep);
            FlinkTestJobs.awaitTrue("both prepared transactions held", Duration.ofSeconds(60),
                    () -> TestMetricReporter.value("prepared_transactions_held") == 2);

            // (a) offline listing of a retained checkpoint of the running job, taken after both PREPAREs arrived
            long ckNow = newestCheckpointId(ck1);
            FlinkTestJobs.awaitTrue("two more checkpoints", Duration.ofSeconds(30),
                    () -> newestCheckpointId(ck1) >= ckNow + 2);
            assertListing(pg, PreparedTransactionsTool.list(FlinkTestJobs.latestCheckpoint(ck1).toString()));

            // (b) ... and of a canonical savepoint from stop-with-savepoint
            String savepoint = run1.stopWithSavepoint(false,
                    Files.createTempDirectory("walshadow-spx-sp").toUri().toString(), SavepointFormatType.CANONICAL)
                    .get();
            run1 = null;
            assertListing(pg, PreparedTransactionsTool.list(savepoint));
            assertEquals(List.of(), rows(out, null, "dropme", "keep"), "prepared rows drained before COMMIT PREPARED");

            // Restore with the drop request: one held, one dropped; then both commit in PostgreSQL.
            Path ck2 = Files.createTempDirectory("walshadow-spx-ck2");
            run2 = start(slot, table, ck2, Path.of(URI.create(savepoint)), "2", "--xact.prepared.drop", gidDrop);
            FlinkTestJobs.awaitTrue("drop applied", Duration.ofSeconds(60),
                    () -> TestMetricReporter.value("prepared_dropped") == 1
                            && TestMetricReporter.value("prepared_transactions_held") == 1);
            LocalPg.exec(c, "COMMIT PREPARED '" + gidDrop + "'");
            LocalPg.exec(c, "COMMIT PREPARED '" + gidKeep + "'");
            // A new prepared transaction reusing the dropped GID, while the request stays in the arguments.
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + table + " SELECT g, 'reused' FROM generate_series(40, 41) g",
                    "PREPARE TRANSACTION '" + gidDrop + "'");
            LocalPg.exec(c, "INSERT INTO " + table + " VALUES (998, 'end2')");
            FlinkTestJobs.awaitTrue(() -> "end2 drained: " + rows(out, null), Duration.ofSeconds(120),
                    () -> !rows(out, "2", "end2").isEmpty());
            FlinkTestJobs.awaitTrue("only the reused prepared transaction held", Duration.ofSeconds(30),
                    () -> TestMetricReporter.value("prepared_transactions_held") == 1
                            && TestMetricReporter.value("in_flight_transactions") == 1);
            assertEquals(List.of(), rows(out, null, "dropme"), "rows of the dropped prepared transaction drained");
            assertEquals(List.of("20:keep", "21:keep"), rows(out, "2", "keep"), "kept one drains once");
            assertEquals(List.of(gidKeep), preparedCommits(out, "2"));
            assertEquals(1, TestMetricReporter.value("prepared_dropped"));
            assertEquals(2, TestMetricReporter.value("commit_prepared"), "both COMMIT PREPARED records arrived");
            assertEquals(1, TestMetricReporter.value("prepares"), "only the reuse: the first two came from the savepoint");
            long ck2Now = newestCheckpointId(ck2);
            FlinkTestJobs.awaitTrue("two more checkpoints", Duration.ofSeconds(30),
                    () -> newestCheckpointId(ck2) >= ck2Now + 2);
            run2.cancel().get();
            run2 = null;

            // Restart from the retained checkpoint with the same arguments: the reused GID is not dropped.
            Path restore = FlinkTestJobs.latestCheckpoint(ck2);
            run3 = start(slot, table, Files.createTempDirectory("walshadow-spx-ck3"), restore, "3",
                    "--xact.prepared.drop", gidDrop);
            FlinkTestJobs.awaitTrue("restored", Duration.ofSeconds(60),
                    () -> TestMetricReporter.value("prepared_transactions_held") == 1);
            LocalPg.exec(c, "COMMIT PREPARED '" + gidDrop + "'");
            LocalPg.exec(c, "INSERT INTO " + table + " VALUES (999, 'end3')");
            FlinkTestJobs.awaitTrue(() -> "end3 drained: " + rows(out, null), Duration.ofSeconds(120),
                    () -> !rows(out, "3", "end3").isEmpty());
            FlinkTestJobs.awaitTrue("nothing held", Duration.ofSeconds(30),
                    () -> TestMetricReporter.value("prepared_transactions_held") == 0
                            && TestMetricReporter.value("in_flight_transactions") == 0);
            assertEquals(0, TestMetricReporter.value("prepared_dropped"), "a reuse of a dropped GID is not dropped");
            assertEquals(List.of("40:reused", "41:reused"), rows(out, null, "reused"), "reused one drains once");
            assertEquals(List.of(gidDrop), preparedCommits(out, "3"));
            assertEquals(List.of(), rows(out, null, "dropme"));
            assertEquals(List.of("20:keep", "21:keep"), rows(out, null, "keep"));
        } finally {
            for (JobClient j : new JobClient[] {run1, run2, run3}) {
                cancel(j);
            }
            try (Connection c = LocalPg.connect()) {
                // A prepared transaction left behind would hold back xmin (and vacuum) forever.
                for (String g : new String[] {gidDrop, gidKeep}) {
                    if (!LocalPg.queryColumn(c, "SELECT gid FROM pg_prepared_xacts WHERE gid = '" + g + "'").isEmpty()) {
                        LocalPg.exec(c, "ROLLBACK PREPARED '" + g + "'");
                    }
                }
                FlinkTestJobs.dropSlot(c, slot);
                LocalPg.exec(c, "DROP TABLE IF EXISTS " + table);
            }
        }
    }

    /** What the listing must say, from PostgreSQL: gid, xid, prepared at; changes and first LSN from the WAL. */
    private static Map<String, PreparedTransaction> pgPrepared(Connection c, String... gids) throws Exception {
        Map<String, PreparedTransaction> m = new HashMap<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT gid, transaction::text, prepared FROM pg_prepared_xacts WHERE gid IN ('"
                        + String.join("','", gids) + "')")) {
            while (rs.next()) {
                m.put(rs.getString(1), new PreparedTransaction(rs.getString(1), Integer.parseUnsignedInt(rs.getString(2)),
                        0, 0, rs.getObject(3, OffsetDateTime.class).toInstant()));
            }
        }
        assertEquals(gids.length, m.size(), "prepared in PostgreSQL: " + m);
        return m;
    }

    private static void assertListing(Map<String, PreparedTransaction> pg, List<PreparedTransaction> listed) {
        assertEquals(2, listed.size(), "listed: " + listed);
        Map<String, Long> changes = Map.of(pg.keySet().stream().filter(g -> g.contains("_drop_")).findFirst().get(),
                4L, pg.keySet().stream().filter(g -> g.contains("_keep_")).findFirst().get(), 2L);
        for (PreparedTransaction t : listed) {
            PreparedTransaction expected = pg.get(t.gid());
            assertTrue(expected != null, "unexpected gid " + t);
            assertEquals(expected.xid(), t.xid(), t.toString());
            assertEquals(expected.preparedAt(), t.preparedAt(), t.toString());
            assertEquals(changes.get(t.gid()), t.changes(), t.toString());
            assertTrue(t.firstLsn() != 0, t.toString());
        }
        assertTrue(listed.get(0).gid().contains("_drop_"), "oldest first: " + listed);
    }

    private static JobClient start(String slot, String table, Path checkpoints, Path restoreFrom, String run,
                                   String... extraArgs) throws Exception {
        List<String> args = new ArrayList<>(List.of("--pg.host", LocalPg.host(), "--pg.port", String.valueOf(LocalPg.port()),
                "--pg.database", LocalPg.database(), "--pg.user", LocalPg.user(), "--pg.sslmode", "disable",
                "--slot", slot, "--tables.include", "public." + table));
        args.addAll(List.of(extraArgs));
        Map<String, String> env = new HashMap<>();
        env.put(JobConfig.PG_PASSWORD_ENV, LocalPg.password());
        JobConfig config = JobConfig.from(args.toArray(new String[0]), env);
        Configuration conf = FlinkTestJobs.checkpointed(checkpoints, restoreFrom);
        conf.setString("metrics.reporter.wstest.factory.class", TestMetricReporter.class.getName());
        StreamExecutionEnvironment flink = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        flink.setParallelism(1);
        WalshadowJob.transactionBuffer(flink, config)
                .map(new Collect(table, run)).uid("collect")
                .sinkTo(new DiscardingSink<>());
        TestMetricReporter.METRICS.clear(); // the previous run's metrics must not satisfy a wait on this one
        return flink.executeAsync("stranded-prepared-test run " + run);
    }

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

    private static void probe(Connection c, String table, List<Object[]> out) throws Exception {
        int probe = 1000;
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (rows(out, null, "probe").isEmpty()) {
            LocalPg.exec(c, "INSERT INTO " + table + " VALUES (" + probe++ + ", 'probe')");
            assertTrue(System.nanoTime() < deadline, "the job never drained a row of " + table);
            Thread.sleep(300);
        }
    }

    /** "id:v" of the drained new rows of a run (null: any) whose v is one of {@code values} (none given: all). */
    private static List<String> rows(List<Object[]> out, String run, String... values) {
        List<String> l = new ArrayList<>();
        for (Object[] o : out) {
            if ((run == null || run.equals(o[0])) && o[1] instanceof DrainedChange dc
                    && dc.change() instanceof RowChange r && r.newValues() != null) {
                String v = String.valueOf(r.newValues()[1]);
                if (values.length == 0 || List.of(values).contains(v)) {
                    l.add(r.newValues()[0] + ":" + v);
                }
            }
        }
        return l;
    }

    private static List<String> preparedCommits(List<Object[]> out, String run) {
        List<String> l = new ArrayList<>();
        for (Object[] o : out) {
            if (run.equals(o[0]) && o[1] instanceof DrainedCommit dc && dc.gid() != null) {
                l.add(dc.gid());
            }
        }
        return l;
    }

    private static long newestCheckpointId(Path checkpoints) {
        try {
            return FlinkTestJobs.completedCheckpointIds(checkpoints).stream().mapToLong(Long::longValue).max().orElse(0);
        } catch (Exception e) {
            return 0;
        }
    }

    private static void cancel(JobClient job) {
        if (job != null) {
            try {
                job.cancel().get();
            } catch (Exception e) {
                // already finished or cancelled
            }
        }
    }
}
