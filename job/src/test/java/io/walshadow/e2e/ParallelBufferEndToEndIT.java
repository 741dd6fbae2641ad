package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.buffer.TestMetricReporter;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;

/**
 * The transaction buffer on several subtasks ({@code --xact.buffer.parallelism}), rescaled through savepoints
 * (2 → 1 → 3) while transactions are open, prepared, large enough to go to RocksDB, and DDL runs among concurrent
 * writers, after an initial snapshot: every subtask drains, the commits come out in commit order (the commit log's
 * sequence follows the commit LSNs), each once, and every table ends equal to PostgreSQL's.
 */
class ParallelBufferEndToEndIT {
    @Test
    void drainsOnEverySubtaskInCommitOrderAndRescalesWithOpenAndPreparedTransactions() throws Exception {
        try (E2e e = new E2e("e2e_par")) {
            String s = e.schema;
            String gid = "par_" + e.name;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".acct (id int PRIMARY KEY, balance bigint NOT NULL)",
                    "CREATE TABLE " + s + ".log (id bigserial PRIMARY KEY, acct int, note text)",
                    "CREATE TABLE " + s + ".wide (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + s + ".acct SELECT g, 1000 FROM generate_series(1, 50) g",
                    // copied by the initial snapshot, its rows shared among the buffer subtasks by heap block
                    "CREATE TABLE " + s + ".pre (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + s + ".pre SELECT g, md5(g::text) FROM generate_series(1, 30000) g");
            TestMetricReporter.clear();
            // small families go to RocksDB: the rescale moves spilled families between subtasks too
            String[] small = {"--xact.buffer.heap.family.bytes", "65536"};
            JobClient job = e.start(e.config(with(small, "--xact.buffer.parallelism", "2")), null, 0);
            e.awaitCaughtUp(Duration.ofMinutes(2));

            writersWithDdl(e, s, 1, 3);
            LocalPg.exec(e.pg, "INSERT INTO " + s + ".wide SELECT g, repeat('w', 100) FROM generate_series(1, 20000)"
                    + " g");
            Connection open = LocalPg.connect();
            Connection prepared = LocalPg.connect();
            try {
                rescaleWithOpenAndPrepared(e, s, gid, small, job, open, prepared);
            } finally {
                // else the schema's drop at the end waits on their locks
                open.close();
                prepared.close();
                for (String g : LocalPg.queryColumn(e.pg, "SELECT gid FROM pg_prepared_xacts WHERE gid LIKE '"
                        + gid + "%'")) {
                    LocalPg.exec(e.pg, "ROLLBACK PREPARED '" + g + "'");
                }
            }
        }
    }

    /** From the open and the prepared transaction to the end: rescaled twice, compared. */
    private static void rescaleWithOpenAndPrepared(E2e e, String s, String gid, String[] small, JobClient job,
                                                   Connection open, Connection prepared) throws Exception {
        LocalPg.exec(open, "BEGIN", "INSERT INTO " + s + ".wide SELECT g, 'open' FROM generate_series(30001, 31000) g");
        LocalPg.exec(prepared, "BEGIN", "UPDATE " + s + ".acct SET balance = balance + 7 WHERE id <= 10",
                "INSERT INTO " + s + ".log (acct, note) VALUES (1, 'prepared')", "PREPARE TRANSACTION '" + gid + "'");
        e.awaitCaughtUp(Duration.ofMinutes(2));
        Map<Integer, Long> drained = TestMetricReporter.bySubtask("commits_drained");
        assertEquals(2, drained.size(), "two buffer subtasks " + drained);
        assertTrue(drained.values().stream().allMatch(n -> n > 10), "each subtask drained commits " + drained);
        FlinkTestJobs.awaitTrue(() -> "both open families buffered " + TestMetricReporter.bySubtask(
                "in_flight_transactions"), Duration.ofMinutes(1), () -> TestMetricReporter.sum(
                "in_flight_transactions") >= 2);
        Path first = E2e.stopWithSavepoint(job);

        // scale in: the open and the prepared family come back on the one subtask
        TestMetricReporter.clear();
        job = e.start(e.config(with(small, "--xact.buffer.parallelism", "1")), first, 0);
        LocalPg.exec(open, "INSERT INTO " + s + ".wide SELECT g, 'open' FROM generate_series(31001, 31500) g",
                "COMMIT");
        LocalPg.exec(e.pg, "COMMIT PREPARED '" + gid + "'");
        LocalPg.exec(prepared, "BEGIN", "DELETE FROM " + s + ".wide WHERE id <= 500",
                "PREPARE TRANSACTION '" + gid + "_2'");
        LocalPg.exec(open, "BEGIN", "UPDATE " + s + ".wide SET v = 'reopened' WHERE id BETWEEN 1000 AND 3000");
        writersWithDdl(e, s, 4, 5);
        e.awaitCaughtUp(Duration.ofMinutes(2));
        e.assertAllTablesEqual();
        Path second = E2e.stopWithSavepoint(job);

        // scale out past the first parallelism
        TestMetricReporter.clear();
        job = e.start(e.config(with(small, "--xact.buffer.parallelism", "3")), second, 0);
        LocalPg.exec(open, "COMMIT");
        LocalPg.exec(e.pg, "COMMIT PREPARED '" + gid + "_2'");
        writersWithDdl(e, s, 6, 7);
        e.awaitCaughtUp(Duration.ofMinutes(2));
        drained = TestMetricReporter.bySubtask("commits_drained");
        assertEquals(3, drained.size(), "three buffer subtasks " + drained);
        assertTrue(drained.values().stream().filter(n -> n > 0).count() >= 2, "subtasks drained " + drained);

        Map<String, Integer> rows = e.assertAllTablesEqual();
        assertEquals(20000 + 1500 - 500, rows.get("wide"), "wide: the big one, the open one, the deleting prepared"
                + " one");
        assertEquals(50 * 1000 + 70, Long.parseLong(LocalPg.queryString(e.pg, "SELECT sum(balance) FROM " + s
                + ".acct")), "transfers keep the total; the prepared one added 70");
        e.assertEachCommitOnce();
        assertCommitLogInCommitOrder(e);
        assertEquals(0, TestMetricReporter.sum("in_flight_transactions"), "nothing left in the buffer "
                + TestMetricReporter.bySubtask("in_flight_transactions"));
    }

