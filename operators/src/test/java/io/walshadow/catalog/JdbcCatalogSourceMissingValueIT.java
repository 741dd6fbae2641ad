package io.walshadow.catalog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.pg.JdbcCatalogSource;
import io.walshadow.testing.LocalPg;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link Column#missingValue()} as {@link JdbcCatalogSource} builds it from {@code array_send(attmissingval)}, compared
 * byte for byte with PostgreSQL's own on-disk bytes (pageinspect): the element stored inside the pg_attribute
 * tuple's attmissingval array, and the value of a row inserted after the ADD COLUMN (same default; a short varlena
 * there has a 1-byte header, so varlena payloads are compared). Numeric is compared by value (sign, weight, dscale,
 * digits), since PostgreSQL stores NumericShort where we produce the equally valid NumericLong.
 */
class JdbcCatalogSourceMissingValueIT {
    /** column name, type, default; null default = no missing value expected. */
    static final String[][] COLUMNS = {
        {"c_bool", "bool", "true"},
        {"c_bool_f", "bool", "false"},
        {"c_char", "\"char\"", "'x'"},
        {"c_i2", "int2", "-3"},
        {"c_i4", "int4", "123456"},
        {"c_i8", "int8", "-9000000000"},
        {"c_oid", "oid", "'4000000000'"},
        {"c_f4", "float4", "-1.5"},
        {"c_f8", "float8", "3.141592653589793"},
        {"c_f8_nz", "float8", "'-0'"},
        {"c_money", "money", "12.34"},
        {"c_date", "date", "'1999-12-31'"},
        {"c_time", "time", "'13:14:15.123456'"},
        {"c_timetz", "timetz", "'13:14:15+02'"},
        {"c_ts", "timestamp", "'2024-02-29 01:02:03.456'"},
        {"c_tstz", "timestamptz", "'1969-07-20 20:17:40+00'"},
        {"c_interval", "interval", "'1 year 2 mons -3 days 04:05:06.7'"},
        {"c_uuid", "uuid", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"},
        {"c_text", "text", "'dflt'"},
        {"c_empty", "text", "''"},
        {"c_utf", "text", "'grüße ✓'"},
        {"c_long", "text", "repeat('x', 300)"},
        {"c_varchar", "varchar(20)", "'vc'"},
        {"c_bpchar", "char(5)", "'ab'"},
        {"c_bytea", "bytea", "'\\x00ff10'::bytea"},
        {"c_json", "json", "'{\"a\": [1, 2]}'"},
        {"c_num", "numeric", "12.5"},
        {"c_num_neg", "numeric(12,4)", "-0.0001"},
        {"c_num_big", "numeric", "123456789012345678901234567890.123456789"},
        {"c_num_zero", "numeric(10,2)", "0"},
        {"c_num_nan", "numeric", "'NaN'"},
        {"c_num_inf", "numeric", "'-Infinity'"},
        {"c_dom", "%s.posint", "5"},
        {"c_jsonb", "jsonb", "'{}'"},
        {"c_arr", "int4[]", "'{1,2}'"},
        {"c_inet", "inet", "'10.0.0.1'"},
        {"c_null", "int4", "NULL"},
        {"c_none", "int4", null},
    };
    static final Set<String> UNRESOLVED = Set.of("c_jsonb", "c_arr", "c_inet");
    static final Set<String> NO_MISSING = Set.of("c_null", "c_none");

    @Test
    void missingValuesAreThePostgresOnDiskBytes() throws Exception {
        String schema = "cat_mv_" + Long.toString(System.nanoTime(), 36);
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE EXTENSION IF NOT EXISTS pageinspect", "CREATE SCHEMA " + schema,
                    "CREATE DOMAIN " + schema + ".posint AS int4",
                    "CREATE TABLE " + schema + ".m (id int)", "INSERT INTO " + schema + ".m VALUES (1)");
            try {
                StringBuilder alter = new StringBuilder("ALTER TABLE " + schema + ".m ");
                for (int i = 0; i < COLUMNS.length; i++) {
                    String[] col = COLUMNS[i];
                    alter.append(i == 0 ? "" : ", ").append("ADD COLUMN ").append(col[0]).append(' ')
                            .append(String.format(col[1], schema));
                    if (col[2] != null) {
                        alter.append(" DEFAULT ").append(col[2]);
                    }
                }
                String relfilenodeBefore = LocalPg.queryString(c, "SELECT pg_relation_filenode('" + schema + ".m')");
                LocalPg.exec(c, alter.toString(), "INSERT INTO " + schema + ".m (id) VALUES (2)");
                assertEquals(relfilenodeBefore, LocalPg.queryString(c,
                        "SELECT pg_relation_filenode('" + schema + ".m')"), "no rewrite: the defaults are missing values");
                int relOid = Integer.parseInt(LocalPg.queryString(c, "SELECT '" + schema + ".m'::regclass::oid"));

                LiveRelation live;
                try (Connection lc = LocalPg.connect()) {
                    JdbcCatalogSource loader = new JdbcCatalogSource(lc, CatalogFilter.parse(schema + ".*", null));
                    CatalogSnapshot snap = loader.load(Set.of(relOid), false);
                    live = snap.relations().get(relOid);
                    assertTrue(lc.getAutoCommit(), "connection settings restored");
                }
                assertNotNull(live);
                assertTrue(live.included());
                Map<String, Column> byName = new LinkedHashMap<>();
                for (LiveRelation.Attribute a : live.attributes()) {
                    byName.put(a.column().name(), a.column());
                }
                Map<Integer, byte[]> rowBytes = rowTwoBytes(c, schema + ".m");
                int checked = 0;
                for (String[] col : COLUMNS) {
                    Column column = byName.get(col[0]);
                    String what = col[0] + " " + col[1] + " DEFAULT " + col[2];
                    if (NO_MISSING.contains(col[0])) {
                        assertFalse(column.hasMissingValue(), what);
                        continue;
                    }
                    if (UNRESOLVED.contains(col[0])) {
                        assertSame(Column.UNRESOLVED_MISSING, column.missingValue(), what);
                        continue;
                    }
                    byte[] ours = column.missingValue();
                    assertTrue(ours != null && !column.missingValueUnresolved(), what + ": resolved");
                    byte[] inArray = attmissingvalElement(c, relOid, column.attnum(), column.attlen());
                    byte[] inRow = rowBytes.get(column.attnum());
                    boolean numeric = col[1].startsWith("numeric");
                    if (numeric) {
                        assertEquals(numericValue(inArray), numericValue(ours), what + " vs pg_attribute");
                        assertEquals(numericValue(inRow), numericValue(ours), what + " vs the row");
                    } else if (column.attlen() == -1) {
                        assertArrayEquals(inArray, ours, what + " vs pg_attribute (4-byte header)");
                        assertArrayEquals(varlenaPayload(inRow), varlenaPayload(ours), what + " vs the row");
                    } else {
                        assertArrayEquals(inArray, ours, what + " vs pg_attribute");
                        assertArrayEquals(inRow, ours, what + " vs the row");
                    }
                    checked++;
                }
                assertEquals(COLUMNS.length - UNRESOLVED.size() - NO_MISSING.size(), checked);
                // and the bytes read back as the value PostgreSQL prints
                assertEquals("{dflt}", LocalPg.queryString(c, "SELECT attmissingval::text FROM pg_attribute"
                        + " WHERE attrelid = " + relOid + " AND attname = 'c_text'"));
                assertEquals("dflt", new String(varlenaPayload(byName.get("c_text").missingValue())));
                assertEquals(123456, ByteBuffer.wrap(byName.get("c_i4").missingValue()).order(ByteOrder.LITTLE_ENDIAN)
                        .getInt());
            } finally {
                LocalPg.exec(c, "DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    /** tuple_data_split of the row with id = 2: attnum to raw bytes. */
    static Map<Integer, byte[]> rowTwoBytes(Connection c, String table) throws Exception {
        String ctid = LocalPg.queryString(c, "SELECT ctid FROM " + table + " WHERE id = 2");
        int[] bl = parseCtid(ctid);
        try (PreparedStatement ps = c.prepareStatement("SELECT tuple_data_split(?::regclass, t_data, t_infomask,"
                + " t_infomask2, t_bits) FROM heap_page_items(get_raw_page(?, ?)) WHERE lp = ?")) {
            ps.setString(1, table);
            ps.setString(2, table);
            ps.setInt(3, bl[0]);
            ps.setInt(4, bl[1]);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return toMap(rs.getArray(1));
            }
        }
    }

    /** The element bytes inside the on-disk attmissingval array of the pg_attribute row. */
    static byte[] attmissingvalElement(Connection c, int relOid, int attnum, int attlen) throws Exception {
        String ctid = LocalPg.queryString(c, "SELECT ctid FROM pg_attribute WHERE attrelid = " + relOid
                + " AND attnum = " + attnum);
        int[] bl = parseCtid(ctid);
        int missingAttnum = Integer.parseInt(LocalPg.queryString(c, "SELECT attnum FROM pg_attribute"
                + " WHERE attrelid = 'pg_attribute'::regclass AND attname = 'attmissingval'"));
        byte[] raw;
        try (PreparedStatement ps = c.prepareStatement("SELECT tuple_data_split('pg_attribute'::regclass, t_data,"
                + " t_infomask, t_infomask2, t_bits) FROM heap_page_items(get_raw_page('pg_attribute', ?))"
                + " WHERE lp = ?")) {
            ps.setInt(1, bl[0]);
            ps.setInt(2, bl[1]);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                raw = toMap(rs.getArray(1)).get(missingAttnum);
            }
        }
        assertNotNull(raw, "attmissingval on disk");
        byte[] array = varlenaPayload(raw); // ArrayType after its varlena header
        ByteBuffer b = ByteBuffer.wrap(array).order(ByteOrder.LITTLE_ENDIAN);
        int ndim = b.getInt(0);
        int dataoffset = b.getInt(4);
        assertEquals(1, ndim);
        assertEquals(0, dataoffset, "no null bitmap");
        int dataStart = 24 - 4; // ARR_OVERHEAD_NONULLS(1) = MAXALIGN(16 + 8), minus the varlena header
        int len = attlen > 0 ? attlen : b.getInt(dataStart) >>> 2;
        assertTrue(attlen > 0 || (array[dataStart] & 0x03) == 0, "element has a 4-byte varlena header");
        byte[] out = new byte[len];
        System.arraycopy(array, dataStart, out, 0, len);
        return out;
    }

    static int[] parseCtid(String ctid) {
        String[] p = ctid.substring(1, ctid.length() - 1).split(",");
        return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])};
    }

    static Map<Integer, byte[]> toMap(Array a) throws Exception {
        Object[] elems = (Object[]) a.getArray();
        Map<Integer, byte[]> m = new HashMap<>();
        for (int i = 0; i < elems.length; i++) {
            m.put(i + 1, (byte[]) elems[i]);
        }
        return m;
    }

    /** The bytes after a 1-byte (short) or 4-byte (uncompressed) varlena header. */
    static byte[] varlenaPayload(byte[] v) {
        int b0 = v[0] & 0xFF;
        if ((b0 & 0x01) == 0x01) {
            int len = b0 >>> 1;
            assertEquals(v.length, len, "short varlena length");
            return java.util.Arrays.copyOfRange(v, 1, len);
        }
        assertEquals(0, b0 & 0x03, "an uncompressed 4-byte header");
        int len = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getInt() >>> 2;
        assertEquals(v.length, len, "4-byte varlena length");
        return java.util.Arrays.copyOfRange(v, 4, len);
    }

    /** A stored numeric (short, long or special form) as "sign/weight/dscale/digits". */
    static String numericValue(byte[] v) {
        byte[] p = varlenaPayload(v);
        ByteBuffer b = ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN);
        int header = b.getShort() & 0xFFFF;
        String sign;
        int weight;
        int dscale;
        if ((header & 0xC000) == 0xC000) {
            return String.format("special %04X", header);
        }
        if ((header & 0x8000) != 0) { // NumericShort
            sign = (header & 0x2000) != 0 ? "-" : "+";
            dscale = (header & 0x1F80) >> 7;
            weight = (header & 0x0040) != 0 ? (~0x3F | (header & 0x3F)) : (header & 0x3F);
        } else {
            sign = (header & 0x4000) != 0 ? "-" : "+";
            dscale = header & 0x3FFF;
            weight = b.getShort();
        }
        List<Integer> digits = new ArrayList<>();
        while (b.hasRemaining()) {
            digits.add((int) b.getShort());
        }
        if (digits.isEmpty()) {
            weight = 0;
        }
        return sign + "/" + weight + "/" + dscale + "/" + digits;
    }

    @Test
    void numericValueHelperReadsBothForms() {
        HexFormat h = HexFormat.of();
        // 12.5 as NumericShort (dscale 1, weight 0) and NumericLong
        assertEquals("+/0/1/[12, 5000]", numericValue(h.parseHex("0f" + "8080" + "0c00" + "8813")));
        assertEquals("+/0/1/[12, 5000]", numericValue(h.parseHex("30000000" + "0100" + "0000" + "0c00" + "8813")));
    }
}
