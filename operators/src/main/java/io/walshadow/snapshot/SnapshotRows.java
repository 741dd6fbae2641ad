package io.walshadow.snapshot;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.BufferEvent;
import io.walshadow.change.RowChange;
import io.walshadow.heap.Tid;
import io.walshadow.types.MalformedDatumException;
import io.walshadow.types.TextValues;
import io.walshadow.wal.Lsn;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the rows a chunk query returns into the changes the sink writes: an INSERT of the row at its TID, values by
 * attnum as the heap decoder would give them, versioned {@code version} ({@link StartPoint#snapshotVersion()}) with
 * no transaction ({@code _xid} 0): every WAL change to the row from the start point on has a higher {@code _lsn}.
 */
final class SnapshotRows {
    private final RelationDescriptor descriptor;
    private final long version;
    /** attnum - 1 of each selected column, in select-list order, and its parser. */
    private final int[] positions;
    private final TextValues.Parser[] parsers;
    private final String selectList;

    /**
     * @param descriptor the planned shape, columns dropped since marked dropped ({@link LockedTable#readable})
     * @param names each selected column's current name by attnum (a RENAME since the plan is read by attnum)
     */
    SnapshotRows(RelationDescriptor descriptor, long version, TextValues values, java.util.Map<Integer, String> names) {
        this.descriptor = descriptor;
        this.version = version;
        List<Integer> pos = new ArrayList<>();
        List<String> select = new ArrayList<>();
        for (Column c : descriptor.columns()) {
            // a column written raw (types.undecodable) is left NULL: SQL gives its text, not its on-disk bytes
            if (!c.dropped() && !io.walshadow.types.Oids.isRaw(c.typeOid())) {
                pos.add(c.attnum() - 1);
                select.add(values.selectExpression(c.typeOid(), quoteIdent(names.getOrDefault(c.attnum(), c.name()))));
            }
        }
        positions = pos.stream().mapToInt(Integer::intValue).toArray();
        parsers = new TextValues.Parser[positions.length];
        for (int i = 0; i < positions.length; i++) {
            parsers[i] = values.parser(descriptor.columns().get(positions[i]).typeOid());
        }
        selectList = String.join(", ", select);
    }

    /** Whether the copy leaves a column out that WAL rows carry (one written raw): its rows hold NULL there. */
    boolean leavesRawColumnsNull() {
        return descriptor.columns().stream().anyMatch(c -> !c.dropped() && io.walshadow.types.Oids.isRaw(c.typeOid()));
    }

    /** The chunk query's select list (quoted column names, or expressions of them: {@link TextValues#selectExpression}). */
    String selectList() {
        return selectList;
    }

    BufferEvent change(SnapshotChunkReader.Row row) {
        Object[] v = new Object[descriptor.natts()];
        String[] text = row.values();
        for (int i = 0; i < positions.length; i++) {
            Column c = descriptor.columns().get(positions[i]);
            try {
                v[positions[i]] = parsers[i].parse(text[i]);
            } catch (MalformedDatumException e) {
                throw new IllegalStateException("snapshot of " + descriptor.qualifiedName() + ", row at ("
                        + row.block() + "," + row.offset() + "), column " + c.name() + ": " + e.getMessage(), e);
            }
        }
        RowChange r = new RowChange(version, 0, RowChange.Op.INSERT, descriptor.locator(), descriptor,
                new Tid(row.block(), row.offset()), null, v, null, false);
        return BufferEvent.snapshotRow(r);
    }

    static String quoteIdent(String s) {
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }

    @Override
    public String toString() {
        return descriptor.qualifiedName() + " at " + Lsn.format(version + 1);
    }
}
