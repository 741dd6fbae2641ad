package io.walshadow.types;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeCatalog;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link TypeCatalog} held in maps: every pg_type row of a database (with enum labels and pg_range's subtypes), and the attributes of
 * every composite type. {@link #load} reads them over JDBC (a few thousand rows).
 *
 * <p>Column.missingValue of composite attributes is not loaded (always null): attmissingval is only readable as
 * text over SQL, not as the raw datum. It matters only for a table's row type used as a column type after an
 * {@code ADD COLUMN ... DEFAULT} without rewrite; such attributes then read as NULL in older composite values.
 */
public final class SqlTypeCatalog implements TypeCatalog {
    private final Map<Integer, PgType> types;
    private final Map<Integer, List<Column>> composites;

    public SqlTypeCatalog(Map<Integer, PgType> types, Map<Integer, List<Column>> compositeAttributes) {
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

    /**
     * Reads pg_type, pg_enum, pg_range, pg_extension (which extension's namespace a type is in) and pg_attribute of
     * composite types, in one snapshot if the caller opened one.
     */
    public static SqlTypeCatalog load(Connection c) throws SQLException {
        Map<Integer, Integer> rangeSubtypes = new HashMap<>();
        Map<Integer, Integer> multirangeRanges = new HashMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT rngtypid, rngsubtype, rngmultitypid FROM pg_catalog.pg_range")) {
            while (rs.next()) {
                int range = (int) rs.getLong(1);
                rangeSubtypes.put(range, (int) rs.getLong(2));
                multirangeRanges.put((int) rs.getLong(3), range);
            }
        }
        Map<Integer, Map<Integer, String>> labels = new HashMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT enumtypid, oid, enumlabel FROM pg_catalog.pg_enum")) {
            while (rs.next()) {
                labels.computeIfAbsent((int) rs.getLong(1), k -> new HashMap<>()).put((int) rs.getLong(2),
                        rs.getString(3));
            }
        }
        Map<Integer, List<String>> extensions = new HashMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT extnamespace, extname FROM pg_catalog.pg_extension")) {
            while (rs.next()) {
                extensions.computeIfAbsent((int) rs.getLong(1), k -> new ArrayList<>()).add(rs.getString(2));
            }
        }
        Map<Integer, PgType> types = new HashMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT t.oid, n.nspname, t.typname, t.typlen, t.typbyval, t.typalign,"
                     + " t.typtype, t.typcategory, t.typelem, t.typbasetype, t.typtypmod, t.typrelid,"
                     + " t.typnamespace FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace")) {
            while (rs.next()) {
                int oid = (int) rs.getLong(1);
                String name = rs.getString(3);
                types.put(oid, new PgType(oid, rs.getString(2), name, rs.getInt(4), rs.getBoolean(5),
                        ch(rs.getString(6)), ch(rs.getString(7)), ch(rs.getString(8)), (int) rs.getLong(9),
                        (int) rs.getLong(10), rs.getInt(11), (int) rs.getLong(12),
                        Map.copyOf(labels.getOrDefault(oid, Map.of())), rangeSubtypes.getOrDefault(oid, 0),
                        multirangeRanges.getOrDefault(oid, 0),
                        ExtensionTypes.owner(name, extensions.getOrDefault((int) rs.getLong(13), List.of()))));
            }
        }
        Map<Integer, List<Column>> composites = new HashMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT a.attrelid, a.attnum, a.attname, a.atttypid, a.atttypmod,"
                     + " a.attlen, a.attalign, a.attbyval, a.attstorage, a.attisdropped, a.attnotnull"
                     + " FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.typrelid = a.attrelid"
                     + " WHERE t.typtype = 'c' AND a.attnum > 0 ORDER BY a.attrelid, a.attnum")) {
            while (rs.next()) {
                composites.computeIfAbsent((int) rs.getLong(1), k -> new ArrayList<>()).add(new Column(
                        rs.getInt(2), rs.getString(3), (int) rs.getLong(4), rs.getInt(5), rs.getInt(6),
                        ch(rs.getString(7)), rs.getBoolean(8), ch(rs.getString(9)), rs.getBoolean(10),
                        rs.getBoolean(11), null));
            }
        }
        return new SqlTypeCatalog(types, composites);
    }

    private static char ch(String s) {
        return s == null || s.isEmpty() ? '\0' : s.charAt(0);
    }
}
