package io.walshadow.buffer;

import io.walshadow.change.ChangeEvent;
import io.walshadow.change.RowChange;
import io.walshadow.change.TruncateChange;

/**
 * One committed change of a transaction family: a {@link RowChange} or {@link TruncateChange} (deferred records
 * already decoded with the descriptor as of the commit). {@code change.xid()} is the writing (sub)transaction.
 */
public record DrainedChange(long commitSeq, long commitLsn, long fullXid, long commitTime, ChangeEvent change)
        implements Drained {
    public DrainedChange {
        if (!(change instanceof RowChange || change instanceof TruncateChange)) {
            throw new IllegalArgumentException("a drained change is a row change or a truncate: " + change);
        }
    }
}
