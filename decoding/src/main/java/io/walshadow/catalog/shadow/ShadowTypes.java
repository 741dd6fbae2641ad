package io.walshadow.catalog.shadow;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeCatalog;
import io.walshadow.catalog.shadow.CatalogRow.AttributeRow;
import io.walshadow.catalog.shadow.CatalogRow.EnumRow;
import io.walshadow.catalog.shadow.CatalogRow.RangeRow;
import io.walshadow.catalog.shadow.CatalogRow.ExtensionRow;
import io.walshadow.catalog.shadow.CatalogRow.TypeRow;
import io.walshadow.types.ExtensionTypes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Type lookups answered from the {@link ShadowCatalog}: pg_type, pg_enum, pg_range, pg_extension and composite
 * types' pg_attribute rows as of the stream's position. Answers are cached per instance; take a new one when {@link
 * ShadowCatalog#typesVersion()} changes.
 */
public final class ShadowTypes implements TypeCatalog {
    private final ShadowCatalogSource source;
    private final long version;
    private final Map<Integer, PgType> types = new HashMap<>();
    private final Map<Integer, List<Column>> composites = new HashMap<>();

    public ShadowTypes(ShadowCatalog shadow) {
        this.source = new ShadowCatalogSource(shadow, io.walshadow.catalog.CatalogFilter.all());
        this.version = shadow.typesVersion();
    }

    /** The shadow's types version these answers are from. */
    public long version() {
        return version;
    }

    @Override
    public PgType type(int oid) {
        return types.computeIfAbsent(oid, this::load);
    }

    private PgType load(int oid) {
        List<CatalogRow> rows = source.shadow().mirror(SystemCatalog.PG_TYPE).visible(oid);
        if (rows.isEmpty()) {
            return null;
        }
        TypeRow t = (TypeRow) rows.get(0);
        Map<Integer, String> labels = new HashMap<>();
        if (t.typtype() == 'e') {
            for (CatalogRow r : source.shadow().mirror(SystemCatalog.PG_ENUM).visible(oid)) {
                EnumRow e = (EnumRow) r;
                labels.put(e.oid(), e.enumlabel());
            }
        }
        int rangeSubtype = 0;
        int rangeType = 0;
        // a shadow restored from a state without pg_range knows no row: such types stay undecodable
        if (t.typtype() == 'r' && source.shadow().holds(SystemCatalog.PG_RANGE)) {
            for (CatalogRow r : source.shadow().mirror(SystemCatalog.PG_RANGE).visible(oid)) {
                rangeSubtype = ((RangeRow) r).rngsubtype();
            }
        } else if (t.typtype() == 'm') {
            for (CatalogRow r : source.shadow().rows(SystemCatalog.PG_RANGE)) { // a few rows: no index by multirange
                if (((RangeRow) r).rngmultitypid() == oid) {
                    rangeType = ((RangeRow) r).rngtypid();
                }
            }
        }
        return new PgType(t.oid(), source.namespace(t.typnamespace()), t.typname(), t.typlen(), t.typbyval(),
                t.typalign(), t.typtype(), t.typcategory(), t.typelem(), t.typbasetype(), t.typtypmod(), t.typrelid(),
                Map.copyOf(labels), rangeSubtype, rangeType, extension(t));
    }

    /** The extension the type belongs to: one installed in its namespace that has a type of its name. */
    private String extension(TypeRow t) {
        RelationMirror m = source.shadow().mirror(SystemCatalog.PG_EXTENSION);
        if (m == null || t.typtype() != 'b') {
            return null;
        }
        List<String> names = new ArrayList<>();
        for (CatalogRow r : m.visible(t.typnamespace())) {
            names.add(((ExtensionRow) r).extname());
        }
        return ExtensionTypes.owner(t.typname(), names);
    }

    @Override
    public List<Column> compositeAttributes(int relOid) {
        return composites.computeIfAbsent(relOid, rel -> {
            List<AttributeRow> rows = source.attributeRows(rel);
            if (rows.isEmpty()) {
                return null;
            }
            List<Column> out = new ArrayList<>(rows.size());
            for (AttributeRow a : rows) {
                out.add(ShadowCatalogSource.column(a));
            }
            return List.copyOf(out);
        });
    }
}
