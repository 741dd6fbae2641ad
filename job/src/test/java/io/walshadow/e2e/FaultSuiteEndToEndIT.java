package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Faults a production pipeline meets, each injected five times at a random moment while a pgbench-like workload
 * with TOAST-sized values runs: the walsender killed, PostgreSQL crashed ({@code -m immediate}, transactions cut
 * off mid-way), ClickHouse killed ({@code SIGKILL}, commits cut off mid-way), ClickHouse frozen ({@code SIGSTOP})
 * for longer than {@code wal_sender_timeout} (3 s here) but shorter than the job's statement timeout (10 s here), and
 * ClickHouse frozen past the statement timeout, so that the client gives up on statements the server then goes on
 * to run. The job restarts from its checkpoints after the first three, rides out the short stall without a restart
 * (keepalives go on while the sink is stuck), and after the long one either retries (a commit step, which a late
 * copy cannot change) or gives up the writer's attempt (a staging INSERT, whose late rows must not be counted); at
 * the end every table equals
 * PostgreSQL's (nothing lost, nothing duplicated in the live views, no phantom row) and each commit is in the commit
 * log once. Prints the table of faults and outcomes. The faults that end the job by design (a staged partition
 * lost, the slot invalidated, a fresh start into a used sink id) and those that need the server set up apart (the
 * xid counter near wraparound, RocksDB's disk full) have their own tests (docs/operations.md, Faults).
 */
@org.junit.jupiter.api.Tag("faults")
@ExpectedFaults("PostgreSQL and ClickHouse killed, stalled and restarted under the job, which fails and restarts")
class FaultSuiteEndToEndIT {
    static final int ROUNDS = 5;
    static final int ACCOUNTS = 2_000;
    static final String STALL = "ClickHouse stalled 8 s";
    /** A SIGSTOP this long outlasts wal_sender_timeout more than twice over. */
    static final int STALL_SECONDS = 8;
    static final String CLIENT_TIMEOUT = "client timeout (12 s stall)";
    /** The job's clickhouse.statement.timeout in this suite (the server gives up a second sooner); above STALL. */
    static final int STATEMENT_TIMEOUT_SECONDS = 10;
    /** Past the statement timeout, so a statement in flight times out on the client and is retried. */
    static final int CLIENT_TIMEOUT_STALL_SECONDS = STATEMENT_TIMEOUT_SECONDS + 2;

    @Test
    void eachFaultFiveTimesAtRandomMomentsEndsEqualToPostgres() throws Exception {
        long seed = Long.getLong("walshadow.faults.seed", System.nanoTime());
        Random rnd = new Random(seed);
        try (E2e e = new E2e("e2e_faults")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".accounts (id int PRIMARY KEY, balance bigint, note text)",
                    "INSERT INTO " + s + ".accounts SELECT g, 0, NULL FROM generate_series(1, " + ACCOUNTS + ") g",
                    "CREATE TABLE " + s + ".history (account int, delta int, at timestamptz DEFAULT now())");
            LocalPg.exec(e.pg, "ALTER SYSTEM SET wal_sender_timeout = '3s'", "SELECT pg_reload_conf()");
            io.walshadow.buffer.TestMetricReporter.METRICS.clear();
            // status every second, as 10 s is to the default 60 s wal_sender_timeout
            e.start(e.config("--checkpoint.interval", "1s", "--status.interval.ms", "1000",
                    "--clickhouse.statement.timeout", STATEMENT_TIMEOUT_SECONDS + "s"), null, 10_000);
            e.awaitCaughtUp(Duration.ofMinutes(2));
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong committed = new AtomicLong();
            AtomicReference<Throwable> workloadError = new AtomicReference<>();
            Thread workload = new Thread(() -> workload(s, seed, stop, committed, workloadError), "workload");
            workload.start();
            Map<String, List<Double>> recovered = new LinkedHashMap<>();
            Map<String, Long> restarts = new LinkedHashMap<>();
            Map<String, Long> retried = new LinkedHashMap<>();
            List<String> faults = new ArrayList<>();
            for (int r = 0; r < ROUNDS; r++) {
                faults.addAll(List.of("walsender killed", "PostgreSQL crashed", "ClickHouse killed", STALL,
                        CLIENT_TIMEOUT));
            }
            Collections.shuffle(faults, rnd);
            try {
                for (String fault : faults) {
                    Thread.sleep(500 + rnd.nextInt(3_000));
                    long restartsBefore = restarts();
                    long retriesBefore = sinkRetries();
                    long t0 = System.nanoTime();
                    inject(fault, e);
                    long before = committed.get();
                    // recovered: the watermark passes a commit made after the fault
                    FlinkTestJobs.awaitTrue(() -> "recovery from: " + fault, Duration.ofMinutes(3),
                            () -> committed.get() > before + 5);
                    e.reconnectPg();
                    e.awaitCaughtUp(Duration.ofMinutes(3));
                    recovered.computeIfAbsent(fault, k -> new ArrayList<>()).add((System.nanoTime() - t0) / 1e9);
                    long restarted = restarts() - restartsBefore;
                    restarts.merge(fault, restarted, Long::sum);
                    // counters start again with a restarted job: only a fault without a restart is counted
                    retried.merge(fault, restarted == 0 ? Math.max(0, sinkRetries() - retriesBefore) : 0, Long::sum);
                }
            } finally {
                stop.set(true);
                workload.join();
                try (Connection c = LocalPg.connect()) {
                    LocalPg.exec(c, "ALTER SYSTEM RESET wal_sender_timeout", "SELECT pg_reload_conf()");
                }
            }
            if (workloadError.get() != null) {
                throw new AssertionError("the workload failed", workloadError.get());
            }
            e.reconnectPg();
            e.awaitCaughtUp(Duration.ofMinutes(3));
            Map<String, Integer> compared = e.assertAllTablesEqual();
            e.assertEachCommitOnce();
            System.out.printf("fault suite (seed %d): %d transactions committed in PostgreSQL; tables %s equal%n",
                    seed, committed.get(), compared);
            System.out.printf("%-22s %9s %9s %9s %12s %22s%n", "fault", "injected", "recovered", "restarts",
                    "sink retries", "seconds to caught up (median, max)");
            for (Map.Entry<String, List<Double>> x : recovered.entrySet()) {
                List<Double> t = new ArrayList<>(x.getValue());
                Collections.sort(t);
                System.out.printf("%-22s %9d %9d %9d %12d %15.1f, %.1f%n", x.getKey(), t.size(), t.size(),
                        restarts.get(x.getKey()), retried.get(x.getKey()), t.get(t.size() / 2), t.get(t.size() - 1));
            }
            assertTrue(restarts.get(STALL) == 0, "a stall longer than wal_sender_timeout restarts nothing: "
                    + restarts);
            assertTrue(restarts.get(CLIENT_TIMEOUT) + retried.get(CLIENT_TIMEOUT) > 0, "the client timed out at"
                    + " least once in " + ROUNDS + " rounds: restarts " + restarts + ", retries " + retried);
            assertTrue(committed.get() > 100, "the workload ran: " + committed.get());
        }
    }

    private static void inject(String fault, E2e e) throws Exception {
        switch (fault) {
            case "walsender killed" -> {
                try (Connection c = LocalPg.connect()) {
                    LocalPg.exec(c, "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
                            + " WHERE slot_name = '" + e.slot + "' AND active");
                }
            }
            case "PostgreSQL crashed" -> E2e.stack("pg-crash");
            case "ClickHouse killed" -> E2e.stack("ch-crash");
            case STALL -> E2e.stack("ch-stall", String.valueOf(STALL_SECONDS));
            case CLIENT_TIMEOUT -> E2e.stack("ch-stall", String.valueOf(CLIENT_TIMEOUT_STALL_SECONDS));
            default -> throw new IllegalArgumentException(fault);
        }
    }

    /** The sink's retried ClickHouse calls so far (writer and committer), since the job last (re)started. */
    private static long sinkRetries() {
        return Math.max(0, io.walshadow.buffer.TestMetricReporter.value("writer_retries"))
                + Math.max(0, io.walshadow.buffer.TestMetricReporter.value("committer_retries"));
    }

    /** The job's restarts so far (Flink's numRestarts). */
    private static long restarts() {
        return Math.max(0, io.walshadow.buffer.TestMetricReporter.value("numRestarts"));
    }

    /**
     * pgbench-like: move an amount between accounts and log it, now and then a TOAST-sized note; reconnects after a
     * crash (what PostgreSQL committed is the truth the comparison uses).
     */
    private static void workload(String s, long seed, AtomicBoolean stop, AtomicLong committed,
                                 AtomicReference<Throwable> error) {
        Random rnd = new Random(seed ^ 0x5eed);
        Connection c = null;
        long failures = 0;
        while (!stop.get()) {
            try {
                if (c == null) {
                    c = LocalPg.connect();
                    c.setAutoCommit(false);
                }
                int a = 1 + rnd.nextInt(ACCOUNTS);
                int b = 1 + rnd.nextInt(ACCOUNTS);
                int d = rnd.nextInt(1000) - 500;
                try (Statement st = c.createStatement()) {
                    st.execute("UPDATE " + s + ".accounts SET balance = balance + " + d
                            + (rnd.nextInt(10) == 0 ? ", note = (SELECT string_agg(md5(random()::text), '')"
                            + " FROM generate_series(1, 100))" : "") + " WHERE id = " + a);
                    st.execute("UPDATE " + s + ".accounts SET balance = balance - " + d + " WHERE id = " + b);
                    st.execute("INSERT INTO " + s + ".history (account, delta) VALUES (" + a + ", " + d + ")");
                    if (rnd.nextInt(50) == 0) {
                        st.execute("DELETE FROM " + s + ".history WHERE account = " + b);
                    }
                }
                c.commit();
                committed.incrementAndGet();
                // ~30 transactions a second: each UPDATE leaving a note unchanged costs the TOAST stage a mirror
                // fetch, and a loaded 2-core machine must keep up between the faults
                Thread.sleep(30);
            } catch (SQLException x) {
                failures++; // a crash or a terminated backend: reconnect
                try {
                    if (c != null) {
                        c.close();
                    }
                } catch (SQLException ignored) {
                    // broken
                }
                c = null;
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ie) {
                    return;
                }
                if (failures > 10_000) {
                    error.set(x);
                    return;
                }
            } catch (InterruptedException ie) {
                return;
            }
        }
        try {
            if (c != null) {
                c.close();
            }
        } catch (SQLException ignored) {
            // closing
        }
    }
}
