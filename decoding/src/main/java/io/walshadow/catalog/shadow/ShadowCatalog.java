package io.walshadow.catalog.shadow;

import io.walshadow.catalog.shadow.CatalogRow.ClassRow;
import io.walshadow.heap.HeapRecordDecoder;
import io.walshadow.heap.HeapRecordKind;
import io.walshadow.heap.HeapTuple;
import io.walshadow.wal.BlockImages;
import io.walshadow.wal.BlockRef;
import io.walshadow.wal.Bytes;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.XLogRecord;
import io.walshadow.xact.TransactionIds;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The system catalog exactly as of the WAL position the stream has reached, kept from the WAL itself: the tuples of
 * pg_class, pg_attribute, pg_namespace, pg_index, pg_type, pg_enum, pg_range, pg_extension and pg_inherits by TID, changed as heap redo changes them, and
 * made visible or dead as the stream passes their transactions' commit and abort records. Nothing here reads the
 * live database; the bootstrap ({@link ShadowCatalogBuilder}, from
 * {@code io.walshadow.pg.CatalogBootstrap}'s SQL read) gave one consistent read of it, once.
 *
 * <p><b>Why it can be exact.</b> With {@code full_page_writes} on, the first change of every page after a
 * checkpoint's redo point carries the whole page. The shadow follows the WAL from such a redo point {@code R}, so
 * every catalog page the stream touches arrives whole the first time ("known" from then on: its tuples are the
 * page's, with their bytes, which later prefix/suffix-compressed catalog UPDATEs need). Pages the stream never
 * touched hold what the bootstrap read of them, and nothing changed them. The bootstrap is taken after every
 * transaction that could have written before {@code R} has ended, so on a page seen whole a tuple of such a
 * transaction is live exactly when the bootstrap read it (same TID and xmin); tuples of later transactions are
 * followed record by record.
 *
 * <p><b>Rewrites of the catalogs themselves</b> ({@code VACUUM FULL pg_attribute}, {@code CLUSTER pg_class}): the
 * copy goes to a transient table named {@code pg_temp_<catalog oid>}, whose pages the WAL carries whole; the shadow
 * keeps them from its pg_class insert on and, when the rewrite commits (relation map or pg_class now naming the new
 * storage), takes over the copies that match its live rows, row for row, or stops.
 *
 * <p>Anything that contradicts what it holds (a page changed without the image it needs, a tuple to update that is
 * not there) is a {@link ShadowCatalogException} naming the record; the catalog is never guessed. Not thread-safe;
 * fed every record in WAL order.
 */
public final class ShadowCatalog {
    static final int XLOG_FPI_FOR_HINT = 0xA0;
    static final int XLOG_FPI = 0xB0;
    static final int XLOG_SMGR_TRUNCATE = 0x20;
    static final int SMGR_TRUNCATE_HEAP = 0x0001;
    static final int XLOG_RELMAP_UPDATE = 0x00;
    static final int XLH_UPDATE_PREFIX_FROM_OLD = 1 << 5;
    static final int XLH_UPDATE_SUFFIX_FROM_OLD = 1 << 6;
    static final int HEAP_XMAX_KEYSHR_LOCK = 0x0010;
    static final int HEAP_XMAX_EXCL_LOCK = 0x0040;
    static final int HEAP_XMAX_LOCK_ONLY = 0x0080;
    static final int HEAP_XMAX_INVALID = 0x0800;
    static final int HEAP_XMAX_IS_MULTI = 0x1000;
    static final int HEAP_LOCK_MASK = 0x0050;
    static final int HEAP_XMAX_COMMITTED = 0x0400;
    static final int FROZEN_XID = 2;

    final int dbOid;
    final int dbTablespace;
    /** The redo point the shadow follows the WAL from. */
    final long redoLsn;
    /** The bootstrap's position: from here on, the shadow is the catalog as of every record. */
    final long startLsn;
    boolean reachedStart;
    final EnumMap<SystemCatalog, CatalogLayout> layouts;
    /** Catalogs whose storage the relation map names (pg_class.relfilenode is 0). */
    final Set<SystemCatalog> mapped;
    /** This database's relation map: catalog oid to relfilenode. */
    final Map<Integer, Integer> relmap = new HashMap<>();
    /** Relation map updates by the xid that wrote them: in force once it commits. */
    final Map<Integer, Map<Integer, Integer>> pendingRelmap = new HashMap<>();
    final EnumMap<SystemCatalog, RelationMirror> current = new EnumMap<>(SystemCatalog.class);
    /** Current mirrors and rewrite copies, by storage. */
    final Map<RelFileLocator, RelationMirror> mirrors = new HashMap<>();
    /** Rewrite copies: storage to the xid whose pg_class insert named it. */
    final Map<RelFileLocator, Integer> copies = new HashMap<>();
    /** What transactions in progress did to catalog tuples, by (sub)xid. */
    private final Map<Integer, List<Effect>> pending = new HashMap<>();
    /** Bumped by every commit that changes pg_type, pg_enum, pg_range, pg_attribute, pg_namespace or pg_extension. */
    long typesVersion;
    private final Set<Integer> changedRelations = new HashSet<>();
    /** Relations whose pg_class row from before the last commit's transaction that commit replaced. */
    private final Set<Integer> classRowsReplaced = new HashSet<>();
    /** Relations the last commit's transaction created (a pg_class row of its own, none replaced). */
    private final Set<Integer> classRowsCreated = new HashSet<>();
    private boolean namespacesChanged;
    final ShadowCounters counters = new ShadowCounters();

    private record Effect(RelationMirror mirror, long tid, boolean insert) {
    }

    ShadowCatalog(int dbOid, int dbTablespace, long redoLsn, long startLsn, EnumMap<SystemCatalog, CatalogLayout> layouts,
                  Set<SystemCatalog> mapped) {
        this.dbOid = dbOid;
        this.dbTablespace = dbTablespace;
        this.redoLsn = redoLsn;
        this.startLsn = startLsn;
        this.layouts = layouts;
        this.mapped = mapped;
        for (SystemCatalog c : SystemCatalog.values()) {
            if (!layouts.containsKey(c) && c.sinceStateVersion() == 1) {
                throw new IllegalArgumentException("no layout for " + c.relname());
            }
        }
    }

    public int dbOid() {
        return dbOid;
    }

    public int dbTablespace() {
        return dbTablespace;
    }

    public long redoLsn() {
        return redoLsn;
    }

    public long startLsn() {
        return startLsn;
    }

    public ShadowCounters counters() {
        return counters;
    }

    /** Changes whenever a commit changed what type lookups answer. */
    public long typesVersion() {
        return typesVersion;
    }

    /**
     * The rows of a catalog visible at the stream's position (committed, not deleted); none for a catalog this shadow
     * does not hold ({@link SystemCatalog#sinceStateVersion}).
     */
    public List<CatalogRow> rows(SystemCatalog c) {
        RelationMirror m = current.get(c);
        return m == null ? List.of() : m.visibleRows();
    }

    /**
     * The parents of a relation visible at the stream's position, in inhseqno order: one for a partition (its row
     * says whether a DETACH CONCURRENTLY left it pending), any number for a legacy INHERITS child, none for a table
     * that inherits nothing or for a shadow without pg_inherits (restored from a state before it: see {@link #holds}).
     */
    public List<CatalogRow.InheritsRow> parents(int relOid) {
        RelationMirror m = current.get(SystemCatalog.PG_INHERITS);
        if (m == null) {
            return List.of();
        }
        List<CatalogRow.InheritsRow> out = new ArrayList<>();
        for (CatalogRow r : m.visible(relOid)) {
            out.add((CatalogRow.InheritsRow) r);
        }
        out.sort(java.util.Comparator.comparingInt(CatalogRow.InheritsRow::inhseqno));
        return out;
    }

    /** Whether the shadow follows this catalog (one restored from an older state may lack a later addition). */
    public boolean holds(SystemCatalog c) {
        return current.containsKey(c);
    }

    /** The catalog's current storage, or null when the shadow does not hold it. */
    RelationMirror mirror(SystemCatalog c) {
        return current.get(c);
    }

    void addMirror(RelationMirror m, boolean isCurrent) {
        mirrors.put(m.locator, m);
        if (isCurrent) {
            current.put(m.catalog, m);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Records
    // ---------------------------------------------------------------------------------------------------------

    /** Applies a record that is not a transaction's end (those come through {@link #commit} / {@link #abort}). */
    public void apply(XLogRecord r) {
        long lsn = r.lsn();
        if (Long.compareUnsigned(lsn, redoLsn) < 0) {
            return;
        }
        if (!reachedStart && Long.compareUnsigned(lsn, startLsn) >= 0) {
            reachStart();
        }
        switch (r.rmid()) {
            case Rmgrs.RM_HEAP_ID, Rmgrs.RM_HEAP2_ID -> {
                if (touchesCatalog(r)) {
                    images(r);
                    heap(r);
                }
            }
            case Rmgrs.RM_XLOG_ID -> {
                int info = r.rmgrInfo();
                if ((info == XLOG_FPI || info == XLOG_FPI_FOR_HINT) && touchesCatalog(r)) {
                    images(r);
                }
            }
            case Rmgrs.RM_SMGR_ID -> {
                if (r.rmgrInfo() == XLOG_SMGR_TRUNCATE) {
                    truncate(r);
                }
            }
            case Rmgrs.RM_RELMAP_ID -> {
                if (r.rmgrInfo() == XLOG_RELMAP_UPDATE) {
                    relmapUpdate(r);
                }
            }
            default -> {
            }
        }
    }

    private boolean touchesCatalog(XLogRecord r) {
        for (BlockRef b : r.blocks()) {
            if (b.forkNumber() == BlockRef.FORK_MAIN && mirrors.containsKey(b.rel())) {
                return true;
            }
        }
        return false;
    }

    /** Below the history's start, what does not add up is the bootstrap converging; from there on it is a fault. */
    private boolean strict() {
        return reachedStart;
    }

    /**
     * The stream reached the bootstrap's position: tuples that only a later delete could have shown live are dead
     * (the bootstrap would have read them otherwise).
     */
    private void reachStart() {
        reachedStart = true;
        for (RelationMirror m : current.values()) {
            List<Long> dead = new ArrayList<>();
            for (Map.Entry<Long, ShadowTuple> e : m.entries()) {
                if (e.getValue().doubtful) {
                    dead.add(e.getKey());
                }
            }
            dead.forEach(m::remove);
            counters.doubtfulDropped += dead.size();
        }
    }

    /** Full-page images of catalog pages: a page seen for the first time becomes known. */
    private void images(XLogRecord r) {
        for (BlockRef b : r.blocks()) {
            if (b.forkNumber() != BlockRef.FORK_MAIN || !b.hasImage()) {
                continue;
            }
            RelationMirror m = mirrors.get(b.rel());
            if (m == null) {
                continue;
            }
            byte[] page = BlockImages.restore(r.format(), r.lsn(), b);
            if (m.isKnown(b.blockNumber())) {
                verify(m, b.blockNumber(), page, r);
            } else {
                firstSight(m, b.blockNumber(), page, r);
            }
        }
    }

    /**
     * A page's first image since the redo point. Its tuples replace what the bootstrap read of it: one the
     * bootstrap read (same TID and xmin) is committed, one of a transaction the stream follows is in progress, one
     * of a rewrite copy waits for the rewrite's commit; any other was dead when the bootstrap read the catalog.
     */
    private void firstSight(RelationMirror m, long block, byte[] page, XLogRecord r) {
        Map<Long, ShadowTuple> bootstrap = new HashMap<>(m.page(block));
        for (Long tid : new ArrayList<>(m.page(block).keySet())) {
            m.remove(tid);
        }
        boolean copy = copies.containsKey(m.locator);
        for (Map.Entry<Integer, HeapTuple> e : PageTuples.of(page, r.lsn(), m.locator).entrySet()) {
            long tid = RelationMirror.tid(block, e.getKey());
            HeapTuple ht = e.getValue();
            int xmin = ht.xmin();
            ShadowTuple t = tuple(xmin, read(m, ht, r), ht);
            t.xmax = ht.xmax();
            if (copy) {
                t.doubtful = true; // settled when the rewrite commits (followRewrites)
                m.put(tid, t);
                continue;
            } else if (pending.containsKey(xmin)) {
                pend(xmin, m, tid, true);
            } else {
                ShadowTuple b = bootstrap.get(tid);
                // the bootstrap's xmin is SQL's: FrozenTransactionId for a frozen tuple, whose raw xmin is kept
                if (b != null && (b.xmin == xmin || b.xmin == FROZEN_XID)) {
                    t.committed = true;
                } else if (!strict()) {
                    t.doubtful = true;
                } else {
                    continue; // dead before the bootstrap, and dead ever since
                }
            }
            int xmax = ht.xmax();
            int im = ht.infomask();
            if ((im & HEAP_XMAX_INVALID) == 0 && (im & HEAP_XMAX_IS_MULTI) == 0 && !lockedOnly(im)
                    && pending.containsKey(xmax)) {
                t.deleter = xmax;
                pend(xmax, m, tid, false);
            }
            m.put(tid, t);
        }
        m.markKnown(block);
        counters.pagesSeen++;
    }

    /** A later image of a known page: every live tuple the shadow holds there must be on it, unchanged. */
    private void verify(RelationMirror m, long block, byte[] page, XLogRecord r) {
        Map<Integer, HeapTuple> items = PageTuples.of(page, r.lsn(), m.locator);
        for (Map.Entry<Long, ShadowTuple> e : m.page(block).entrySet()) {
            ShadowTuple t = e.getValue();
            if (!t.committed || t.doubtful) {
                continue;
            }
            HeapTuple ht = items.get(RelationMirror.offset(e.getKey()));
            if (ht == null || ht.xmin() != t.xmin) {
                if (strict()) {
                    throw new ShadowCatalogException("catalog shadow out of step at " + Lsn.format(r.lsn()) + ": "
                            + m.catalog.relname() + " tuple " + RelationMirror.format(e.getKey()) + " (xmin "
                            + Integer.toUnsignedString(t.xmin) + ") is live in the shadow but "
                            + (ht == null ? "not on the page image" : "the image has xmin "
                            + Integer.toUnsignedString(ht.xmin())));
                }
            }
        }
        counters.imagesVerified++;
    }

    private static boolean lockedOnly(int infomask) {
        return (infomask & HEAP_XMAX_LOCK_ONLY) != 0
                || (infomask & (HEAP_XMAX_IS_MULTI | HEAP_LOCK_MASK)) == HEAP_XMAX_EXCL_LOCK;
    }

    /** A tuple of {@code xmin}, not committed yet; a marker (no row, no bytes) when the decoder never reads it. */
    private static ShadowTuple tuple(int xmin, CatalogRow row, HeapTuple ht) {
        return row.relevant() ? new ShadowTuple(xmin, false, ht.infomask2(), ht.infomask(), ht.hoff(), bitsOf(ht), row)
                : new ShadowTuple(xmin, false, 0, 0, 0, null, null);
    }

    private static byte[] bitsOf(HeapTuple t) {
        byte[] out = new byte[t.endOffset() - t.bitsOffset()];
        System.arraycopy(t.buffer(), t.bitsOffset(), out, 0, out.length);
        return out;
    }

    private CatalogRow read(RelationMirror m, HeapTuple t, XLogRecord r) {
        try {
            return layouts.get(m.catalog).read(t);
        } catch (RuntimeException e) {
            throw new ShadowCatalogException("cannot read a " + m.catalog.relname() + " tuple at "
                    + Lsn.format(r.lsn()) + ": " + e.getMessage(), e);
        }
    }

    private void heap(XLogRecord r) {
        HeapRecordKind kind = HeapRecordDecoder.kind(r);
        BlockRef b0 = r.block(0);
        if (b0 == null || b0.forkNumber() != BlockRef.FORK_MAIN) {
            return;
        }
        RelationMirror m = mirrors.get(b0.rel());
        if (m == null) {
            return;
        }
        byte[] rec = r.rawBytes();
        int md = r.mainDataOffset();
        boolean init = (r.rmgrInfo() & HeapRecordDecoder.XLOG_HEAP_INIT_PAGE) != 0;
        switch (kind) {
            case INSERT -> {
                prepare(m, b0, init, r);
                int off = Bytes.uint16(rec, md);
                insert(m, b0, off, b0.hasData() ? walTuple(r, rec, b0.dataOffset(), b0.dataLength(), m) : null, r);
            }
            case MULTI_INSERT -> {
                prepare(m, b0, init, r);
                multiInsert(m, b0, init, r);
            }
            case UPDATE, HOT_UPDATE -> update(m, b0, init, r);
            case DELETE -> {
                known(m, b0.blockNumber(), r);
                delete(m, RelationMirror.tid(b0.blockNumber(), Bytes.uint16(rec, md + 4)), r);
            }
            case INPLACE -> inplace(m, b0, Bytes.uint16(rec, md), r);
            case PRUNE -> prune(m, b0, r);
            case VACUUM -> vacuum(m, b0, r);
            case PRUNE_ON_ACCESS, PRUNE_VACUUM_SCAN, PRUNE_VACUUM_CLEANUP -> pruneFreeze(m, b0, r);
            default -> {
                // LOCK, LOCK_UPDATED, CONFIRM, FREEZE_PAGE, VISIBLE, NEW_CID, REWRITE: no change to what a tuple
                // says or to who inserted / deleted it (their images were taken above)
            }
        }
    }

    /** The page must be known before a record changes it (or be initialized by it). */
    private void prepare(RelationMirror m, BlockRef b, boolean init, XLogRecord r) {
        if (init) {
            for (Map.Entry<Long, ShadowTuple> e : new ArrayList<>(m.page(b.blockNumber()).entrySet())) {
                if (strict() && e.getValue().visible()) {
                    throw outOfStep(r, m, e.getKey(), "the page is initialized anew under a live tuple");
                }
                m.remove(e.getKey());
            }
            m.markKnown(b.blockNumber());
            return;
        }
        known(m, b.blockNumber(), r);
    }

    private void known(RelationMirror m, long block, XLogRecord r) {
        if (!m.isKnown(block)) {
            throw new ShadowCatalogException("catalog page changed without a full-page image at " + Lsn.format(r.lsn())
                    + ": " + m.catalog.relname() + " block " + block + " (" + m.locator + ") was not seen since the "
                    + "redo point " + Lsn.format(redoLsn) + "; is full_page_writes off?");
        }
    }

    private static ShadowCatalogException outOfStep(XLogRecord r, RelationMirror m, long tid, String what) {
        return new ShadowCatalogException("catalog shadow out of step at " + Lsn.format(r.lsn()) + " ("
                + Rmgrs.name(r.rmid()) + "): " + m.catalog.relname() + " tuple " + RelationMirror.format(tid) + ": "
                + what);
    }

    /** An xl_heap_header + t_bits.. tuple in the record's bytes. */
    private static HeapTuple walTuple(XLogRecord r, byte[] rec, int off, int len, RelationMirror m) {
        if (len < 5) {
            throw new ShadowCatalogException("catalog tuple data of " + len + " bytes at " + Lsn.format(r.lsn()));
        }
        byte[] bits = new byte[len - 5];
        System.arraycopy(rec, off + 5, bits, 0, bits.length);
        return HeapTuple.ofBits(bits, Bytes.uint16(rec, off), Bytes.uint16(rec, off + 2), Bytes.uint8(rec, off + 4),
                r.lsn(), m.locator);
    }

    /** The tuple at {@code off} of the block's image (the data was dropped because the image has it). */
    private static HeapTuple imageTuple(XLogRecord r, BlockRef b, int off, RelationMirror m) {
        if (!b.hasImage()) {
            throw new ShadowCatalogException("catalog record at " + Lsn.format(r.lsn()) + " has neither tuple data nor "
                    + "an image for " + m.catalog.relname() + " block " + b.blockNumber());
        }
        return HeapRecordDecoder.pageTuple(BlockImages.restore(r.format(), r.lsn(), b), off, r.lsn(), m.locator);
    }

    private void insert(RelationMirror m, BlockRef b, int off, HeapTuple data, XLogRecord r) {
        HeapTuple ht = data != null ? data : imageTuple(r, b, off, m);
        long tid = RelationMirror.tid(b.blockNumber(), off);
        ShadowTuple old = m.get(tid);
        if (old != null && strict() && old.visible()) {
            throw outOfStep(r, m, tid, "an insert lands on a tuple the shadow holds live");
        }
        int xid = r.xid();
        CatalogRow row = read(m, ht, r);
        m.put(tid, tuple(xid, row, ht));
        pend(xid, m, tid, true);
        counters.inserts++;
        if (row instanceof ClassRow c && m == current.get(SystemCatalog.PG_CLASS)) {
            noticeRewriteCopy(c, xid);
        }
    }

    private void multiInsert(RelationMirror m, BlockRef b0, boolean init, XLogRecord r) {
        byte[] rec = r.rawBytes();
        int md = r.mainDataOffset();
        int ntuples = Bytes.uint16(rec, md + 2);
        int[] offsets = new int[ntuples];
        for (int i = 0; i < ntuples; i++) {
            offsets[i] = init ? 1 + i : Bytes.uint16(rec, md + 4 + 2 * i);
        }
        if (!b0.hasData()) {
            for (int off : offsets) {
                insert(m, b0, off, null, r);
            }
            return;
        }
        int start = b0.dataOffset();
        int end = start + b0.dataLength();
        int pos = start;
        for (int i = 0; i < ntuples; i++) {
            pos = start + ((pos - start + 1) & ~1); // SHORTALIGN within the block data
            int datalen = Bytes.uint16(rec, pos);
            if (pos + 7 + datalen > end) {
                throw new ShadowCatalogException("MULTI_INSERT at " + Lsn.format(r.lsn()) + ": tuple " + (i + 1)
                        + " runs past the block data");
            }
            byte[] bits = new byte[datalen];
            System.arraycopy(rec, pos + 7, bits, 0, datalen);
            HeapTuple ht = HeapTuple.ofBits(bits, Bytes.uint16(rec, pos + 2), Bytes.uint16(rec, pos + 4),
                    Bytes.uint8(rec, pos + 6), r.lsn(), m.locator);
            insert(m, b0, offsets[i], ht, r);
            pos += 7 + datalen;
        }
    }

    private void update(RelationMirror m, BlockRef b0, boolean init, XLogRecord r) {
        byte[] rec = r.rawBytes();
        int md = r.mainDataOffset();
        int oldOff = Bytes.uint16(rec, md + 4);
        int flags = Bytes.uint8(rec, md + 7);
        int newOff = Bytes.uint16(rec, md + 12);
        BlockRef b1 = r.block(1);
        long oldBlock = b1 != null ? b1.blockNumber() : b0.blockNumber();
        long oldTid = RelationMirror.tid(oldBlock, oldOff);
        known(m, oldBlock, r);
        ShadowTuple old = m.get(oldTid);
        HeapTuple ht;
        if (b0.hasData()) {
            ht = rebuild(r, rec, b0, flags, old, oldTid, m);
        } else {
            ht = imageTuple(r, b0, newOff, m);
        }
        delete(m, oldTid, r);
        if (b1 != null) {
            prepare(m, b0, init, r);
        } else if (init) {
            throw new ShadowCatalogException("UPDATE at " + Lsn.format(r.lsn()) + " initializes the page it updates");
        }
        if (ht != null) {
            insert(m, b0, newOff, ht, r);
        }
    }

    /**
     * The new tuple of an UPDATE from its block data: {@code [prefixlen] [suffixlen] xl_heap_header, t_bits and
     * padding, data}, the prefix and suffix of the data taken from the old tuple as heap_xlog_update does. Null when
     * the old tuple it needs is gone from a page the shadow only converges on (before the history start).
     */
    private HeapTuple rebuild(XLogRecord r, byte[] rec, BlockRef b0, int flags, ShadowTuple old, long oldTid,
                              RelationMirror m) {
        int pos = b0.dataOffset();
        int end = pos + b0.dataLength();
        int prefix = 0;
        int suffix = 0;
        if ((flags & XLH_UPDATE_PREFIX_FROM_OLD) != 0) {
            prefix = Bytes.uint16(rec, pos);
            pos += 2;
        }
        if ((flags & XLH_UPDATE_SUFFIX_FROM_OLD) != 0) {
            suffix = Bytes.uint16(rec, pos);
            pos += 2;
        }
        if (prefix == 0 && suffix == 0) {
            return walTuple(r, rec, pos, end - pos, m);
        }
        if (old == null || !old.hasBytes()) {
            if (!strict()) {
                counters.convergingSkips++;
                return null;
            }
            throw outOfStep(r, m, oldTid, "a prefix/suffix-compressed UPDATE needs the old tuple's bytes, which the"
                    + " shadow does not hold");
        }
        int infomask2 = Bytes.uint16(rec, pos);
        int infomask = Bytes.uint16(rec, pos + 2);
        int hoff = Bytes.uint8(rec, pos + 4);
        pos += 5;
        int header = hoff - HeapTuple.SIZEOF_HEADER;
        int rest = end - pos;
        byte[] bits = new byte[rest + prefix + suffix];
        int w = 0;
        if (prefix > 0) {
            System.arraycopy(rec, pos, bits, 0, header);
            w = header;
            System.arraycopy(old.bits, old.dataStart(), bits, w, prefix);
            w += prefix;
            System.arraycopy(rec, pos + header, bits, w, rest - header);
            w += rest - header;
        } else {
            System.arraycopy(rec, pos, bits, 0, rest);
            w = rest;
        }
        if (suffix > 0) {
            System.arraycopy(old.bits, old.bits.length - suffix, bits, w, suffix);
        }
        counters.prefixSuffixRebuilt++;
        return HeapTuple.ofBits(bits, infomask2, infomask, hoff, r.lsn(), m.locator);
    }

    private void delete(RelationMirror m, long tid, XLogRecord r) {
        ShadowTuple t = m.get(tid);
        if (t == null) {
            if (strict()) {
                throw outOfStep(r, m, tid, "the tuple to delete or update is not in the shadow");
            }
            counters.convergingSkips++;
            return;
        }
        if (t.doubtful && !copies.containsKey(m.locator)) {
            t.doubtful = false; // a transaction can only delete what it sees: it was committed
            t.committed = true;
        }
        t.deleter = r.xid();
        pend(r.xid(), m, tid, false);
        counters.deletes++;
    }

    private void inplace(RelationMirror m, BlockRef b0, int off, XLogRecord r) {
        long tid = RelationMirror.tid(b0.blockNumber(), off);
        known(m, b0.blockNumber(), r);
        ShadowTuple t = m.get(tid);
        if (t == null) {
            counters.inplaceMissed++; // heap_inplace_update of a version another transaction replaced meanwhile
            return;
        }
        HeapTuple ht;
        if (b0.hasData()) {
            if (!t.hasBytes()) {
                throw outOfStep(r, m, tid, "an in-place update of a tuple whose bytes the shadow does not hold");
            }
            byte[] bits = t.bits.clone();
            int len = b0.dataLength();
            if (t.dataStart() + len != bits.length) {
                throw outOfStep(r, m, tid, "an in-place update of " + len + " data bytes over "
                        + (bits.length - t.dataStart()));
            }
            System.arraycopy(r.rawBytes(), b0.dataOffset(), bits, t.dataStart(), len);
            ht = HeapTuple.ofBits(bits, t.infomask2, t.infomask, t.hoff, r.lsn(), m.locator);
        } else {
            ht = imageTuple(r, b0, off, m);
        }
        ShadowTuple n = tuple(t.xmin, read(m, ht, r), ht);
        n.committed = t.committed;
        n.deleter = t.deleter;
        n.doubtful = t.doubtful;
        m.put(tid, n);
        counters.inplaceUpdates++;
    }

    /** PRUNE: the redirected, dead and unused items' tuples are gone; none of them may be live. */
    private void prune(RelationMirror m, BlockRef b0, XLogRecord r) {
        if (!b0.hasData()) {
            return; // the image (taken above) already is the pruned page
        }
        byte[] rec = r.rawBytes();
        int md = r.mainDataOffset();
        int nredirected = Bytes.uint16(rec, md + 4); // then ndead; the rest of the offsets are now unused
        int n = b0.dataLength() / 2;
        for (int i = 0; i < n; i++) {
            if (i < 2 * nredirected && (i & 1) == 1) {
                continue; // a redirect's target stays
            }
            gone(m, RelationMirror.tid(b0.blockNumber(), Bytes.uint16(rec, b0.dataOffset() + 2 * i)), r);
        }
        counters.prunes++;
    }

    private void vacuum(RelationMirror m, BlockRef b0, XLogRecord r) {
        if (!b0.hasData()) {
            return;
        }
        int n = b0.dataLength() / 2;
        for (int i = 0; i < n; i++) {
            gone(m, RelationMirror.tid(b0.blockNumber(), Bytes.uint16(r.rawBytes(), b0.dataOffset() + 2 * i)), r);
        }
    }

    // xl_heap_prune.flags of PostgreSQL 17 and later (REL_17_STABLE / REL_18_STABLE heapam_xlog.h)
    private static final int XLHP_HAS_FREEZE_PLANS = 1 << 4;
    private static final int XLHP_HAS_REDIRECTIONS = 1 << 5;
    private static final int XLHP_HAS_DEAD_ITEMS = 1 << 6;
    private static final int XLHP_HAS_NOW_UNUSED_ITEMS = 1 << 7;
    /** sizeof(xlhp_freeze_plan): {u32 xmax, u16 t_infomask2, u16 t_infomask, u8 frzflags, [pad], u16 ntuples}. */
    private static final int SIZE_OF_FREEZE_PLAN = 12;

    /**
     * The prune-and-freeze record of 17 and later (XLOG_HEAP2_PRUNE_ON_ACCESS / _VACUUM_SCAN / _VACUUM_CLEANUP): main
     * data {@code xl_heap_prune {u8 reason, u8 flags}} (then the conflict horizon, unaligned, if flagged); block 0's
     * data holds, each only when its flag is set and in this order, {@code xlhp_freeze_plans {u16 nplans, [pad 2],
     * plans[nplans]}}, the redirections {@code {u16 n, (from, to)[n]}}, the now-dead {@code {u16 n, offsets[n]}} and
     * the now-unused {@code {u16 n, offsets[n]}} items, then the frozen tuples' offsets (frozen tuples stay). As with
     * 15's PRUNE / VACUUM: redirected-from, dead and unused items' tuples are gone, a redirect's target stays.
     */
    private void pruneFreeze(RelationMirror m, BlockRef b0, XLogRecord r) {
        if (!b0.hasData()) {
            return; // the image (taken above) already is the page as the record leaves it
        }
        byte[] rec = r.rawBytes();
        int flags = Bytes.uint8(rec, r.mainDataOffset() + 1);
        int pos = b0.dataOffset();
        int end = pos + b0.dataLength();
        if ((flags & XLHP_HAS_FREEZE_PLANS) != 0) {
            pos += 4 + SIZE_OF_FREEZE_PLAN * pruneCount(rec, pos, end, r);
        }
        int[] kinds = {XLHP_HAS_REDIRECTIONS, XLHP_HAS_DEAD_ITEMS, XLHP_HAS_NOW_UNUSED_ITEMS};
        for (int kind : kinds) {
            if ((flags & kind) == 0) {
                continue;
            }
            int n = pruneCount(rec, pos, end, r);
            int width = kind == XLHP_HAS_REDIRECTIONS ? 4 : 2; // a redirection is (from, to)
            pos += 2;
            if (pos + width * n > end) {
                throw new ShadowCatalogException("prune record at " + Lsn.format(r.lsn()) + ": " + n + " items run past"
                        + " block 0's " + b0.dataLength() + " data bytes");
            }
            for (int i = 0; i < n; i++) {
                gone(m, RelationMirror.tid(b0.blockNumber(), Bytes.uint16(rec, pos + width * i)), r);
            }
            pos += width * n;
        }
        counters.prunes++;
    }

    private static int pruneCount(byte[] rec, int pos, int end, XLogRecord r) {
        if (pos + 2 > end) {
            throw new ShadowCatalogException("prune record at " + Lsn.format(r.lsn()) + ": a sub-record's count runs"
                    + " past block 0's data");
        }
        return Bytes.uint16(rec, pos);
    }

    /** A tuple vacuum removed: dead to everyone, so neither live nor a transaction's own in the shadow. */
    private void gone(RelationMirror m, long tid, XLogRecord r) {
        ShadowTuple t = m.remove(tid);
        if (t != null && strict() && t.visible()) {
            throw outOfStep(r, m, tid, "vacuum removed a tuple the shadow holds live");
        }
    }

    private void truncate(XLogRecord r) {
        byte[] rec = r.rawBytes();
        int md = r.mainDataOffset();
        long blkno = Integer.toUnsignedLong(Bytes.int32(rec, md));
        RelFileLocator loc = new RelFileLocator(Bytes.int32(rec, md + 4), Bytes.int32(rec, md + 8),
                Bytes.int32(rec, md + 12));
        int flags = Bytes.int32(rec, md + 16);
        RelationMirror m = mirrors.get(loc);
        if (m == null || (flags & SMGR_TRUNCATE_HEAP) == 0) {
            return;
        }
        for (Long tid : new ArrayList<>(m.from(blkno).keySet())) {
            gone(m, tid, r);
        }
        if (blkno <= Integer.MAX_VALUE) {
            m.knownBlocks().clear((int) blkno, Integer.MAX_VALUE);
        }
    }

    /** xl_relmap_update {dbid, tsid, nbytes, RelMapFile {magic, num_mappings, mappings[] {oid, relfilenode}, ...}}. */
    private void relmapUpdate(XLogRecord r) {
        byte[] rec = r.rawBytes();
        int md = r.mainDataOffset();
        if (Bytes.int32(rec, md) != dbOid || !strict()) {
            // another database's map, or the shared one (no catalog the shadow keeps is shared); or one older than
            // the bootstrap, whose map is the one in force at its position
            return;
        }
        int nbytes = Bytes.int32(rec, md + 8);
        int file = md + 12;
        int n = Bytes.int32(rec, file + 4);
        if (n < 0 || 8 + 8L * n > nbytes || 12 + nbytes > r.mainDataLength()) {
            throw new ShadowCatalogException("relation map update at " + Lsn.format(r.lsn()) + " lists " + n
                    + " mappings in " + nbytes + " bytes");
        }
        Map<Integer, Integer> map = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            map.put(Bytes.int32(rec, file + 8 + 8 * i), Bytes.int32(rec, file + 12 + 8 * i));
        }
        if (r.xid() == 0) {
            relmap.putAll(map);
        } else {
            pendingRelmap.put(r.xid(), map);
        }
        counters.relmapUpdates++;
    }

    /**
     * A pg_class insert of the transient table a catalog rewrite copies into: keep the copy's pages from now on
     * (its storage is named by the tuple; a mapped catalog's transient has no relfilenode and uses its own oid).
     */
    private void noticeRewriteCopy(ClassRow c, int xid) {
        if (c.relnamespace() != SystemCatalog.PG_CATALOG_NAMESPACE || !c.relname().startsWith("pg_temp_")) {
            return;
        }
        for (SystemCatalog cat : current.keySet()) {
            if (cat.transientName().equals(c.relname())) {
                RelFileLocator loc = new RelFileLocator(c.reltablespace() == 0 ? dbTablespace : c.reltablespace(),
                        dbOid, c.relfilenode() != 0 ? c.relfilenode() : c.oid());
                if (!mirrors.containsKey(loc)) {
                    addMirror(new RelationMirror(cat, loc), false);
                    copies.put(loc, xid);
                    counters.rewriteCopiesSeen++;
                }
                return;
            }
        }
    }

    private void pend(int xid, RelationMirror m, long tid, boolean insert) {
        if (xid == 0) {
            throw new ShadowCatalogException("catalog change without a transaction id in " + m.catalog.relname());
        }
        pending.computeIfAbsent(xid, k -> new ArrayList<>(2)).add(new Effect(m, tid, insert));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Transaction ends
    // ---------------------------------------------------------------------------------------------------------

    /**
     * A commit (or COMMIT PREPARED) record: the inserts of the transaction and of its committed subtransactions
     * ({@code xids}, top first) become visible, their deletes take effect.
     */
    public void commit(long lsn, int[] xids) {
        if (Long.compareUnsigned(lsn, redoLsn) < 0) {
            return;
        }
        if (!reachedStart && Long.compareUnsigned(lsn, startLsn) >= 0) {
            reachStart();
        }
        changedRelations.clear();
        classRowsReplaced.clear();
        classRowsCreated.clear();
        namespacesChanged = false;
        if (!touchedCatalogs(xids)) {
            return; // the common case: a transaction that changed no catalog tuple
        }
        Set<Integer> ending = new HashSet<>();
        for (int x : xids) {
            ending.add(x);
        }
        if (strict()) {
            // below the start the bootstrap already names each catalog's storage
            followRewrites(lsn, ending);
        }
        boolean typesChanged = false;
        for (int x : xids) {
            List<Effect> effects = pending.remove(x);
            if (effects != null) {
                for (Effect e : effects) {
                    ShadowTuple t = e.mirror.get(e.tid);
                    if (t == null) {
                        continue;
                    }
                    noteChange(t.row);
                    if (e.insert && t.xmin == x) {
                        if (t.row instanceof ClassRow c) {
                            classRowsCreated.add(c.oid()); // less those whose older row it replaced, below
                        }
                        t.committed = true;
                        t.doubtful = false;
                    } else if (!e.insert && t.deleter == x) {
                        if (t.row instanceof ClassRow c && !ending.contains(t.xmin)) {
                            classRowsReplaced.add(c.oid()); // a row the transaction did not create itself
                        }
                        e.mirror.remove(e.tid);
                    } else {
                        continue;
                    }
                    SystemCatalog c = e.mirror.catalog;
                    typesChanged |= c != SystemCatalog.PG_CLASS && c != SystemCatalog.PG_INDEX
                            && c != SystemCatalog.PG_INHERITS;
                }
            }
            Map<Integer, Integer> map = pendingRelmap.remove(x);
            if (map != null) {
                relmap.putAll(map);
            }
        }
        classRowsCreated.removeAll(classRowsReplaced);
        if (typesChanged) {
            typesVersion++;
        }
        // a rewrite copy not taken over by now was not a rewrite of a catalog this commit made
        copies.entrySet().removeIf(e -> {
            if (ending.contains(e.getValue())) {
                mirrors.remove(e.getKey());
                return true;
            }
            return false;
        });
        if (strict()) {
            for (SystemCatalog c : current.keySet()) {
                int rel = storageOf(c);
                if (rel != 0 && rel != current.get(c).locator.relNumber()) {
                    throw new ShadowCatalogException(c.relname() + " moved to relfilenode "
                            + Integer.toUnsignedString(rel) + " at " + Lsn.format(lsn) + " (VACUUM FULL or CLUSTER of"
                            + " the catalog), but the shadow did not see that storage being written");
                }
            }
        }
    }

    /** Whether any of these xids changed catalog tuples, the relation map, or started a catalog rewrite's copy. */
    private boolean touchedCatalogs(int[] xids) {
        for (int x : xids) {
            if (pending.containsKey(x) || pendingRelmap.containsKey(x) || copies.containsValue(x)) {
                return true;
            }
        }
        return false;
    }

    private void noteChange(CatalogRow row) {
        if (row instanceof ClassRow c) {
            changedRelations.add(c.oid());
        } else if (row instanceof CatalogRow.AttributeRow a) {
            changedRelations.add(a.attrelid());
        } else if (row instanceof CatalogRow.IndexRow i) {
            changedRelations.add(i.indrelid());
        } else if (row instanceof CatalogRow.InheritsRow i) {
            changedRelations.add(i.inhrelid()); // both ends: an ATTACH or DETACH changes the partition and its root
            changedRelations.add(i.inhparent());
        } else if (row instanceof CatalogRow.NamespaceRow) {
            namespacesChanged = true;
        }
    }

    /**
     * Relations whose pg_class row, as it was before the last commit's transaction, that commit replaced (an UPDATE
     * or DELETE of a relation that existed before it; not a relation it created and updated itself).
     */
    public Set<Integer> classRowsReplaced() {
        return classRowsReplaced;
    }

    /** Relations the last commit's transaction created (their pg_class row is its own, and replaced none). */
    public Set<Integer> classRowsCreated() {
        return classRowsCreated;
    }

    /** Relations whose pg_class, pg_attribute or pg_index rows, or whose pg_inherits links, the last commit changed. */
    public Set<Integer> changedRelations() {
        return changedRelations;
    }

    /** Whether the last commit changed a pg_namespace row (a schema renamed: every relation's name may change). */
    public boolean namespacesChanged() {
        return namespacesChanged;
    }

    /** An abort (or ROLLBACK PREPARED, or a rolled-back subtransaction): its inserts vanish, its deletes undone. */
    public void abort(long lsn, int[] xids) {
        if (Long.compareUnsigned(lsn, redoLsn) < 0) {
            return;
        }
        for (int x : xids) {
            abortOne(x);
        }
    }

    private void abortOne(int x) {
        List<Effect> effects = pending.remove(x);
        if (effects != null) {
            for (Effect e : effects) {
                ShadowTuple t = e.mirror.get(e.tid);
                if (t == null) {
                    continue;
                }
                if (e.insert && t.xmin == x && !t.committed) {
                    e.mirror.remove(e.tid);
                } else if (!e.insert && t.deleter == x) {
                    t.deleter = 0;
                }
            }
        }
        pendingRelmap.remove(x);
        copies.entrySet().removeIf(e -> {
            if (e.getValue() == x) {
                mirrors.remove(e.getKey());
                return true;
            }
            return false;
        });
    }

    /**
     * {@code XLOG_RUNNING_XACTS}: xids preceding {@code oldestRunningXid} are not running. One the shadow still
     * holds as in progress ended without a record (a crash): it aborted.
     */
    public void runningXacts(long lsn, int oldestRunningXid) {
        if (Long.compareUnsigned(lsn, redoLsn) < 0 || !TransactionIds.isNormal(oldestRunningXid)) {
            return;
        }
        for (int x : new ArrayList<>(pending.keySet())) {
            if (TransactionIds.precedes(x, oldestRunningXid)) {
                abortOne(x);
                counters.abortedWithoutRecord++;
            }
        }
    }

    /**
     * Before a commit's effects apply: a catalog this transaction rewrote (VACUUM FULL, CLUSTER: its relation map
     * update or its new pg_class row names other storage) continues in the copy. The copy's tuples replace the old
     * storage's ({@link #takeOver}); the transaction's changes made after the swap are on the copy already and
     * apply with the rest of its effects.
     */
    private void followRewrites(long lsn, Set<Integer> ending) {
        for (SystemCatalog c : List.copyOf(current.keySet())) {
            RelationMirror old = current.get(c);
            int rel = storageAfter(c, ending);
            if (rel == 0 || rel == old.locator.relNumber()) {
                continue;
            }
            RelationMirror copy = null;
            for (RelationMirror m : mirrors.values()) {
                if (m.catalog == c && m.locator.relNumber() == rel && copies.containsKey(m.locator)) {
                    copy = m;
                }
            }
            if (copy == null) {
                throw new ShadowCatalogException(c.relname() + " moved to relfilenode " + Integer.toUnsignedString(rel)
                        + " at " + Lsn.format(lsn) + " (VACUUM FULL or CLUSTER of the catalog), but the shadow did not"
                        + " see that storage being written");
            }
            takeOver(c, old, copy, lsn, ending);
            copies.remove(copy.locator);
            mirrors.remove(old.locator);
            current.put(c, copy);
            counters.catalogRewrites++;
        }
    }

    /** The storage the catalog has once the ending transaction commits. */
    private int storageAfter(SystemCatalog c, Set<Integer> ending) {
        if (mapped.contains(c)) {
            for (int x : ending) {
                Map<Integer, Integer> map = pendingRelmap.get(x);
                if (map != null && map.containsKey(c.oid())) {
                    return map.get(c.oid());
                }
            }
            return storageOf(c);
        }
        for (int x : ending) {
            for (Effect e : pending.getOrDefault(x, List.of())) {
                if (e.insert && e.mirror.catalog == SystemCatalog.PG_CLASS) {
                    ShadowTuple t = e.mirror.get(e.tid);
                    if (t != null && t.xmin == x && t.row instanceof ClassRow r && r.oid() == c.oid()) {
                        return r.relfilenode();
                    }
                }
            }
        }
        return storageOf(c);
    }

    /**
     * The copy's tuples that are the old storage's live rows become live; the rest (versions a snapshot could still
     * see, copied too) are dropped. A live row's copy has its identity and its xmin (raw, or frozen where the shadow
     * only knew SQL's FrozenTransactionId); if a row version chain left several such copies, the one not deleted.
     */
    private void takeOver(SystemCatalog c, RelationMirror old, RelationMirror copy, long lsn, Set<Integer> ending) {
        Map<Long, List<Long>> byIdentity = new HashMap<>();
        for (Map.Entry<Long, ShadowTuple> e : copy.entries()) {
            ShadowTuple t = e.getValue();
            if (t.doubtful && t.row != null) {
                byIdentity.computeIfAbsent(t.row.identity(), k -> new ArrayList<>(1)).add(e.getKey());
            }
        }
        Map<Long, ShadowTuple> chosen = new HashMap<>();
        int live = 0;
        for (ShadowTuple o : old.all().values()) {
            if (!o.visible()) {
                continue;
            }
            live++;
            List<Long> candidates = new ArrayList<>();
            for (long tid : byIdentity.getOrDefault(o.row.identity(), List.of())) {
                ShadowTuple t = copy.get(tid);
                if (t.xmin == o.xmin || (o.xmin == FROZEN_XID && t.frozen())) {
                    candidates.add(tid);
                }
            }
            if (candidates.size() > 1) {
                candidates.removeIf(tid -> deletedCopy(copy.get(tid)));
            }
            if (candidates.size() != 1) {
                throw new ShadowCatalogException("the rewrite of " + c.relname() + " committed at " + Lsn.format(lsn)
                        + " has " + candidates.size() + " copies of the live row " + o.row + " (xmin "
                        + Integer.toUnsignedString(o.xmin) + "): cannot tell which one it is");
            }
            chosen.put(candidates.get(0), o);
        }
        for (Map.Entry<Long, ShadowTuple> e : new ArrayList<>(copy.entries())) {
            ShadowTuple t = e.getValue();
            if (!t.doubtful) {
                continue; // a later change of the copy itself, already followed
            }
            if (ending.contains(t.xmin)) {
                t.doubtful = false; // the rewriting transaction's own row, copied while in progress
                pend(t.xmin, copy, e.getKey(), true);
            } else if (chosen.containsKey(e.getKey()) || t.row == null) {
                t.doubtful = false;
                t.committed = true; // a marker is accounted for, never read
                ShadowTuple o = chosen.get(e.getKey());
                if (o != null && o.deleter != 0 && t.deleter == 0) {
                    t.deleter = o.deleter; // deleted on the old storage by a transaction still in progress
                    pend(o.deleter, copy, e.getKey(), false);
                }
            } else {
                copy.remove(e.getKey());
            }
        }
        if (chosen.size() != live) {
            throw new ShadowCatalogException("the rewrite of " + c.relname() + " committed at " + Lsn.format(lsn)
                    + " copied " + chosen.size() + " of its " + live + " live rows as the shadow holds them");
        }
    }

    /** A copied version whose deletion committed (its xmax is set, not a locker, hinted committed or its own xmin). */
    private static boolean deletedCopy(ShadowTuple t) {
        int im = t.infomask;
        if (t.xmax == 0 || (im & HEAP_XMAX_INVALID) != 0 || lockedOnly(im)) {
            return false;
        }
        return (im & HEAP_XMAX_COMMITTED) != 0 || t.xmax == t.xmin;
    }

    /** The relfilenode the catalog is stored in now: the relation map's, or its committed pg_class row's. */
    private int storageOf(SystemCatalog c) {
        if (mapped.contains(c)) {
            Integer rel = relmap.get(c.oid());
            return rel == null ? 0 : rel;
        }
        for (CatalogRow row : current.get(SystemCatalog.PG_CLASS).visible(c.oid())) {
            return ((ClassRow) row).relfilenode();
        }
        return 0;
    }

    /** Transactions in progress that changed catalog tuples (for the metrics). */
    public int transactionsInProgress() {
        return pending.size();
    }

    /** Rebuilds the in-progress index from the tuples (after a restore). */
    void reindexPending() {
        pending.clear();
        for (RelationMirror m : mirrors.values()) {
            for (Map.Entry<Long, ShadowTuple> e : m.entries()) {
                ShadowTuple t = e.getValue();
                if (!t.committed && !t.doubtful) {
                    pend(t.xmin, m, e.getKey(), true);
                }
                if (t.deleter != 0) {
                    pend(t.deleter, m, e.getKey(), false);
                }
            }
        }
    }

    /** Tuples held, all mirrors (for the metrics). */
    public long tuplesHeld() {
        long n = 0;
        for (RelationMirror m : mirrors.values()) {
            n += m.size();
        }
        return n;
    }
}
