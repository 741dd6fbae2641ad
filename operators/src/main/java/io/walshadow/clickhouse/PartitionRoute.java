package io.walshadow.clickhouse;

import io.walshadow.catalog.PartitionOf;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.RowChange;

/**
 * A partition's row change as a change of its root: the values moved to the root's attnums by the route the row was
 * decoded with ({@link PartitionOf}, as of the row's own LSN), the descriptor the root's as of then. Heap TIDs stay
 * the partition's (the destination tells them apart by {@code _partition}).
 */
public final class PartitionRoute {
    private PartitionRoute() {}

    public static RowChange toRoot(RowChange r) {
        PartitionOf p = r.descriptor().partition();
        RelationDescriptor root = p.root();
        return new RowChange(r.lsn(), r.xid(), r.op(), r.rel(), root, r.newTid(), r.oldTid(),
                remap(r.newValues(), p, root.natts()), remap(r.oldValues(), p, root.natts()), r.oldIsFullRow());
    }

    private static Object[] remap(Object[] leafValues, PartitionOf p, int rootNatts) {
        if (leafValues == null) {
            return null;
        }
        Object[] out = new Object[rootNatts];
        for (int i = 0; i < leafValues.length; i++) {
            int a = p.rootAttnum(i + 1);
            if (a != 0) {
                out[a - 1] = leafValues[i];
            }
        }
        return out;
    }
}
