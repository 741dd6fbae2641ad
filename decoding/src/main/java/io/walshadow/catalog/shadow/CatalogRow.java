package io.walshadow.catalog.shadow;

import java.util.Arrays;
import java.util.List;

/**
 * The columns of one catalog tuple the decoder needs, whether it came from a WAL record, a full-page image or the
 * bootstrap's SQL read. One record type per {@link SystemCatalog}; built from {@link Fields} so both sources go
 * through the same code.
 */
public sealed interface CatalogRow {

    /** What the mirror indexes the tuple under: the oid or relation a lookup asks for. */
    int lookupKey();

    /** The row's identity, the same for every version of it: a rewrite's copies are matched on it. */
    long identity();

    /** Whether the decoder ever asks for it (system columns' pg_attribute rows are kept as markers only). */
    default boolean relevant() {
        return true;
    }

    record ClassRow(int oid, String relname, int relnamespace, int relfilenode, int reltablespace, char relkind,
                    char relpersistence, char relreplident, int relnatts, int reltoastrelid, boolean relisshared)
            implements CatalogRow {
        static ClassRow of(Fields f) {
            return new ClassRow(f.oid("oid"), f.name("relname"), f.oid("relnamespace"), f.oid("relfilenode"),
                    f.oid("reltablespace"), f.ch("relkind"), f.ch("relpersistence"), f.ch("relreplident"),
                    f.int2("relnatts"), f.oid("reltoastrelid"), f.bool("relisshared"));
        }

        @Override
        public int lookupKey() {
            return oid;
        }

        @Override
        public long identity() {
            return Integer.toUnsignedLong(oid);
        }
    }

    /**
     * @param missingValue attmissingval's element as stored in a tuple (on-disk datum bytes), null when the column
     *     has none or it is NULL; {@link io.walshadow.catalog.Column#UNRESOLVED_MISSING} when it could not be read
     */
    record AttributeRow(int attrelid, int attnum, String attname, int atttypid, int atttypmod, int attlen,
                        char attalign, boolean attbyval, char attstorage, boolean attisdropped, boolean attnotnull,
                        byte[] missingValue) implements CatalogRow {
        static AttributeRow of(Fields f) {
            int attnum = f.int2("attnum");
            boolean hasMissing = attnum > 0 && f.bool("atthasmissing");
            int attlen = f.int2("attlen");
            char attalign = f.ch("attalign");
            return new AttributeRow(f.oid("attrelid"), attnum, f.name("attname"), f.oid("atttypid"),
                    f.int4("atttypmod"), attlen, attalign, f.bool("attbyval"), f.ch("attstorage"),
                    f.bool("attisdropped"), f.bool("attnotnull"),
                    hasMissing ? f.missingValue("attmissingval", attlen, attalign) : null);
        }

        @Override
        public int lookupKey() {
            return attrelid;
        }

        @Override
        public long identity() {
            return (Integer.toUnsignedLong(attrelid) << 16) | (attnum & 0xFFFF);
        }

        @Override
        public boolean relevant() {
            return attnum > 0;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AttributeRow a && attrelid == a.attrelid && attnum == a.attnum
                    && attname.equals(a.attname) && atttypid == a.atttypid && atttypmod == a.atttypmod
                    && attlen == a.attlen && attalign == a.attalign && attbyval == a.attbyval
                    && attstorage == a.attstorage && attisdropped == a.attisdropped && attnotnull == a.attnotnull
                    && Arrays.equals(missingValue, a.missingValue);
        }

        @Override
        public int hashCode() {
            return attrelid * 31 + attnum;
        }
    }

    record NamespaceRow(int oid, String nspname) implements CatalogRow {
        static NamespaceRow of(Fields f) {
            return new NamespaceRow(f.oid("oid"), f.name("nspname"));
        }

        @Override
        public int lookupKey() {
            return oid;
        }

        @Override
        public long identity() {
            return Integer.toUnsignedLong(oid);
        }
    }

