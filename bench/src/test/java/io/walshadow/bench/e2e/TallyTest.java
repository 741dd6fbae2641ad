package io.walshadow.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The runner's bookkeeping; no servers. */
class TallyTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void awaitReturnsWhenAnotherThreadReachesTheTarget() throws Exception {
        Tally t = new Tally(false);
        Thread reporter = new Thread(() -> {
            for (int i = 0; i < 100; i++) {
                t.changes(10);
            }
        });
        long before = System.nanoTime();
        reporter.start();
        long reached = t.await(1000, 10 * SECOND);
        reporter.join();
        assertTrue(reached >= before && reached <= System.nanoTime());
        assertEquals(1000, t.changes());
        assertTrue(t.firstNanos() >= before && t.firstNanos() <= reached);
    }

    @Test
    void aTargetAlreadyReachedReturnsAtOnceAndATargetRaisedLaterWaitsAgain() throws Exception {
        Tally t = new Tally(false);
        t.changes(1);
        t.await(1, SECOND);
        assertThrows(TimeoutException.class, () -> t.await(2, 50_000_000L));
        t.changes(1);
        t.await(2, SECOND);
    }

    @Test
    void aFailureWakesTheRunner() {
        Tally t = new Tally(false);
        new Thread(() -> t.fail(new RuntimeException("slot busy"))).start();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.await(1, 10 * SECOND));
        assertEquals("slot busy", e.getCause().getMessage());
    }

    @Test
    void latenciesSortedAfterTheLastReset() {
        Tally t = new Tally(true);
        t.latency(999);
        t.resetLatencies();
        for (long v : new long[] {30, 10, 20}) {
            t.latency(v);
        }
        assertArrayEquals(new long[] {10, 20, 30}, t.sortedLatencies());
    }

    @Test
    void nearestRankPercentiles() {
        long[] v = new long[100];
        for (int i = 0; i < v.length; i++) {
            v[i] = i + 1;
        }
        assertEquals(50, Tally.percentile(v, 50));
        assertEquals(99, Tally.percentile(v, 99));
        assertEquals(100, Tally.percentile(v, 100));
        assertEquals(7, Tally.percentile(new long[] {7}, 99));
        assertEquals(2, Tally.percentile(new long[] {1, 2, 3}, 50));
    }
}
