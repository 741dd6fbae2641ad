package io.walshadow.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashSet;
import java.util.Set;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

/** The keys the decoder sends the running-transactions horizon under reach every buffer subtask exactly once. */
class BufferRoutingTest {
    @Test
    void oneKeyPerSubtask() {
        for (int p : new int[] {1, 2, 3, 4, 7, 16, 128}) {
            int[] keys = BufferRouting.keyPerSubtask(p, 128);
            assertEquals(p, keys.length);
            Set<Integer> distinct = new HashSet<>();
            for (int i = 0; i < p; i++) {
                assertEquals(i, KeyGroupRangeAssignment.assignKeyToParallelOperator(keys[i], 128, p),
                        "key " + keys[i] + " at parallelism " + p);
                distinct.add(keys[i]);
            }
            assertEquals(p, distinct.size());
        }
        assertArrayEquals(new int[] {0}, BufferRouting.keyPerSubtask(1, 128), "one subtask: the horizon's own key");
        assertThrows(IllegalArgumentException.class, () -> BufferRouting.keyPerSubtask(129, 128));
    }
}
