package io.walshadow.catalog.shadow;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.CatalogSnapshot;
import io.walshadow.catalog.CatalogSource;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.LiveRelation;
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
        Map<Integer, ClassRow> rows = new HashMap<>();
        for (int oid : relOids) {
            ClassRow c = classRow(oid);
            if (c != null && (c.relkind() == 'r' || c.relkind() == 't')) {
                rows.put(oid, c);
            }
        }
        if (allIncluded) {
            for (CatalogRow row : classes.visibleRows()) {
                ClassRow c = (ClassRow) row;
                if (c.relkind() == 'r' && !c.relisshared() && filter.includes(namespace(c.relnamespace()), c.relname())) {
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
            if (c.relkind() == 'r') {
                included = !c.relisshared() && filter.includes(namespace(c.relnamespace()), c.relname());
            } else {
                if (owners == null) {
                    owners = toastOwners(classes);
                }
                ClassRow owner = owners.get(c.oid());
                included = !c.relisshared() && owner != null
                        && filter.includes(namespace(owner.relnamespace()), owner.relname());
            }
            RelFileLocator loc = locator(c);
            if (loc == null) {
                continue;
            }
            out.put(c.oid(), new LiveRelation(c.oid(), FROZEN, FROZEN, namespace(c.relnamespace()), c.relname(),
                    c.relkind(), c.relpersistence(), c.relreplident(), c.relnatts(), loc, c.reltoastrelid(),
                    c.reltoastrelid() == 0 ? 0 : FROZEN, included,
                    included ? attributes(c.oid()) : List.of(), included ? indexes(c.oid()) : List.of()));
            if (included && c.reltoastrelid() != 0 && !rows.containsKey(c.reltoastrelid())) {
                ClassRow t = classRow(c.reltoastrelid());
                if (t != null) {
                    rows.put(t.oid(), t);
                    todo.add(t);
                }
            }
        }
        return new CatalogSnapshot(Lsn.INVALID, shadow.dbOid(), null, out);
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
