package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RocksDB's local disk fills up (a 48 MB tmpfs) while the buffer spills a large transaction: the job fails and
 * restarts until the disk has room again (the tmpfs is grown), then the transaction arrives whole, nothing lost.
 */
@org.junit.jupiter.api.Tag("faults")
class RocksDbDiskFullEndToEndTest {
    @Test
    void aFullRocksDbDiskStopsTheJobUntilThereIsRoomAndLosesNothing() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        Path dir = Files.createTempDirectory("walshadow-rocks-full");
        run("mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", dir.toString());
        try (E2e e = new E2e("e2e_diskfull")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, v text)");
            e.flink.setString("state.backend.rocksdb.localdir", dir.toString());
            e.start(e.config("--checkpoint.interval", "1s", "--xact.buffer.heap.bytes", "0"), null, 10_000);
            e.awaitCaughtUp(Duration.ofMinutes(2));
            // one transaction of ~150 MB of hardly compressible changes: more than the disk holds
            LocalPg.exec(e.pg, "INSERT INTO " + s + ".t SELECT g, md5(g::text) || md5((g + 1)::text) || md5((g + 2)"
                    + "::text) || md5((g + 3)::text) || md5((g + 4)::text) || md5((g + 5)::text) FROM"
                    + " generate_series(1, 600000) g");
            FlinkTestJobs.awaitTrue(() -> "RocksDB's disk is full", Duration.ofMinutes(3),
                    () -> usable(dir) < (8L << 20));
            Thread.sleep(5_000); // failing and restarting meanwhile
            run("mount", "-o", "remount,size=1g", dir.toString());
            e.awaitCaughtUp(Duration.ofMinutes(5));
            assertEquals(600_000, e.assertAllTablesEqual().get("t"));
            e.assertEachCommitOnce();
            assertTrue(Files.getFileStore(dir).getTotalSpace() > (512L << 20));
        } finally {
            run("umount", "-l", dir.toString());
        }
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
