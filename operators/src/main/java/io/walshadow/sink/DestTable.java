package io.walshadow.sink;

import io.walshadow.catalog.RelationDescriptor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The ClickHouse destination table of one replicated PostgreSQL relation, as the sink's steps so far leave it:
 * part of the sink writer's state, so a restore continues with the shape its committables assume.
 *
 * @param shape the relation as of the newest catalog change applied (rows of any older shape map into it by
 *     attribute number)
 * @param chNames ClickHouse column name per {@code shape} column (null for dropped columns); differs from the
 *     PostgreSQL name only where a rename could not be applied (a sorting-key column)
 * @param chTypes ClickHouse column type per {@code shape} column (null for dropped columns)
 * @param keyedByTid the table is ordered by the heap TID ({@code _tid_block, _tid_offset}); else by
 *     {@code keyAttnums}
 * @param keyAttnums attribute numbers of the sorting-key columns when not keyed by TID
 * @param tids the table has the heap TID columns ({@code _tid_block, _tid_offset}): always when keyed by TID, and
 *     for tables keyed otherwise created by builds that write the TID of every row (a lost identity re-keys them
 *     by TID)
 */
public record DestTable(String destName, RelationDescriptor shape, List<String> chNames, List<String> chTypes,
                        boolean keyedByTid, List<Integer> keyAttnums, boolean tids) {
    public DestTable {
        if (chNames.size() != shape.natts() || chTypes.size() != shape.natts()) {
            throw new IllegalArgumentException("names/types per column of " + shape.qualifiedName());
        }
        chNames = Collections.unmodifiableList(new ArrayList<>(chNames));
        chTypes = Collections.unmodifiableList(new ArrayList<>(chTypes));
        keyAttnums = List.copyOf(keyAttnums);
        tids |= keyedByTid;
    }

    /** A table with TID columns only when keyed by TID (as earlier builds created them). */
    public DestTable(String destName, RelationDescriptor shape, List<String> chNames, List<String> chTypes,
                     boolean keyedByTid, List<Integer> keyAttnums) {
        this(destName, shape, chNames, chTypes, keyedByTid, keyAttnums, keyedByTid);
    }

    public int relOid() {
        return shape.relOid();
    }

    /** ClickHouse name of the column with this attnum in the current shape, or null (dropped, or beyond it). */
    public String chName(int attnum) {
        return attnum >= 1 && attnum <= chNames.size() ? chNames.get(attnum - 1) : null;
    }
}
