package io.walshadow.catalog;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a partition's rows go when partitioned tables replicate through their root: the root (the topmost
 * partitioned table above the leaf, as of the same catalog state) and, per leaf column, the root column of the same
 * name.
 *
 * <p>Columns are matched by name, not by position: a partition attached from a table of its own can have another
 * column order and dropped columns of its own. PostgreSQL keeps the names in step (a partition cannot add, rename or
 * retype an inherited column; {@code ATTACH} requires the same names and types), so every live leaf column has a
 * root column. Root attnums never move, so a row's map stays valid after later root DDL.
 *
 * @param root the root's descriptor (relkind {@code p}; its locator is {@link #rootLocator}, since a partitioned
 *     table has no storage)
 * @param rootAttnums root attnum per leaf attnum ({@code rootAttnums[attnum - 1]}), 0 for a dropped leaf column
 */
public record PartitionOf(RelationDescriptor root, int[] rootAttnums) {

    public PartitionOf {
        rootAttnums = rootAttnums.clone();
    }

    /** Maps the leaf's live columns to the root's by name; a live leaf column the root lacks is refused. */
    public static PartitionOf of(RelationDescriptor root, RelationDescriptor leaf) {
        Map<String, Integer> byName = new HashMap<>();
        for (Column c : root.columns()) {
            if (!c.dropped()) {
                byName.put(c.name(), c.attnum());
            }
        }
        List<Column> cols = leaf.columns();
        int[] map = new int[cols.size()];
        for (Column c : cols) {
            if (c.dropped()) {
                continue;
            }
            Integer r = byName.get(c.name());
            if (r == null) {
                throw new IllegalStateException("partition " + leaf.qualifiedName() + " has column " + c.name()
                        + " that its root " + root.qualifiedName() + " lacks (columns " + names(root) + ")");
            }
            map[c.attnum() - 1] = r;
        }
        return new PartitionOf(root, map);
    }

    /** The root column a leaf attnum maps to, 0 when none (dropped in the leaf). */
    public int rootAttnum(int leafAttnum) {
        return leafAttnum >= 1 && leafAttnum <= rootAttnums.length ? rootAttnums[leafAttnum - 1] : 0;
    }

    /**
     * The locator a partitioned table is tracked under: tablespace 0, which no relfilenode has, and its oid (it has
     * no storage, so no heap record ever names it).
     */
    public static io.walshadow.wal.RelFileLocator rootLocator(int dbOid, int relOid) {
        return new io.walshadow.wal.RelFileLocator(0, dbOid, relOid);
    }

    /** Whether a locator is a storage-less one of {@link #rootLocator}. */
    public static boolean isRootLocator(io.walshadow.wal.RelFileLocator l) {
        return l.spcOid() == 0 && l.dbOid() != 0;
    }

    boolean sameContent(PartitionOf o) {
        return Arrays.equals(rootAttnums, o.rootAttnums) && Descriptors.sameContent(root, o.root);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PartitionOf p && p.root.equals(root) && Arrays.equals(p.rootAttnums, rootAttnums);
    }

    @Override
    public int hashCode() {
        return root.hashCode() * 31 + Arrays.hashCode(rootAttnums);
    }

    @Override
    public String toString() {
        return "PartitionOf[" + root.qualifiedName() + " " + Arrays.toString(rootAttnums) + "]";
    }

    private static String names(RelationDescriptor d) {
        StringBuilder sb = new StringBuilder();
        for (Column c : d.columns()) {
            if (!c.dropped()) {
                sb.append(sb.isEmpty() ? "" : ", ").append(c.name());
            }
        }
        return sb.toString();
    }
}
