package io.walshadow.bench.e2e;

import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

/**
 * The source database the workload writes and the contenders read: connection settings and the captured tables
 * ({@code schema.table}). Every contender's slot is named {@link #slotName} so that one query finds the leftovers
 * of an interrupted run (a logical slot would also keep the scratch database from being dropped).
 */
public record Source(String host, int port, String user, String password, String database, List<String> tables) {
    static final String SLOT_PREFIX = "walshadow_bench_e2e_";

    public String jdbcUrl() {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    public Connection connect() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("sslmode", "disable"); // as the job's connections (--pg.sslmode disable): TLS is not measured
        return DriverManager.getConnection(jdbcUrl(), p);
    }

    /** The slot name for a contender: {@code walshadow_bench_e2e_<id>}. */
    public static String slotName(String contenderId) {
        return SLOT_PREFIX + contenderId;
    }

    /**
     * Creates the scratch database {@code db} afresh: the slots {@code slotsWhere} selects (a condition on
     * {@code pg_replication_slots}) and an earlier run's database are dropped first.
     */
    public static void freshDatabase(String db, String slotsWhere) throws Exception {
        try (Connection admin = LocalPg.connect()) {
            for (String slot : LocalPg.queryColumn(admin, "SELECT slot_name FROM pg_replication_slots WHERE "
                    + slotsWhere)) {
                E2eBenchmark.log("dropping slot " + slot + " left over by an earlier run");
                dropSlot(admin, slot);
            }
            if (LocalPg.queryString(admin, "SELECT 1 FROM pg_database WHERE datname = '" + db + "'") != null) {
                E2eBenchmark.log("dropping database " + db + " left over by an earlier run");
                LocalPg.exec(admin, "DROP DATABASE " + db);
            }
            LocalPg.exec(admin, "CREATE DATABASE " + db);
        }
    }

    /**
     * Drops a slot if it exists. A walsender that still holds it (a capture closed a moment ago, a crashed run's
     * connection) gets a few seconds to go away, then is terminated.
     */
    public static void dropSlot(Connection c, String slot) throws SQLException, InterruptedException {
        for (int i = 0; ; i++) {
            String pid = query(c, "SELECT coalesce(active_pid::text, '') FROM pg_replication_slots WHERE slot_name = '"
                    + slot + "'");
            if (pid == null) {
                return;
            }
            if (pid.isEmpty()) {
                try (Statement st = c.createStatement()) {
                    st.execute("SELECT pg_drop_replication_slot('" + slot + "')");
                    return;
                } catch (SQLException e) {
                    if (i >= 50) {
                        throw e; // became active again in between, many times over
                    }
                }
            } else if (i == 50) {
                query(c, "SELECT pg_terminate_backend(" + pid + ")::text");
            } else if (i > 100) {
                throw new IllegalStateException("slot " + slot + " is still held by process " + pid);
            }
            Thread.sleep(100);
        }
    }

    static String query(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
