package io.walshadow.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The copy's {@code eta_ms} gauge: the chunks left at the rate of the chunks this run's round did. */
class SnapshotEtaTest {

    @Test
    void theChunksLeftAtTheRateSoFar() {
        assertEquals(30_000, SnapshotEnumerator.etaMs(12, 4, 10_000), "4 chunks in 10 s: 12 more in 30 s");
        assertEquals(0, SnapshotEnumerator.etaMs(0, 16, 5_000), "all done, waiting for the checkpoint");
    }

    @Test
    void noRateBeforeTheRoundsFirstChunk() {
        assertEquals(-1, SnapshotEnumerator.etaMs(40, 0, 60_000));
    }
}
