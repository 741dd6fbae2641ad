package io.walshadow.catalog.shadow;

import java.util.function.Function;

/**
 * The system catalogs the shadow keeps, with their fixed oids (the same in every major) and the columns the
 * decoder reads. Their tuple layouts are not fixed (columns come and go between majors): they are read from the
 * server's own pg_attribute at bootstrap ({@link CatalogLayout}).
 */
public enum SystemCatalog {
    PG_CLASS(1259, "pg_class", CatalogRow.ClassRow::of, "oid, relname, relnamespace, relfilenode, reltablespace,"
            + " relkind, relpersistence, relreplident, relnatts, reltoastrelid, relisshared"),
    PG_ATTRIBUTE(1249, "pg_attribute", CatalogRow.AttributeRow::of, "attrelid, attnum, attname, atttypid,"
            + " atttypmod, attlen, attalign, attbyval, attstorage, attisdropped, attnotnull, atthasmissing"),
    PG_NAMESPACE(2615, "pg_namespace", CatalogRow.NamespaceRow::of, "oid, nspname"),
    PG_INDEX(2610, "pg_index", CatalogRow.IndexRow::of, "indexrelid, indrelid, indisprimary, indisreplident,"
            + " indkey::text AS indkey"),
    PG_TYPE(1247, "pg_type", CatalogRow.TypeRow::of, "oid, typname, typnamespace, typlen, typbyval, typalign,"
            + " typtype, typcategory, typelem, typbasetype, typtypmod, typrelid"),
    PG_ENUM(3501, "pg_enum", CatalogRow.EnumRow::of, "oid, enumtypid, enumlabel"),
    /** Kept since state version 2: a state written before has none (its ranges of one's own stay undecodable). */
    PG_RANGE(3541, "pg_range", CatalogRow.RangeRow::of, "rngtypid, rngsubtype, rngmultitypid", 2),
    /**
     * Which extension's namespace a type is in: contrib types are known by (extension, type name). Kept since state
     * version 2: a state written before has none (its extension types stay undecodable).
     */
    PG_EXTENSION(3079, "pg_extension", CatalogRow.ExtensionRow::of, "oid, extname, extnamespace", 2),
    /**
     * Which tables are partitions (or legacy INHERITS children) of which. Kept since state version 3: a state written
     * before has none (its partitions stay tables of their own until a new bootstrap).
     */
    PG_INHERITS(2611, "pg_inherits", CatalogRow.InheritsRow::of, "inhrelid, inhparent, inhseqno, inhdetachpending", 3);

    /** The namespace every system catalog lives in. */
    public static final int PG_CATALOG_NAMESPACE = 11;

    private final int oid;
    private final String relname;
    private final Function<CatalogRow.Fields, CatalogRow> rows;
    private final String sqlColumns;
    private final int sinceStateVersion;

    SystemCatalog(int oid, String relname, Function<CatalogRow.Fields, CatalogRow> rows, String sqlColumns) {
        this(oid, relname, rows, sqlColumns, 1);
    }

    SystemCatalog(int oid, String relname, Function<CatalogRow.Fields, CatalogRow> rows, String sqlColumns,
                  int sinceStateVersion) {
        this.oid = oid;
        this.relname = relname;
        this.rows = rows;
        this.sqlColumns = sqlColumns;
        this.sinceStateVersion = sinceStateVersion;
    }

    public int oid() {
        return oid;
    }

    public String relname() {
        return relname;
    }

    /**
     * The first {@link ShadowCatalogSerializer} state version that holds this catalog. A shadow restored from an
     * older state lacks it: it never saw that catalog's pages, so it answers as if the catalog held nothing (the
     * lookups that need it fail closed) rather than follow pages it cannot know.
     */
    int sinceStateVersion() {
        return sinceStateVersion;
    }

    /** The columns the bootstrap's SQL read selects (each named as the row reads it from {@link CatalogRow.Fields}). */
    public String sqlColumns() {
        return sqlColumns;
    }

    CatalogRow row(CatalogRow.Fields f) {
        return rows.apply(f);
    }

    /** The catalog with this oid, or null. */
    public static SystemCatalog byOid(int oid) {
        for (SystemCatalog c : values()) {
            if (c.oid == oid) {
                return c;
            }
        }
        return null;
    }

    /**
     * The name {@code make_new_heap} (cluster.c) gives the transient table a VACUUM FULL or CLUSTER of this catalog
     * copies it into; the transient's relfilenode becomes the catalog's when the rewrite commits.
     */
    String transientName() {
        return "pg_temp_" + Integer.toUnsignedString(oid);
    }
}
