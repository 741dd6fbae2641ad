package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.clickhouse.Faults;
import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Exactly-once across failures: while a mixed workload runs, the job is failed again and again at random moments
 * (an exception at a named point of the sink writer or committer, among them every step of a commit, or the
 * TaskManager killed), each time restarting from its latest checkpoint; then stopped with a savepoint and a new job
 * restored from it. Afterwards every table equals PostgreSQL's, the commit log has each commit once, and every
 * (key, version) ClickHouse holds more than once is byte-identical (only ReplacingMergeTree folds retries).
 */
@ExpectedFaults("sink failures at every step of the two-phase commit and lost ClickHouse answers")
class ExactlyOnceIT {
    /** A cluster of our own (not one per job), so the test can kill its TaskManager and start another. */
    private static MiniCluster cluster;
    private static final String TIMED_OUT = "writer.flush.landed.timedOut";

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(2).build());
        cluster.start();
        TestStreamEnvironment.setAsContext(cluster, 1);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        TestStreamEnvironment.unsetAsContext();
        cluster.close();
    }

    /**
     * Where failures are injected; at writer.flush.landed a staging INSERT landed but its answer is lost; at
     * {@value #TIMED_OUT} it landed but the client had timed out (the server ran it late): the attempt is given up.
     */
    private static final List<String> POINTS = List.of("writer.write", "writer.flush", "writer.flush.landed", TIMED_OUT,
            "writer.prepareCommit", "commit.begin", "commit.step", "commit.finish", "commit.cleanup");

    /** Rows staged and made visible by the committer after each checkpoint ({@code clickhouse.visibility checkpoint}). */
    private static final String[] STAGED = {"--clickhouse.visibility", "checkpoint"};
    /** The points a batch passes when its rows are written at commit: no step after the first without DDL. */
    private static final List<String> AT_COMMIT = POINTS.stream().filter(p -> !p.equals("commit.step")).toList();

    @Test
    void failuresAtRandomPointsLoseAndDoubleNothing() throws Exception {
        run(POINTS, STAGED, STAGED);
    }

    /**
     * The same with rows written straight into the destinations after each commit ({@code clickhouse.visibility
     * commit}, the default): a failure replays the rows written since the checkpoint, which must fold into the same
     * state. Without DDL the batches have no steps after the first, so no failure is injected between steps.
     */
    @Test
    void failuresAtRandomPointsLoseAndDoubleNothingWithRowsVisibleAtCommit() throws Exception {
        String[] commit = {"--clickhouse.visibility", "commit"};
        run(AT_COMMIT, commit, commit);
    }

    /**
     * At the default visibility with the transaction buffer on two subtasks (their drains put back into commit
     * order), and the savepoint restored on one.
     */
    @Test
    void failuresAtRandomPointsLoseAndDoubleNothingWithAParallelBufferRescaledAtTheRestore() throws Exception {
        run(AT_COMMIT, new String[] {"--xact.buffer.parallelism", "2"}, new String[] {"--xact.buffer.parallelism", "1"});
    }

    /** @param restored the options of the job restored from the final savepoint */
    private void run(List<String> points, String[] options, String[] restored) throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        try (E2e e = new E2e("e2e_eo")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".acct (id int PRIMARY KEY, balance bigint NOT NULL, note text)",
                    "CREATE TABLE " + s + ".audit (acct int, delta bigint, at timestamptz)",
                    "CREATE TABLE " + s + ".items (id bigint PRIMARY KEY, v text, n numeric(10,2))",
                    "INSERT INTO " + s + ".acct SELECT g, 1000, 'start' FROM generate_series(1, 20) g");
            JobClient job = e.start(e.config(options), null, 1000);
            e.awaitCaughtUp(Duration.ofSeconds(120));

            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> workloadError = new AtomicReference<>();
            List<Thread> workers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                long wseed = seed + w;
                Thread t = new Thread(() -> workload(s, new Random(wseed), stop, workloadError), "workload-" + w);
                t.start();
                workers.add(t);
            }
            Map<String, Integer> fired = new ConcurrentHashMap<>();
            AtomicReference<String> armed = new AtomicReference<>();
            Faults.install(point -> {
                if (point.equals("writer.flush.landed") && armed.compareAndSet(TIMED_OUT, null)) {
                    fired.merge(TIMED_OUT, 1, Integer::sum);
                    throw new io.walshadow.clickhouse.ClickHouseException("INSERT INTO staging", "injected: the rows"
                            + " landed after the client timed out", new java.net.SocketTimeoutException("Read timed out"));
                }
                if (point.equals(armed.get()) && armed.compareAndSet(point, null)) {
                    fired.merge(point, 1, Integer::sum);
                    if (point.equals("writer.flush.landed")) {
                        // no answer (as when ClickHouse is killed after writing the part): retried, not a restart
                        throw new io.walshadow.clickhouse.ClickHouseException("INSERT INTO staging",
                                "injected: the rows landed, the answer was lost", null);
                    }
                    throw new IllegalStateException("injected failure at " + point);
                }
            });
            int kills = 0;
            int injected = 0;
            try {
                for (int round = 0; round < 14; round++) {
                    Thread.sleep(300 + rnd.nextInt(1200));
                    if (round % 5 == 4) {
                        cluster.terminateTaskManager(0).get(); // the TaskManager dies with its tasks
                        cluster.startTaskManager();
                        kills++;
                    } else {
                        // every point once, then random ones
                        String point = points.get(injected < points.size() ? injected : rnd.nextInt(points.size()));
                        injected++;
                        armed.set(point);
                        FlinkTestJobs.awaitTrue("the failure at " + point + " fired (seed " + seed + ")",
                                Duration.ofSeconds(60), () -> armed.get() == null);
                    }
                    long before = e.committedLsn(); // read after the failure: what commits next ran after a restart
                    // the job restarts from its latest checkpoint and makes progress again
                    String so = fired + ", kills " + kills;
                    FlinkTestJobs.awaitTrue(() -> "progress after failure " + so + " (seed " + seed + ")",
                            Duration.ofSeconds(120), () -> e.committedLsn() > before);
                }
            } finally {
                armed.set(null);
                Faults.install(null);
            }
            int failures = fired.values().stream().mapToInt(Integer::intValue).sum() + kills;
            assertTrue(failures >= 12 && fired.keySet().containsAll(points), "failures " + fired + ", kills " + kills);

            // stop with a savepoint; the workload goes on while no job runs; a new job restores from the savepoint
            Path savepoints = Files.createTempDirectory("walshadow-eo-sp");
            String savepoint = null;
            for (int attempt = 0; savepoint == null; attempt++) {
                try {
                    savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(),
                            SavepointFormatType.CANONICAL).get();
                } catch (java.util.concurrent.ExecutionException ex) {
                    if (attempt == 5) {
                        throw ex;
                    }
                    Thread.sleep(1000); // a restart may still be finishing
                }
            }
            Thread.sleep(2000);
            JobClient second = e.start(e.config(restored), Path.of(java.net.URI.create(savepoint)), 0);
            Thread.sleep(3000);
            stop.set(true);
            for (Thread t : workers) {
                t.join();
            }
            if (workloadError.get() != null) {
                throw new AssertionError("workload failed", workloadError.get());
            }
            e.awaitCaughtUp(Duration.ofSeconds(180));
            Map<String, Integer> rows = e.assertAllTablesEqual();
            System.out.println("exactly-once: failures injected " + fired + ", TaskManager kills " + kills
                    + ", savepoint " + savepoint + "; rows compared " + rows + "; commits in the log "
                    + e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`_walshadow_commit_log` FINAL")
                    + " (seed " + seed + ")");
            assertTrue(rows.get("audit") > 100 && rows.get("items") > 50, "workload size " + rows);
            assertEquals(20000, sum(e.pg, "SELECT sum(balance) FROM " + s + ".acct"), "transfers keep the total");

            e.assertEachCommitOnce();
            e.assertCopiesIdentical("acct", "id", "balance, note");
            e.assertCopiesIdentical("items", "id", "v, n");
            e.assertCopiesIdentical("audit", "_tid_block, _tid_offset", "acct, delta, at");
            second.cancel().get();
        }
    }

    private static long sum(Connection c, String sql) throws SQLException {
        return Long.parseLong(LocalPg.queryString(c, sql));
    }

    /** Transfers between accounts (+ audit rows), item inserts, updates and deletes; some rolled back. */
    private static void workload(String s, Random rnd, AtomicBoolean stop, AtomicReference<Throwable> error) {
        AtomicInteger nextItem = new AtomicInteger(rnd.nextInt(1000) * 1_000_000);
        try (Connection c = LocalPg.connect()) {
            c.setAutoCommit(false);
            while (!stop.get()) {
                try (Statement st = c.createStatement()) {
                    int kind = rnd.nextInt(10);
                    if (kind < 5) {
                        int a = 1 + rnd.nextInt(20);
                        int b = 1 + rnd.nextInt(20);
                        int amount = rnd.nextInt(50);
                        st.execute("UPDATE " + s + ".acct SET balance = balance - " + amount + ", note = 'to " + b
                                + "' WHERE id = " + a);
                        st.execute("UPDATE " + s + ".acct SET balance = balance + " + amount + " WHERE id = " + b);
                        st.execute("INSERT INTO " + s + ".audit VALUES (" + a + ", " + (-amount) + ", now()), (" + b
                                + ", " + amount + ", now())");
                    } else if (kind < 8) {
                        int n = 1 + rnd.nextInt(20);
                        int first = nextItem.getAndAdd(n);
                        st.execute("INSERT INTO " + s + ".items SELECT g, 'item ' || g, g % 1000 / 7.0 FROM "
                                + "generate_series(" + first + ", " + (first + n - 1) + ") g");
                        st.execute("UPDATE " + s + ".items SET v = v || '*' WHERE id % 13 = " + rnd.nextInt(13));
                    } else if (kind == 8) {
                        st.execute("DELETE FROM " + s + ".items WHERE id % 17 = " + rnd.nextInt(17));
                        st.execute("DELETE FROM " + s + ".audit WHERE delta = " + rnd.nextInt(50));
                    } else {
                        st.execute("INSERT INTO " + s + ".items VALUES (" + nextItem.getAndIncrement() + ", 'kept', 1)");
                        st.execute("SAVEPOINT sp");
                        st.execute("UPDATE " + s + ".acct SET balance = 0");
                        st.execute("ROLLBACK TO SAVEPOINT sp");
                    }
                    if (rnd.nextInt(20) == 0) {
                        c.rollback();
                    } else {
                        c.commit();
                    }
                } catch (SQLException ex) {
                    c.rollback(); // a deadlock between the two workers: the transaction is simply not done
                    if (!"40P01".equals(ex.getSQLState())) {
                        throw ex;
                    }
                }
                Thread.sleep(rnd.nextInt(5));
            }
        } catch (Throwable t) {
            error.set(t);
        }
    }
}
