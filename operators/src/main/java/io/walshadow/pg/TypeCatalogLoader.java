package io.walshadow.pg;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PgType;
import io.walshadow.types.ExtensionTypes;
import io.walshadow.types.MapTypeCatalog;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the types of the live catalog over JDBC into a {@link MapTypeCatalog} (a few thousand rows): for the types as
 * the server has them now, rather than as of a position in the WAL (that is the catalog shadow's
 * {@link io.walshadow.catalog.shadow.ShadowTypes}).
 *
 * <p>Column.missingValue of composite attributes is not loaded (always null): attmissingval is only readable as
 * text over SQL, not as the raw datum. It matters only for a table's row type used as a column type after an
 * {@code ADD COLUMN ... DEFAULT} without rewrite; such attributes then read as NULL in older composite values.
 */
public final class TypeCatalogLoader {
    private TypeCatalogLoader() {}

    /**
     * Reads pg_type, pg_enum, pg_range, pg_extension (which extension's namespace a type is in) and pg_attribute of
     * composite types, in one snapshot if the caller opened one.
     */
    public static MapTypeCatalog load(Connection c) throws SQLException {
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
        return new MapTypeCatalog(types, composites);
    }

    private static char ch(String s) {
        return s == null || s.isEmpty() ? '\0' : s.charAt(0);
    }
}
