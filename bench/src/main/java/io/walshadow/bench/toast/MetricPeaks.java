package io.walshadow.bench.toast;

import io.walshadow.bench.buffer.BenchMetrics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The largest value each of a few job metrics ({@link BenchMetrics}) took while a capture ran, sampled every
 * 100 ms: the TOAST stage's buffered chunks, the checkpoints' size and duration. Gauges show only their current
 * value, and the peak is what bounds the state.
 */
final class MetricPeaks extends Thread implements AutoCloseable {
    static final List<String> NAMES = List.of("toast_buffered_chunks", "lastCheckpointFullSize",
            "lastCheckpointDuration");

    private final Map<String, Long> peaks = new LinkedHashMap<>();
    private volatile boolean halted;

    MetricPeaks() {
        super("toast-bench-metric-peaks");
        setDaemon(true);
        NAMES.forEach(n -> peaks.put(n, -1L));
        start();
    }

    @Override
    public void run() {
        while (!halted) {
            sample();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private synchronized void sample() {
        for (String n : NAMES) {
            peaks.merge(n, BenchMetrics.value(n), Math::max);
        }
    }

    /** The peak of {@code name} so far, the current value included; -1 if it never was registered. */
    synchronized long peak(String name) {
        sample();
        return peaks.get(name);
    }

    @Override
    public void close() throws InterruptedException {
        halted = true;
        interrupt();
        join(1000);
    }
}
