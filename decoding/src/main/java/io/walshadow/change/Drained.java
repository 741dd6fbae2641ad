package io.walshadow.change;

/**
 * What the transaction buffer emits for a committed transaction family: its surviving changes in WAL order
 * ({@link DrainedChange}), then one {@link DrainedCommit}. Commits come out in commit order, with increasing
 * {@link #commitSeq}.
 */
public sealed interface Drained permits DrainedChange, DrainedCommit {
    /** The decoder's commit sequence of the commit (monotonic over the stream). */
    long commitSeq();

    /** LSN of the commit (or COMMIT PREPARED) record. */
    long commitLsn();

    /** Top-level xid of the committed transaction (the prepared transaction's xid for COMMIT PREPARED). */
    int xid();

    /** Commit time, TimestampTz (microseconds since 2000-01-01 UTC). */
    long commitTime();
}
