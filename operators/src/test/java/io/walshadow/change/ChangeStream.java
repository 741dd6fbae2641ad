package io.walshadow.change;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.CatalogSnapshot;
import io.walshadow.catalog.CatalogTracker;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.heap.HeapRecordDecoder;
import io.walshadow.heap.HeapRecordKind;
import io.walshadow.pg.JdbcCatalogSource;
import io.walshadow.pg.TypeCatalogLoader;
import io.walshadow.testing.LocalPg;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.WalSegmentReader;
import io.walshadow.wal.XLogRecord;
import io.walshadow.xact.XactAbort;
import io.walshadow.xact.XactCommit;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Test support: the real pipeline from pg_wal to committed row changes, on the local PostgreSQL 15.
 *
 * <ol>
 *   <li>{@link #ChangeStream(String)}: connections, unique names, a temporary physical slot that keeps the WAL;
 *   <li>create types and tables the workload needs before the stream starts, then {@link #start()}: takes
 *       {@code pg_current_snapshot()}, then {@code pg_current_wal_insert_lsn()} as the start, and seeds the
 *       {@link CatalogTracker} with them (the order the seed javadoc asks for), loads the type catalog and builds
 *       the {@link WalChangeDecoder};
 *   <li>run the workload, calling {@link #advance()} after each step: it reads every record written since the
 *       last call from pg_wal, feeds the decoder in WAL order, and hands on the committed transactions as a
 *       minimal transaction buffer would: events grouped by xid (subtransactions folded in at the commit),
 *       {@link DeferredRecord}s decoded at their commit with {@code decodeDeferred(d, commitLsn)}, aborted ones
 *       dropped. Decoding step by step keeps the live catalog at most one step ahead of the stream, as a job that
 *       keeps up sees it.
 * </ol>
 *
 * Only relations named with {@link #prefix} are replicated (the catalog filter), so other engineers' concurrent
 * workloads in the same database are skipped as "not covered".
 */
final class ChangeStream implements AutoCloseable {
    /** The session settings under which {@link ValueDecoder#toText} is PostgreSQL's output function. */
    static final String[] OUTPUT_SETTINGS = {"SET TimeZone = 'UTC'", "SET DateStyle = 'ISO, MDY'",
        "SET IntervalStyle = 'postgres'", "SET extra_float_digits = 1", "SET bytea_output = 'hex'",
        "SET lc_monetary = 'C'"};

    /**
     * One committed transaction, as a transaction buffer hands it on.
     *
     * @param events what the decoder emitted for the transaction family's records, in WAL order
     * @param delivered {@code events} with each DeferredRecord replaced by its decoded row changes (in place)
     * @param catalogChanges what the commit published (its XactEvent)
     */
    record Committed(XactCommit commit, List<ChangeEvent> events, List<ChangeEvent> delivered,
                     List<CatalogChange> catalogChanges, Set<ChangeEvent> fromDeferred) {
        int xid() {
            return commit.xid();
        }

        long lsn() {
            return commit.lsn();
        }

        List<RowChange> rows(int relOid) {
            List<RowChange> out = new ArrayList<>();
            for (ChangeEvent e : delivered) {
                if (e instanceof RowChange r && r.relOid() == relOid) {
                    out.add(r);
                }
            }
            return out;
        }

        List<DeferredRecord> deferred() {
            List<DeferredRecord> out = new ArrayList<>();
            for (ChangeEvent e : events) {
                if (e instanceof DeferredRecord d) {
                    out.add(d);
                }
            }
            return out;
        }

        boolean isFromDeferred(RowChange r) {
            return fromDeferred.contains(r);
        }

        CatalogChange catalogChange(int relOid) {
            for (CatalogChange c : catalogChanges) {
                if (c.relOid() == relOid) {
                    return c;
                }
            }
            return null;
        }
    }

    final String prefix;
    /** Workload and oracle session, autocommit, with {@link #OUTPUT_SETTINGS}. */
    final Connection c;
    private final Connection catalogConn;
    private final Connection slotConn;
    private final List<String> drops = new ArrayList<>();
    private final Path walDir;
    private final WalFormat format;
    private final int segSize;
    private final int timeline;
    final int dbOid;

    CatalogFilter filter;
    CatalogTracker tracker;
    ValueDecoder values;
    WalChangeDecoder decoder;
    long startLsn;
    private long resumeLsn;

    /** Every event the decoder emitted, in WAL order. */
    final List<ChangeEvent> events = new ArrayList<>();
    final List<Committed> committed = new ArrayList<>();
    final List<XactAbort> aborted = new ArrayList<>();
    /** Heap record kinds by record LSN (tells HOT from non-HOT updates, which RowChange does not). */
    final Map<Long, HeapRecordKind> heapKinds = new HashMap<>();
    private final Map<Integer, List<ChangeEvent>> open = new HashMap<>();
    /**
     * Feed the decoder through {@link WalChangeDecoder#decodeForBuffer} and decode deferred records at the commit
     * only from what the commit's {@link BufferEvent} carries, as the transaction buffer does.
     */
    boolean viaBuffer;
    private Map<RelFileLocator, RelationDescriptor> commitDescriptors = Map.of();

    ChangeStream(String tag) throws SQLException {
        this.prefix = "ws_chg_" + tag + "_" + Long.toString(System.nanoTime(), 36) + "_";
        this.c = LocalPg.connect();
        LocalPg.exec(c, OUTPUT_SETTINGS);
        if (!"logical".equals(LocalPg.queryString(c, "SHOW wal_level"))) {
            throw new IllegalStateException("these tests need wal_level=logical (old keys are logged only then)");
        }
        this.catalogConn = LocalPg.connect();
        this.slotConn = LocalPg.connect();
        // temporary (goes with its session), reserving WAL from now on
        LocalPg.exec(slotConn, "SELECT pg_create_physical_replication_slot('" + prefix + "slot', true, true)");
        this.walDir = LocalPg.walDir();
        this.format = WalFormat.forServerVersionNum(LocalPg.serverVersionNum(c));
        this.segSize = LocalPg.segmentSize(c);
        this.timeline = LocalPg.timeline(c);
        this.dbOid = Integer.parseInt(LocalPg.queryString(c,
                "SELECT oid FROM pg_database WHERE datname = current_database()"));
    }

    /** A unique name; the object is dropped (CASCADE) on close, in reverse order of creation. */
    String name(String base, String dropKeyword) {
        String n = prefix + base;
        drops.add(0, "DROP " + dropKeyword + " IF EXISTS " + n + " CASCADE");
        return n;
    }

    String table(String base) {
        return name(base, "TABLE");
    }

    void exec(String... sql) throws SQLException {
        LocalPg.exec(c, sql);
    }

    String query(String sql) throws SQLException {
        return LocalPg.queryString(c, sql);
    }

    int oid(String table) throws SQLException {
        return (int) Long.parseLong(query("SELECT '" + table + "'::regclass::oid"));
    }

    int relfilenode(String table) throws SQLException {
        return (int) Long.parseLong(query("SELECT pg_relation_filenode('" + table + "')"));
    }

    /** Runs the statements in one transaction; returns its xid. */
    int xact(String... sql) throws SQLException {
        c.setAutoCommit(false);
        boolean ok = false;
        try {
            LocalPg.exec(c, sql);
            int xid = (int) Long.parseLong(query("SELECT pg_current_xact_id()::text"));
            c.commit();
            ok = true;
            return xid;
        } finally {
            if (!ok) {
                c.rollback();
            }
            c.setAutoCommit(true);
        }
    }

    /** Seeds the catalog history and the decoder; the stream starts here. */
    void start() throws SQLException, io.walshadow.catalog.CatalogReadException {
        filter = CatalogFilter.of(List.of("public." + prefix + "*"), List.of());
        // seed javadoc: the snapshot first, then the insert position as the start
        CatalogSnapshot.Xids snapshot = CatalogSnapshot.Xids.parse(query("SELECT pg_current_snapshot()::text"));
        startLsn = Lsn.parse(query("SELECT pg_current_wal_insert_lsn()"));
        resumeLsn = startLsn;
        tracker = CatalogTracker.seed(filter, new JdbcCatalogSource(catalogConn, filter), startLsn, snapshot);
        values = new ValueDecoder(TypeCatalogLoader.load(c));
        decoder = new WalChangeDecoder(tracker, new RowDecoder(values));
    }

    /**
     * Reads and decodes every record written since the last call (up to the insert position now), and returns
     * the transactions that committed in it, in commit order.
     */
    List<Committed> advance() throws Exception {
        long end = Lsn.parse(query("SELECT pg_current_wal_insert_lsn()"));
        // an insert position just past a page header (nothing written on that page yet) is reported after the
        // header; the last record ended at the page boundary, and the flush position never passes it until more WAL
        long inPage = end & 8191;
        if (inPage == 24 || (inPage == 40 && end % segSize == 40)) {
            end -= inPage;
        }
        waitFlushed(end);
        List<Committed> out = new ArrayList<>();
        try (WalSegmentReader r = new WalSegmentReader(walDir, format, segSize, timeline, resumeLsn, end)) {
            XLogRecord rec;
            while ((rec = r.next()) != null) {
                resumeLsn = rec.endLsn();
                if (HeapRecordDecoder.isHeapRecord(rec)) {
                    heapKinds.put(rec.lsn(), HeapRecordDecoder.kind(rec));
                }
                if (viaBuffer) {
                    for (BufferEvent be : decoder.decodeForBuffer(rec)) {
                        commitDescriptors = be.deferredDescriptors();
                        events.add(be.event());
                        route(be.event(), out);
                    }
                    continue;
                }
                for (ChangeEvent e : decoder.decode(rec)) {
                    events.add(e);
                    route(e, out);
                }
            }
        }
        if (Long.compareUnsigned(resumeLsn, end) < 0) {
            throw new IllegalStateException("WAL read only up to " + Lsn.format(resumeLsn) + ", wanted "
                    + Lsn.format(end));
        }
        return out;
    }

    /** The one transaction of {@code xid} among {@code list}. */
    static Committed of(List<Committed> list, int xid) {
        Committed found = null;
        for (Committed t : list) {
            if (t.xid() == xid) {
                if (found != null) {
                    throw new AssertionError("two commits of xid " + Integer.toUnsignedString(xid));
                }
                found = t;
            }
        }
        if (found == null) {
            throw new AssertionError("no commit of xid " + Integer.toUnsignedString(xid) + " among " + list.size());
        }
        return found;
    }

    private void waitFlushed(long end) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (Long.compareUnsigned(Lsn.parse(query("SELECT pg_current_wal_flush_lsn()")), end) < 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("WAL not flushed up to " + Lsn.format(end) + " after 10 s");
            }
            Thread.sleep(10);
        }
    }

    private void route(ChangeEvent e, List<Committed> out) {
        if (e instanceof XactEvent x) {
            if (x.xact() instanceof XactCommit commit) {
                List<ChangeEvent> mine = new ArrayList<>();
                for (int xid : commit.allXids().toIntArray()) {
                    List<ChangeEvent> l = open.remove(xid);
                    if (l != null) {
                        mine.addAll(l);
                    }
                }
                mine.sort((a, b) -> Long.compareUnsigned(a.lsn(), b.lsn()));
                List<ChangeEvent> delivered = new ArrayList<>();
                Set<ChangeEvent> fromDeferred = Collections.newSetFromMap(new IdentityHashMap<>());
                for (ChangeEvent m : mine) {
                    if (m instanceof DeferredRecord d) {
                        List<ChangeEvent> rows = viaBuffer ? decodeAsBuffer(d) : decoder.decodeDeferred(d, commit.lsn());
                        delivered.addAll(rows);
                        fromDeferred.addAll(rows);
                    } else {
                        delivered.add(m);
                    }
                }
                Committed t = new Committed(commit, mine, delivered, x.catalogChanges(), fromDeferred);
                committed.add(t);
                out.add(t);
            } else if (x.xact() instanceof XactAbort a) {
                for (int xid : a.allXids().toIntArray()) {
                    open.remove(xid);
                }
                aborted.add(a);
            }
            return;
        }
        open.computeIfAbsent(e.xid(), k -> new ArrayList<>()).add(e);
    }

    /** A deferred record decoded as XactBuffer decodes it: with the descriptors its commit's envelope carries. */
    private List<ChangeEvent> decodeAsBuffer(DeferredRecord d) {
        Map<RelFileLocator, RelationDescriptor> descs = commitDescriptors;
        if (WalChangeDecoder.isDeferredTruncate(d)) {
            return new ArrayList<>(WalChangeDecoder.truncateChanges(d.record(),
                    (db, relOid) -> descs.get(WalChangeDecoder.truncatedRelationKey(db, relOid))));
        }
        RelationDescriptor desc = descs.get(d.rel());
        List<ChangeEvent> out = new ArrayList<>();
        if (desc != null) {
            RowDecoder rows = new RowDecoder(values);
            for (io.walshadow.heap.HeapChange hc : HeapRecordDecoder.decode(d.record())) {
                out.add(rows.decode(hc, desc));
            }
        }
        return out;
    }

    @Override
    public void close() throws SQLException {
        try {
            c.setAutoCommit(true);
            for (String d : drops) {
                exec(d);
            }
        } finally {
            c.close();
            catalogConn.close();
            slotConn.close(); // the temporary slot goes with its session
        }
    }
}
