package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.clickhouse.Faults;
import io.walshadow.clickhouse.SinkTables;
import io.walshadow.job.WalshadowJob;
import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The faults that end the job by design, each injected five times at a random moment while an insert workload runs:
 * a staging partition emptied before its commit, the slot invalidated by the server, a fresh start into a database
 * that holds the sink id's commits. Each time the job must stop with the one message that says what happened and
 * what to do, leave the destination at a consistent cut (exactly the rows of the transactions in the commit log,
 * none of the failed batch), and the remedy the message names must end with every table equal to PostgreSQL's.
 * Prints the table of faults and outcomes ({@link FaultSuiteEndToEndIT} has the faults the job recovers from).
 */
@org.junit.jupiter.api.Tag("faults")
@ExpectedFaults("faults the job must stop on, each ending in a typed error and a failed job")
class TerminalFaultSuiteEndToEndIT {
    static final int ROUNDS = 5;
    static final long SEED = Long.getLong("walshadow.faults.seed", System.nanoTime());
    static final Random RND = new Random(SEED);
    /** Per fault, per round: seconds from the fault to the job's failure (or refusal). */
    static final Map<String, List<Double>> STOPPED = new LinkedHashMap<>();
    /** Per fault, per round: seconds the remedy took until every table was equal again. */
    static final Map<String, List<Double>> REMEDIED = new LinkedHashMap<>();

