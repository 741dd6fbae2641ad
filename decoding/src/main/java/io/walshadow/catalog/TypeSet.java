package io.walshadow.catalog;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The types some relations' columns need (with what they contain: array elements, domain bases, composite
 * attributes, range subtypes, a multirange's range), copied out of a type catalog as of one position. A commit whose rows are decoded downstream of the
 * decoder (the transaction buffer decodes deferred records at the commit) carries them, so that those rows are
 * decoded with the types as of the commit, not with whatever the live catalog holds by then (an enum label renamed,
 * a type dropped).
 *
 * @param types by oid
 * @param composites attributes (dropped ones included, in attnum order) by the composite's typrelid
 */
public record TypeSet(Map<Integer, PgType> types, Map<Integer, List<Column>> composites) implements TypeCatalog {
    public static final TypeSet EMPTY = new TypeSet(Map.of(), Map.of());

    public TypeSet {
        types = Map.copyOf(types);
        composites = Map.copyOf(composites);
    }

    /** What decoding the live columns of {@code relations} needs from {@code from}; types it does not know are left out. */
    public static TypeSet of(Collection<RelationDescriptor> relations, TypeCatalog from) {
        Map<Integer, PgType> types = new HashMap<>();
        Map<Integer, List<Column>> composites = new HashMap<>();
        for (RelationDescriptor d : relations) {
            if (d != null) {
                addColumns(d.columns(), from, types, composites);
            }
        }
        return types.isEmpty() ? EMPTY : new TypeSet(types, composites);
    }

    private static void addColumns(List<Column> columns, TypeCatalog from, Map<Integer, PgType> types,
                                   Map<Integer, List<Column>> composites) {
        for (Column c : columns) {
            if (!c.dropped()) {
                add(c.typeOid(), from, types, composites);
            }
        }
    }

    private static void add(int oid, TypeCatalog from, Map<Integer, PgType> types,
                            Map<Integer, List<Column>> composites) {
        if (oid == 0 || types.containsKey(oid)) {
            return;
        }
        PgType t = from.type(oid);
        if (t == null) {
            return; // decoding fails closed on it, naming the type, as it would have with the catalog itself
        }
        types.put(oid, t);
        add(t.elemOid(), from, types, composites);
        add(t.baseTypeOid(), from, types, composites);
        add(t.rangeSubtype(), from, types, composites);
        add(t.rangeType(), from, types, composites);
        if (t.typtype() == 'c' && t.relOid() != 0 && !composites.containsKey(t.relOid())) {
            List<Column> attrs = from.compositeAttributes(t.relOid());
            if (attrs != null) {
                composites.put(t.relOid(), List.copyOf(attrs));
                addColumns(attrs, from, types, composites);
            }
        }
    }

    /** This set with {@code newer}'s entries over its own (types as of a later commit). */
    public TypeSet with(TypeSet newer) {
        if (newer.types.isEmpty() && newer.composites.isEmpty()) {
            return this;
        }
        Map<Integer, PgType> t = new HashMap<>(types);
        t.putAll(newer.types);
        Map<Integer, List<Column>> c = new HashMap<>(composites);
        c.putAll(newer.composites);
        return new TypeSet(t, c);
    }

    @Override
    public PgType type(int oid) {
        return types.get(oid);
    }

    @Override
    public List<Column> compositeAttributes(int relOid) {
        return composites.get(relOid);
    }
}
