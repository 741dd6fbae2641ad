package io.walshadow.change;

import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.catalog.TypeSet;
import io.walshadow.wal.RelFileLocator;
import java.util.List;
import java.util.Map;

/**
 * A change event on its way to the transaction buffer, routed by the top-level xid of its transaction family, so
 * that a transaction, its subtransactions and its end record land on one key.
 *
 * @param topXid top-level xid: of the record's transaction (through its subtransaction's parent) for row, truncate
 *     and deferred events; the ending transaction's for a commit, abort or prepare (the two-phase xid for COMMIT
 *     PREPARED / ROLLBACK PREPARED); for a standalone subtransaction abort (ROLLBACK TO SAVEPOINT), its top's
 * @param commitSeq for a commit (COMMIT or COMMIT PREPARED): the decoder's 64-bit monotonic commit sequence,
 *     from 1; otherwise 0
 * @param fullXid for a commit: {@code topXid} with its epoch (xid8), 0 when unknown; otherwise 0
 * @param deferredDescriptors for a commit: the descriptor, as of the commit, of each relfilenode whose records
 *     the family deferred ({@link DeferredRecord}); relfilenodes without one (dropped, not replicated) are absent
 *     and their records are discarded. A relation a deferred TRUNCATE names is keyed by its oid instead
 *     ({@link WalChangeDecoder#truncatedRelationKey}: tablespace 0). Empty otherwise.
 * @param types for a commit: the types the columns of its deferred descriptors and of its catalog changes need, as
 *     of the commit (the buffer decodes the deferred records with them, the sink maps the changed tables' columns
 *     with them: the live catalog may have dropped or changed them since); {@link TypeSet#EMPTY} otherwise
 */
public record BufferEvent(int topXid, long commitSeq, long fullXid, ChangeEvent event,
                          Map<RelFileLocator, RelationDescriptor> deferredDescriptors, TypeSet types) {
    public BufferEvent {
        deferredDescriptors = deferredDescriptors == null ? Map.of() : Map.copyOf(deferredDescriptors);
        types = types == null ? TypeSet.EMPTY : types;
    }

    public BufferEvent(int topXid, long commitSeq, long fullXid, ChangeEvent event,
                       Map<RelFileLocator, RelationDescriptor> deferredDescriptors) {
        this(topXid, commitSeq, fullXid, event, deferredDescriptors, TypeSet.EMPTY);
    }

    public static BufferEvent of(int topXid, ChangeEvent event) {
        return new BufferEvent(topXid, 0, 0, event, Map.of());
    }

    /** {@code commitSeq} of an initial-snapshot row: no WAL event has a negative one. */
    public static final long SNAPSHOT_ROW = -1;

    /**
     * A row of the initial snapshot: already committed, so the buffer passes it straight on, touching no state. Its
     * key is its heap block, so a parallel buffer shares the copy's rows among its subtasks (the key is no xid: the
     * buffer tells a snapshot row by its {@link #SNAPSHOT_ROW} sequence number). Its union with the decoder's output
     * ahead of the keyBy keeps the chain behind the buffer (buffer, TOAST stage, sink) one task.
     */
    public static BufferEvent snapshotRow(RowChange row) {
        return new BufferEvent(row.newTid() == null ? 0 : (int) row.newTid().block(), SNAPSHOT_ROW, 0, row, Map.of());
    }

    /**
     * The initial snapshot's word that a table exists (for a table without rows, whose destination no row would
     * create): a catalog change from nothing to {@code descriptor}, passed on like a snapshot row.
     */
    public static BufferEvent snapshotTable(io.walshadow.catalog.RelationDescriptor descriptor) {
        return new BufferEvent(0, SNAPSHOT_ROW, 0, new XactEvent(null, java.util.List.of(
                new io.walshadow.catalog.CatalogChange(descriptor.relOid(), null, descriptor, null, null))), Map.of());
    }

    public boolean isSnapshotRow() {
        return commitSeq == SNAPSHOT_ROW;
    }

    /** {@code commitSeq} of the running-transactions horizon. */
    public static final long RUNNING_XACTS = -2;

    /**
     * The horizon of a RUNNING_XACTS record at {@code lsn}: every transaction older than {@code oldestRunningFullXid}
     * (carried in {@code fullXid}) has ended. One that left no commit or abort record was cut off by a crash (or
     * an immediate shutdown), and the buffer discards what it holds of it, as logical decoding's
     * ReorderBufferAbortOld does; otherwise its xid, reused 2^32 transactions later, would drain the dead rows with
     * the new transaction's commit. Key 0, like snapshot rows.
     */
    public static BufferEvent runningXacts(long lsn, long oldestRunningFullXid) {
        return new BufferEvent(0, RUNNING_XACTS, oldestRunningFullXid, new XactEvent(null, List.of(), lsn), Map.of());
    }

    public boolean isRunningXacts() {
        return commitSeq == RUNNING_XACTS;
    }
}
