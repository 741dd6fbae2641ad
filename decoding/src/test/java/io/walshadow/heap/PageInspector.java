package io.walshadow.heap;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * PostgreSQL's own view of heap pages, through pageinspect: line pointers, tuple headers and
 * {@code tuple_data_split}'s raw per-attribute bytes (hex, null for NULL). Pages are read once and cached.
 */
final class PageInspector {
    /** One line pointer of a page, with its tuple if LP_NORMAL. */
    record Item(int lp, int lpFlags, long xmin, long xmax, int infomask2, int infomask, int hoff, String bits,
                String[] attrs) {
    }

    private final Connection c;
    private final Map<String, Map<Integer, Item>> pages = new HashMap<>();

    PageInspector(Connection c) {
        this.c = c;
    }

    /** The item at (blk, lp) of the relation, or null if the page has no such line pointer (or no such page). */
    Item item(String regclass, int relOid, long blk, int lp) throws SQLException {
        String key = regclass + "/" + blk;
        Map<Integer, Item> page = pages.get(key);
        if (page == null) {
            page = load(regclass, relOid, blk);
            pages.put(key, page);
        }
        return page.get(lp);
    }

    private Map<Integer, Item> load(String regclass, int relOid, long blk) throws SQLException {
        Map<Integer, Item> out = new HashMap<>();
        try (PreparedStatement nb = c.prepareStatement("SELECT pg_relation_size(?::regclass) / 8192")) {
            nb.setString(1, regclass);
            try (ResultSet rs = nb.executeQuery()) {
                rs.next();
                if (blk >= rs.getLong(1)) {
                    return out;
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT lp, lp_flags, t_xmin::text::int8, t_xmax::text::int8, t_infomask2, t_infomask, t_hoff, t_bits,"
                        + " (SELECT array_agg(encode(x, 'hex') ORDER BY o) FROM unnest(CASE WHEN lp_flags = 1 THEN"
                        + " tuple_data_split(?::oid, t_data, t_infomask, t_infomask2, t_bits) END)"
                        + " WITH ORDINALITY u(x, o))"
                        + " FROM heap_page_items(get_raw_page(?, 'main', ?))")) {
            ps.setLong(1, Integer.toUnsignedLong(relOid));
            ps.setString(2, regclass);
            ps.setLong(3, blk);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    java.sql.Array a = rs.getArray(9);
                    String[] attrs = a == null ? null : (String[]) a.getArray();
                    out.put(rs.getInt(1), new Item(rs.getInt(1), rs.getInt(2), rs.getLong(3), rs.getLong(4),
                            rs.getInt(5), rs.getInt(6), rs.getInt(7), rs.getString(8), attrs));
                }
            }
        }
        return out;
    }
}
