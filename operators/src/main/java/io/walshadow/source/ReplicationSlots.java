package io.walshadow.source;

import io.walshadow.wal.Lsn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The job's physical replication slot: found, or created with reserved WAL. */
public final class ReplicationSlots {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationSlots.class);

    private ReplicationSlots() {}

    /** Returns the slot's restart_lsn, creating the slot with reserved WAL if {@code create} and it is missing. */
    public static long ensure(Connection sql, String slotName, boolean create) throws SQLException {
        try (PreparedStatement ps = sql.prepareStatement(
                "SELECT slot_type, restart_lsn::text FROM pg_replication_slots WHERE slot_name = ?")) {
            ps.setString(1, slotName);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    if (!"physical".equals(rs.getString(1))) {
                        throw new IllegalStateException("slot " + slotName + " is a " + rs.getString(1)
                                + " slot; walshadow needs a physical slot");
                    }
                    String restart = rs.getString(2);
                    if (restart == null) {
                        throw new IllegalStateException("physical slot " + slotName + " has no reserved WAL"
                                + " (restart_lsn is NULL); create it with pg_create_physical_replication_slot(name, true)");
                    }
                    return Lsn.parse(restart);
                }
            }
        }
        if (!create) {
            throw new IllegalStateException("physical replication slot " + slotName + " does not exist"
                    + " and slot creation is disabled");
        }
        try (PreparedStatement ps = sql.prepareStatement(
                "SELECT lsn::text FROM pg_create_physical_replication_slot(?, true)")) {
            ps.setString(1, slotName);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long lsn = Lsn.parse(rs.getString(1));
                LOG.info("created physical replication slot {} reserving WAL from {}", slotName, Lsn.format(lsn));
                return lsn;
            }
        }
    }
}
