package io.walshadow.types;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeCatalog;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link TypeCatalog} held in maps: every pg_type row of a database (with enum labels and pg_range's subtypes), and
 * the attributes of every composite type. The operators' PostgreSQL kit reads them from the live catalog
 * ({@code io.walshadow.pg.TypeCatalogLoader}); tests build them by hand.
 */
public final class MapTypeCatalog implements TypeCatalog {
    private final Map<Integer, PgType> types;
    private final Map<Integer, List<Column>> composites;

    public MapTypeCatalog(Map<Integer, PgType> types, Map<Integer, List<Column>> compositeAttributes) {
        this.types = Map.copyOf(types);
        Map<Integer, List<Column>> c = new HashMap<>();
        compositeAttributes.forEach((k, v) -> c.put(k, List.copyOf(v)));
        this.composites = Map.copyOf(c);
    }

    @Override
    public PgType type(int oid) {
        return types.get(oid);
    }

    @Override
    public List<Column> compositeAttributes(int relOid) {
        return composites.get(relOid);
    }

    public Collection<PgType> types() {
        return Collections.unmodifiableCollection(types.values());
    }
}
