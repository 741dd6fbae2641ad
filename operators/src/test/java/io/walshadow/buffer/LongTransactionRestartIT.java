package io.walshadow.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.change.RowChange;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import io.walshadow.wal.Lsn;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;

/**
 * A transaction that stays open across a checkpointed restart of the job. Its rows are buffered in the keyed
 * state, so the slot's restart_lsn moves on past the transaction's first record while it is still open (the slot
 * is not held back to the oldest open transaction). The job is cancelled, the transaction writes more and commits
 * while the job is down, and the restored job must drain it complete, once, in WAL order: the part from before the
 * restart can only have come from the checkpoint (the WAL under restart_lsn is never read again). Small
 * transactions committing around it are neither lost nor doubled.
 */
class LongTransactionRestartIT {
    private static final int SMALL_BASE = 100_000;

    @Test
    void longTransactionSurvivesRestartWhileSlotMovesOn() throws Exception {
        String slot = "ws_lt_" + Long.toString(System.nanoTime(), 36);
        String table = "xb_long_" + Long.toString(System.nanoTime(), 36);
        Path checkpoints = Files.createTempDirectory("walshadow-lt-ck");
        List<Object[]> out = XactBufferIT.OUT.computeIfAbsent(table, k -> new CopyOnWriteArrayList<>());
        List<Integer> smallCommitted = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> workloadError = new AtomicReference<>();
        JobClient first = null;
        JobClient second = null;
        Thread workload = null;
        try (Connection c = LocalPg.connect(); Connection lt = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE TABLE " + table + " (id int PRIMARY KEY, v text)");
            first = XactBufferIT.startJob(slot, table, checkpoints, null, "1", true);
            // Small transactions count from the slot's creation on (WAL before it is never streamed).
            FlinkTestJobs.awaitTrue("the job creates slot " + slot, Duration.ofSeconds(60), () -> restartLsn(slot) != 0);

            // Small transactions, all along, on their own connection.
            workload = new Thread(() -> {
                try (Connection w = LocalPg.connect()) {
                    int id = SMALL_BASE;
                    while (running.get()) {
                        LocalPg.exec(w, "INSERT INTO " + table + " VALUES (" + id + ", 'small " + id + "')");
                        smallCommitted.add(id++);
                        Thread.sleep(20);
                    }
                } catch (Throwable t) {
                    workloadError.set(t);
                }
            }, "small-transactions");
            workload.start();
            FlinkTestJobs.awaitTrue("the first job drains small transactions", Duration.ofSeconds(120),
                    () -> !changes(out, "1", null).isEmpty());

            // The long transaction: its first record is at or after the insert position read just before it.
            lt.setAutoCommit(false);
            int longXid = (int) Long.parseLong(LocalPg.queryString(lt,
                    "SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text"));
            long firstLsn = LocalPg.currentLsn(lt);
            for (int part = 0; part < 4; part++) {
                LocalPg.exec(lt, "INSERT INTO " + table + " SELECT g, 'long ' || g FROM generate_series("
                        + (part * 50 + 1) + ", " + (part * 50 + 50) + ") g");
                Thread.sleep(200);
            }
            LocalPg.exec(lt, "UPDATE " + table + " SET v = 'long updated' WHERE id = 7");

            // The slot moves past the open transaction's first record: its rows live in the checkpoints.
            long[] restart = new long[1];
            FlinkTestJobs.awaitTrue(() -> "restart_lsn " + Lsn.format(restart[0]) + " passes the long transaction's"
                    + " first LSN " + Lsn.format(firstLsn), Duration.ofSeconds(120), () -> {
                        restart[0] = restartLsn(slot);
                        return Long.compareUnsigned(restart[0], firstLsn) > 0;
                    });
            assertTrue(XactBufferIT.OUT.get(table).stream().noneMatch(o -> ((io.walshadow.buffer.Drained) o[1])
                    .xid() == longXid), "the open transaction drained something");
            assertTrue(TestMetricReporter.value("in_flight_transactions") >= 1, "long transaction in flight");
            // In-flight diagnostics: the long transaction (201 changes so far) is the oldest in flight.
            FlinkTestJobs.awaitTrue(() -> "diagnostics gauges show the long transaction: changes "
                    + TestMetricReporter.value("buffered_changes") + ", oldest first LSN "
                    + Lsn.format(TestMetricReporter.value("oldest_in_flight_first_lsn")), Duration.ofSeconds(30),
                    () -> TestMetricReporter.value("buffered_changes") >= 201
                            && TestMetricReporter.value("oldest_in_flight_first_lsn") != 0
                            && Long.compareUnsigned(TestMetricReporter.value("oldest_in_flight_first_lsn"),
                                    firstLsn) >= 0);
            long gaugedFirstLsn = TestMetricReporter.value("oldest_in_flight_first_lsn");
            assertTrue(TestMetricReporter.value("buffered_bytes") >= 201L * 64, "buffered bytes estimate: "
                    + TestMetricReporter.value("buffered_bytes"));
            long age = TestMetricReporter.value("oldest_in_flight_age_ms");
            assertTrue(age >= 200, "age of the oldest in-flight transaction: " + age + " ms");

            // Quiesce the small transactions so that the first run's output all precedes the last checkpoint.
            running.set(false);
            workload.join();
            assertNull(workloadError.get(), () -> "small transactions failed: " + workloadError.get());
            int lastSmall = smallCommitted.get(smallCommitted.size() - 1);
            FlinkTestJobs.awaitTrue("the first job drains small transaction " + lastSmall, Duration.ofSeconds(60),
                    () -> changes(out, "1", null).stream().anyMatch(d -> id(d) == lastSmall));
            long drainedAt = maxCheckpoint(checkpoints);
            FlinkTestJobs.awaitTrue("two more checkpoints complete", Duration.ofSeconds(60),
                    () -> maxCheckpoint(checkpoints) >= drainedAt + 2);
            first.cancel().get();
            first = null;
            Path restoreFrom = FlinkTestJobs.latestCheckpoint(checkpoints);

            // While the job is down: more of the long transaction, its commit, and a few small ones.
            LocalPg.exec(c, "INSERT INTO " + table + " VALUES (90000, 'down before')");
            LocalPg.exec(lt, "INSERT INTO " + table + " SELECT g, 'long late ' || g FROM generate_series(201, 300) g");
            LocalPg.exec(lt, "DELETE FROM " + table + " WHERE id = 3");
            LocalPg.exec(lt, "UPDATE " + table + " SET v = 'long late updated' WHERE id = 250");
            lt.commit();
            lt.setAutoCommit(true);
            LocalPg.exec(c, "INSERT INTO " + table + " VALUES (90001, 'down after')");
            LocalPg.exec(c, "INSERT INTO " + table + " VALUES (99999, 'end')");

            second = XactBufferIT.startJob(slot, table, checkpoints, restoreFrom, "2", true);
            FlinkTestJobs.awaitTrue("the restored job drains the end row", Duration.ofSeconds(120),
                    () -> changes(out, "2", null).stream().anyMatch(d -> id(d) == 99999));
            FlinkTestJobs.awaitTrue("nothing in flight", Duration.ofSeconds(30),
                    () -> TestMetricReporter.value("in_flight_transactions") == 0);

            // 1. The long transaction: nothing in the first run, one commit in the second, complete and in order.
            assertTrue(changes(out, "1", longXid).isEmpty(), "first run drained long transaction rows");
            List<DrainedCommit> longCommits = new ArrayList<>();
            for (Object[] o : out) {
                if (o[1] instanceof DrainedCommit dc && dc.xid() == longXid) {
                    assertEquals("2", o[0], "long transaction committed in the first run");
                    longCommits.add(dc);
                }
            }
            assertEquals(1, longCommits.size(), "long transaction commits drained: " + longCommits);
            DrainedCommit lc = longCommits.get(0);
            List<String> expected = new ArrayList<>();
            for (int i = 1; i <= 200; i++) {
                expected.add("INSERT " + i + " long " + i);
            }
            expected.add("UPDATE 7 long updated");
            for (int i = 201; i <= 300; i++) {
                expected.add("INSERT " + i + " long late " + i);
            }
            expected.add("DELETE 3 null");
            expected.add("UPDATE 250 long late updated");
            List<String> actual = new ArrayList<>();
            for (DrainedChange d : changes(out, "2", longXid)) {
                RowChange r = (RowChange) d.change();
                Object[] vals = r.newValues() != null ? r.newValues() : r.oldValues();
                actual.add(r.op() + " " + vals[0] + " " + (r.newValues() != null ? vals[1] : null));
                assertEquals(lc.commitSeq(), d.commitSeq());
            }
            assertEquals(expected, actual, "the long transaction's changes, once, in WAL order");
            assertEquals(expected.size(), lc.changes());
            assertEquals(Lsn.format(lc.firstLsn()), Lsn.format(gaugedFirstLsn), "oldest_in_flight_first_lsn gauge");
            assertEquals(0, TestMetricReporter.value("buffered_changes"), "restored run: nothing buffered after drain");
            assertEquals(0, TestMetricReporter.value("buffered_bytes"));
            assertEquals(0, TestMetricReporter.value("oldest_in_flight_first_lsn"));
            assertEquals(0, TestMetricReporter.value("oldest_in_flight_age_ms"));
            // Its first buffered record lies below the restart_lsn the slot had while the job ran: the restored job
            // could not have re-read it from the WAL, it came out of the checkpoint.
            assertTrue(Long.compareUnsigned(lc.firstLsn(), firstLsn) >= 0
                            && Long.compareUnsigned(lc.firstLsn(), restart[0]) < 0,
                    "first LSN " + Lsn.format(lc.firstLsn()) + " within [" + Lsn.format(firstLsn) + ", "
                            + Lsn.format(restart[0]) + ")");
            // The long transaction's rows drained contiguously right before its commit marker.
            int commitAt = -1;
            for (int i = 0; i < out.size(); i++) {
                if (out.get(i)[1] == lc) {
                    commitAt = i;
                }
            }
            for (int i = commitAt - expected.size(); i < commitAt; i++) {
                assertEquals(longXid, ((io.walshadow.buffer.Drained) out.get(i)[1]).xid(), "contiguous at " + i);
            }

            // 2. Small transactions: each exactly once over both runs (the first run's output all precedes the
            //    checkpoint restored from, so nothing may be replayed).
            Map<Integer, Integer> seen = new HashMap<>();
            for (Object[] o : out) {
                if (o[1] instanceof DrainedChange d && d.xid() != longXid) {
                    seen.merge(id(d), 1, Integer::sum);
                }
            }
            List<Integer> expectedSmall = new ArrayList<>(smallCommitted);
            expectedSmall.addAll(List.of(90000, 90001, 99999));
            for (int id : expectedSmall) {
                assertEquals(1, seen.getOrDefault(id, 0), "small transaction row " + id + " drained times");
            }
            assertEquals(expectedSmall.size(), seen.size(), "unexpected rows: " + seen.keySet());

            // 3. The drained changes replayed by key equal the table in PostgreSQL.
            Map<Integer, String> pgRows = new TreeMap<>();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id, v FROM " + table)) {
                while (rs.next()) {
                    pgRows.put(rs.getInt(1), rs.getString(2));
                }
            }
            assertEquals(pgRows, XactBufferIT.replay(out));
            assertNotNull(restoreFrom);
            System.out.printf("long transaction %d: first LSN %s, slot restart_lsn reached %s while open, %d changes"
                            + " drained after restore from %s; %d small transactions%n", longXid, Lsn.format(firstLsn),
                    Lsn.format(restart[0]), lc.changes(), restoreFrom.getFileName(), expectedSmall.size());
        } finally {
            running.set(false);
            if (workload != null) {
                workload.join();
            }
            XactBufferIT.cancel(first);
            XactBufferIT.cancel(second);
            XactBufferIT.cleanup(slot, table);
            XactBufferIT.OUT.remove(table);
        }
    }

    /** Drained row changes of a run, of one xid (null: of any xid). */
    private static List<DrainedChange> changes(List<Object[]> out, String run, Integer xid) {
        List<DrainedChange> l = new ArrayList<>();
        for (Object[] o : out) {
            if (o[0].equals(run) && o[1] instanceof DrainedChange d && d.change() instanceof RowChange
                    && (xid == null || d.xid() == xid)) {
                l.add(d);
            }
        }
        return l;
    }

    private static int id(DrainedChange d) {
        RowChange r = (RowChange) d.change();
        return (Integer) (r.newValues() != null ? r.newValues() : r.oldValues())[0];
    }

    private static long restartLsn(String slot) {
        try (Connection c = LocalPg.connect()) {
            String v = LocalPg.queryString(c,
                    "SELECT restart_lsn::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
            return v == null ? 0 : Lsn.parse(v);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    private static long maxCheckpoint(Path checkpoints) {
        try {
            return FlinkTestJobs.completedCheckpointIds(checkpoints).stream().mapToLong(Long::longValue).max()
                    .orElse(0);
        } catch (Exception e) {
            return 0; // a checkpoint directory being written or removed while walking
        }
    }
}
