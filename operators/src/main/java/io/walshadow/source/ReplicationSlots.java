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

    /**
     * The server invalidated the slot ({@code wal_status = lost}): it removed WAL the slot still needed. What was in
     * that WAL is gone for this job, so no restart can help: Flink is told not to restart.
     */
    public static final class SlotInvalidatedException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        SlotInvalidatedException(String slot, String maxKeep) {
            super("replication slot " + slot + " was invalidated by the server (wal_status lost): it fell more than"
                    + " max_slot_wal_keep_size (" + maxKeep + ") behind and the server removed WAL it still needed;"
                    + " the changes in that WAL cannot be replicated any more. Drop the slot (SELECT"
                    + " pg_drop_replication_slot('" + slot + "')) and start the job afresh, without its checkpoint,"
                    + " into an empty ClickHouse database (a new initial snapshot); raise max_slot_wal_keep_size, and"
                    + " alert on the wal.slot_wal_status metric (2: unreserved) before it happens again");
        }
    }

    /** Returns the slot's restart_lsn, creating the slot with reserved WAL if {@code create} and it is missing. */
    public static long ensure(Connection sql, String slotName, boolean create) throws SQLException {
        try (PreparedStatement ps = sql.prepareStatement(
                "SELECT slot_type, restart_lsn::text, wal_status, current_setting('max_slot_wal_keep_size')"
                        + " FROM pg_replication_slots WHERE slot_name = ?")) {
            ps.setString(1, slotName);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    if (!"physical".equals(rs.getString(1))) {
                        throw new IllegalStateException("slot " + slotName + " is a " + rs.getString(1)
                                + " slot; walshadow needs a physical slot");
                    }
                    if ("lost".equals(rs.getString(3))) {
                        throw new SlotInvalidatedException(slotName, rs.getString(4));
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
