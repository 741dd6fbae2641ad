package io.walshadow.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The batch's sample of commit times: all of a small batch, a bounded and uniform sample of a large one. */
class CommitTimeSampleTest {
    @Test
    void aBatchOfFewerCommitsThanTheCapacityIsSampledWhole() {
        CommitTimeSample s = new CommitTimeSample(4, new SplittableRandom(1));
        s.add(10);
        s.add(20);
        s.add(30);
        assertEquals(List.of(10L, 20L, 30L), s.times());
        assertEquals(3, s.seen());
        s.clear();
        assertEquals(List.of(), s.times(), "the next batch starts empty");
        assertEquals(0, s.seen());
    }

    @Test
    void aLargeBatchKeepsCapacityDistinctCommitsOfItsOwn() {
        CommitTimeSample s = new CommitTimeSample(CommitTimeSample.CAPACITY, new SplittableRandom(7));
        for (long t = 0; t < 10_000; t++) {
            s.add(t);
        }
        List<Long> times = s.times();
        assertEquals(CommitTimeSample.CAPACITY, times.size());
        assertEquals(CommitTimeSample.CAPACITY, new TreeSet<>(times).size(), "each commit at most once: " + times);
        assertTrue(times.stream().allMatch(t -> t >= 0 && t < 10_000), times::toString);
        assertTrue(times.stream().anyMatch(t -> t >= CommitTimeSample.CAPACITY), "later commits replace the first: "
                + times);
    }

    /**
     * Uniform: over many batches of 100 commits sampled 10 at a time, each commit is kept about 1 time in 10, the
     * first ones (kept outright, then displaced) as often as the last ones (each kept only by its draw).
     */
    @Test
    void everyCommitOfTheBatchIsKeptWithTheSameProbability() {
        int commits = 100;
        int capacity = 10;
        int batches = 20_000;
        int[] kept = new int[commits];
        CommitTimeSample s = new CommitTimeSample(capacity, new SplittableRandom(42));
        for (int b = 0; b < batches; b++) {
            for (int t = 0; t < commits; t++) {
                s.add(t);
            }
            s.times().forEach(t -> kept[t.intValue()]++);
            s.clear();
        }
        double expected = (double) batches * capacity / commits; // 2,000; binomial sd ~42
        for (int t = 0; t < commits; t++) {
            assertTrue(Math.abs(kept[t] - expected) < 6 * Math.sqrt(expected), "commit " + t + " kept " + kept[t]
                    + " times of " + batches + ", expected about " + expected);
        }
        int firstTenth = 0;
        int lastTenth = 0;
        for (int t = 0; t < 10; t++) {
            firstTenth += kept[t];
            lastTenth += kept[commits - 1 - t];
        }
        assertTrue(Math.abs(firstTenth - lastTenth) < 0.05 * firstTenth, "first tenth " + firstTenth
                + ", last tenth " + lastTenth);
    }
}
