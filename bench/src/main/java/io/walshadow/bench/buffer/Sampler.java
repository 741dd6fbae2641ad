package io.walshadow.bench.buffer;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Samples, every 200 ms in a daemon thread, what GC notifications cannot show: the transaction buffer's gauges
 * (buffered changes and its estimate of the bytes it holds), the RocksDB directory's and the checkpoint directory's
 * size on disk (every second), and the longest and largest checkpoint; keeps the maxima since {@link #reset}.
 */
final class Sampler implements AutoCloseable {
    private final Path rocksDir;
    private final Path checkpointDir;
    private final Thread thread;
    private volatile boolean running = true;

    final AtomicLong bufferedChanges = new AtomicLong();
    final AtomicLong bufferedBytes = new AtomicLong();
    final AtomicLong rocksBytes = new AtomicLong();
    final AtomicLong checkpointBytes = new AtomicLong();
    final AtomicLong checkpointMillis = new AtomicLong();
    final AtomicLong checkpointSize = new AtomicLong();

    Sampler(Path rocksDir, Path checkpointDir) {
        this.rocksDir = rocksDir;
        this.checkpointDir = checkpointDir;
        thread = new Thread(this::run, "bench-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    void reset() {
        bufferedChanges.set(0);
        bufferedBytes.set(0);
        rocksBytes.set(0);
        checkpointBytes.set(0);
        checkpointMillis.set(0);
        checkpointSize.set(0);
    }

    private void run() {
        long i = 0;
        while (running) {
            bufferedChanges.accumulateAndGet(BenchMetrics.value("buffered_changes"), Math::max);
            bufferedBytes.accumulateAndGet(BenchMetrics.value("buffered_bytes"), Math::max);
            checkpointMillis.accumulateAndGet(BenchMetrics.value("lastCheckpointDuration"), Math::max);
            checkpointSize.accumulateAndGet(Math.max(BenchMetrics.value("lastCheckpointSize"),
                    BenchMetrics.value("lastCheckpointFullSize")), Math::max);
            if (i++ % 5 == 0) {
                rocksBytes.accumulateAndGet(sizeOf(rocksDir), Math::max);
                checkpointBytes.accumulateAndGet(sizeOf(checkpointDir), Math::max);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Bytes of the regular files under {@code dir}; files that vanish during the walk are skipped. */
    static long sizeOf(Path dir) {
        AtomicLong n = new AtomicLong();
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (attrs.isRegularFile()) {
                        n.addAndGet(attrs.size());
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            return n.get();
        }
        return n.get();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join();
    }
}
