package io.walshadow.e2e;

import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.DestinationSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The end-to-end oracle: a replicated table's rows in PostgreSQL ({@code SELECT ...}) against its destination in
 * ClickHouse ({@code SELECT ... FINAL WHERE _is_deleted = 0}), value by value. Each column is read on both sides
 * through an expression that yields the same canonical text for equal values under the documented type mapping
 * (PostgreSQL's output function for String columns, epoch numbers for dates and times, hex for bytea, ...), so
 * the comparison checks the replicated values, not formatting. Rows pair up by primary key; tables without one
 * compare as multisets. A mismatch fails with a readable diff.
 */
public final class TableComparison {
    /** One column: how each side renders it, and whether floats compare numerically. */
    record Col(String name, String pgExpr, String chExpr, boolean isFloat) {}

    private TableComparison() {}

    /** Compares {@code schema.table} with its destination; returns the number of rows compared. */
    public static int assertEqual(Connection pg, ClickHouseConnection ch, String schema, String table)
            throws SQLException {
        return assertEqual(pg, ch, schema, table, null);
    }

    /**
     * As {@link #assertEqual(Connection, ClickHouseConnection, String, String)}, for the rows both sides select with
     * {@code where} (an expression valid in both dialects, e.g. {@code id >= 0 AND id < 100000}): large tables compare
     * range by range.
     */
    public static int assertEqual(Connection pg, ClickHouseConnection ch, String schema, String table, String where)
            throws SQLException {
        List<Col> cols = columns(pg, schema, table);
        List<String> key = primaryKey(pg, schema, table);
        String pgSql = "SELECT " + String.join(", ", cols.stream().map(Col::pgExpr).toList()) + " FROM "
                + ident(schema) + "." + ident(table) + (where == null ? "" : " WHERE " + where);
        String chSql = "SELECT " + String.join(", ", cols.stream().map(Col::chExpr).toList()) + " FROM "
                + DestinationSchema.quote(ch.database()) + "." + DestinationSchema.quote(schema + "__" + table)
                + " FINAL WHERE " + DestinationSchema.quote(DestinationSchema.IS_DELETED) + " = 0"
                + (where == null ? "" : " AND (" + where + ")");
        List<String[]> pgRows = new ArrayList<>();
        try (Statement st = pg.createStatement(); ResultSet rs = st.executeQuery(pgSql)) {
            while (rs.next()) {
                String[] r = new String[cols.size()];
                for (int i = 0; i < r.length; i++) {
                    r[i] = rs.getString(i + 1);
                }
                pgRows.add(r);
            }
        }
        List<String[]> chRows = ch.queryTsv(chSql);
        int[] keyIdx = key.stream().mapToInt(k -> indexOf(cols, k)).toArray();
        Map<String, List<String[]>> left = byKey(pgRows, keyIdx);
        Map<String, List<String[]>> right = byKey(chRows, keyIdx);
        StringBuilder diff = new StringBuilder();
        int problems = 0;
        for (Map.Entry<String, List<String[]>> e : left.entrySet()) {
            List<String[]> other = right.getOrDefault(e.getKey(), List.of());
            for (int i = 0; i < Math.max(e.getValue().size(), other.size()); i++) {
                String[] a = i < e.getValue().size() ? e.getValue().get(i) : null;
                String[] b = i < other.size() ? other.get(i) : null;
                String d = rowDiff(cols, a, b);
                if (d != null && problems++ < 10) {
                    diff.append("\n  key ").append(e.getKey()).append(": ").append(d);
                }
            }
        }
        int extra = 0; // rows only ClickHouse has: a few shown too, so both sides of a mismatch are seen
        for (Map.Entry<String, List<String[]>> e : right.entrySet()) {
            if (!left.containsKey(e.getKey())) {
                for (String[] b : e.getValue()) {
                    problems++;
                    if (extra++ < 10) {
                        diff.append("\n  key ").append(e.getKey()).append(": ").append(rowDiff(cols, null, b));
                    }
                }
            }
        }
        if (problems > 0) {
            throw new AssertionError(schema + "." + table + ": " + problems + " row(s) differ between PostgreSQL ("
                    + pgRows.size() + " rows) and ClickHouse (" + chRows.size() + " rows)" + diff
                    + (problems > 20 ? "\n  ..." : ""));
        }
        return pgRows.size();
    }

    private static int indexOf(List<Col> cols, String name) {
        for (int i = 0; i < cols.size(); i++) {
            if (cols.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("key column " + name + " not compared");
    }

    /** Rows by key text (the whole row for keyless tables), each key's rows sorted for multiset comparison. */
    private static Map<String, List<String[]>> byKey(List<String[]> rows, int[] keyIdx) {
        Map<String, List<String[]>> m = new TreeMap<>();
        for (String[] r : rows) {
            StringBuilder k = new StringBuilder();
            if (keyIdx.length == 0) {
                for (String v : r) {
                    k.append(v).append('\u0001');
                }
            } else {
                for (int i : keyIdx) {
                    k.append(r[i]).append('\u0001');
                }
            }
            m.computeIfAbsent(k.toString().replace('\u0001', '|'), x -> new ArrayList<>()).add(r);
        }
        return m;
    }

    private static String rowDiff(List<Col> cols, String[] pg, String[] ch) {
        if (pg == null) {
            return "only in ClickHouse " + render(cols, ch);
        }
        if (ch == null) {
            return "missing in ClickHouse, PostgreSQL has " + render(cols, pg);
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cols.size(); i++) {
            if (!same(cols.get(i), pg[i], ch[i])) {
                sb.append(sb.length() == 0 ? "" : "; ").append(cols.get(i).name()).append(": PostgreSQL ")
                        .append(show(pg[i])).append(" vs ClickHouse ").append(show(ch[i]));
            }
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    private static boolean same(Col c, String a, String b) {
        if (Objects.equals(a, b)) {
            return true;
        }
        if (c.isFloat() && a != null && b != null) {
            double x = parseFloat(a);
            double y = parseFloat(b);
            return Double.compare(x, y) == 0 || (c.pgExpr().contains("::float4") && (float) x == (float) y);
        }
        return false;
    }

    private static double parseFloat(String s) {
        return switch (s.toLowerCase()) {
            case "nan" -> Double.NaN;
            case "inf", "infinity" -> Double.POSITIVE_INFINITY;
            case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(s);
        };
    }

    private static String render(List<Col> cols, String[] r) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < cols.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(cols.get(i).name()).append('=').append(show(r[i]));
        }
        return sb.append('}').toString();
    }

    private static String show(String v) {
        if (v == null) {
            return "NULL";
        }
        return v.length() > 80 ? "'" + v.substring(0, 80) + "...' (" + v.length() + " chars)" : "'" + v + "'";
    }

    static List<Col> columns(Connection pg, String schema, String table) throws SQLException {
        String q = "SELECT a.attname, format_type(a.atttypid, a.atttypmod), t.typcategory, "
                + " coalesce(bt.typname, t.typname), a.attnotnull,"
                + " coalesce(et.typname, '') AS elem"
                + " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype"
                + " LEFT JOIN pg_type et ON et.oid = coalesce(bt.typelem, t.typelem) AND coalesce(bt.typcategory, t.typcategory) = 'A'"
                + " WHERE n.nspname = '" + schema + "' AND c.relname = '" + table + "' AND a.attnum > 0"
                + " AND NOT a.attisdropped ORDER BY a.attnum";
        List<Col> cols = new ArrayList<>();
        try (Statement st = pg.createStatement(); ResultSet rs = st.executeQuery(q)) {
            while (rs.next()) {
                String name = rs.getString(1);
                String type = rs.getString(2);
                String base = rs.getString(4);
                String elem = rs.getString(6);
                cols.add(column(name, type, base, elem));
            }
        }
        if (cols.isEmpty()) {
            throw new IllegalArgumentException("no table " + schema + "." + table);
        }
        return cols;
    }

    /** How each side renders a column of this type (the mapping of docs/clickhouse-types.md). */
    static Col column(String name, String type, String base, String elem) {
        String p = ident(name);
        String c = DestinationSchema.quote(name);
        switch (base) {
            case "bool":
                return new Col(name, p + "::int::text", "toString(" + c + ")", false);
            case "int2": case "int4": case "int8": case "oid":
                return new Col(name, p + "::text", "toString(" + c + ")", false);
            case "regclass": case "regtype": case "regproc": case "regprocedure": case "regoper": case "regoperator":
            case "regconfig": case "regdictionary": case "regnamespace": case "regrole": case "regcollation":
                return new Col(name, p + "::oid::text", "toString(" + c + ")", false); // the oid, not the name
            case "aclitem":
                return new Col(name, aclitem(p), c, false);
            case "float4":
                return new Col(name, p + "::float4::text", "toString(" + c + ")", true);
            case "float8":
                return new Col(name, p + "::float8::text", "toString(" + c + ")", true);
            case "bytea":
                return new Col(name, "encode(" + p + ", 'hex')", "lower(hex(" + c + "))", false);
            case "date":
                return new Col(name, "(" + p + " - DATE '1970-01-01')::text", "toString(toUInt32(" + c + "))", false);
            case "timestamp": case "timestamptz":
                return new Col(name, "floor(extract(epoch FROM " + p + "))::bigint::text",
                        "toString(toUInt32(" + c + "))", false);
            case "numeric":
                return new Col(name, p + "::text", "toString(" + c + ")", false);
            case "uuid":
                return new Col(name, p + "::text", "toString(" + c + ")", false);
            case "ean13": case "isbn13": case "ismn13": case "issn13": case "isbn": case "ismn": case "issn":
            case "upc": // contrib isn: the digits, PostgreSQL's text without its hyphens
                return new Col(name, "regexp_replace(" + p + "::text, '-', '', 'g')", c, false);
            default:
                break;
        }
        if (elem.matches("ean13|isbn13|ismn13|issn13|isbn|ismn|issn|upc")) {
            return new Col(name, "coalesce(regexp_replace(array_to_string(" + p + ", '|', 'NULL'), '-', '', 'g'), '')",
                    "arrayStringConcat(arrayMap(ws_elem -> ifNull(toString(ws_elem), 'NULL'), " + c + "), '|')", false);
        }
        if (elem.startsWith("reg")) {
            return new Col(name, "coalesce(array_to_string(" + p + "::oid[], '|', 'NULL'), '')",
                    "arrayStringConcat(arrayMap(ws_elem -> ifNull(toString(ws_elem), 'NULL'), " + c + "), '|')", false);
        }
        if (elem.equals("aclitem")) {
            return new Col(name, "coalesce((SELECT string_agg(coalesce(" + aclitem("ws_u.ws_x") + ", 'NULL'), '|'"
                    + " ORDER BY ws_u.ws_k) FROM unnest(" + p + ") WITH ORDINALITY ws_u(ws_x, ws_k)), '')",
                    "arrayStringConcat(arrayMap(ws_elem -> ifNull(toString(ws_elem), 'NULL'), " + c + "), '|')", false);
        }
        if (!elem.isEmpty() && !base.equals("int2vector") && !base.equals("oidvector")) {
            // one-dimensional arrays, elements joined; a NULL array reads as an empty one in ClickHouse
            // (the vectors are their space-separated text)
            return new Col(name, "coalesce(array_to_string(" + p + ", '|', 'NULL'), '')",
                    "arrayStringConcat(arrayMap(ws_elem -> ifNull(toString(ws_elem), 'NULL'), " + c + "), '|')", false);
        }
        // String columns hold PostgreSQL's output function's text
        return new Col(name, "CASE WHEN " + p + " IS NOT NULL THEN format('%s', " + p + ") END", c, false);
    }

    /**
     * An aclitem as aclitemout prints it with role oids for names, built from PostgreSQL's own aclexplode (grantee
     * and grantor oids, one row per privilege in bit order): empty grantee for PUBLIC, each privilege's letter
     * (ACL_ALL_RIGHTS_STR order; 17's MAINTAIN is {@code m}) with {@code *} when grantable. An item without
     * privileges explodes to nothing: not used in these tables.
     */
    static String aclitem(String value) {
        return "CASE WHEN " + value + " IS NOT NULL THEN (SELECT CASE WHEN min(e.grantee) = 0 THEN '' ELSE min(e.grantee)::text END || '=' || string_agg("
                + "CASE e.privilege_type WHEN 'INSERT' THEN 'a' WHEN 'SELECT' THEN 'r' WHEN 'UPDATE' THEN 'w'"
                + " WHEN 'DELETE' THEN 'd' WHEN 'TRUNCATE' THEN 'D' WHEN 'REFERENCES' THEN 'x' WHEN 'TRIGGER' THEN 't'"
                + " WHEN 'EXECUTE' THEN 'X' WHEN 'USAGE' THEN 'U' WHEN 'CREATE' THEN 'C' WHEN 'TEMPORARY' THEN 'T'"
                + " WHEN 'CONNECT' THEN 'c' WHEN 'SET' THEN 's' WHEN 'ALTER SYSTEM' THEN 'A' WHEN 'MAINTAIN' THEN 'm' END"
                + " || CASE WHEN e.is_grantable THEN '*' ELSE '' END, '' ORDER BY e.o) || '/' || min(e.grantor)::text"
                + " FROM aclexplode(ARRAY[" + value + "]) WITH ORDINALITY e(grantor, grantee, privilege_type,"
                + " is_grantable, o)) END";
    }

    static List<String> primaryKey(Connection pg, String schema, String table) throws SQLException {
        String q = "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
                + " AND a.attnum = ANY (i.indkey) WHERE i.indisprimary AND i.indrelid = '"
                + ident(schema) + "." + ident(table) + "'::regclass ORDER BY array_position(i.indkey, a.attnum)";
        List<String> k = new ArrayList<>();
        try (Statement st = pg.createStatement(); ResultSet rs = st.executeQuery(q)) {
            while (rs.next()) {
                k.add(rs.getString(1));
            }
        }
        return k;
    }

    static String ident(String s) {
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }
}
