package io.walshadow.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import io.walshadow.wal.Lsn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;

/**
 * The WAL source in a real MiniCluster with RocksDB state and checkpoints, against the local PostgreSQL: a job is
 * cancelled mid-stream and a second one restored from the first one's last retained checkpoint. What a
 * checkpoint-committing stage downstream publishes must be exactly pg_waldump's record list for the range, and the
 * slot's restart_lsn must only ever take positions of completed checkpoints.
 */
class WalSourceCheckpointIT {
    private static final Pattern WALDUMP_LSN = Pattern.compile("lsn: ([0-9A-F]+/[0-9A-F]+), prev");

    @Test
    void restoreFromCheckpointContinuesWithoutLossOrRepeat() throws Exception {
        String slot = "ws_ck_" + Long.toString(System.nanoTime(), 36);
        String table = "ck_src_" + Long.toString(System.nanoTime(), 36);
        Path checkpoints = Files.createTempDirectory("walshadow-ck");
        List<long[]> committed = CheckpointCommitLog.committed(slot);
        List<Long> restartLsns = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        int firstJobRecords = 0;

        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE TABLE " + table + " (id bigserial PRIMARY KEY, v text)");
            long r0 = Lsn.parse(LocalPg.queryString(c,
                    "SELECT lsn::text FROM pg_create_physical_replication_slot('" + slot + "', true)"));
            Thread workload = new Thread(() -> runWorkload(table, running), "workload");
            Thread watcher = new Thread(() -> watchSlot(slot, restartLsns, running), "slot-watcher");
            workload.start();
            watcher.start();
            try {
                JobClient first = startJob(slot, checkpoints, null);
                FlinkTestJobs.awaitTrue("first job commits records over 3 checkpoints", Duration.ofSeconds(90),
                        () -> committed.size() > 500 && CheckpointCommitLog.snapshotPositions(slot).size() >= 3);
                first.cancel().get();
                int afterFirst = committed.size();
                firstJobRecords = afterFirst;
                Path restoreFrom = FlinkTestJobs.latestCheckpoint(checkpoints);

                JobClient second = startJob(slot, checkpoints, restoreFrom);
                FlinkTestJobs.awaitTrue("restored job commits more records", Duration.ofSeconds(90),
                        () -> committed.size() > afterFirst + 500);
                running.set(false);
                workload.join();
                long end = LocalPg.flushLsn(c);
                FlinkTestJobs.awaitTrue("everything up to " + Lsn.format(end) + " committed", Duration.ofSeconds(60),
                        () -> !committed.isEmpty()
                                && Long.compareUnsigned(committed.get(committed.size() - 1)[2], end) >= 0);
                second.cancel().get();
            } finally {
                running.set(false);
                watcher.join();
                workload.join();
            }

            // 1. Exactly pg_waldump's records from the slot's starting point on: nothing lost, nothing repeated.
            long lastEnd = committed.get(committed.size() - 1)[2];
            List<Long> expected = waldumpLsns(r0, lastEnd);
            List<Long> actual = new ArrayList<>();
            committed.forEach(r -> actual.add(r[0]));
            for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
                if (!expected.get(i).equals(actual.get(i))) {
                    fail("record " + i + ": pg_waldump has " + Lsn.format(expected.get(i)) + ", the job committed "
                            + Lsn.format(actual.get(i)) + " (previous " + (i == 0 ? "-" : Lsn.format(actual.get(i - 1))) + ")");
                }
            }
            assertEquals(expected.size(), actual.size(), "record count vs pg_waldump, last committed "
                    + Lsn.format(actual.get(actual.size() - 1)) + ", last in pg_waldump "
                    + Lsn.format(expected.get(expected.size() - 1)));
            for (int i = 1; i < committed.size(); i++) {
                assertEquals(committed.get(i - 1)[0], committed.get(i)[1], "prev-link of record " + i);
            }

