package io.walshadow.types;

import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The local PostgreSQL as the oracle for value decoding: a session with the output settings {@link ValueDecoder}
 * implements, unique object names, and a table's rows read twice: raw on-disk attribute bytes from the heap pages
 * ({@code pageinspect}: {@code heap_page_items} + {@code tuple_data_split}, varlena headers included, nothing
 * detoasted) and every column's text output ({@code format('%s', col)}: the type's output function).
 */
final class PgOracle implements AutoCloseable {
    private static final AtomicInteger SEQ = new AtomicInteger();
    static final String PREFIX = "ws_types_" + ProcessHandle.current().pid() + "_";

    final Connection c;
    private final List<String> drops = new ArrayList<>();

    PgOracle() throws SQLException {
        c = LocalPg.connect();
        exec("CREATE EXTENSION IF NOT EXISTS pageinspect",
                "SET DateStyle = 'ISO, MDY'",
                "SET TimeZone = 'UTC'",
                "SET IntervalStyle = 'postgres'",
                "SET extra_float_digits = 1",
                "SET bytea_output = 'hex'",
                "SET lc_monetary = 'C'");
    }

    /** A fresh object name; the object is dropped (CASCADE) on close, in reverse order of creation. */
    String name(String kind, String dropKeyword) {
        String n = PREFIX + kind + SEQ.incrementAndGet();
        drops.add(0, "DROP " + dropKeyword + " IF EXISTS " + n + " CASCADE");
        return n;
    }

    void exec(String... sql) throws SQLException {
        LocalPg.exec(c, sql);
    }

    String query(String sql) throws SQLException {
        return LocalPg.queryString(c, sql);
    }

    /** One stored row version: raw datums and PostgreSQL's text, by attnum (1-based; index 0 unused). */
    record Row(String ctid, byte[][] raw, String[] text) {}

    /** A column as pg_attribute has it. */
    record Col(int attnum, String name, int typeOid, int typmod) {}

    List<Col> columns(String table) throws SQLException {
        List<Col> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT attnum, attname, atttypid, atttypmod FROM pg_attribute WHERE attrelid = '" + table
                        + "'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
            while (rs.next()) {
                out.add(new Col(rs.getInt(1), rs.getString(2), (int) rs.getLong(3), rs.getInt(4)));
            }
        }
        return out;
    }

    /** Every live tuple of {@code table} (which must have had only INSERTs), in ctid order. */
    List<Row> rows(String table, List<Col> cols) throws SQLException {
        Map<String, byte[][]> raw = new LinkedHashMap<>();
        int natts = cols.stream().mapToInt(Col::attnum).max().orElse(0);
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT '(' || p.blk || ',' || h.lp || ')', d.ord, d.val"
                        + " FROM generate_series(0, pg_relation_size('" + table + "') / current_setting('block_size')::int - 1) p(blk)"
                        + " CROSS JOIN LATERAL heap_page_items(get_raw_page('" + table + "', p.blk::int)) h"
                        + " CROSS JOIN LATERAL unnest(tuple_data_split('" + table + "'::regclass, h.t_data,"
                        + " h.t_infomask, h.t_infomask2, h.t_bits)) WITH ORDINALITY d(val, ord)"
                        + " WHERE h.lp_flags = 1 ORDER BY p.blk, h.lp, d.ord")) {
            while (rs.next()) {
                byte[][] r = raw.computeIfAbsent(rs.getString(1), k -> new byte[natts + 1][]);
                int ord = rs.getInt(2);
                if (ord <= natts) {
                    r[ord] = rs.getBytes(3);
                }
            }
        }
        // the output function, as COPY, psql and array_out/record_out print values; not col::text, because
        // the casts to text of bool ('true'), inet (always /32), bpchar (trailing blanks cut) and "char" differ
        Map<String, String[]> texts = texts(table, cols, col -> "format('%s', " + col.name() + ")");
        if (!texts.keySet().equals(raw.keySet())) {
            throw new IllegalStateException("heap pages and SELECT disagree on the rows of " + table + ": "
                    + raw.keySet() + " vs " + texts.keySet());
        }
        List<Row> out = new ArrayList<>();
        raw.forEach((ctid, r) -> out.add(new Row(ctid, r, texts.get(ctid))));
        return out;
    }

    /** Each row's text of {@code expr} per column, by ctid, indexed by attnum. */
    Map<String, String[]> texts(String table, List<Col> cols, java.util.function.Function<Col, String> expr)
            throws SQLException {
        int natts = cols.stream().mapToInt(Col::attnum).max().orElse(0);
        StringBuilder sql = new StringBuilder("SELECT ctid::text");
        for (Col col : cols) {
            sql.append(", ").append(expr.apply(col));
        }
        sql.append(" FROM ").append(table);
        Map<String, String[]> texts = new HashMap<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql.toString())) {
            while (rs.next()) {
                String[] t = new String[natts + 1];
                for (int i = 0; i < cols.size(); i++) {
                    t[cols.get(i).attnum()] = rs.getString(i + 2);
                }
                texts.put(rs.getString(1), t);
            }
        }
        return texts;
    }

    /** The value an external TOAST pointer stands for, as the datum {@link ToastPointer#toVarlena} rebuilds. */
    byte[] detoast(ToastPointer p) throws SQLException {
        java.io.ByteArrayOutputStream chunks = new java.io.ByteArrayOutputStream();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT chunk_data FROM "
                + query("SELECT " + Integer.toUnsignedString(p.toastRelOid()) + "::regclass")
                + " WHERE chunk_id = " + Integer.toUnsignedString(p.valueId()) + " ORDER BY chunk_seq")) {
            while (rs.next()) {
                chunks.writeBytes(rs.getBytes(1));
            }
        }
        return p.toVarlena(chunks.toByteArray());
    }

    @Override
    public void close() throws SQLException {
        try {
            for (String d : drops) {
                exec(d);
            }
        } finally {
            c.close();
        }
    }
}
