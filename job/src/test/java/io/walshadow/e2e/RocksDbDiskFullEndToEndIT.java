package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RocksDB's local disk fills up (a 48 MB tmpfs) while the buffer spills a large transaction, five times, each at a
 * random moment of a small workload and with a transaction of random size: the job fails and restarts until the disk
 * has room again (the tmpfs is grown after a random wait), then the transaction arrives whole, nothing lost.
 */
@org.junit.jupiter.api.Tag("faults")
@ExpectedFaults("a full disk under RocksDB")
class RocksDbDiskFullEndToEndIT {
    static final int ROUNDS = 5;

    @Test
    void aFullRocksDbDiskStopsTheJobUntilThereIsRoomAndLosesNothing() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        long seed = Long.getLong("walshadow.faults.seed", System.nanoTime());
        java.util.Random rnd = new java.util.Random(seed);
        List<String> table = new java.util.ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            Path dir = Files.createTempDirectory("walshadow-rocks-full");
            run("mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", dir.toString());
            try (E2e e = new E2e("e2e_diskfull")) {
                String s = e.schema;
                LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, v text)",
                        "CREATE TABLE " + s + ".small (id serial PRIMARY KEY, v int)");
                io.walshadow.buffer.TestMetricReporter.METRICS.clear();
                e.flink.setString("state.backend.rocksdb.localdir", dir.toString());
                e.start(e.config("--checkpoint.interval", "1s", "--xact.buffer.heap.bytes", "0"), null, 10_000);
                e.awaitCaughtUp(Duration.ofMinutes(2));
                // small transactions around the large one, for a random while before it
                long until = System.currentTimeMillis() + 500 + rnd.nextInt(2_500);
                while (System.currentTimeMillis() < until) {
                    LocalPg.exec(e.pg, "INSERT INTO " + s + ".small (v) VALUES (1)");
                    Thread.sleep(20);
                }
                // one transaction of 120 to 175 MB of hardly compressible changes: more than the disk holds
                int rows = 480_000 + rnd.nextInt(220_001);
                LocalPg.exec(e.pg, "INSERT INTO " + s + ".t SELECT g, md5(g::text) || md5((g + 1)::text) || md5((g"
                        + " + 2)::text) || md5((g + 3)::text) || md5((g + 4)::text) || md5((g + 5)::text) FROM"
                        + " generate_series(1, " + rows + ") g", "INSERT INTO " + s + ".small (v) VALUES (2)");
                FlinkTestJobs.awaitTrue(() -> "RocksDB's disk is full", Duration.ofMinutes(3),
                        () -> usable(dir) < (8L << 20));
                long full = System.nanoTime();
                int waitMs = 2_000 + rnd.nextInt(4_000);
                Thread.sleep(waitMs); // failing and restarting meanwhile
                run("mount", "-o", "remount,size=1g", dir.toString());
                long room = System.nanoTime();
                e.awaitCaughtUp(Duration.ofMinutes(5));
                double recovered = (System.nanoTime() - room) / 1e9;
                assertEquals(rows, e.assertAllTablesEqual().get("t"));
                e.assertEachCommitOnce();
                assertTrue(Files.getFileStore(dir).getTotalSpace() > (512L << 20));
                long restarts = Math.max(0, io.walshadow.buffer.TestMetricReporter.value("numRestarts"));
                table.add(String.format("%5d %9d %9.1f %9d %14.1f", round + 1, rows, (room - full) / 1e9, restarts,
                        recovered));
            } finally {
                run("umount", "-l", dir.toString());
            }
        }
        System.out.printf("RocksDB disk full (seed %d): 48 MB tmpfs, grown to 1 GB after the wait%n%5s %9s %9s %9s %14s%n",
                seed, "round", "rows", "full s", "restarts", "s to caught up");
        table.forEach(System.out::println);
    }

    private static long usable(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (java.io.IOException x) {
            throw new java.io.UncheckedIOException(x);
        }
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(List.of(command)).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed");
        }
    }
}
