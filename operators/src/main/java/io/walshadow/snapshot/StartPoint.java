package io.walshadow.snapshot;

import io.walshadow.catalog.CatalogSnapshot;
import io.walshadow.catalog.shadow.ShadowCatalogSerializer;
import io.walshadow.pg.CatalogBootstrap;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.source.ReplicationSlots;
import io.walshadow.wal.Lsn;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a new job begins, taken once when the job is built and shared by the decoder (its catalog history starts
 * here) and the initial snapshot (its rows carry the version {@code lsn - 1}): {@code pg_current_snapshot()} then
 * {@code pg_current_wal_insert_lsn()}, taken after the replication slot exists, so the slot retains all WAL from
 * here on (a slot created later could reserve from a redo point past it). A restored job ignores it: its state
 * says where it is.
 *
 * @param xids the running transactions at {@code lsn} (text of {@code pg_current_snapshot()})
 * @param waitXid a full xid above every transaction that can have written WAL below {@code lsn}: one more than an
 *     xid assigned right after {@code lsn} was read. The snapshot's xmax is not that bound: it is the latest
 *     completed xid plus one, and transactions at or above it may be running (they are not in its xip list). 0 when
 *     unknown (a standby, which cannot assign one; a state of an earlier build): then the xmax is used
 */
public record StartPoint(long lsn, String xids, long waitXid) implements Serializable {
    private static final Logger LOG = LoggerFactory.getLogger(StartPoint.class);

    /**
     * A new job's start: after making sure the slot exists, the catalog bootstrap ({@link CatalogBootstrap}), whose
     * position and snapshot are the start point; the catalog comes with it (gzipped, for the decoder).
     */
    public static Bootstrapped bootstrap(PgConnectionConfig pg, String slotName, boolean createSlot)
            throws SQLException {
        try (Connection c = pg.openSql()) {
            ReplicationSlots.ensure(c, slotName, createSlot);
            CatalogBootstrap.Result r = new CatalogBootstrap(c, LOG::info).take(slotName);
            return new Bootstrapped(new StartPoint(r.startLsn(), r.snapshot(), r.waitXid()),
                    ShadowCatalogSerializer.toCompressed(r.shadow()));
        }
    }

    /** A start point and the catalog as of it ({@link ShadowCatalogSerializer#toCompressed}). */
    public record Bootstrapped(StartPoint start, byte[] catalog) implements Serializable {
    }

    public static StartPoint take(PgConnectionConfig pg, String slotName, boolean createSlot) throws SQLException {
        try (Connection c = pg.openSql()) {
            ReplicationSlots.ensure(c, slotName, createSlot);
            return now(c);
        }
    }

    /**
     * Here and now: {@code pg_current_snapshot()}, then the insert LSN (every xid it shows complete is below it), then
     * an xid for this statement (every transaction that wrote WAL below the LSN had its xid before it); on a standby,
     * the replay LSN (its snapshot shows complete what it has replayed the commit of) and no xid. The statement runs
     * in autocommit, so its own xid ends with it.
     */
    public static StartPoint now(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_current_snapshot()::text, (CASE WHEN pg_is_in_recovery()"
                     + " THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text,"
                     + " (CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_current_xact_id() END)::text")) {
            rs.next();
            String xid = rs.getString(3);
            return new StartPoint(Lsn.parse(rs.getString(2)), rs.getString(1),
                    xid == null ? 0 : Long.parseUnsignedLong(xid) + 1);
        }
    }

    /** The full xid every transaction that can have written WAL below {@code lsn} is below (see {@code waitXid}). */
    public long waitBound() {
        return waitXid != 0 ? waitXid : runningXids().xmax();
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
        return Lsn.format(lsn) + " (running " + xids + (waitXid == 0 ? "" : ", xids below " + waitXid) + ")";
    }
}
