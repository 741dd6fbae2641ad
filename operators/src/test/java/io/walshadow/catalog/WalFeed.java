package io.walshadow.catalog;

import io.walshadow.testing.LocalPg;
import io.walshadow.wal.BlockRef;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.WalSegmentReader;
import io.walshadow.wal.XLogRecord;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Test support: reads the local server's WAL from a start position with {@link WalSegmentReader} and turns the
 * records the catalog tracker needs into events, with a minimal local parse of PG15 commit records (xinfo,
 * dbinfo, subxacts, relfilelocators, dropped stats, invals) and of XLOG_RUNNING_XACTS / XLOG_SMGR_CREATE; the
 * real parsers belong to the xact layer. A temporary physical slot keeps the WAL from being recycled.
 */
final class WalFeed implements AutoCloseable {
    static final int RM_XACT = 1;
    static final int RM_SMGR = 2;
    static final int RM_STANDBY = 8;
    static final int RM_HEAP2 = 9;
    static final int RM_HEAP = 10;

    sealed interface Event permits Commit, RunningXacts, SmgrCreate, Heap {
        long lsn();
    }

    record Commit(long lsn, int xid, int[] subxids, int dbOid, Set<Integer> relcacheInvals, boolean resetAll,
                  Set<RelFileLocator> dropped) implements Event {
    }

    record RunningXacts(long lsn, int oldestRunningXid) implements Event {
    }

    record SmgrCreate(long lsn, int xid, RelFileLocator locator) implements Event {
    }

    record Heap(long lsn, int xid, int rmid, int info, Set<RelFileLocator> rels) implements Event {
    }

    final Connection slotConn;
    final Path walDir;
    final WalFormat format;
    final int segSize;
    final int timeline;
    final long start;
    final int dbOid;
    private long consumedThrough = -1;
    final Map<Integer, Set<RelFileLocator>> createdByXid = new HashMap<>();

    /** Creates a temporary WAL-reserving slot, then takes the current insert position as the start. */
    WalFeed(Connection c, String slotName) throws SQLException {
        this.slotConn = LocalPg.connect();
        LocalPg.exec(slotConn, "SELECT pg_create_physical_replication_slot('" + slotName + "', true, true)");
        this.walDir = LocalPg.walDir();
        this.format = WalFormat.forServerVersionNum(LocalPg.serverVersionNum(c));
        this.segSize = LocalPg.segmentSize(c);
        this.timeline = LocalPg.timeline(c);
        this.dbOid = Integer.parseInt(LocalPg.queryString(c,
                "SELECT oid FROM pg_database WHERE datname = current_database()"));
        this.start = LocalPg.currentLsn(c);
    }

