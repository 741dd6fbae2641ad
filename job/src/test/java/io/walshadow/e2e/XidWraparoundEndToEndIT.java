package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.buffer.TestMetricReporter;
import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL crashes ({@code pg_ctl stop -m immediate}) mid-transactions while its xid counter wraps from 2^32 - 1
 * to 3 (epoch 0 to 1), on the second cluster of {@code stack.sh pg-wrap-start} (counter moved to 2^32 - 10000 by
 * {@code pg_resetwal -x}; the shared cluster is not touched). A pgbench-like workload with TOAST-sized values and
 * rolled-back savepoints runs throughout; burner transactions (tiny commits, and transactions of 250 subtransactions
 * a fifth of which roll back) move the counter. Crash 1 just before the wraparound cuts off an epoch-0 transaction
 * holding TOAST rows, with one prepared; crash 2 after it cuts off one transaction of each epoch, after a
 * transaction that began in epoch 0 committed in epoch 1 with subtransactions of epoch 1; the prepared one commits
 * in epoch 1 (until then its xid holds RUNNING_XACTS' oldest running xid below the two cut off: they are discarded
 * at the first RUNNING_XACTS after that); crash 3 with only the workload in flight. The job restarts from its
 * checkpoints each time. At the end every table equals PostgreSQL's, each
 * commit is in the commit log once, each replicated row carries its transaction's full xid (epoch included) as
 * {@code pg_current_xact_id()} gave it, and nothing is left in the transaction buffer.
 */
@org.junit.jupiter.api.Tag("faults")
@ExpectedFaults("PostgreSQL crashed near xid wraparound")
class XidWraparoundEndToEndIT {
    static final long WRAP = 1L << 32;
    static final int ACCOUNTS = 1_000;

