package io.walshadow.catalog;

import io.walshadow.wal.RelFileLocator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A {@link CatalogSource} over hand-made live relations, for unit tests. */
final class FakeCatalog implements CatalogSource {
    static final int DB = 5;
    static final int SPC = 1663;

    final Map<Integer, LiveRelation> relations = new HashMap<>();
    long lsn = 0;
    CatalogSnapshot.Xids xids = null;
    int loads = 0;
    CatalogReadException failNext;
    final List<Set<Integer>> requests = new ArrayList<>();

    @Override
    public CatalogSnapshot load(Set<Integer> relOids, boolean allIncluded) throws CatalogReadException {
        loads++;
        requests.add(Set.copyOf(relOids));
        if (failNext != null) {
            CatalogReadException e = failNext;
            failNext = null;
            throw e;
        }
        Map<Integer, LiveRelation> out = new HashMap<>();
        for (LiveRelation r0 : relations.values()) {
            LiveRelation r = filtered(r0);
            if (relOids.contains(r.oid()) || (allIncluded && r.included())) {
                out.put(r.oid(), r);
            }
        }
        for (LiveRelation r : new ArrayList<>(out.values())) {
            if (r.included() && r.toastRelOid() != 0 && relations.containsKey(r.toastRelOid())) {
                out.put(r.toastRelOid(), filtered(relations.get(r.toastRelOid())));
            }
        }
        return new CatalogSnapshot(lsn, DB, xids, out);
    }

    /** What {@code filter} decides, instead of each relation's own flag (tables by name, TOAST by owner). */
    CatalogFilter filter;

    @Override
    public CatalogSource withFilter(CatalogFilter f) {
        FakeCatalog view = this;
        return new CatalogSource() {
            @Override
            public CatalogSnapshot load(Set<Integer> relOids, boolean allIncluded) throws CatalogReadException {
                CatalogFilter saved = view.filter;
                view.filter = f;
                try {
                    return view.load(relOids, allIncluded);
                } finally {
                    view.filter = saved;
                }
            }

            @Override
            public CatalogSource withFilter(CatalogFilter other) {
                return view.withFilter(other);
            }
        };
    }

    private LiveRelation filtered(LiveRelation r) {
        if (filter == null) {
            return r;
        }
        boolean in;
        if (r.relkind() == 't') {
            in = false;
            for (LiveRelation o : relations.values()) {
                if (o.toastRelOid() == r.oid() && o.relkind() == 'r') {
                    in = filter.includes(o.schema(), o.name());
                }
            }
        } else {
            in = filter.includes(r.schema(), r.name());
        }
        return new LiveRelation(r.oid(), r.classXmin(), r.nspXmin(), r.schema(), r.name(), r.relkind(),
                r.relpersistence(), r.replident(), r.relnatts(), r.locator(), r.toastRelOid(), r.toastClassXmin(), in,
                r.attributes(), r.indexes());
    }

    void put(Rel r) {
        relations.put(r.oid, r.build());
    }

    static RelFileLocator loc(int relNumber) {
        return new RelFileLocator(SPC, DB, relNumber);
    }

    static Column intCol(int attnum, String name) {
        return new Column(attnum, name, 23, -1, 4, 'i', true, 'p', false, false, null);
    }

    static Column textCol(int attnum, String name) {
        return new Column(attnum, name, 25, -1, -1, 'i', false, 'x', false, false, null);
    }

    static Rel rel(int oid, String name) {
        return new Rel(oid, name);
    }

    /** Builder of a live relation; defaults: frozen xmins, public schema, relfilenode = oid, included. */
    static final class Rel {
        final int oid;
        int classXmin = XidVisibility.FROZEN;
        int nspXmin = XidVisibility.FROZEN;
        String schema = "public";
        String name;
        char relkind = 'r';
        char persistence = 'p';
        char replident = 'd';
        Integer relnatts;
        int relNumber;
        int toast = 0;
        int toastXmin = 0;
        boolean included = true;
        final List<LiveRelation.Attribute> attrs = new ArrayList<>();
        final List<LiveRelation.Index> indexes = new ArrayList<>();

        Rel(int oid, String name) {
            this.oid = oid;
            this.name = name;
            this.relNumber = oid;
        }

        Rel classXmin(int x) {
            classXmin = x;
            return this;
        }

        Rel relNumber(int n) {
            relNumber = n;
            return this;
        }

        Rel relnatts(int n) {
            relnatts = n;
            return this;
        }

        Rel name(String schema, String name) {
            this.schema = schema;
            this.name = name;
            return this;
        }

        Rel persistence(char p) {
            persistence = p;
            return this;
        }

        Rel replident(char r) {
            replident = r;
            return this;
        }

        Rel toast(int oid, int xmin) {
            toast = oid;
            toastXmin = xmin;
            return this;
        }

        Rel excluded() {
            included = false;
            return this;
        }

        Rel col(Column c, int xmin) {
            attrs.add(new LiveRelation.Attribute(c, xmin));
            return this;
        }

        Rel pk(int indexOid, int xmin, int classXmin, Integer... attnums) {
            indexes.add(new LiveRelation.Index(indexOid, true, false, List.of(attnums), xmin, classXmin));
            return this;
        }

        LiveRelation build() {
            return new LiveRelation(oid, classXmin, nspXmin, schema, name, relkind, persistence, replident,
                    relnatts == null ? attrs.size() : relnatts, loc(relNumber), toast, toastXmin, included,
                    attrs, indexes);
        }
    }
}
