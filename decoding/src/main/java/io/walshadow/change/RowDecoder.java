package io.walshadow.change;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.heap.DeformedRow;
import io.walshadow.heap.HeapChange;
import io.walshadow.heap.HeapTuple;
import io.walshadow.heap.TupleDeformer;
import io.walshadow.types.ValueDecoder;

/**
 * Turns a heap change of a known relation into a {@link RowChange} with typed values: deform with the relation's
 * descriptor, decode each live column with the type decoders. Out-of-line values stay TOAST pointers for the
 * TOAST stage. TRUNCATE is not a row change and is handled by the caller.
 */
public final class RowDecoder {
    private final ValueDecoder values;

    public RowDecoder(ValueDecoder values) {
        this.values = values;
    }

    /** The value decoders this row decoder uses. */
    public ValueDecoder values() {
        return values;
    }

    public RowChange decode(HeapChange c, RelationDescriptor d) {
        return switch (c.op()) {
            case INSERT, MULTI_INSERT -> new RowChange(c.lsn(), c.xid(),
                    c.isSpeculative() ? RowChange.Op.SPECULATIVE_INSERT : RowChange.Op.INSERT, c.rel(), d,
                    c.newTid(), null, row(c, c.newTuple(), d), null, false);
            case UPDATE, HOT_UPDATE -> new RowChange(c.lsn(), c.xid(), RowChange.Op.UPDATE, c.rel(), d,
                    c.newTid(), c.oldTid(), row(c, c.newTuple(), d), old(c, d), isFull(c));
            case DELETE -> c.isSuperDelete()
                    ? new RowChange(c.lsn(), c.xid(), RowChange.Op.SPECULATIVE_ABORT, c.rel(), d, null, c.oldTid(),
                            null, null, false)
                    : new RowChange(c.lsn(), c.xid(), RowChange.Op.DELETE, c.rel(), d, null, c.oldTid(), null,
                            old(c, d), isFull(c));
            case CONFIRM -> new RowChange(c.lsn(), c.xid(), RowChange.Op.SPECULATIVE_CONFIRM, c.rel(), d,
                    c.newTid(), null, null, null, false);
            case TRUNCATE -> throw new IllegalArgumentException("TRUNCATE at " + c.lsn() + " is not a row change");
        };
    }

    private static boolean isFull(HeapChange c) {
        return c.oldTupleKind() == HeapChange.OldTupleKind.FULL;
    }

    private Object[] old(HeapChange c, RelationDescriptor d) {
        return c.oldTuple() == null ? null : row(c, c.oldTuple(), d);
    }

    private Object[] row(HeapChange c, HeapTuple tuple, RelationDescriptor d) {
        DeformedRow row = TupleDeformer.deform(tuple, d);
        Object[] out = new Object[d.natts()];
        for (int attnum : row.liveAttnums()) {
            if (row.isNull(attnum)) {
                continue;
            }
            Column col = d.column(attnum);
            try {
                out[attnum - 1] = values.decode(col, row.buffer(attnum), row.datumOffset(attnum), row.datumLength(attnum));
            } catch (RuntimeException e) {
                throw new ColumnDecodeException(c.lsn(), d.qualifiedName(), col.name(), col.typeOid(), e);
            }
        }
        return out;
    }
}
