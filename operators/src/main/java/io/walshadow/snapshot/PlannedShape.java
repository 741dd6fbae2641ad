package io.walshadow.snapshot;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks, under a reader's snapshot, that a chunk's table still has the storage and columns it was planned with.
 * Always so under the first export (its locks keep DDL out); after a restart the fresh export comes after whatever
 * ran while the job was down, and rows read with an outdated shape would be written wrongly: fail closed.
 */
final class PlannedShape {
    private PlannedShape() {}

    /** What the check found: the table is gone, or what differs (null: unchanged). */
    record Check(boolean gone, String difference) {}

    static Check check(Connection c, RelationDescriptor planned) throws SQLException {
        String sql = "SELECT c.relfilenode, (SELECT string_agg(a.attnum || ':' || a.attname || ':' || a.atttypid || ':'"
                + " || a.atttypmod || ':' || a.attisdropped, ',' ORDER BY a.attnum) FROM pg_attribute a WHERE"
                + " a.attrelid = c.oid AND a.attnum > 0) FROM pg_class c WHERE c.oid = "
                + Integer.toUnsignedString(planned.relOid());
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            if (!rs.next()) {
                return new Check(true, null); // dropped since: the WAL stream carries the drop
            }
            long relfilenode = rs.getLong(1);
            String columns = rs.getString(2);
            String expected = columns(planned);
            if (relfilenode != Integer.toUnsignedLong(planned.locator().relNumber())) {
                return new Check(false, "its storage was rewritten (relfilenode " + relfilenode + ", planned "
                        + Integer.toUnsignedString(planned.locator().relNumber()) + ")");
            }
            if (!expected.equals(columns == null ? "" : columns)) {
                return new Check(false, "its columns changed (now " + columns + ", planned " + expected + ")");
            }
            return new Check(false, null);
        }
    }

    private static String columns(RelationDescriptor d) {
        List<String> out = new ArrayList<>();
        for (Column col : d.columns()) {
            out.add(col.attnum() + ":" + col.name() + ":" + Integer.toUnsignedString(col.typeOid()) + ":" + col.typmod()
                    + ":" + (col.dropped() ? "true" : "false"));
        }
        return String.join(",", out);
    }
}
