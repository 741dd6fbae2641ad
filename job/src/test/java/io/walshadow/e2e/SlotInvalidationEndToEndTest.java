package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The server invalidates the job's slot ({@code max_slot_wal_keep_size} exceeded while the job is down): the
 * restored job fails at once with what to do, instead of restarting for ever on an error that no restart can fix.
 */
class SlotInvalidationEndToEndTest {
    @Test
    void anInvalidatedSlotFailsTheJobOnceWithWhatToDo() throws Exception {
        try (E2e e = new E2e("e2e_slotlost")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, v text)");
            LocalPg.exec(e.pg, "ALTER SYSTEM SET max_slot_wal_keep_size = '48MB'", "SELECT pg_reload_conf()");
            try {
                e.start(e.config("--checkpoint.interval", "1s"), null, 0);
                e.awaitCaughtUp(Duration.ofMinutes(2));
                Thread.sleep(2_000); // a checkpoint to restore from
                e.cancelJobs();
                FlinkTestJobs.awaitTrue(() -> "the slot is invalidated", Duration.ofMinutes(2), () -> {
                    try {
                        LocalPg.exec(e.pg, "INSERT INTO " + s + ".t SELECT g, 'x' FROM generate_series(1, 1000) g"
                                + " ON CONFLICT DO NOTHING", "SELECT pg_switch_wal()", "CHECKPOINT");
                        return "lost".equals(LocalPg.queryString(e.pg, "SELECT wal_status FROM pg_replication_slots"
                                + " WHERE slot_name = '" + e.slot + "'"));
                    } catch (java.sql.SQLException x) {
                        throw new IllegalStateException(x);
                    }
                });
                long t0 = System.nanoTime();
                AtomicReference<String> failure = new AtomicReference<>();
                try {
                    // refused at submission (the start point reads the slot), or else by the source when it starts
                    e.start(e.config(), FlinkTestJobs.latestCheckpoint(e.checkpoints), 100);
                } catch (IllegalStateException x) {
                    failure.set(x.getMessage());
                }
                FlinkTestJobs.awaitTrue(() -> "the restored job fails", Duration.ofMinutes(2), () -> {
                    if (failure.get() != null) {
                        return true;
                    }
                    try {
                        e.failFastIfAJobFailed();
                        return false;
                    } catch (IllegalStateException x) {
                        failure.set(x.getMessage());
                        return true;
                    }
                });
                double seconds = (System.nanoTime() - t0) / 1e9;
                assertTrue(seconds < 30, "failed once, not after a hundred restarts: " + seconds + " s");
                assertTrue(failure.get().contains("replication slot " + e.slot + " was invalidated by the server"
                        + " (wal_status lost)"), failure.get());
                assertTrue(failure.get().contains("pg_drop_replication_slot('" + e.slot + "')"), failure.get());
                System.out.printf("slot invalidation e2e: the restored job failed after %.1f s (100 restarts"
                        + " allowed)%n", seconds);
            } finally {
                LocalPg.exec(e.pg, "ALTER SYSTEM RESET max_slot_wal_keep_size", "SELECT pg_reload_conf()");
            }
        }
    }

    /** Invalidated while the job runs behind a stalled sink: the restart that follows fails once, not a hundred times. */
    @Test
    void aSlotInvalidatedWhileTheJobRunsFailsItWithoutARestartLoop() throws Exception {
        try (E2e e = new E2e("e2e_slotlost2")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, v text)");
            LocalPg.exec(e.pg, "ALTER SYSTEM SET max_slot_wal_keep_size = '48MB'", "SELECT pg_reload_conf()");
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            try {
                e.start(e.config("--checkpoint.interval", "1s"), null, 100);
                e.awaitCaughtUp(Duration.ofMinutes(2));
                // the sink stalls: no checkpoint completes, the slot stops advancing
                io.walshadow.clickhouse.Faults.install(point -> {
                    if (point.equals("writer.write")) {
                        try {
                            release.await(60, java.util.concurrent.TimeUnit.SECONDS);
                        } catch (InterruptedException ie) {
                            Thread.currentThread().interrupt();
                        }
                    }
                });
                FlinkTestJobs.awaitTrue(() -> "the slot is invalidated", Duration.ofMinutes(2), () -> {
                    try {
                        LocalPg.exec(e.pg, "INSERT INTO " + s + ".t SELECT g, 'x' FROM generate_series(1, 1000) g"
                                + " ON CONFLICT DO NOTHING", "SELECT pg_switch_wal()", "CHECKPOINT");
                        return "lost".equals(LocalPg.queryString(e.pg, "SELECT wal_status FROM pg_replication_slots"
                                + " WHERE slot_name = '" + e.slot + "'"));
                    } catch (java.sql.SQLException x) {
                        throw new IllegalStateException(x);
                    }
                });
                long t0 = System.nanoTime();
                release.countDown();
                io.walshadow.clickhouse.Faults.install(null);
                AtomicReference<String> failure = new AtomicReference<>();
                FlinkTestJobs.awaitTrue(() -> "the job fails", Duration.ofMinutes(2), () -> {
                    try {
                        e.failFastIfAJobFailed();
                        return false;
                    } catch (IllegalStateException x) {
                        failure.set(x.getMessage());
                        return true;
                    }
                });
                double seconds = (System.nanoTime() - t0) / 1e9;
                assertTrue(failure.get().contains("was invalidated by the server (wal_status lost)"), failure.get());
                assertTrue(seconds < 60, "failed once, not after a hundred restarts: " + seconds + " s");
                System.out.printf("slot invalidation e2e: the running job failed %.1f s after the sink moved again"
                        + " (100 restarts allowed)%n", seconds);
            } finally {
                release.countDown();
                io.walshadow.clickhouse.Faults.install(null);
                LocalPg.exec(e.pg, "ALTER SYSTEM RESET max_slot_wal_keep_size", "SELECT pg_reload_conf()");
            }
        }
    }
}
