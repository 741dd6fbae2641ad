package io.walshadow.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkPlannerTest {
    @Test
    void chunksTileThePagesAndTheLastIsOpen() {
        for (long pages : new long[] {0, 1, 63, 64, 65, 1000}) {
            List<TidRange> plan = ChunkPlanner.plan(pages, 64);
            assertEquals(0, plan.get(0).fromBlock());
            for (int i = 1; i < plan.size(); i++) {
                assertEquals(plan.get(i - 1).toBlock(), plan.get(i).fromBlock(), "adjacent at " + i + " for " + pages);
            }
            assertTrue(plan.get(plan.size() - 1).openEnded());
            assertEquals(Math.max(1, (pages + 63) / 64), plan.size(), "chunks for " + pages + " pages");
        }
    }

    @Test
    void predicates() {
        assertEquals("ctid >= '(64,0)'::tid AND ctid < '(128,0)'::tid", new TidRange(64, 128).predicate());
        assertEquals("ctid >= '(128,0)'::tid", new TidRange(128, -1).predicate());
        assertThrows(IllegalArgumentException.class, () -> new TidRange(5, 5));
        assertThrows(IllegalArgumentException.class, () -> new TidRange(-1, 5));
        assertThrows(IllegalArgumentException.class, () -> ChunkPlanner.plan(10, 0));
    }
}
