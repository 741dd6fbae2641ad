package io.walshadow.catalog.shadow;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.CatalogSnapshot;
import io.walshadow.catalog.CatalogSource;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.LiveRelation;
import io.walshadow.catalog.PartitionOf;
import io.walshadow.catalog.XidVisibility;
import io.walshadow.catalog.shadow.CatalogRow.AttributeRow;
import io.walshadow.catalog.shadow.CatalogRow.ClassRow;
import io.walshadow.catalog.shadow.CatalogRow.IndexRow;
import io.walshadow.catalog.shadow.CatalogRow.NamespaceRow;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The descriptor loads of {@link io.walshadow.catalog.CatalogTracker}, answered from the {@link ShadowCatalog} as of
 * the record the stream is at: never ahead, never behind. Every row it returns is committed there, so each is marked
 * {@link XidVisibility#FROZEN} (the tracker's "is this row visible yet" question has only one answer).
 */
public final class ShadowCatalogSource implements CatalogSource {
    private static final int FROZEN = XidVisibility.FROZEN;
    private final ShadowCatalog shadow;
    private final CatalogFilter filter;

    public ShadowCatalogSource(ShadowCatalog shadow, CatalogFilter filter) {
        this.shadow = shadow;
        this.filter = filter;
    }

    public ShadowCatalog shadow() {
        return shadow;
    }

    @Override
    public CatalogSource withFilter(CatalogFilter filter) {
        return new ShadowCatalogSource(shadow, filter);
    }

    @Override
    public CatalogSnapshot load(Set<Integer> relOids, boolean allIncluded) {
        RelationMirror classes = shadow.mirror(SystemCatalog.PG_CLASS);
        boolean roots = filter.partitionRoots();
        Set<Integer> requested = new TreeSet<>(relOids);
        if (roots) {
            // A partitioned table refreshed at a boundary (its own DDL, an ATTACH or DETACH under it) can change the
            // root, or the root's shape, of every partition below it: they are re-resolved with it.
            for (int oid : relOids) {
                addPartitionsBelow(oid, requested, 0);
            }
        }
        Map<Integer, ClassRow> rows = new HashMap<>();
        for (int oid : requested) {
            ClassRow c = classRow(oid);
            if (c != null && tracked(c)) {
                rows.put(oid, c);
            }
        }
        if (allIncluded) {
            for (CatalogRow row : classes.visibleRows()) {
                ClassRow c = (ClassRow) row;
                if (c.relkind() != 't' && tracked(c) && included(c)) {
                    rows.put(c.oid(), c);
                }
            }
        }
        Map<Integer, LiveRelation> out = new HashMap<>();
        Map<Integer, ClassRow> owners = null;
        List<ClassRow> todo = new ArrayList<>(rows.values());
        for (int i = 0; i < todo.size(); i++) {
            ClassRow c = todo.get(i);
            if (out.containsKey(c.oid())) {
                continue;
            }
            boolean included;
            if (c.relkind() != 't') {
                included = included(c);
            } else {
                if (owners == null) {
                    owners = toastOwners(classes);
                }
                ClassRow owner = owners.get(c.oid());
                included = owner != null && included(owner);
            }
            RelFileLocator loc = c.relkind() == 'p' ? PartitionOf.rootLocator(shadow.dbOid(), c.oid()) : locator(c);
            if (loc == null) {
                continue;
            }
            int root = included && roots && c.relkind() == 'r' ? rootOf(c.oid()) : 0;
            out.put(c.oid(), new LiveRelation(c.oid(), FROZEN, FROZEN, namespace(c.relnamespace()), c.relname(),
                    c.relkind(), c.relpersistence(), c.relreplident(), c.relnatts(), loc, c.reltoastrelid(),
                    c.reltoastrelid() == 0 ? 0 : FROZEN, included,
                    !included ? List.of() : c.relkind() == 'p' ? rootAttributes(c.oid()) : attributes(c.oid()),
                    included ? indexes(c.oid()) : List.of(), root));
            if (included && c.reltoastrelid() != 0 && !rows.containsKey(c.reltoastrelid())) {
                ClassRow t = classRow(c.reltoastrelid());
                if (t != null) {
                    rows.put(t.oid(), t);
                    todo.add(t);
                }
            }
            if (root != 0 && !rows.containsKey(root)) {
                ClassRow r = classRow(root);
                rows.put(root, r);
                todo.add(r); // the partition's descriptor is built on its root's
            }
        }
        return new CatalogSnapshot(Lsn.INVALID, shadow.dbOid(), null, out);
    }

    /**
     * Whether the tracker follows the relation: heap and TOAST tables, and, when partitions replicate through their
     * roots, the topmost partitioned tables (a partitioned table below another is neither a destination nor has
     * storage).
     */
    private boolean tracked(ClassRow c) {
        return switch (c.relkind()) {
            case 'r', 't' -> true;
            case 'p' -> filter.partitionRoots() && partitionParent(c.oid()) == 0;
            default -> false;
        };
    }

    /** Whether the filter includes the relation: by its root's name when it is a partition routed through it. */
    private boolean included(ClassRow c) {
        if (c.relisshared()) {
            return false;
        }
        int root = filter.partitionRoots() && c.relkind() == 'r' ? rootOf(c.oid()) : 0;
        ClassRow named = root == 0 ? c : classRow(root);
        return filter.includes(namespace(named.relnamespace()), named.relname());
    }

    /**
     * The topmost partitioned table above a relation, 0 when it is no partition. The walk stops at a partition whose
     * DETACH CONCURRENTLY is pending, as {@code get_partition_ancestors} does: from its first transaction on, the
     * partition is no longer one for routing (its second transaction changes nothing for it).
     */
    int rootOf(int relOid) {
        int root = 0;
        for (int cur = relOid, depth = 0; depth < MAX_PARTITION_DEPTH; depth++) {
            int parent = partitionParent(cur);
            if (parent == 0) {
                return root;
            }
            root = parent;
            cur = parent;
        }
        throw new ShadowCatalogException("pg_inherits above relation " + Integer.toUnsignedString(relOid)
                + " is deeper than " + MAX_PARTITION_DEPTH + " levels (a cycle?)");
    }

    @Override
    public boolean existedBeforeLastCommit(int relOid) {
        return shadow.classRowsReplaced().contains(relOid);
    }

    @Override
    public boolean createdByLastCommit(int relOid) {
        return shadow.classRowsCreated().contains(relOid);
    }

    @Override
    public List<Integer> partitionedAbove(int relOid) {
        List<Integer> out = new ArrayList<>();
        for (int cur = partitionParent(relOid), depth = 0; cur != 0; cur = partitionParent(cur), depth++) {
            if (depth >= MAX_PARTITION_DEPTH) {
                throw new ShadowCatalogException("pg_inherits above relation " + Integer.toUnsignedString(relOid)
                        + " is deeper than " + MAX_PARTITION_DEPTH + " levels (a cycle?)");
            }
            out.add(cur);
        }
        if (!out.isEmpty()) {
            out.remove(out.size() - 1); // the root
        }
        return out;
    }

    /** Whether the relation is an attached partition of a partitioned table, as of the stream's position. */
    public boolean isPartition(int relOid) {
        return partitionParent(relOid) != 0;
    }

    /** PostgreSQL itself has no limit, but a partition tree this deep is a damaged mirror, not a schema. */
    private static final int MAX_PARTITION_DEPTH = 1000;

    /** The partitioned table a relation is an attached partition of, 0 for none (legacy INHERITS parents are 'r'). */
    private int partitionParent(int relOid) {
        for (CatalogRow.InheritsRow i : shadow.parents(relOid)) {
            if (!i.inhdetachpending()) {
                ClassRow p = classRow(i.inhparent());
                if (p != null && p.relkind() == 'p') {
                    return i.inhparent();
                }
            }
        }
        return 0;
    }

    /** Adds every partition below {@code relOid} (when it is a partitioned table), at any depth. */
    private void addPartitionsBelow(int relOid, Set<Integer> out, int depth) {
        ClassRow c = classRow(relOid);
        if (c == null || c.relkind() != 'p' || depth >= MAX_PARTITION_DEPTH) {
            return;
        }
        RelationMirror inherits = shadow.mirror(SystemCatalog.PG_INHERITS);
        if (inherits == null) {
            return;
        }
        for (CatalogRow row : inherits.visibleRows()) {
            CatalogRow.InheritsRow i = (CatalogRow.InheritsRow) row;
            if (i.inhparent() == relOid && out.add(i.inhrelid())) {
                addPartitionsBelow(i.inhrelid(), out, depth + 1);
            }
        }
    }

    ClassRow classRow(int oid) {
        List<CatalogRow> l = shadow.mirror(SystemCatalog.PG_CLASS).visible(oid);
        return l.isEmpty() ? null : (ClassRow) l.get(0);
    }

    String namespace(int oid) {
        List<CatalogRow> l = shadow.mirror(SystemCatalog.PG_NAMESPACE).visible(oid);
        return l.isEmpty() ? "?" + Integer.toUnsignedString(oid) : ((NamespaceRow) l.get(0)).nspname();
    }

    private static Map<Integer, ClassRow> toastOwners(RelationMirror classes) {
        Map<Integer, ClassRow> out = new HashMap<>();
        for (CatalogRow row : classes.visibleRows()) {
            ClassRow c = (ClassRow) row;
            if (c.relkind() == 'r' && c.reltoastrelid() != 0) {
                out.put(c.reltoastrelid(), c);
            }
        }
        return out;
    }

    private RelFileLocator locator(ClassRow c) {
        int rel = c.relfilenode();
        if (rel == 0) {
            Integer mapped = shadow.relmap.get(c.oid());
            if (mapped == null) {
                return null;
            }
            rel = mapped;
        }
        return new RelFileLocator(c.reltablespace() == 0 ? shadow.dbTablespace() : c.reltablespace(),
                c.relisshared() ? 0 : shadow.dbOid(), rel);
    }

    List<LiveRelation.Attribute> attributes(int relOid) {
        List<LiveRelation.Attribute> out = new ArrayList<>();
        for (AttributeRow a : attributeRows(relOid)) {
            out.add(new LiveRelation.Attribute(column(a), FROZEN));
        }
        return out;
    }

    /**
     * A root's attributes, each with the missing value its partitions share: {@code ADD COLUMN ... DEFAULT} on a
     * partitioned table stores attmissingval on every partition but not on the root (which has no rows), and the
     * root's destination needs it for the rows written before the column existed.
     */
    private List<LiveRelation.Attribute> rootAttributes(int rootOid) {
        Set<Integer> below = new TreeSet<>();
        addPartitionsBelow(rootOid, below, 0);
        List<List<AttributeRow>> leaves = new ArrayList<>();
        for (int oid : below) {
            ClassRow c = classRow(oid);
            if (c != null && c.relkind() == 'r') {
                leaves.add(attributeRows(oid));
            }
        }
        List<LiveRelation.Attribute> out = new ArrayList<>();
        for (AttributeRow a : attributeRows(rootOid)) {
            Column col = column(a);
            if (!col.dropped() && !col.hasMissingValue() && !leaves.isEmpty()) {
                byte[] shared = sharedMissingValue(col.name(), leaves);
                if (shared != null) {
                    col = new Column(col.attnum(), col.name(), col.typeOid(), col.typmod(), col.attlen(),
                            col.attalign(), col.attbyval(), col.attstorage(), false, col.notNull(), shared);
                }
            }
            out.add(new LiveRelation.Attribute(col, FROZEN));
        }
        return out;
    }

    /** The missing value of the live column {@code name} when every partition has the same one, else null. */
    private static byte[] sharedMissingValue(String name, List<List<AttributeRow>> leaves) {
        byte[] shared = null;
        for (List<AttributeRow> leaf : leaves) {
            byte[] v = null;
            for (AttributeRow a : leaf) {
                if (!a.attisdropped() && a.attname().equals(name)) {
                    v = a.missingValue();
                }
            }
            if (v == null || (shared != null && !java.util.Arrays.equals(shared, v))) {
                return null;
            }
            shared = v;
        }
        return shared;
    }

    /** The relation's attributes with attnum &gt; 0, in attnum order. */
    List<AttributeRow> attributeRows(int relOid) {
        List<AttributeRow> rows = new ArrayList<>();
        for (CatalogRow row : shadow.mirror(SystemCatalog.PG_ATTRIBUTE).visible(relOid)) {
            AttributeRow a = (AttributeRow) row;
            if (a.attnum() > 0) {
                rows.add(a);
            }
        }
        rows.sort(Comparator.comparingInt(AttributeRow::attnum));
        return rows;
    }

    static Column column(AttributeRow a) {
        return new Column(a.attnum(), a.attname(), a.atttypid(), a.atttypmod(), a.attlen(), a.attalign(),
                a.attbyval(), a.attstorage(), a.attisdropped(), a.attnotnull(), a.missingValue());
    }

    private List<LiveRelation.Index> indexes(int relOid) {
        List<LiveRelation.Index> out = new ArrayList<>();
        for (CatalogRow row : shadow.mirror(SystemCatalog.PG_INDEX).visible(relOid)) {
            IndexRow i = (IndexRow) row;
            out.add(new LiveRelation.Index(i.indexrelid(), i.indisprimary(), i.indisreplident(), i.indkey(), FROZEN,
                    FROZEN));
        }
        out.sort(Comparator.comparingInt(i -> i.indexOid()));
        return out;
    }
}
