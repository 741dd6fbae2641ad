package io.walshadow.snapshot;

import io.walshadow.catalog.CatalogSnapshot;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.source.ReplicationSlots;
import io.walshadow.wal.Lsn;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Where a new job begins, taken once when the job is built and shared by the decoder (its catalog history starts
 * here) and the initial snapshot (its rows carry the version {@code lsn - 1}): {@code pg_current_snapshot()} then
 * {@code pg_current_wal_insert_lsn()}, taken after the replication slot exists, so the slot retains all WAL from
 * here on (a slot created later could reserve from a redo point past it). A restored job ignores it: its state
 * says where it is.
 *
 * @param xids the running transactions at {@code lsn} (text of {@code pg_current_snapshot()})
 */
public record StartPoint(long lsn, String xids) implements Serializable {

    public static StartPoint take(PgConnectionConfig pg, String slotName, boolean createSlot) throws SQLException {
        try (Connection c = pg.openSql()) {
            ReplicationSlots.ensure(c, slotName, createSlot);
            return now(c);
        }
    }

    /**
     * Here and now: {@code pg_current_snapshot()}, then the insert LSN (every xid it shows complete is below it); on
     * a standby, the replay LSN (its snapshot shows complete what it has replayed the commit of).
     */
    public static StartPoint now(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_current_snapshot()::text, (CASE WHEN pg_is_in_recovery()"
                     + " THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text")) {
            rs.next();
            return new StartPoint(Lsn.parse(rs.getString(2)), rs.getString(1));
        }
    }

    public CatalogSnapshot.Xids runningXids() {
        return CatalogSnapshot.Xids.parse(xids);
    }

    /** The {@code _lsn} of every snapshot row: below every WAL record the stream applies after them. */
    public long snapshotVersion() {
        return lsn - 1;
    }

    @Override
    public String toString() {
        return Lsn.format(lsn) + " (running " + xids + ")";
    }
}
