package io.walshadow.snapshot;

import io.walshadow.heap.Tid;

/** A chunk being read: the TID of the last row emitted, moved on the task thread with each emitted row. */
final class SnapshotSplitState {
    private final SnapshotSplit split;
    private long block;
    private int offset;
    private long rows;

    SnapshotSplitState(SnapshotSplit split) {
        this.split = split;
        this.block = split.resumeBlock();
        this.offset = split.resumeOffset();
        this.rows = split.rowsDone();
    }

    void advance(Tid tid) {
        if (tid.block() < block || (tid.block() == block && tid.offset() <= offset)) {
            // resuming after the last emitted TID relies on TID order; fail rather than skip or repeat rows
            throw new IllegalStateException("snapshot chunk " + split.splitId() + " of "
                    + split.descriptor().qualifiedName() + " returned TID " + tid + " after (" + block + "," + offset + ")");
        }
        block = tid.block();
        offset = tid.offset();
        rows++;
    }

    long rows() {
        return rows;
    }

    SnapshotSplit split() {
        return split;
    }

    SnapshotSplit toSplit() {
        return split.advanced(block, offset, rows);
    }
}
