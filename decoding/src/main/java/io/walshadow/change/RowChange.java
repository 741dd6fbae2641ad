package io.walshadow.change;

import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.heap.Tid;
import io.walshadow.wal.RelFileLocator;

/**
 * One decoded row change of a replicated relation, as the transaction buffer receives it.
 *
 * @param xid the xid in the record (a subtransaction's own xid when written inside a savepoint)
 * @param descriptor the relation as of this record: column names and types of {@code newValues}
 * @param newValues values by attnum - 1 (dropped columns hold null); for DELETE null
 * @param oldValues for UPDATE/DELETE, the old key (only identity columns set) or the full old row when the
 *     table has REPLICA IDENTITY FULL; null when the record carries none (then {@code oldTid} identifies the row)
 * @param oldTid the row version an UPDATE or DELETE replaced (the identity of rows of tables without a key)
 */
public record RowChange(long lsn, int xid, Op op, RelFileLocator rel, RelationDescriptor descriptor,
                        Tid newTid, Tid oldTid, Object[] newValues, Object[] oldValues, boolean oldIsFullRow)
        implements ChangeEvent {

    public enum Op {
        INSERT,
        /** INSERT ... ON CONFLICT's tentative insert: it counts only once a CONFIRM for the same TID follows. */
        SPECULATIVE_INSERT,
        /** Confirms the speculative insert at {@code newTid}. Carries no values. */
        SPECULATIVE_CONFIRM,
        /** Removes the speculative insert at {@code oldTid} (the conflict was lost). Carries no values. */
        SPECULATIVE_ABORT,
        UPDATE,
        DELETE
    }

    public int relOid() {
        return descriptor.relOid();
    }
}
