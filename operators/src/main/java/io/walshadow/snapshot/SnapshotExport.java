package io.walshadow.snapshot;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.CatalogSnapshot;
import io.walshadow.catalog.LiveDescriptors;
import io.walshadow.catalog.LiveRelation;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.pg.JdbcCatalogSource;
import io.walshadow.pg.PgConnectionConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    /** Rounds of listing and locking before a catalog that never holds still is reported. */
    private static final int MAX_ROUNDS = 60;

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
     * the chunks are planned), exports the snapshot. Locks accumulate over rounds: a table dropped, renamed, created
     * or rewritten while the tables are listed and locked (a migration running as the job starts) only costs another
     * round for that table, and the snapshot is exported once every included table is locked, so the catalog of each
     * table it copies is the one the snapshot sees.
     */
    Opened open() throws SQLException, InterruptedException {
        try (Connection c = pg.openSql()) {
            awaitStartTransactions(c);
            JdbcCatalogSource loader = new JdbcCatalogSource(c, filter);
            Connection locks = pg.openSql();
            try {
                locks.setAutoCommit(false);
                return lockAndExport(loader, locks);
            } catch (SQLException | InterruptedException | RuntimeException e) {
                locks.close();
                throw e;
            }
        }
    }

    private Opened lockAndExport(JdbcCatalogSource loader, Connection locks) throws SQLException, InterruptedException {
        for (int round = 1; ; round++) {
            Set<Integer> held = lockedBy(locks);
            List<RelationDescriptor> unlocked = new ArrayList<>();
            for (RelationDescriptor d : included(loader).values()) {
                if (!held.contains(d.relOid())) {
                    unlocked.add(d);
                }
            }
            if (unlocked.isEmpty()) {
                ExportedSnapshot snap = ExportedSnapshot.export(pg); // after the locks: no DDL of these tables between
                // With the locks held the catalog of these tables cannot change. A table that appeared since the
                // listing matters only if the snapshot sees it; one created after the export is in the stream whole
                // (its transaction began after the start point).
                Map<Integer, RelationDescriptor> after = included(loader);
                List<Integer> late = new ArrayList<>(after.keySet());
                late.removeAll(held);
                if (!seenBy(snap, late)) {
                    after.keySet().retainAll(held);
                    LOG.info("initial snapshot {} exported for {} tables, start point {}, snapshot at {} ({} rounds)",
                            snap.id(), after.size(), start, snap.lsn(), round);
                    return new Opened(snap, List.copyOf(after.values()), locks);
                }
                snap.close();
                Thread.sleep(Math.min(1_000, 20L * round)); // a migration creating tables: let it get ahead
            } else {
                lock(locks, unlocked);
            }
            if (round >= MAX_ROUNDS) {
                throw new IllegalStateException("the included tables kept changing while the initial snapshot locked"
                        + " them (" + MAX_ROUNDS + " rounds; the last still unlocked: " + unlocked.stream()
                        .map(RelationDescriptor::qualifiedName).limit(5).toList() + ")");
            }
        }
    }

    /**
     * Locks the tables by their names as listed; a table (or its schema) dropped or renamed since fails the
     * statement (as does a deadlock with a migration that holds one table and waits for another), which is rolled
     * back to a savepoint, keeping the locks taken before: the next round lists the table again by its current name.
     */
    private static void lock(Connection locks, List<RelationDescriptor> tables) throws SQLException {
        List<String> names = new ArrayList<>();
        tables.forEach(d -> names.add("ONLY " + SnapshotRows.quoteIdent(d.schema()) + "."
                + SnapshotRows.quoteIdent(d.name())));
        Savepoint sp = locks.setSavepoint();
        try (Statement st = locks.createStatement()) {
            st.execute("LOCK TABLE " + String.join(", ", names) + " IN ACCESS SHARE MODE");
            locks.releaseSavepoint(sp);
        } catch (SQLException e) {
            // 42P01 a table dropped or renamed, 3F000 its schema renamed or dropped, 40P01 a deadlock
            if (!"42P01".equals(e.getSQLState()) && !"3F000".equals(e.getSQLState())
                    && !"40P01".equals(e.getSQLState())) {
                throw e;
            }
            locks.rollback(sp);
        }
    }

    /** Whether the snapshot sees any of the relations (their pg_class rows, read in its transaction). */
    private static boolean seenBy(ExportedSnapshot snap, List<Integer> relOids) throws SQLException {
        if (relOids.isEmpty()) {
            return false;
        }
        try (java.sql.PreparedStatement ps = snap.connection().prepareStatement(
                "SELECT count(*) FROM pg_class WHERE oid::int8 = ANY (?)")) {
            ps.setArray(1, snap.connection().createArrayOf("int8",
                    relOids.stream().map(Integer::toUnsignedLong).toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        }
    }

    /** The relations the transaction holds a lock on (by oid, so a name taken over by another table is seen). */
    private static Set<Integer> lockedBy(Connection locks) throws SQLException {
        Set<Integer> out = new HashSet<>();
        try (Statement st = locks.createStatement();
             ResultSet rs = st.executeQuery("SELECT relation::int8 FROM pg_locks WHERE pid = pg_backend_pid()"
                     + " AND locktype = 'relation' AND granted AND database = (SELECT oid FROM pg_database"
                     + " WHERE datname = current_database())")) {
            while (rs.next()) {
                out.add((int) rs.getLong(1));
            }
        }
        return out;
    }

    /**
     * The chunks of the relations: {@code chunkPages} heap pages each, the last of each relation open-ended. With
     * {@code toast}, the chunks of their TOAST relations come first (after a check that they can be read): the
     * mirrors must hold the old values before a WAL row needs one. Sizes are read on {@code locks}, the session
     * that holds the tables' locks: any other session's lock request would queue behind a DDL waiting for them.
     */
    static List<SnapshotSplit> plan(Connection locks, List<RelationDescriptor> relations, long version,
                                    long chunkPages, boolean toast)
            throws SQLException {
        List<SnapshotSplit> toastChunks = new ArrayList<>();
        List<SnapshotSplit> tableChunks = new ArrayList<>();
        for (RelationDescriptor d : relations) {
            for (TidRange r : ChunkPlanner.plan(pages(locks, d.relOid()), chunkPages)) {
                tableChunks.add(SnapshotSplit.fresh(d, version, r.fromBlock(), r.toBlock()));
            }
            if (toast && d.toastRelOid() != 0) {
                ToastReadPrivilege.require(locks, Integer.toUnsignedLong(d.toastRelOid()));
                for (TidRange r : ChunkPlanner.plan(pages(locks, d.toastRelOid()), chunkPages)) {
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

    private Map<Integer, RelationDescriptor> included(JdbcCatalogSource loader) throws SQLException {
        CatalogSnapshot cat = loader.read(java.util.Set.of(), true);
        Map<Integer, RelationDescriptor> out = new TreeMap<>();
        for (LiveRelation r : cat.relations().values()) {
            if (r.included() && r.relkind() == 'r') {
                RelationDescriptor d = LiveDescriptors.of(r, cat.lsn());
                if (d != null && r.partitionRoot() != 0) {
                    // its rows go to its root's destination, mapped as the stream maps them
                    RelationDescriptor root = LiveDescriptors.of(cat.relations().get(r.partitionRoot()), cat.lsn());
                    d = d.withPartition(io.walshadow.catalog.PartitionOf.of(root, d));
                }
                if (d != null && lock.test(d)) {
                    out.put(r.oid(), d);
                }
            }
        }
        return out;
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
