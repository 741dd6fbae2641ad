package io.walshadow.clickhouse;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.catalog.TypeCatalog;
import io.walshadow.change.RowChange;
import io.walshadow.heap.Tid;
import io.walshadow.sink.DestTable;
import io.walshadow.types.ToastPointer;
import io.walshadow.types.ValueDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Encodes row changes of one destination table shape into staging rows (the columns of
 * {@link SinkTables#createStageSql}): source columns by attribute number, so a row written with an older shape of
 * the relation lands in the right columns after a rename, and a column it did not have yet takes the column's
 * missing value (PostgreSQL's {@code attmissingval}) or NULL; then {@code _lsn, _commit_lsn, _xid, _is_deleted},
 * the TID when the table is keyed by it, the partition of a partitioned table's row, {@code _batch, _seg}. A
 * partition's row is first mapped onto its root's columns ({@link PartitionRoute}).
 *
 * <p>A change becomes one or two rows: INSERT a live row; DELETE a tombstone ({@code _is_deleted = 1}, key columns
 * from the old key or the old TID, other columns empty); UPDATE a live row, preceded by a tombstone of the old
 * identity when it changed (a new primary key, or any new TID on a TID-keyed table).
 */
public final class RowEncoder {
    /** What happens to an out-of-line TOAST value the sink cannot resolve (the TOAST stage is not there yet). */
    public interface ToastFill {
        /** Counts one filled value. */
        void filled(String relation, String column);
    }

    private final DestTable table;
    private final List<Integer> attnums = new ArrayList<>();
    private final List<ColumnCodec> codecs = new ArrayList<>();
    /** Value a row without the column holds: the decoded missing value, or null. */
    private final List<Object> absent = new ArrayList<>();
    private final boolean[] isKey;
    private final ToastFill toastFill;
    /** The partition the row being encoded was written in (its oid), 0 outside a partitioned table. */
    private int partition;

    public RowEncoder(DestTable table, TypeCatalog types, ValueDecoder values, ToastFill toastFill) {
        this.table = table;
        this.toastFill = toastFill;
        RelationDescriptor shape = table.shape();
        isKey = new boolean[shape.natts() + 1];
        for (int a : table.keyAttnums()) {
            isKey[a] = true;
        }
        for (int i = 0; i < shape.natts(); i++) {
            if (table.chNames().get(i) == null) {
                continue;
            }
            Column c = shape.columns().get(i);
            attnums.add(c.attnum());
            codecs.add(ColumnCodec.of(c.typeOid(), c.typmod(), table.chTypes().get(i), types, values));
            absent.add(missingValue(c, values));
        }
    }

    public DestTable table() {
        return table;
    }

    /** The literal of a column's missing value for {@code ADD COLUMN ... DEFAULT}, or "" when it has none. */
    public String defaultLiteral(int attnum) {
        int i = attnums.indexOf(attnum);
        if (i < 0 || absent.get(i) == null) {
            return "";
        }
        return codecs.get(i).literal(absent.get(i));
    }

    private static Object missingValue(Column c, ValueDecoder values) {
        if (!c.hasMissingValue()) {
            return null;
        }
        if (c.missingValueUnresolved()) {
            return UNRESOLVED;
        }
        byte[] b = c.missingValue();
        return values.decode(c, b, 0, b.length);
    }

    private static final Object UNRESOLVED = new Object();

    /**
     * Writes the rows of one committed change; returns how many.
     *
     * @param fullXid the committing transaction's full xid
     */
    public int encode(RowChange r, long commitLsn, long fullXid, long batch, int segment, long attempt,
                      RowBinaryBuffer out) {
        int start = out.size();
        partition = 0;
        if (r.descriptor().partition() != null) {
            partition = r.relOid();
            r = PartitionRoute.toRoot(r);
        }
        try {
            switch (r.op()) {
                case INSERT:
                case SPECULATIVE_INSERT: // the writer passes it on only once confirmed
                    live(r, commitLsn, fullXid, batch, segment, attempt, out);
                    return 1;
                case UPDATE: {
                    int n = 1;
                    if (identityChanged(r)) {
                        tombstone(r, commitLsn, fullXid, batch, segment, attempt, out);
                        n++;
                    }
                    live(r, commitLsn, fullXid, batch, segment, attempt, out);
                    return n;
                }
                case DELETE:
                    tombstone(r, commitLsn, fullXid, batch, segment, attempt, out);
                    return 1;
                default:
                    throw new IllegalArgumentException("not a row to write: " + r.op());
            }
        } catch (RuntimeException e) {
            out.truncate(start); // no half row stays in the buffer
            throw e;
        }
    }

    private boolean identityChanged(RowChange r) {
        if (table.keyedByTid()) {
            return r.oldTid() != null && !r.oldTid().equals(r.newTid());
        }
        if (r.oldValues() == null) {
            return false; // the record logs the old key only when it changed
        }
        for (int a : table.keyAttnums()) {
            if (!Objects.deepEquals(r.oldValues()[a - 1], r.newValues()[a - 1])) {
                return true;
            }
        }
        return false;
    }

    private void live(RowChange r, long commitLsn, long fullXid, long batch, int segment, long attempt,
                      RowBinaryBuffer out) {
        RelationDescriptor written = r.descriptor();
        for (int i = 0; i < attnums.size(); i++) {
            int a = attnums.get(i);
            Object v;
            boolean present = a <= written.natts() && !written.column(a).dropped();
            if (present) {
                v = r.newValues()[a - 1];
            } else {
                v = absent.get(i); // a column the row's shape did not have yet
                if (v == UNRESOLVED) {
                    throw new ValueConversionException("its missing value (ADD COLUMN ... DEFAULT) could not be "
                            + "loaded from the catalog").at(r.descriptor().qualifiedName(), written.natts() < a
                            ? table.chName(a) : written.column(a).name(), r.lsn());
                }
            }
            if (v == null && !present) {
                codecs.get(i).writeAbsent(out); // not even NULL in the row: a non-Nullable column takes its zero
                continue;
            }
            if (v instanceof ToastPointer) {
                toastFill.filled(written.qualifiedName(), table.chName(a));
                codecs.get(i).writeAbsent(out);
                continue;
            }
            write(i, v, r, out);
        }
        meta(r.lsn(), commitLsn, fullXid, false, r.newTid(), batch, segment, attempt, out);
        out.endRow();
    }

    private void tombstone(RowChange r, long commitLsn, long fullXid, long batch, int segment, long attempt,
                      RowBinaryBuffer out) {
        Tid tid = r.oldTid();
        if (table.keyedByTid()) {
            if (tid == null) {
                throw new ValueConversionException("a " + r.op() + " without the old row's TID for a table keyed by TID")
                        .at(r.descriptor().qualifiedName(), "ctid", r.lsn());
            }
        } else if (r.oldValues() == null) {
            throw new ValueConversionException("a " + r.op() + " without the old key (REPLICA IDENTITY changed?) for a"
                    + " table keyed by its primary key").at(r.descriptor().qualifiedName(), keyNames(), r.lsn());
        }
        for (int i = 0; i < attnums.size(); i++) {
            int a = attnums.get(i);
            if (!table.keyedByTid() && isKey[a]) {
                write(i, r.oldValues()[a - 1], r, out);
            } else {
                codecs.get(i).writeAbsent(out);
            }
        }
        meta(r.lsn(), commitLsn, fullXid, true, tid, batch, segment, attempt, out);
        out.endRow();
    }

    private void write(int i, Object v, RowChange r, RowBinaryBuffer out) {
        try {
            codecs.get(i).write(out, v);
        } catch (ValueConversionException e) {
            throw e.at(r.descriptor().qualifiedName(), table.chName(attnums.get(i)), r.lsn());
        }
    }

    private void meta(long lsn, long commitLsn, long fullXid, boolean deleted, Tid tid, long batch, int segment,
                      long attempt, RowBinaryBuffer out) {
        out.i64(lsn);
        out.i64(commitLsn);
        out.i64(fullXid);
        out.u8(deleted ? 1 : 0);
        if (table.tids()) {
            out.i32(tid == null ? 0 : (int) tid.block());
            out.i16(tid == null ? 0 : tid.offset());
        }
        if (DestinationSchema.partitioned(table)) {
            out.i32(partition);
        }
        SinkTables.stagingSuffix(out, batch, segment, attempt);
    }

    private String keyNames() {
        List<String> n = new ArrayList<>();
        for (int a : table.keyAttnums()) {
            n.add(table.chName(a));
        }
        return String.join(",", n);
    }
}