    @Test
    void crashesWhileTheXidCounterWrapsEndEqualToPostgres() throws Exception {
        long t0 = System.nanoTime();
        E2e.stack("pg-wrap-start");
        try (E2e e = new E2e("e2e_wrap", LocalPg.wrapPort())) {
            String s = e.schema;
            long firstXid = currentXid(e.pg);
            assertEquals(0, firstXid >>> 32, "pg-wrap-start leaves the counter in epoch 0: " + xidText(firstXid));
            assertTrue(WRAP - firstXid > 6_000, "pg-wrap-start leaves room before the wraparound: "
                    + xidText(firstXid));
            // txid: the inserting transaction's full xid, which the job writes to _xid
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".accounts (id int PRIMARY KEY, balance bigint, note text)",
                    "INSERT INTO " + s + ".accounts SELECT g, 0, CASE WHEN g % 10 = 0 THEN " + toastText("g")
                            + " END FROM generate_series(1, " + ACCOUNTS + ") g",
                    "CREATE TABLE " + s + ".history (id bigserial PRIMARY KEY, account int, delta int,"
                            + " txid bigint DEFAULT pg_current_xact_id()::text::bigint, note text)",
                    "CREATE TABLE " + s + ".ticks (id bigserial PRIMARY KEY,"
                            + " txid bigint DEFAULT pg_current_xact_id()::text::bigint, note text)");
            TestMetricReporter.METRICS.clear();
            e.start(e.config("--checkpoint.interval", "1s"), null, 10_000);
            e.awaitCaughtUp(Duration.ofMinutes(2));
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong committed = new AtomicLong();
            AtomicReference<Throwable> workloadError = new AtomicReference<>();
            Thread workload = new Thread(() -> workload(e, stop, committed, workloadError), "workload");
            workload.start();
            List<String> crashes = new ArrayList<>();
            String gid = "wrap_" + e.name;
            long lastXid;
            try {
                // crash 1, epoch 0: an open transaction with TOAST-sized rows is cut off, a prepared one survives
                burnTo(e, WRAP - 5_000);
                Connection open1 = e.connectPg();
                LocalPg.exec(open1, "BEGIN", "INSERT INTO " + s + ".history (account, delta, note) SELECT g, 0, "
                        + toastText("g") + " FROM generate_series(1, 50) g", "INSERT INTO " + s
                        + ".ticks (note) VALUES ('cut off 1')");
                Connection prepared = e.connectPg();
                LocalPg.exec(prepared, "BEGIN", "INSERT INTO " + s + ".ticks (note) SELECT 'prepared ' || g FROM"
                        + " generate_series(1, 20) g", "PREPARE TRANSACTION '" + gid + "'");
                crashes.add(crash(e, "open " + xidOf(open1) + ", prepared", open1, prepared));

                // crash 2, across the wraparound: open transactions of both epochs are cut off; one that began in
                // epoch 0 commits in epoch 1 with subtransactions of epoch 1
                Connection open2 = e.connectPg();
                LocalPg.exec(open2, "BEGIN", "INSERT INTO " + s + ".history (account, delta, note) SELECT g, 0, "
                        + toastText("g") + " FROM generate_series(51, 100) g");
                Connection span = e.connectPg();
                LocalPg.exec(span, "BEGIN", "INSERT INTO " + s + ".ticks (note) VALUES ('span: epoch 0')");
                String spanXid = xidOf(span);
                burnTo(e, WRAP + 1_000);
                LocalPg.exec(span, "SAVEPOINT a", "INSERT INTO " + s + ".ticks (note) SELECT 'span: subxact of"
                        + " epoch 1 ' || g FROM generate_series(1, 10) g", "RELEASE SAVEPOINT a", "SAVEPOINT b",
                        "INSERT INTO " + s + ".ticks (note) VALUES ('span: rolled back')", "ROLLBACK TO SAVEPOINT b",
                        "UPDATE " + s + ".accounts SET note = " + toastText("id") + " WHERE id <= 20", "COMMIT");
                span.close();
                Connection open4 = e.connectPg();
                LocalPg.exec(open4, "BEGIN", "INSERT INTO " + s + ".history (account, delta, note) SELECT g, 0, "
                        + toastText("g") + " FROM generate_series(101, 150) g");
                lastXid = currentXid(e.pg);
                assertEquals(1, lastXid >>> 32, "the counter wrapped: " + xidText(lastXid));
                crashes.add(crash(e, "open " + xidOf(open2) + " and " + xidOf(open4) + ", committed " + spanXid
                        + " across", open2, open4));
                LocalPg.exec(e.pg, "COMMIT PREPARED '" + gid + "'");

                // crash 3, epoch 1, with only the workload's transactions in flight
                burnTo(e, WRAP + 1_500);
                crashes.add(crash(e, "workload only"));
            } finally {
                stop.set(true);
                workload.join();
            }
            if (workloadError.get() != null) {
                throw new AssertionError("the workload failed", workloadError.get());
            }
            LocalPg.exec(e.pg, "CHECKPOINT"); // RUNNING_XACTS: the buffer discards what the crashes cut off
            e.awaitCaughtUp(Duration.ofMinutes(3));
            long endXid = currentXid(e.pg);
            assertEquals(1, endXid >>> 32, "epoch 1 at the end: " + xidText(endXid));
            Map<String, Integer> compared = e.assertAllTablesEqual();
            e.assertEachCommitOnce();
            for (String t : List.of("history", "ticks")) {
                assertEquals("0", e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`" + s + "__" + t
                        + "` FINAL WHERE _is_deleted = 0 AND _xid != txid"), t + ": rows whose _xid is not the full"
                        + " xid of the transaction that inserted them");
            }
            assertEquals("20", e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`" + s + "__ticks` FINAL"
                    + " WHERE _is_deleted = 0 AND note LIKE 'prepared %' AND intDiv(_xid, 4294967296) = 0"),
                    "the prepared transaction's rows, committed in epoch 1 under their epoch-0 xid");
            assertEquals("10", e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`" + s + "__ticks` FINAL"
                    + " WHERE _is_deleted = 0 AND note LIKE 'span: subxact%' AND intDiv(_xid, 4294967296) = 0"),
                    "the epoch-1 subtransactions' rows, under their epoch-0 top-level xid");
            assertTrue(Long.parseLong(e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`" + s
                    + "__ticks` FINAL WHERE _is_deleted = 0 AND _xid >= 4294967296")) > 100, "rows of epoch 1");
            FlinkTestJobs.awaitTrue(() -> "nothing left in the buffer (in_flight_transactions "
                    + TestMetricReporter.value("in_flight_transactions") + ")", Duration.ofMinutes(1), () -> {
                        e.failFastIfAJobFailed();
                        return TestMetricReporter.value("in_flight_transactions") == 0;
                    });
            System.out.printf("xid wraparound: counter %s -> %s, %d workload transactions, crashes %s, tables %s"
                    + " equal; %.1f s%n", xidText(firstXid), xidText(endXid), committed.get(), crashes, compared,
                    (System.nanoTime() - t0) / 1e9);
            assertTrue(committed.get() > 50, "the workload ran: " + committed.get());
        } finally {
            E2e.stack("pg-wrap-stop");
        }
    }

    /** The crash, then caught up again; returns what was open and how long the job took. */
    private static String crash(E2e e, String open, Connection... broken) throws Exception {
        String at = xidText(nextXid(e.pg));
        long t = System.nanoTime();
        E2e.stack("pg-wrap-crash");
        for (Connection c : broken) {
            c.close(); // broken by the crash: nothing to roll back
        }
        e.reconnectPg();
        LocalPg.exec(e.pg, "CHECKPOINT"); // RUNNING_XACTS
        e.awaitCaughtUp(Duration.ofMinutes(3));
        return String.format("at %s (%s): caught up in %.1f s", at, open, (System.nanoTime() - t) / 1e9);
    }

    /**
     * Moves the counter to {@code target} (a full xid): transactions of 250 subtransactions writing a row each (a
     * fifth roll back), and single-row transactions, in server-side loops.
     */
    private static void burnTo(E2e e, long target) throws SQLException {
        String s = e.schema;
        while (true) {
            long left = target - nextXid(e.pg);
            if (left <= 0) {
                return;
            }
            if (left > 400) {
                LocalPg.exec(e.pg, "DO $$BEGIN FOR i IN 1..250 LOOP BEGIN INSERT INTO " + s + ".ticks (note) VALUES"
                        + " ('subxact ' || i); IF i % 5 = 0 THEN RAISE EXCEPTION 'undo'; END IF; EXCEPTION WHEN"
                        + " raise_exception THEN NULL; END; END LOOP; END$$");
            }
            LocalPg.exec(e.pg, "DO $$BEGIN FOR i IN 1.." + Math.min(left, 100) + " LOOP INSERT INTO " + s
                    + ".ticks (note) VALUES ('tick'); COMMIT; END LOOP; END$$");
        }
    }

    /** Assigns a full xid to the session's transaction (autocommit: a transaction of its own) and returns it. */
    private static long currentXid(Connection c) throws SQLException {
        return Long.parseLong(LocalPg.queryString(c, "SELECT pg_current_xact_id()::text"));
    }

    /** The next full xid, none assigned. */
    private static long nextXid(Connection c) throws SQLException {
        return Long.parseLong(LocalPg.queryString(c, "SELECT pg_snapshot_xmax(pg_current_snapshot())::text"));
    }

    /** The full xid of the session's open transaction, as epoch:xid. */
    private static String xidOf(Connection c) throws SQLException {
        return xidText(Long.parseLong(LocalPg.queryString(c, "SELECT pg_current_xact_id()::text")));
    }

    static String xidText(long fullXid) {
        return (fullXid >>> 32) + ":" + (fullXid & 0xFFFF_FFFFL);
    }

    /** About 6 kB of incompressible text: stored out of line (TOAST). */
    private static String toastText(String seed) {
        return "(SELECT string_agg(md5(" + seed + "::text || i), '') FROM generate_series(1, 200) i)";
    }

    /**
     * pgbench-like, ~30 transactions a second: move an amount between accounts and log it, a rolled-back savepoint
     * now and then, a TOAST-sized note now and then; reconnects after a crash (what PostgreSQL committed is the truth
     * the comparison uses).
     */
    private static void workload(E2e e, AtomicBoolean stop, AtomicLong committed, AtomicReference<Throwable> error) {
        String s = e.schema;
        Random rnd = new Random(42);
        Connection c = null;
        long failures = 0;
        while (!stop.get()) {
            try {
                if (c == null) {
                    c = e.connectPg();
                    c.setAutoCommit(false);
                }
                int a = 1 + rnd.nextInt(ACCOUNTS);
                int b = 1 + rnd.nextInt(ACCOUNTS);
                int d = rnd.nextInt(1000) - 500;
                try (Statement st = c.createStatement()) {
                    st.execute("UPDATE " + s + ".accounts SET balance = balance + " + d
                            + (rnd.nextInt(10) == 0 ? ", note = " + toastText("random()") : "") + " WHERE id = " + a);
                    if (rnd.nextInt(4) == 0) {
                        st.execute("SAVEPOINT x");
                        st.execute("UPDATE " + s + ".accounts SET balance = balance + 1000000 WHERE id = " + b);
                        st.execute("INSERT INTO " + s + ".history (account, delta, note) VALUES (" + b
                                + ", 1000000, 'rolled back')");
                        st.execute("ROLLBACK TO SAVEPOINT x");
                    }
                    st.execute("UPDATE " + s + ".accounts SET balance = balance - " + d + " WHERE id = " + b);
                    st.execute("INSERT INTO " + s + ".history (account, delta) VALUES (" + a + ", " + d + ")");
                    if (rnd.nextInt(50) == 0) {
                        st.execute("DELETE FROM " + s + ".history WHERE account = " + b + " AND note IS NULL");
                    }
                }
                c.commit();
                committed.incrementAndGet();
                Thread.sleep(30);
            } catch (SQLException x) {
                failures++; // a crash: reconnect
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
                if (failures > 1_000) {
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
