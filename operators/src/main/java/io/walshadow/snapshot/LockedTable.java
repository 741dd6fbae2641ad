package io.walshadow.snapshot;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * A chunk's table as the catalog has it now (not as of the snapshot: the chunk query's names resolve against the
 * current catalog), read while the chunk's transaction holds its ACCESS SHARE lock.
 *
 * @param name quoted qualified name
 * @param relfilenode the storage now: another than the plan's means a rewrite (ALTER TYPE, VACUUM FULL, CLUSTER,
 *     TRUNCATE) committed since, which the WAL stream carries with every row the table then held
 * @param toastName the TOAST relation's qualified name, or null
 * @param liveColumns attnum to current name of every column not dropped
 */
record LockedTable(String name, long relfilenode, String toastName, Map<Integer, String> liveColumns) {

    static LockedTable read(Connection c, int relOid) throws SQLException {
        String sql = "SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname), c.relfilenode,"
                + " CASE WHEN c.reltoastrelid <> 0 THEN c.reltoastrelid::regclass::text END,"
                + " ARRAY(SELECT a.attnum FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0"
                + " AND NOT a.attisdropped ORDER BY a.attnum),"
                + " ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0"
                + " AND NOT a.attisdropped ORDER BY a.attnum)"
                + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = "
                + Integer.toUnsignedString(relOid);
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            if (!rs.next()) {
                return null;
            }
            Map<Integer, String> live = new HashMap<>();
            Object[] attnums = (Object[]) array(rs.getArray(4));
            Object[] names = (Object[]) array(rs.getArray(5));
            for (int i = 0; i < attnums.length; i++) {
                live.put(((Number) attnums[i]).intValue(), (String) names[i]);
            }
            return new LockedTable(rs.getString(1), rs.getLong(2), rs.getString(3), live);
        }
    }

    private static Object array(Array a) throws SQLException {
        return a == null ? new Object[0] : a.getArray();
    }

    /** Whether the table still has the storage {@code planned} was read from. */
    boolean sameStorage(RelationDescriptor planned) {
        return relfilenode == Integer.toUnsignedLong(planned.locator().relNumber());
    }

    /**
     * The planned shape with the columns dropped since marked dropped: their values cannot be selected any more,
     * and the destination drops them when the stream reaches the DROP.
     */
    RelationDescriptor readable(RelationDescriptor planned) {
        boolean changed = false;
        java.util.List<Column> cols = new java.util.ArrayList<>(planned.natts());
        for (Column c : planned.columns()) {
            if (!c.dropped() && !liveColumns.containsKey(c.attnum())) {
                c = new Column(c.attnum(), c.name(), c.typeOid(), c.typmod(), c.attlen(), c.attalign(), c.attbyval(),
                        c.attstorage(), true, false, c.missingValue());
                changed = true;
            }
            cols.add(c);
        }
        return !changed ? planned : new RelationDescriptor(planned.relOid(), planned.locator(), planned.schema(),
                planned.name(), planned.relkind(), planned.relpersistence(), planned.replicaIdentity(),
                planned.toastRelOid(), cols, planned.identityAttnums());
    }
}