    @Test
    void aStagedPartitionEmptiedBeforeItsCommitStopsTheJobAtAConsistentCut() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            try (E2e e = new E2e("e2e_tf_stage"); Workload w = new Workload(e)) {
                // restarts allowed: the job must stop at once anyway; staged visibility, where rows go through staging
                startUnderWorkload(e, w, 100, "--clickhouse.visibility", "checkpoint");
                AtomicBoolean armed = new AtomicBoolean(true);
                AtomicLong t0 = new AtomicLong();
                Faults.install(point -> {
                    if (point.equals("commit.begin") && armed.get()) {
                        // t's staging table (the one with t's column pad), emptied once it holds the batch's rows
                        for (String[] r : e.ch.queryTsv("SELECT table FROM system.columns WHERE database = '"
                                + e.chDatabase + "' AND table LIKE '" + SinkTables.STAGE_PREFIX + "%' AND name = 'pad'")) {
                            String stage = "`" + e.chDatabase + "`.`" + r[0] + "`";
                            if (!"0".equals(e.ch.queryString("SELECT count() FROM " + stage))) {
                                e.ch.execute("TRUNCATE TABLE " + stage);
                                t0.set(System.nanoTime());
                                armed.set(false);
                            }
                        }
                    }
                });
                String failure;
                try {
                    failure = e.awaitJobFailure(Duration.ofMinutes(2));
                } finally {
                    Faults.install(null);
                }
                stopped("staging partition emptied", t0.get());
                w.stop();
                assertTrue(failure.contains("rows of segment") && failure.contains("were staged")
                        && failure.contains("start the job afresh"), failure);
                assertConsistentCut(e);
                remedy("staging partition emptied", e);
            }
        }
    }

    @Test
    void anInvalidatedSlotStopsTheJobOnceAtAConsistentCut() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            try (E2e e = new E2e("e2e_tf_slot"); Workload w = new Workload(e)) {
                SlotInvalidationEndToEndIT.keepAtMost48MB(e, true);
                try {
                    startUnderWorkload(e, w, 100);
                    long t0;
                    try (AutoCloseable stall = E2e.stallSink()) { // no checkpoint: the slot stops advancing
                        SlotInvalidationEndToEndIT.invalidate(e);
                        t0 = System.nanoTime();
                    }
                    String failure = e.awaitJobFailure(Duration.ofMinutes(2));
                    stopped("slot invalidated", t0);
                    w.stop();
                    assertTrue(failure.contains("replication slot " + e.slot + " was invalidated by the server"
                            + " (wal_status lost)") && failure.contains("pg_drop_replication_slot('" + e.slot + "')"),
                            failure);
                    assertConsistentCut(e);
                } finally {
                    SlotInvalidationEndToEndIT.keepAtMost48MB(e, false);
                }
                remedy("slot invalidated", e);
            }
        }
    }

    @Test
    void aFreshStartIntoAUsedSinkIdIsRefusedAndTheRestoreLosesNothing() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            try (E2e e = new E2e("e2e_tf_reuse"); Workload w = new Workload(e)) {
                startUnderWorkload(e, w, 0);
                e.cancelJobs(); // at a random moment of the stream
                long t0 = System.nanoTime();
                // a fresh start (its own new slot) into the same database and sink id
                IllegalStateException x = assertThrows(IllegalStateException.class, () -> WalshadowJob.build(
                        StreamExecutionEnvironment.getExecutionEnvironment(),
                        e.config("--slot", e.slot + "_2", "--clickhouse.sink.id", e.slot)));
                stopped("fresh start into a used sink id", t0);
                assertTrue(x.getMessage().startsWith("ClickHouse database " + e.chDatabase + " already holds the"
                        + " commits of sink id " + e.slot + " (up to commit ")
                        && x.getMessage().contains("Restore the job from its latest checkpoint"), x.getMessage());
                assertEquals(List.of(), LocalPg.queryColumn(e.pg, "SELECT slot_name FROM pg_replication_slots"
                        + " WHERE slot_name = '" + e.slot + "_2'"), "refused before its slot was created");
                assertConsistentCut(e);
                w.stop();
                // the remedy the message names: restore; what was written meanwhile arrives, once
                long r0 = System.nanoTime();
                e.start(e.config(), FlinkTestJobs.latestCheckpoint(e.checkpoints), 0);
                e.awaitCaughtUp(Duration.ofMinutes(2));
                assertTrue(e.assertAllTablesEqual().get("t") > 0);
                e.assertEachCommitOnce();
                REMEDIED.computeIfAbsent("fresh start into a used sink id", k -> new ArrayList<>())
                        .add((System.nanoTime() - r0) / 1e9);
            }
        }
    }

    /** Starts the job (restarts allowed), waits until it replicates, then lets the workload run a random while. */
    private static void startUnderWorkload(E2e e, Workload w, int restarts, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of("--checkpoint.interval", "1s"));
        args.addAll(List.of(options));
        e.start(e.config(args.toArray(String[]::new)), null, restarts);
        e.awaitCaughtUp(Duration.ofMinutes(2));
        w.start();
        Thread.sleep(500 + RND.nextInt(2_500));
    }

    @AfterAll
    static void printTable() {
        System.out.printf("terminal fault suite (seed %d)%n%-32s %6s %8s %20s %22s%n", SEED, "fault", "rounds",
                "as meant", "s to stop (median)", "s to remedied (median)");
        for (Map.Entry<String, List<Double>> x : STOPPED.entrySet()) {
            List<Double> remedied = REMEDIED.getOrDefault(x.getKey(), List.of());
            System.out.printf("%-32s %6d %8d %20.1f %22.1f%n", x.getKey(), x.getValue().size(), remedied.size(),
                    median(x.getValue()), median(remedied));
        }
    }

    private static double median(List<Double> l) {
        if (l.isEmpty()) {
            return Double.NaN;
        }
        List<Double> s = new ArrayList<>(l);
        s.sort(null);
        return s.get(s.size() / 2);
    }

    private static void stopped(String fault, long t0Nanos) {
        STOPPED.computeIfAbsent(fault, k -> new ArrayList<>()).add((System.nanoTime() - t0Nanos) / 1e9);
    }

    /**
     * The remedy of a job that cannot go on: drop its slot, start afresh into a reset database (a new initial
     * snapshot); every table ends equal to PostgreSQL's.
     */
    private static void remedy(String fault, E2e e) throws Exception {
        long r0 = System.nanoTime();
        e.cancelJobs();
        FlinkTestJobs.dropSlot(e.pg, e.slot);
        io.walshadow.buffer.TestMetricReporter.METRICS.clear(); // the snapshot's metrics of this job, not an earlier one
        e.start(e.config("--clickhouse.reset", "true"), null, 0);
        e.awaitSnapshotComplete(Duration.ofMinutes(2));
        e.awaitCaughtUp(Duration.ofMinutes(2));
        assertTrue(e.assertAllTablesEqual().get("t") > 0);
        REMEDIED.computeIfAbsent(fault, k -> new ArrayList<>()).add((System.nanoTime() - r0) / 1e9);
    }

    /**
     * The destination as of its watermark (the rows whose commit is at or before the last finished batch's) is
     * exactly PostgreSQL's rows of the transactions the commit log has up to it: none lost before the cut, none of a
     * batch that did not finish; and no row anywhere in the destination that PostgreSQL lacks or wrote in another
     * transaction (rows of a batch cut off mid-way are PostgreSQL's, finished by the restore).
     */
    private static void assertConsistentCut(E2e e) throws Exception {
        long watermark = e.committedLsn();
        Set<Long> committed = new HashSet<>();
        for (String[] r : e.ch.queryTsv("SELECT DISTINCT xid FROM `" + e.chDatabase + "`.`_walshadow_commit_log`"
                + " WHERE sink = '" + e.slot + "' AND commit_lsn <= " + watermark)) {
            committed.add(Long.parseLong(r[0]) & 0xFFFFFFFFL);
        }
        Map<Long, Long> pgXmin = new HashMap<>();
        try (Statement st = e.pg.createStatement();
             var rs = st.executeQuery("SELECT id, xmin::text::bigint FROM " + e.schema + ".t")) {
            while (rs.next()) {
                pgXmin.put(rs.getLong(1), rs.getLong(2));
            }
        }
        Set<Long> expected = new TreeSet<>();
        pgXmin.forEach((id, xmin) -> {
            if (committed.contains(xmin)) {
                expected.add(id);
            }
        });
        Set<Long> asOfWatermark = new TreeSet<>();
        for (String[] r : e.ch.queryTsv("SELECT id, _xid, _commit_lsn <= " + watermark + " FROM `" + e.chDatabase
                + "`.`" + e.schema + "__t`")) {
            long id = Long.parseLong(r[0]);
            assertEquals(pgXmin.get(id), Long.parseLong(r[1]) & 0xFFFFFFFFL, "row " + id + "'s transaction");
            if ("1".equals(r[2])) {
                asOfWatermark.add(id);
            }
        }
        assertEquals(expected, asOfWatermark, "the destination up to its watermark is the rows of the transactions"
                + " the commit log has up to it");
        e.assertEachCommitOnce();
    }

    /** Inserts 1 to 20 rows per transaction, about 40 transactions a second, into {@code t}. */
    static final class Workload implements AutoCloseable {
        private final E2e e;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicReference<Throwable> error = new AtomicReference<>();
        private Thread thread;

        Workload(E2e e) throws SQLException {
            this.e = e;
            LocalPg.exec(e.pg, "CREATE TABLE " + e.schema + ".t (id bigserial PRIMARY KEY, v int, pad text)");
        }

        void start() {
            Random rnd = new Random(RND.nextLong());
            thread = new Thread(() -> {
                try (Connection c = e.connectPg(); Statement st = c.createStatement()) {
                    while (!stop.get()) {
                        st.execute("INSERT INTO " + e.schema + ".t (v, pad) SELECT g, repeat('x', " + rnd.nextInt(200)
                                + ") FROM generate_series(1, " + (1 + rnd.nextInt(20)) + ") g");
                        Thread.sleep(25);
                    }
                } catch (Throwable t) {
                    error.set(t);
                }
            }, "terminal-fault-workload");
            thread.start();
        }

        void stop() throws InterruptedException {
            stop.set(true);
            if (thread != null) {
                thread.join();
                thread = null;
            }
            if (error.get() != null) {
                throw new AssertionError("the workload failed", error.get());
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            if (thread != null) {
                thread.join();
            }
        }
    }
}