    /** @param indkey the indexed attnums (0 for an expression) */
    record IndexRow(int indexrelid, int indrelid, boolean indisprimary, boolean indisreplident, List<Integer> indkey)
            implements CatalogRow {
        public IndexRow {
            indkey = List.copyOf(indkey);
        }

        static IndexRow of(Fields f) {
            return new IndexRow(f.oid("indexrelid"), f.oid("indrelid"), f.bool("indisprimary"),
                    f.bool("indisreplident"), f.int2vector("indkey"));
        }

        @Override
        public int lookupKey() {
            return indrelid;
        }

        @Override
        public long identity() {
            return Integer.toUnsignedLong(indexrelid);
        }
    }

    record TypeRow(int oid, String typname, int typnamespace, int typlen, boolean typbyval, char typalign,
                   char typtype, char typcategory, int typelem, int typbasetype, int typtypmod, int typrelid)
            implements CatalogRow {
        static TypeRow of(Fields f) {
            return new TypeRow(f.oid("oid"), f.name("typname"), f.oid("typnamespace"), f.int2("typlen"),
                    f.bool("typbyval"), f.ch("typalign"), f.ch("typtype"), f.ch("typcategory"), f.oid("typelem"),
                    f.oid("typbasetype"), f.int4("typtypmod"), f.oid("typrelid"));
        }

        @Override
        public int lookupKey() {
            return oid;
        }

        @Override
        public long identity() {
            return Integer.toUnsignedLong(oid);
        }
    }

    record EnumRow(int oid, int enumtypid, String enumlabel) implements CatalogRow {
        static EnumRow of(Fields f) {
            return new EnumRow(f.oid("oid"), f.oid("enumtypid"), f.name("enumlabel"));
        }

        @Override
        public int lookupKey() {
            return enumtypid;
        }

        @Override
        public long identity() {
            return Integer.toUnsignedLong(oid);
        }
    }

    /** A range type's subtype and multirange (pg_range has no oid column: rngtypid is its key). */
    record RangeRow(int rngtypid, int rngsubtype, int rngmultitypid) implements CatalogRow {
        static RangeRow of(Fields f) {
            return new RangeRow(f.oid("rngtypid"), f.oid("rngsubtype"), f.oid("rngmultitypid"));
        }

        @Override
        public int lookupKey() {
            return rngtypid;
        }

        @Override
        public long identity() {
            return Integer.toUnsignedLong(rngtypid);
        }
    }

    /** An installed extension, looked up by its namespace (the types it created are there). */
    record ExtensionRow(int oid, String extname, int extnamespace) implements CatalogRow {
        static ExtensionRow of(Fields f) {
            return new ExtensionRow(f.oid("oid"), f.name("extname"), f.oid("extnamespace"));
        }

        @Override
        public int lookupKey() {
            return extnamespace;
        }

        @Override
        public long identity() {
            return Integer.toUnsignedLong(oid);
        }
    }

    /**
     * One parent of a table (a partition's single parent, or one of a legacy INHERITS child's), looked up by the
     * child. pg_inherits has no oid column; its unique index is (inhrelid, inhseqno), and a table inherits a given
     * parent at most once, so (inhrelid, inhparent) names the row across its versions (a DETACH CONCURRENTLY's first
     * transaction updates inhdetachpending in place).
     */
    record InheritsRow(int inhrelid, int inhparent, int inhseqno, boolean inhdetachpending) implements CatalogRow {
        static InheritsRow of(Fields f) {
            return new InheritsRow(f.oid("inhrelid"), f.oid("inhparent"), f.int4("inhseqno"),
                    f.bool("inhdetachpending"));
        }

        @Override
        public int lookupKey() {
            return inhrelid;
        }

        @Override
        public long identity() {
            return (Integer.toUnsignedLong(inhrelid) << 32) | Integer.toUnsignedLong(inhparent);
        }
    }

    /** Typed access to a catalog tuple's columns by name: over a deformed tuple, or over a SQL result row. */
    interface Fields {
        int oid(String column);

        int int4(String column);

        int int2(String column);

        char ch(String column);

        boolean bool(String column);

        String name(String column);

        List<Integer> int2vector(String column);

        /** attmissingval's single element as an on-disk datum of the column ({@code attlen}, {@code attalign}). */
        byte[] missingValue(String column, int attlen, char attalign);
    }
}
