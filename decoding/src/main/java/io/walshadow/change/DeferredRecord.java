package io.walshadow.change;

import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.XLogRecord;

/**
 * A heap record whose relation can only be known at its transaction's commit: a relfilenode the transaction
 * created itself (CREATE TABLE + COPY, TRUNCATE + INSERT, a rewrite), or one whose catalog state is ambiguous
 * until that commit. Buffered raw with the transaction; decoded at the commit with the history as of the commit
 * ({@code history.lookup(rel, commitLsn)}), discarded with an abort.
 */
public record DeferredRecord(long lsn, int xid, RelFileLocator rel, XLogRecord record) implements ChangeEvent {
}
