package io.walshadow.bench.e2e;

import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a contender reports while it captures, and what the runner waits on. The hot path is one atomic add per
 * report (a contender reports per batch, not per change) and, in the latency mode only, one array store per change.
 * Thread-safe: a contender may report from several threads.
 */
public final class Tally {
    private static final Clock WALL = Clock.systemUTC(); // microsecond resolution on Linux

    private final boolean latency;
    private final AtomicLong changes = new AtomicLong();
    private volatile long target = Long.MAX_VALUE;
    private volatile long firstNanos;
    private long reachedNanos; // guarded by this
    private Throwable failure; // guarded by this
    private long[] latencies = new long[0]; // guarded by this
    private int latencyCount; // guarded by this

    /** @param latency whether the contender should report each change's commit-to-capture latency */
    public Tally(boolean latency) {
        this.latency = latency;
    }

    /** Whether to call {@link #latency} for each change (it costs the contender a timestamp lookup per change). */
    public boolean wantsLatency() {
        return latency;
    }

    /** The wall clock in microseconds since the epoch, the unit of PostgreSQL's commit timestamps. */
    public static long nowMicros() {
        Instant i = WALL.instant();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    /** {@code n} more row changes were captured just now. */
    public void changes(int n) {
        if (n <= 0) {
            return;
        }
        long now = System.nanoTime();
        if (firstNanos == 0) {
            firstNanos = now; // a race here only moves the first change by one report
        }
        if (changes.addAndGet(n) >= target) {
            synchronized (this) {
                if (reachedNanos == 0) {
                    reachedNanos = now;
                }
                notifyAll();
            }
        }
    }

    /** One captured change's latency: the capture's wall time minus the change's source commit time. */
    public synchronized void latency(long micros) {
        if (latencyCount == latencies.length) {
            latencies = Arrays.copyOf(latencies, Math.max(1024, latencyCount * 2));
        }
        latencies[latencyCount++] = micros;
    }

    /** The capture failed: wakes the runner, which rethrows it. */
    public synchronized void fail(Throwable t) {
        if (failure == null) {
            failure = t;
        }
        notifyAll();
    }

    public long changes() {
        return changes.get();
    }

    /** {@link System#nanoTime} of the first report, 0 before it. */
    public long firstNanos() {
        return firstNanos;
    }

    /**
     * Waits until at least {@code n} changes were captured and returns the {@link System#nanoTime} of the report
     * that reached {@code n} (or now, if that happened before this call).
     */
    public synchronized long await(long n, long timeoutNanos) throws InterruptedException, TimeoutException {
        target = n;
        reachedNanos = changes.get() >= n ? System.nanoTime() : 0;
        long deadline = System.nanoTime() + timeoutNanos;
        while (reachedNanos == 0 && failure == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException("captured " + changes.get() + " of " + n + " changes in "
                        + timeoutNanos / 1_000_000_000L + " s");
            }
            wait(Math.max(1, left / 1_000_000));
        }
        if (failure != null) {
            throw new IllegalStateException("the capture failed", failure);
        }
        return reachedNanos;
    }

    /** Forgets the latencies reported so far (those of the readiness probe). */
    public synchronized void resetLatencies() {
        latencyCount = 0;
    }

    /** The latencies reported since the last reset, in microseconds, sorted. */
    public synchronized long[] sortedLatencies() {
        long[] v = Arrays.copyOf(latencies, latencyCount);
        Arrays.sort(v);
        return v;
    }

    /** Nearest-rank percentile {@code p} (0 &lt; p &le; 100) of sorted values. */
    public static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
    }
}