    private static String[] with(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * Three writers of short transactions (transfers between accounts with a log row) for two seconds per added
     * column, while this thread adds the columns {@code c<from>} .. {@code c<to>} to the log and writes rows that
     * fill them: consecutive transactions land on different buffer subtasks, each DDL between them.
     */
    private static void writersWithDdl(E2e e, String s, int from, int to) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> error = new AtomicReference<>();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            Random rnd = new Random(from * 31L + w);
            Thread t = new Thread(() -> {
                try (Connection c = LocalPg.connect()) {
                    c.setAutoCommit(false);
                    while (!stop.get()) {
                        int a = 1 + rnd.nextInt(50);
                        int b = 1 + rnd.nextInt(50);
                        int amount = rnd.nextInt(100);
                        try (var st = c.createStatement()) {
                            st.execute("UPDATE " + s + ".acct SET balance = balance - " + amount + " WHERE id = " + a);
                            st.execute("UPDATE " + s + ".acct SET balance = balance + " + amount + " WHERE id = " + b);
                            st.execute("INSERT INTO " + s + ".log (acct, note) VALUES (" + a + ", 'to " + b + "')");
                            c.commit();
                        } catch (java.sql.SQLException ex) {
                            c.rollback(); // a deadlock between two transfers
                        }
                    }
                } catch (Throwable ex) {
                    error.set(ex);
                }
            }, "writer-" + w);
            t.start();
            writers.add(t);
        }
        try {
            for (int col = from; col <= to; col++) {
                Thread.sleep(1000);
                LocalPg.exec(e.pg, "ALTER TABLE " + s + ".log ADD COLUMN c" + col + " int DEFAULT " + col);
                LocalPg.exec(e.pg, "INSERT INTO " + s + ".log (acct, note, c" + col + ") SELECT 0, 'col', g FROM "
                        + "generate_series(1, 20) g");
                Thread.sleep(1000);
            }
        } finally {
            stop.set(true);
            for (Thread t : writers) {
                t.join();
            }
        }
        if (error.get() != null) {
            throw new AssertionError("writer failed", error.get());
        }
    }

    /** The commit log's sequence numbers follow the commit LSNs: the commit order put back together. */
    private static void assertCommitLogInCommitOrder(E2e e) {
        List<String[]> log = e.ch.queryTsv("SELECT commit_seq, commit_lsn FROM `" + e.chDatabase
                + "`.`_walshadow_commit_log` FINAL ORDER BY commit_seq");
        assertTrue(log.size() > 100, "commits in the log: " + log.size());
        for (int i = 1; i < log.size(); i++) {
            assertTrue(Long.parseUnsignedLong(log.get(i)[1]) > Long.parseUnsignedLong(log.get(i - 1)[1]),
                    "commit seq " + log.get(i)[0] + " at " + log.get(i)[1] + " after seq " + log.get(i - 1)[0] + " at "
                            + log.get(i - 1)[1]);
        }
    }
}
