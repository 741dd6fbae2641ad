package io.walshadow.change;

import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.wal.RelFileLocator;
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
 */
public record BufferEvent(int topXid, long commitSeq, long fullXid, ChangeEvent event,
                          Map<RelFileLocator, RelationDescriptor> deferredDescriptors) {
    public BufferEvent {
        deferredDescriptors = deferredDescriptors == null ? Map.of() : Map.copyOf(deferredDescriptors);
    }

    public static BufferEvent of(int topXid, ChangeEvent event) {
        return new BufferEvent(topXid, 0, 0, event, Map.of());
    }
}
