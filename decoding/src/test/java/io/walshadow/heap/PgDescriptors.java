package io.walshadow.heap;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.wal.RelFileLocator;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Test-only stand-in for the catalog loader: a {@link RelationDescriptor} straight from pg_class/pg_attribute of
 * the live server. attmissingval is turned into on-disk bytes for the few types the tests use (int2/4/8, bool,
 * short text); any other missing value becomes an unresolved (zero-length) one.
 */
final class PgDescriptors {
    private PgDescriptors() {}

    static RelationDescriptor describe(Connection c, String regclass) throws SQLException {
        int oid;
        String schema;
        String name;
        char relkind;
        char persistence;
        char replident;
        int toast;
        RelFileLocator locator;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT c.oid::int8, n.nspname, c.relname, c.relkind, c.relpersistence, c.relreplident,"
                        + " c.reltoastrelid::int8, pg_relation_filenode(c.oid)::int8,"
                        + " CASE WHEN c.reltablespace = 0 THEN d.dattablespace ELSE c.reltablespace END::int8,"
                        + " CASE WHEN c.relisshared THEN 0 ELSE d.oid END::int8"
                        + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,"
                        + " pg_database d WHERE d.datname = current_database() AND c.oid = ?::regclass")) {
            ps.setString(1, regclass);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalArgumentException("no relation " + regclass);
                }
                oid = (int) rs.getLong(1);
                schema = rs.getString(2);
                name = rs.getString(3);
                relkind = rs.getString(4).charAt(0);
                persistence = rs.getString(5).charAt(0);
                replident = rs.getString(6).charAt(0);
                toast = (int) rs.getLong(7);
                locator = new RelFileLocator((int) rs.getLong(9), (int) rs.getLong(10), (int) rs.getLong(8));
            }
        }
        List<Column> cols = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT attnum, attname, atttypid::int8, atttypmod, attlen, attalign, attbyval, attstorage,"
                        + " attisdropped, attnotnull, atthasmissing, attmissingval::text, atttypid::regtype::text"
                        + " FROM pg_attribute WHERE attrelid = ? AND attnum > 0 ORDER BY attnum")) {
            ps.setLong(1, Integer.toUnsignedLong(oid));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int attlen = rs.getInt(5);
                    boolean hasMissing = rs.getBoolean(11);
                    byte[] missing = hasMissing ? missingBytes(rs.getString(13), attlen, rs.getString(12)) : null;
                    cols.add(new Column(rs.getInt(1), rs.getString(2), (int) rs.getLong(3), rs.getInt(4), attlen,
                            rs.getString(6).charAt(0), rs.getBoolean(7), rs.getString(8).charAt(0),
                            rs.getBoolean(9), rs.getBoolean(10), missing));
                }
            }
        }
        List<Integer> identity = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT i.indkey::text FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE i.indrelid = ?"
                        + " AND (i.indisreplident OR (i.indisprimary AND c.relreplident = 'd'))")) {
            ps.setLong(1, Integer.toUnsignedLong(oid));
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    for (String k : rs.getString(1).trim().split("\\s+")) {
                        identity.add(Integer.parseInt(k));
                    }
                }
            }
        }
        return new RelationDescriptor(oid, locator, schema, name, relkind, persistence, replident, toast,
                List.copyOf(cols), List.copyOf(identity));
    }

    /** On-disk bytes of a one-element attmissingval such as {@code {42}} for the types the tests use. */
    static byte[] missingBytes(String type, int attlen, String arrayText) {
        if (arrayText == null || !arrayText.startsWith("{") || !arrayText.endsWith("}")) {
            return new byte[0];
        }
        String v = arrayText.substring(1, arrayText.length() - 1);
        if (v.startsWith("\"")) {
            v = v.substring(1, v.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
        }
        switch (type) {
            case "smallint": {
                short s = Short.parseShort(v);
                return new byte[] {(byte) s, (byte) (s >> 8)};
            }
            case "integer": {
                byte[] b = new byte[4];
                io.walshadow.wal.Bytes.putInt32(b, 0, Integer.parseInt(v));
                return b;
            }
            case "bigint": {
                byte[] b = new byte[8];
                io.walshadow.wal.Bytes.putInt64(b, 0, Long.parseLong(v));
                return b;
            }
            case "boolean":
                return new byte[] {(byte) (v.equals("t") ? 1 : 0)};
            case "text": {
                byte[] s = v.getBytes(StandardCharsets.UTF_8);
                if (s.length > 126) {
                    return new byte[0];
                }
                byte[] b = new byte[s.length + 1];
                b[0] = (byte) (((s.length + 1) << 1) | 1);
                System.arraycopy(s, 0, b, 1, s.length);
                return b;
            }
            default:
                return new byte[0];
        }
    }
}
