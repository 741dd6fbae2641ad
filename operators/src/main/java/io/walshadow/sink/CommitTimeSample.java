package io.walshadow.sink;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A uniform sample of the source commit times of one batch's commits (reservoir sampling, Vitter's algorithm R):
 * every commit of the batch is in it with the same probability, {@code capacity / commits}, whatever their number,
 * at a constant cost per commit and a bounded committable. The committer turns each sampled time into one
 * commit-to-visible latency, so a batch of 10,000 small transactions weighs in with its spread, not with its last
 * commit only.
 */
final class CommitTimeSample {
    /** Enough for a p99 over the histogram's window of a few dozen batches; 32 longs in the committable. */
    static final int CAPACITY = 32;

    private final long[] times;
    private final SplittableRandom random;
    private int size;
    private long seen;

    CommitTimeSample(int capacity, SplittableRandom random) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("a sample of " + capacity + " commit times");
        }
        this.times = new long[capacity];
        this.random = random;
    }

    CommitTimeSample() {
        this(CAPACITY, new SplittableRandom());
    }

    /** One commit of the batch, at {@code commitTime} (PostgreSQL microseconds, as the commit record has it). */
    void add(long commitTime) {
        seen++;
        if (size < times.length) {
            times[size++] = commitTime;
            return;
        }
        long j = random.nextLong(seen); // keep the n-th commit with probability capacity / n
        if (j < times.length) {
            times[(int) j] = commitTime;
        }
    }

    /** The commits offered since the last {@link #clear()}. */
    long seen() {
        return seen;
    }

    /** The sample, in no particular order. */
    List<Long> times() {
        List<Long> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            out.add(times[i]);
        }
        return out;
    }

    void clear() {
        size = 0;
        seen = 0;
    }
}