    /** Events of records after those already returned, up to (not including) {@code endLsn}. */
    List<Event> readUpTo(long endLsn) throws Exception {
        List<Event> out = new ArrayList<>();
        try (WalSegmentReader r = new WalSegmentReader(walDir, format, segSize, timeline, start, endLsn)) {
            XLogRecord rec;
            while ((rec = r.next()) != null) {
                if (consumedThrough != -1 && Long.compareUnsigned(rec.lsn(), consumedThrough) <= 0) {
                    continue;
                }
                consumedThrough = rec.lsn();
                Event e = parse(rec);
                if (e != null) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    Event parse(XLogRecord rec) {
        int op = rec.info() & 0x70;
        switch (rec.rmid()) {
            case RM_XACT:
                if (op == 0x00 || op == 0x30) {
                    return parseCommit(rec, op == 0x30);
                }
                return null;
            case RM_STANDBY:
                if (rec.rmgrInfo() == 0x10) {
                    return new RunningXacts(rec.lsn(), io.walshadow.wal.rmgr.RunningXacts.of(rec).oldestRunningXid());
                }
                return null;
            case RM_SMGR:
                if (rec.rmgrInfo() == 0x10) {
                    ByteBuffer b = rec.mainData();
                    RelFileLocator l = new RelFileLocator(b.getInt(0), b.getInt(4), b.getInt(8));
                    if (rec.xid() != 0) {
                        createdByXid.computeIfAbsent(rec.xid(), k -> new HashSet<>()).add(l);
                    }
                    return new SmgrCreate(rec.lsn(), rec.xid(), l);
                }
                return null;
            case RM_HEAP:
            case RM_HEAP2:
                Set<RelFileLocator> rels = new LinkedHashSet<>();
                for (BlockRef b : rec.blocks()) {
                    if (b.forkNumber() == BlockRef.FORK_MAIN) {
                        rels.add(b.rel());
                    }
                }
                return new Heap(rec.lsn(), rec.xid(), rec.rmid(), rec.rmgrInfo(), rels);
            default:
                return null;
        }
    }

    Commit parseCommit(XLogRecord rec, boolean prepared) {
        ByteBuffer b = rec.mainData();
        b.getLong(); // xact_time
        int xinfo = (rec.info() & 0x80) != 0 ? b.getInt() : 0;
        int db = 0;
        if ((xinfo & 0x01) != 0) {
            db = b.getInt();
            b.getInt(); // tsId
        }
        int[] subxids = new int[0];
        if ((xinfo & 0x02) != 0) {
            subxids = new int[b.getInt()];
            for (int i = 0; i < subxids.length; i++) {
                subxids[i] = b.getInt();
            }
        }
        Set<RelFileLocator> dropped = new HashSet<>();
        if ((xinfo & 0x04) != 0) {
            int n = b.getInt();
            for (int i = 0; i < n; i++) {
                dropped.add(new RelFileLocator(b.getInt(), b.getInt(), b.getInt()));
            }
        }
        if ((xinfo & 0x100) != 0) { // dropped stats: xl_xact_stats_item, 12 bytes on 15..17, 16 from 18 on
            int n = b.getInt();
            b.position(b.position() + io.walshadow.xact.DroppedStatsItem.size(rec.format()) * n);
        }
        Set<Integer> invals = new HashSet<>();
        boolean resetAll = false;
        if ((xinfo & 0x08) != 0) {
            int n = b.getInt();
            for (int i = 0; i < n; i++) {
                int base = b.position();
                byte id = b.get(base);
                if (id == -2) { // SHAREDINVALRELCACHE_ID: int8 id, Oid dbId, Oid relId
                    int msgDb = b.getInt(base + 4);
                    int relId = b.getInt(base + 8);
                    if (msgDb == dbOid) {
                        if (relId == 0) {
                            resetAll = true;
                        } else {
                            invals.add(relId);
                        }
                    }
                }
                b.position(base + 16);
            }
        }
        int xid = rec.xid();
        if ((xinfo & 0x10) != 0) {
            xid = b.getInt();
        } else if (prepared) {
            throw new IllegalStateException("COMMIT PREPARED without twophase xid");
        }
        return new Commit(rec.lsn(), xid, subxids, db, invals, resetAll, dropped);
    }

    /** Applies the boundary events to the tracker, in WAL order; returns the changes. */
    List<CatalogChange> drive(CatalogTracker t, List<Event> events) throws CatalogReadException {
        List<CatalogChange> out = new ArrayList<>();
        for (Event e : events) {
            out.addAll(drive(t, e));
        }
        return out;
    }

    List<CatalogChange> drive(CatalogTracker t, Event e) throws CatalogReadException {
        if (e instanceof Commit c) {
            Set<RelFileLocator> created = new HashSet<>(createdByXid.getOrDefault(c.xid(), Set.of()));
            for (int s : c.subxids()) {
                created.addAll(createdByXid.getOrDefault(s, Set.of()));
            }
            return t.onCommit(new CommitInfo(c.lsn(), c.xid(), c.subxids(), c.dbOid(), c.relcacheInvals(),
                    c.resetAll(), c.dropped(), created));
        } else if (e instanceof RunningXacts r) {
            return t.onRunningXacts(r.lsn(), r.oldestRunningXid());
        }
        return List.of();
    }

    @Override
    public void close() throws SQLException {
        slotConn.close(); // the temporary slot goes with its session
    }
}
