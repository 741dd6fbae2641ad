package io.walshadow.buffer;

import io.walshadow.xact.TransactionIds;

/**
 * What the transaction buffer emits for a committed transaction family, in this order: at most one
 * {@link DrainedCatalog} (the catalog changes the commit published, so DDL applies before any row that depends on
 * it), its surviving changes in WAL order ({@link DrainedChange}), then one {@link DrainedCommit}. Commits come out
 * in commit order, with increasing {@link #commitSeq}.
 */
public sealed interface Drained permits DrainedCatalog, DrainedChange, DrainedCommit {
    /** The decoder's commit sequence of the commit (monotonic over the stream). */
    long commitSeq();

    /** LSN of the commit (or COMMIT PREPARED) record. */
    long commitLsn();

    /**
     * Top-level xid of the committed transaction with its epoch (PostgreSQL's xid8; the prepared transaction's
     * xid for COMMIT PREPARED).
     */
    long fullXid();

    /** Commit time, TimestampTz (microseconds since 2000-01-01 UTC). */
    long commitTime();

    /** The 32-bit xid of {@link #fullXid()}. */
    default int xid() {
        return TransactionIds.xid(fullXid());
    }
}