            // 2. The slot only ever moved to positions that completed checkpoints can restore from.
            Set<Long> completedPositions = completedCheckpointPositions(slot, checkpoints);
            assertTrue(completedPositions.size() >= 4, "completed checkpoints with a position: " + completedPositions.size());
            long previous = 0;
            Set<Long> seen = new HashSet<>();
            for (long lsn : restartLsns) {
                assertTrue(lsn == r0 || completedPositions.contains(lsn),
                        "restart_lsn " + Lsn.format(lsn) + " is not the position of a completed checkpoint");
                assertTrue(Long.compareUnsigned(lsn, previous) >= 0, "restart_lsn went backwards to " + Lsn.format(lsn));
                previous = lsn;
                seen.add(lsn);
            }
            assertTrue(seen.size() >= 3, "the slot should have advanced several times, saw " + seen.size() + " values");
            assertTrue(Long.compareUnsigned(previous, lastEnd) <= 0, "restart_lsn passed the last committed record");
            System.out.printf("checkpoint restore: %d records (%d before the restore) from %s to %s, %d completed"
                            + " checkpoints, restart_lsn took %d values%n", committed.size(), firstJobRecords,
                    Lsn.format(r0), Lsn.format(lastEnd), completedPositions.size(), seen.size());
        } finally {
            try (Connection c = LocalPg.connect()) {
                FlinkTestJobs.dropSlot(c, slot);
                LocalPg.exec(c, "DROP TABLE IF EXISTS " + table);
            }
        }
    }

    private static JobClient startJob(String slot, Path checkpoints, Path restoreFrom) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                FlinkTestJobs.checkpointed(checkpoints, restoreFrom));
        env.setParallelism(1);
        env.fromSource(new WalSource(FlinkTestJobs.localPg(), WalSourceOptions.defaults(slot)), WatermarkStrategy.noWatermarks(), "wal")
                .uid("wal-source")
                .map(new CheckpointCommitLog(slot)).uid("commit-log")
                .sinkTo(new DiscardingSink<>());
        return env.executeAsync("wal-source-checkpoint-test");
    }

    /** Small transactions, and once a WAL segment switch, until told to stop. */
    private static void runWorkload(String table, AtomicBoolean running) {
        try (Connection c = LocalPg.connect()) {
            int i = 0;
            while (running.get()) {
                LocalPg.exec(c, "INSERT INTO " + table + " (v) SELECT repeat('x', 50) || g FROM generate_series(1, 5) g");
                if (++i == 100) {
                    LocalPg.exec(c, "SELECT pg_switch_wal()");
                }
                Thread.sleep(15);
            }
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    private static void watchSlot(String slot, List<Long> out, AtomicBoolean running) {
        try (Connection c = LocalPg.connect()) {
            while (running.get()) {
                String v = LocalPg.queryString(c, "SELECT restart_lsn::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
                if (v != null) {
                    out.add(Lsn.parse(v));
                }
                Thread.sleep(20);
            }
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /** Positions of checkpoints whose metadata Flink wrote: the completed ones. */
    private static Set<Long> completedCheckpointPositions(String slot, Path checkpoints) throws Exception {
        Set<Long> completedIds = FlinkTestJobs.completedCheckpointIds(checkpoints);
        Set<Long> positions = new HashSet<>();
        CheckpointCommitLog.snapshotPositions(slot).forEach((id, pos) -> {
            if (completedIds.contains(id)) {
                positions.add(pos);
            }
        });
        return positions;
    }

    /**
     * pg_waldump's record LSNs from {@code start} up to records starting before {@code end}. Read to the end of
     * written WAL rather than with -e: near the insert position pg_waldump's -e can stop a page short.
     */
    private static List<Long> waldumpLsns(long start, long end) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(LocalPg.bin("pg_waldump").toString(), "-p", LocalPg.walDir().toString(),
                "-s", Lsn.format(start));
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor(); // exits 1 at the end of written WAL ("invalid record length ... got 0")
        List<Long> lsns = new ArrayList<>();
        Matcher m = WALDUMP_LSN.matcher(out);
        while (m.find()) {
            long lsn = Lsn.parse(m.group(1));
            if (Long.compareUnsigned(lsn, end) >= 0) {
                break;
            }
            lsns.add(lsn);
        }
        return lsns;
    }


}
