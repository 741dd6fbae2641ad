package io.walshadow.change;

import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.XLogRecord;

/**
 * A heap record whose relation can only be known at its transaction's commit: a relfilenode the transaction
 * created itself (CREATE TABLE + COPY, TRUNCATE + INSERT, a rewrite), one whose catalog state is ambiguous
 * until that commit, or one whose catalog state the transaction itself changed before the record (ALTER TABLE
 * then DML in one transaction: the tuple may have the shape only the commit publishes). Buffered raw with the
 * transaction; decoded at the commit with the history as of the commit ({@code history.lookup(rel, commitLsn)}),
 * discarded with an abort.
 *
 * <p>A heap TRUNCATE whose relation the transaction's own catalog change makes ambiguous is deferred too, with
 * {@code rel} null: it names relations by oid, resolved as of the commit
 * ({@link WalChangeDecoder#truncatedRelationKey}).
 */
public record DeferredRecord(long lsn, int xid, RelFileLocator rel, XLogRecord record) implements ChangeEvent {
}
