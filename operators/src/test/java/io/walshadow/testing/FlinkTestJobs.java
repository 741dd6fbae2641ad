package io.walshadow.testing;

import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.pg.PgConnectionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;

/** Shared plumbing of the MiniCluster tests: RocksDB + retained checkpoints, restores, slots, waiting. */
public final class FlinkTestJobs {
    private FlinkTestJobs() {}

    /** The local PostgreSQL as the job connects to it. */
    public static PgConnectionConfig localPg() {
        return new PgConnectionConfig(LocalPg.host(), LocalPg.port(), LocalPg.database(), LocalPg.user(),
                LocalPg.password(), "disable", null);
    }

    /**
     * RocksDB state, a checkpoint every 300 ms kept on cancel (all of them, so tests can tell completed ones by
     * their metadata), no restarts; restored from {@code restoreFrom} when given.
     */
    /**
     * The decoder a job built now needs: a fresh one gets the catalog bootstrap (the slot is created first), a
     * restored one nothing (its state has the catalog), as the job's own build does.
     */
    public static io.walshadow.decoder.WalDecoderFunction decoder(PgConnectionConfig pg, String slot, String include,
                                                                 Path restoreFrom) throws java.sql.SQLException {
        if (restoreFrom != null) {
            return new io.walshadow.decoder.WalDecoderFunction(pg, include, "", null, null);
        }
        io.walshadow.snapshot.StartPoint.Bootstrapped b = io.walshadow.snapshot.StartPoint.bootstrap(pg, slot, true);
        return new io.walshadow.decoder.WalDecoderFunction(pg, include, "", b.start(), b.catalog());
    }

    public static Configuration checkpointed(Path checkpoints, Path restoreFrom) {
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1000);
        conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        if (restoreFrom != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom.toUri().toString());
        }
        return conf;
    }

    /** Ids of checkpoints whose metadata Flink wrote: the completed ones. */
    public static Set<Long> completedCheckpointIds(Path checkpoints) throws Exception {
        Set<Long> ids = new HashSet<>();
        try (Stream<Path> s = Files.walk(checkpoints)) {
            s.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .forEach(p -> ids.add(checkpointId(p.getParent())));
        }
        return ids;
    }

    /** Directory of the newest completed checkpoint. */
    public static Path latestCheckpoint(Path checkpoints) throws Exception {
        try (Stream<Path> s = Files.walk(checkpoints)) {
            return s.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .map(Path::getParent)
                    .max((a, b) -> Long.compare(checkpointId(a), checkpointId(b)))
                    .orElseThrow(() -> new AssertionError("no completed checkpoint in " + checkpoints));
        }
    }

    private static long checkpointId(Path chkDir) {
        return Long.parseLong(chkDir.getFileName().toString().substring("chk-".length()));
    }

    /**
     * Drops a slot, waiting for the walsender of a cancelled job to let go of it, and ending that walsender after
     * 10 s: a test's slot left behind would keep WAL on the machine forever.
     */
    public static void dropSlot(Connection c, String slot) throws Exception {
        long start = System.nanoTime();
        while (true) {
            try {
                LocalPg.exec(c, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                        + " WHERE slot_name = '" + slot + "'");
                return;
            } catch (Exception e) {
                long waited = System.nanoTime() - start;
                if (waited > Duration.ofSeconds(20).toNanos()) {
                    throw e;
                }
                if (waited > Duration.ofSeconds(10).toNanos()) {
                    LocalPg.exec(c, "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
                            + " WHERE slot_name = '" + slot + "' AND active");
                }
                Thread.sleep(200);
            }
        }
    }

    public static void awaitTrue(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        awaitTrue(() -> what, timeout, condition);
    }

    public static void awaitTrue(Supplier<String> what, Duration timeout, BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                printThreads();
                fail("timed out waiting until " + what.get());
            }
            Thread.sleep(50);
        }
    }

    /** Every thread's stack on stderr: what a wait that ran out was stuck behind (an intermittent hang in CI). */
    private static void printThreads() {
        StringBuilder out = new StringBuilder("thread dump at the timeout:\n");
        Thread.getAllStackTraces().forEach((t, stack) -> {
            out.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (StackTraceElement e : stack) {
                out.append("    at ").append(e).append('\n');
            }
        });
        System.err.print(out);
    }
}
