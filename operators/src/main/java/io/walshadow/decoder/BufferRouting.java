package io.walshadow.decoder;

import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/** How the decoder's events reach the subtasks of the transaction buffer, keyed by top-level xid. */
final class BufferRouting {
    private BufferRouting() {}

    /**
     * One key per buffer subtask, in subtask order, each routed to its subtask by Flink's key-group assignment: an
     * event sent under each reaches every subtask once (a keyed exchange cannot broadcast). The keys are the first
     * non-negative integers that do; the receiver must not treat them as the xid of a family.
     */
    static int[] keyPerSubtask(int parallelism, int maxParallelism) {
        if (parallelism < 1 || parallelism > maxParallelism) {
            throw new IllegalArgumentException("buffer parallelism " + parallelism + " outside 1.." + maxParallelism);
        }
        int[] keys = new int[parallelism];
        java.util.Arrays.fill(keys, -1);
        int found = 0;
        for (int key = 0; found < parallelism; key++) {
            int subtask = KeyGroupRangeAssignment.assignKeyToParallelOperator(key, maxParallelism, parallelism);
            if (keys[subtask] < 0) {
                keys[subtask] = key;
                found++;
            }
        }
        return keys;
    }
}
