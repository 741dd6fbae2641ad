package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The server invalidates the job's slot ({@code max_slot_wal_keep_size} exceeded): the job fails once with what to
 * do, instead of restarting for ever on an error that no restart can fix.
 */
@org.junit.jupiter.api.Tag("faults")
@ExpectedFaults("the replication slot invalidated under the job, which stops with an error")
class SlotInvalidationEndToEndIT {
    @Test
    void anInvalidatedSlotFailsTheRestoredJobOnceWithWhatToDo() throws Exception {
        try (E2e e = new E2e("e2e_slotlost")) {
            LocalPg.exec(e.pg, "CREATE TABLE " + e.schema + ".t (id int PRIMARY KEY, v text)");
            keepAtMost48MB(e, true);
            try {
                e.start(e.config("--checkpoint.interval", "1s"), null, 0);
                e.awaitCaughtUp(Duration.ofMinutes(2));
                Thread.sleep(2_000); // a checkpoint to restore from
                e.cancelJobs();
                invalidate(e, "INSERT INTO " + e.schema + ".t SELECT g, 'x' FROM generate_series(1, 1000) g"
                        + " ON CONFLICT DO NOTHING");
                long t0 = System.nanoTime();
                String failure;
                try {
                    // refused at submission (the start point reads the slot), or else by the source when it starts
                    e.start(e.config(), FlinkTestJobs.latestCheckpoint(e.checkpoints), 100);
                    failure = e.awaitJobFailure(Duration.ofMinutes(2));
                } catch (IllegalStateException x) {
                    failure = x.getMessage();
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                assertTrue(seconds < 30, "failed once, not after a hundred restarts: " + seconds + " s");
                assertTrue(failure.contains("replication slot " + e.slot + " was invalidated by the server"
                        + " (wal_status lost)"), failure);
                assertTrue(failure.contains("pg_drop_replication_slot('" + e.slot + "')"), failure);
                System.out.printf("slot invalidation e2e: the restored job failed after %.1f s (100 restarts"
                        + " allowed)%n", seconds);
            } finally {
                keepAtMost48MB(e, false);
            }
        }
    }

    /** Invalidated while the job runs behind a stalled sink: the restart that follows fails once, not a hundred times. */
    @Test
    void aSlotInvalidatedWhileTheJobRunsFailsItWithoutARestartLoop() throws Exception {
        try (E2e e = new E2e("e2e_slotlost2")) {
            LocalPg.exec(e.pg, "CREATE TABLE " + e.schema + ".t (id int PRIMARY KEY, v text)");
            keepAtMost48MB(e, true);
            try {
                e.start(e.config("--checkpoint.interval", "1s"), null, 100);
                e.awaitCaughtUp(Duration.ofMinutes(2));
                long t0;
                try (AutoCloseable stall = E2e.stallSink()) { // no checkpoint completes: the slot stops advancing
                    invalidate(e, "INSERT INTO " + e.schema + ".t SELECT g, 'x' FROM generate_series(1, 1000) g"
                            + " ON CONFLICT DO NOTHING");
                    t0 = System.nanoTime();
                }
                String failure = e.awaitJobFailure(Duration.ofMinutes(2));
                double seconds = (System.nanoTime() - t0) / 1e9;
                assertTrue(failure.contains("was invalidated by the server (wal_status lost)"), failure);
                assertTrue(seconds < 60, "failed once, not after a hundred restarts: " + seconds + " s");
                System.out.printf("slot invalidation e2e: the running job failed %.1f s after the sink moved again"
                        + " (100 restarts allowed)%n", seconds);
            } finally {
                keepAtMost48MB(e, false);
            }
        }
    }

    static void keepAtMost48MB(E2e e, boolean on) throws SQLException {
        LocalPg.exec(e.pg, on ? "ALTER SYSTEM SET max_slot_wal_keep_size = '48MB'"
                : "ALTER SYSTEM RESET max_slot_wal_keep_size", "SELECT pg_reload_conf()");
    }

    /**
     * Runs {@code writes} (none when a workload writes meanwhile), switches WAL segments and checkpoints, until the
     * server invalidates the job's slot.
     */
    static void invalidate(E2e e, String... writes) throws Exception {
        FlinkTestJobs.awaitTrue(() -> "the slot is invalidated", Duration.ofMinutes(2), () -> {
            try {
                LocalPg.exec(e.pg, writes);
                LocalPg.exec(e.pg, "SELECT pg_switch_wal()", "CHECKPOINT");
                return "lost".equals(LocalPg.queryString(e.pg, "SELECT wal_status FROM pg_replication_slots"
                        + " WHERE slot_name = '" + e.slot + "'"));
            } catch (SQLException x) {
                throw new IllegalStateException(x);
            }
        });
    }
}
