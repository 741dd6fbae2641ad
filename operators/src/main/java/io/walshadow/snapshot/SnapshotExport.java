package io.walshadow.snapshot;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.CatalogLoader;
import io.walshadow.catalog.CatalogSnapshot;
import io.walshadow.catalog.LiveDescriptors;
import io.walshadow.catalog.LiveRelation;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.state.SnapshotSplit;
import io.walshadow.wal.RelFileLocator;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the snapshot the chunk readers share, and plans the chunks on the first start. The rule that makes the
 * copy and the WAL stream agree (see docs/architecture.md, "Initial snapshot"): rows carry the version
 * {@code start.lsn - 1}; the WAL stream applies every record from {@code start.lsn} on; and the snapshot is taken
 * only after every transaction running at the start point has ended, so a transaction the snapshot does not see
 * has no record below the start point, and one it sees is in it with all its changes up to the snapshot.
 */
final class SnapshotExport {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotExport.class);
    private static final long WAIT_LOG_MS = 10_000;

    /**
     * The open snapshot, and the relations it copies (in copy order) with their relfilenodes then; {@code locks}, a
     * transaction holding ACCESS SHARE on them, keeps their catalog as the snapshot sees it while the chunks are
     * planned, and is ended right after ({@link #releaseLocks}): the exporting transaction itself holds no lock.
     */
    record Opened(ExportedSnapshot snapshot, List<RelationDescriptor> relations, Connection locks) {
        void releaseLocks() {
            try {
                locks.close(); // rolls back, releasing the locks
            } catch (SQLException e) {
                LOG.debug("ending the snapshot's lock transaction: {}", e.getMessage());
            }
        }
    }

    private final PgConnectionConfig pg;
    private final CatalogFilter filter;
    private final StartPoint start;
    private final Predicate<RelationDescriptor> lock;
    private final java.util.concurrent.atomic.AtomicLong waitingSince;

    /**
     * @param lock which of the included tables to lock (and return): those the copy reads
     * @param waitingSince set to when the wait for the start point's transactions began while it lasts, else 0
     */
    SnapshotExport(PgConnectionConfig pg, CatalogFilter filter, StartPoint start, Predicate<RelationDescriptor> lock,
                   java.util.concurrent.atomic.AtomicLong waitingSince) {
        this.pg = pg;
        this.filter = filter;
        this.start = start;
        this.lock = lock;
        this.waitingSince = waitingSince;
    }

    /**
     * Waits for the start point's transactions, locks the included tables (in a transaction of their own, ended once
     * the chunks are planned), exports the snapshot.
     */
    Opened open() throws SQLException, InterruptedException {
        try (Connection c = pg.openSql()) {
            awaitStartTransactions(c);
            CatalogLoader loader = new CatalogLoader(c, filter);
            for (int attempt = 1; ; attempt++) {
                Map<Integer, RelationDescriptor> before = included(loader);
                List<String> names = new ArrayList<>();
                before.values().forEach(d -> names.add("ONLY " + SnapshotRows.quoteIdent(d.schema()) + "."
                        + SnapshotRows.quoteIdent(d.name())));
                Connection locks = pg.openSql();
                ExportedSnapshot snap;
                try {
                    locks.setAutoCommit(false);
                    try (Statement st = locks.createStatement()) {
                        if (!names.isEmpty()) {
                            st.execute("LOCK TABLE " + String.join(", ", names) + " IN ACCESS SHARE MODE");
                        }
                    }
                    snap = ExportedSnapshot.export(pg); // after the locks: no DDL of these tables between
                } catch (SQLException e) {
                    locks.close();
                    if (attempt < 5 && "42P01".equals(e.getSQLState())) {
                        continue; // a table was dropped between the listing and the lock: list again
                    }
                    throw e;
                }
                // With the locks held, the catalog of these tables cannot change; a new table may have appeared.
                Map<Integer, RelationDescriptor> after = included(loader);
                if (sameRelations(before, after)) {
                    LOG.info("initial snapshot {} exported for {} tables, start point {}, snapshot at {}", snap.id(),
                            after.size(), start, snap.lsn());
                    return new Opened(snap, List.copyOf(after.values()), locks);
                }
                locks.close();
                snap.close();
                if (attempt >= 5) {
                    throw new IllegalStateException("the included tables kept changing while the initial snapshot"
                            + " locked them (5 attempts)");
                }
            }
        }
    }

    /**
     * The chunks of the relations: {@code chunkPages} heap pages each, the last of each relation open-ended. With
     * {@code toast}, the chunks of their TOAST relations come first (after a check that they can be read): the
     * mirrors must hold the old values before a WAL row needs one.
     */
    static List<SnapshotSplit> plan(Connection snapshot, List<RelationDescriptor> relations, long version,
                                    long chunkPages, boolean toast)
            throws SQLException {
        List<SnapshotSplit> toastChunks = new ArrayList<>();
        List<SnapshotSplit> tableChunks = new ArrayList<>();
        for (RelationDescriptor d : relations) {
            for (TidRange r : ChunkPlanner.plan(pages(snapshot, d.relOid()), chunkPages)) {
                tableChunks.add(SnapshotSplit.fresh(d, version, r.fromBlock(), r.toBlock()));
            }
            if (toast && d.toastRelOid() != 0) {
                ToastReadPrivilege.require(snapshot, Integer.toUnsignedLong(d.toastRelOid()));
                for (TidRange r : ChunkPlanner.plan(pages(snapshot, d.toastRelOid()), chunkPages)) {
                    toastChunks.add(SnapshotSplit.toastChunk(d, version, r.fromBlock(), r.toBlock()));
                }
            }
        }
        toastChunks.addAll(tableChunks);
        return toastChunks;
    }

    private static long pages(Connection c, int relOid) throws SQLException {
        return SnapshotChunkReader.relPages(c, Integer.toUnsignedString(relOid) + "::oid::regclass");
    }

    private Map<Integer, RelationDescriptor> included(CatalogLoader loader) throws SQLException {
        CatalogSnapshot cat = loader.load(java.util.Set.of(), true);
        Map<Integer, RelationDescriptor> out = new TreeMap<>();
        for (LiveRelation r : cat.relations().values()) {
            if (r.included() && r.relkind() == 'r') {
                RelationDescriptor d = LiveDescriptors.of(r, cat.lsn());
                if (d != null && lock.test(d)) {
                    out.put(r.oid(), d);
                }
            }
        }
        return out;
    }

    private static boolean sameRelations(Map<Integer, RelationDescriptor> a, Map<Integer, RelationDescriptor> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (Map.Entry<Integer, RelationDescriptor> e : a.entrySet()) {
            RelFileLocator l = b.get(e.getKey()).locator();
            if (!l.equals(e.getValue().locator())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits until every transaction running at the start point has ended ({@code pg_current_snapshot()}'s xmin
     * reached {@link StartPoint#waitBound()}), naming the ones still running (and prepared ones by GID) every ten
     * seconds.
     */
    private void awaitStartTransactions(Connection c) throws SQLException, InterruptedException {
        long xmax = start.waitBound();
        long lastLog = System.currentTimeMillis();
        waitingSince.set(lastLog);
        try {
            awaitXmin(c, xmax, lastLog);
        } finally {
            waitingSince.set(0);
        }
    }

    private void awaitXmin(Connection c, long xmax, long lastLog) throws SQLException, InterruptedException {
        while (true) {
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::int8")) {
                rs.next();
                if (rs.getLong(1) >= xmax) {
                    return;
                }
            }
            if (System.currentTimeMillis() - lastLog >= WAIT_LOG_MS) {
                lastLog = System.currentTimeMillis();
                LOG.warn("initial snapshot waits for transactions running at the start point {} to end: {}", start,
                        running(c, xmax));
            }
            Thread.sleep(100);
        }
    }

    private static String running(Connection c, long xmax) throws SQLException {
        StringBuilder sb = new StringBuilder();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT 'pid ' || pid || ' xid ' || backend_xid || ' (' || coalesce(state, '')"
                     + " || ', since ' || coalesce(xact_start::text, '?') || ')' FROM pg_stat_activity"
                     + " WHERE backend_xid IS NOT NULL AND backend_xid::text::int8 < " + (xmax & 0xFFFF_FFFFL)
                     + " UNION ALL SELECT 'prepared ' || quote_literal(gid) || ' xid ' || transaction"
                     + " FROM pg_prepared_xacts WHERE database = current_database()")) {
            while (rs.next()) {
                sb.append(sb.length() == 0 ? "" : "; ").append(rs.getString(1));
            }
        }
        return sb.length() == 0 ? "(none visible to this role)" : sb.toString();
    }
}
