package io.walshadow.snapshot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Seeding a TOAST mirror reads {@code pg_toast.pg_toast_<oid>} directly, which only superusers and members of
 * {@code pg_read_all_data} may do. Checked before a snapshot starts, so that a missing grant is one clear error
 * rather than a failure halfway through a copy.
 */
public final class ToastReadPrivilege {
    private ToastReadPrivilege() {}

    /**
     * Throws naming the role and the grant when the current user cannot read the TOAST relation {@code toastOid}
     * (by oid: resolving its name already needs USAGE on schema pg_toast, which ordinary roles lack).
     */
    public static void require(Connection c, long toastOid) throws SQLException {
        String toastRelation = "pg_toast.pg_toast_<oid " + toastOid + ">";
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT current_user, has_schema_privilege('pg_toast', 'USAGE')"
                     + " AND has_table_privilege(" + toastOid + "::oid, 'SELECT'), " + toastOid + "::oid::regclass::text")) {
            rs.next();
            if (!rs.getBoolean(2)) {
                toastRelation = rs.getString(3);
                String role = rs.getString(1);
                throw new SQLException("role " + role + " cannot read " + toastRelation + ", which the initial"
                        + " snapshot copies into its TOAST mirror: GRANT pg_read_all_data TO " + role
                        + " (PostgreSQL 14+), or run the snapshot as a superuser", "42501");
            }
        }
    }
}
