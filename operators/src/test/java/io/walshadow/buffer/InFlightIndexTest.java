package io.walshadow.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

/**
 * The buffer's in-flight gauges as families grow, shrink and end: the sums over the families, and the oldest by
 * first LSN (not by arrival, not by xid), which moves on only when the oldest family ends.
 */
class InFlightIndexTest {
    private final Map<String, Gauge<?>> gauges = new HashMap<>();
    private final InFlightIndex index = new InFlightIndex(new UnregisteredMetricsGroup() {
        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            gauges.put(name, gauge);
            return gauge;
        }
    });

    @Test
    void sumsAndTheOldestFamily() {
        FamilyMeta late = FamilyMeta.first(0x300);
        late.added(100);
        index.track(7, late);
        FamilyMeta early = FamilyMeta.first(0x200); // arrives later, began earlier in the WAL
        early.added(10);
        index.track(9, early);
        assertEquals(0x200L, value("oldest_in_flight_first_lsn"));
        assertEquals(2L, value("buffered_changes"));
        assertEquals(110L, value("buffered_bytes"));

        // each change refreshes its family: counted once, whatever the number of refreshes
        for (int i = 0; i < 5; i++) {
            late.added(1);
            index.track(7, late);
        }
        early.removed(1, 10); // its change rolled back: still open, nothing buffered
        index.track(9, early);
        assertEquals(6L, value("buffered_changes"));
        assertEquals(105L, value("buffered_bytes"));
        assertEquals(0x200L, value("oldest_in_flight_first_lsn"));

        index.track(9, null); // the oldest ends: the next one by first LSN
        assertEquals(0x300L, value("oldest_in_flight_first_lsn"));
        assertEquals(6L, value("buffered_changes"));
        index.track(9, null); // ended twice (a spilled family's clear): no change
        assertEquals(6L, value("buffered_changes"));
        index.track(7, null);
        assertEquals(0L, value("oldest_in_flight_first_lsn"));
        assertEquals(0L, value("oldest_in_flight_age_ms"));
        assertEquals(0L, value("buffered_changes"));
        assertEquals(0L, value("buffered_bytes"));
    }

    private long value(String name) {
        return ((Number) gauges.get(name).getValue()).longValue();
    }
}
