package io.walshadow.change;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.heap.DeformedRow;
import io.walshadow.heap.HeapChange;
import io.walshadow.heap.HeapTuple;
import io.walshadow.heap.TupleDeformer;
import io.walshadow.types.ColumnDecoders;
import io.walshadow.types.UndecodableColumns;
import io.walshadow.types.UnsupportedTypeException;
import io.walshadow.types.ValueDecoder;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Turns a heap change of a known relation into a {@link RowChange} with typed values: deform with the relation's
 * descriptor, decode each live column with the type decoders. Out-of-line values stay TOAST pointers for the
 * TOAST stage. TRUNCATE is not a row change and is handled by the caller.
 */
public final class RowDecoder {
    private final ValueDecoder values;
    private final UndecodableColumns undecodable;
    /** What {@link UndecodableColumns#apply} made of each descriptor (by identity: versions are shared objects). */
    private final Map<RelationDescriptor, RelationDescriptor> applied = new IdentityHashMap<>();
    /** Each shape's column decoders (by identity), the last one used first: rows of one table come in runs. */
    private final Map<RelationDescriptor, ColumnDecoders> decoders = new IdentityHashMap<>();

    private volatile ShapeDecoders last;
    private long valuesSkipped;
    private long valuesRaw;

    public RowDecoder(ValueDecoder values) {
        this(values, UndecodableColumns.FAIL);
    }

    /** @param undecodable what to do with columns whose type has no decoder */
    public RowDecoder(ValueDecoder values, UndecodableColumns undecodable) {
        this.values = values;
        this.undecodable = undecodable;
    }

    /** Values of skipped columns (NULL or not) left undecoded ({@code types.undecodable skip}) so far. */
    public long valuesSkipped() {
        return valuesSkipped;
    }

    /** Non-null values of columns written raw ({@code types.undecodable raw}) so far. */
    public long valuesRaw() {
        return valuesRaw;
    }

    /** {@code d} as the undecodable-columns policy shapes it (itself when the policy is to fail). */
    public synchronized RelationDescriptor shape(RelationDescriptor d) {
        if (undecodable.failsAll() || d == null) {
            return d;
        }
        RelationDescriptor s = applied.get(d);
        if (s == null) {
            if (applied.size() > 4096) {
                applied.clear(); // old versions, pruned from the history long since
            }
            s = undecodable.apply(d, values::supports);
            applied.put(d, s);
        }
        return s;
    }

    /**
     * {@code e} with the descriptors it carries to later stages (a commit's catalog changes and deferred relations)
     * shaped as {@link #shape(RelationDescriptor)} does, so the sink creates and alters tables with the columns the
     * rows have; {@code e} itself when nothing changes.
     */
    public BufferEvent shape(BufferEvent e) {
        if (undecodable.failsAll()) {
            return e;
        }
        java.util.Map<io.walshadow.wal.RelFileLocator, RelationDescriptor> deferred = e.deferredDescriptors();
        if (!deferred.isEmpty()) {
            java.util.Map<io.walshadow.wal.RelFileLocator, RelationDescriptor> shaped = new java.util.HashMap<>();
            deferred.forEach((k, v) -> shaped.put(k, shape(v)));
            deferred = shaped;
        }
        ChangeEvent ev = e.event();
        if (ev instanceof XactEvent x && !x.catalogChanges().isEmpty()) {
            java.util.List<io.walshadow.catalog.CatalogChange> changes = new java.util.ArrayList<>();
            for (io.walshadow.catalog.CatalogChange c : x.catalogChanges()) {
                changes.add(new io.walshadow.catalog.CatalogChange(c.relOid(), shape(c.before()), shape(c.after()),
                        c.ambiguity(), c.closedAs()));
            }
            ev = new XactEvent(x.xact(), changes, x.markerLsn());
        }
        if (ev == e.event() && deferred == e.deferredDescriptors()) {
            return e;
        }
        return new BufferEvent(e.topXid(), e.commitSeq(), e.fullXid(), ev, deferred, e.types());
    }

    /** The value decoders this row decoder uses. */
    public ValueDecoder values() {
        return values;
    }

    public RowChange decode(HeapChange c, RelationDescriptor desc) {
        RelationDescriptor d = undecodable.failsAll() ? desc : shape(desc); // no lock on the default path
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
        ColumnDecoders decode = decoders(d);
        Object[] out = new Object[d.natts()];
        for (int attnum : row.liveAttnums()) {
            if (row.isNull(attnum)) {
                continue;
            }
            Column col = d.column(attnum);
            if (io.walshadow.types.Oids.isRaw(col.typeOid())) {
                valuesRaw++;
            }
            try {
                out[attnum - 1] = decode.decode(col, row.buffer(attnum), row.datumOffset(attnum), row.datumLength(attnum));
            } catch (UnsupportedTypeException e) {
                throw new ColumnDecodeException(c.lsn(), d.qualifiedName(), col.name(), col.typeOid(), e,
                        " (types.undecodable is fail: set it, or types.undecodable.columns " + d.qualifiedName() + "."
                                + col.name() + "=skip or =raw, to go on without decoding this column)");
            } catch (RuntimeException e) {
                throw new ColumnDecodeException(c.lsn(), d.qualifiedName(), col.name(), col.typeOid(), e);
            }
        }
        if (!undecodable.failsAll()) {
            countSkipped(row, d);
        }
        return out;
    }

    private ColumnDecoders decoders(RelationDescriptor d) {
        ShapeDecoders l = last;
        if (l != null && l.shape == d) {
            return l.decoders;
        }
        ColumnDecoders c;
        synchronized (decoders) {
            if (decoders.size() > 4096) {
                decoders.clear(); // old versions, pruned from the history long since
            }
            c = decoders.computeIfAbsent(d, x -> values.columnDecoders(x.natts()));
        }
        last = new ShapeDecoders(d, c);
        return c;
    }

    private record ShapeDecoders(RelationDescriptor shape, ColumnDecoders decoders) {}

    private void countSkipped(DeformedRow row, RelationDescriptor d) {
        for (Column col : d.columns()) {
            if (UndecodableColumns.isSkipped(col) && col.attnum() <= row.tupleNatts()) {
                valuesSkipped++;
            }
        }
    }
}
