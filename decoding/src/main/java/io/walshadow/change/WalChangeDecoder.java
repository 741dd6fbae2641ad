package io.walshadow.change;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.CatalogReadException;
import io.walshadow.catalog.CatalogTracker;
import io.walshadow.catalog.CommitInfo;
import io.walshadow.catalog.DescriptorHistory;
import io.walshadow.catalog.Lookup;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.catalog.shadow.ShadowCatalog;
import io.walshadow.heap.HeapChange;
import io.walshadow.heap.HeapRecordDecoder;
import io.walshadow.heap.HeapRecordKind;
import io.walshadow.wal.BlockRef;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.XLogRecord;
import io.walshadow.wal.rmgr.Checkpoint;
import io.walshadow.wal.rmgr.RunningXacts;
import io.walshadow.wal.rmgr.SmgrCreate;
import io.walshadow.xact.TransactionIds;
import io.walshadow.xact.XactAbort;
import io.walshadow.xact.XactAssignment;
import io.walshadow.xact.XactCommit;
import io.walshadow.xact.XactInvalidations;
import io.walshadow.xact.XactPrepare;
import io.walshadow.xact.XactRecord;
import io.walshadow.xact.XactRecordParser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * From verified WAL records to change events for the configured database, in WAL order: heap records of
 * replicated relations become typed row changes with the descriptor valid at the record's LSN; records whose
 * relation only its own commit can name are deferred raw; commits advance the catalog history (before any later
 * record is decoded) and carry the catalog changes they published.
 *
 * <p>A transaction that changes a relation's catalog state (ALTER TABLE ... then INSERT/UPDATE in the same
 * transaction: a migration with a backfill) writes tuples of the new shape before its commit publishes that shape.
 * With wal_level=logical every command's invalidations are logged (XLOG_XACT_INVALIDATIONS); once a transaction
 * has invalidated a replicated relation, its later heap records on that relation are deferred to its commit and
 * decoded with the shape as of the commit. Its records before that point decode at once, with the old shape.
 *
 * <p>Not thread-safe; one instance per WAL stream, fed every record in order.
 */
public final class WalChangeDecoder {
    /** What each resource manager's records decode to, as PostgreSQL's decode.c dispatches by rmgr. */
    private interface RmgrHandler {
        List<ChangeEvent> decode(XLogRecord r) throws CatalogReadException;
    }

    private final Map<Integer, RmgrHandler> handlers = Map.of(
            Rmgrs.RM_HEAP_ID, this::heap,
            Rmgrs.RM_HEAP2_ID, this::heap,
            Rmgrs.RM_XACT_ID, this::xact,
            Rmgrs.RM_STANDBY_ID, this::standby,
            Rmgrs.RM_XLOG_ID, this::xlog,
            Rmgrs.RM_SMGR_ID, this::smgr);

    private final CatalogTracker tracker;
    private final ShadowCatalog shadow;
    private RowDecoder rows;
    private final DecoderCounters counters = new DecoderCounters();
    /** Relfilenodes of this database created by XLOG_SMGR_CREATE and not yet settled by a commit or abort. */
    private final Set<RelFileLocator> created = new HashSet<>();
    /**
     * Relation oids whose relcache an in-progress transaction has invalidated (its DDL so far), by top-level xid;
     * {@link #ALL_RELATIONS} when it invalidated every relation.
     */
    private final Map<Integer, Set<Integer>> alteredBy = new HashMap<>();
    /** Top-level xid of subtransactions seen (records' top-level xid block, XLOG_XACT_ASSIGNMENT). */
    private final Map<Integer, Integer> topOf = new HashMap<>();
    static final int ALL_RELATIONS = 0;
    /** Relfilenodes whose records an in-progress transaction family deferred, by top-level xid. */
    private final Map<Integer, Set<RelFileLocator>> deferredBy = new HashMap<>();
    /** Commit sequence the next commit gets (part of the operator's state: it continues across restores). */
    private long nextCommitSeq = 1;
    /**
     * The newest full xid (xid8) known to have been assigned, 0 until known: commits' 32-bit xids get their epoch
     * relative to it ({@link TransactionIds#fullXidRelativeTo}). Seeded from the start snapshot, set from checkpoint
     * records' nextXid, advanced by RUNNING_XACTS' nextXid and by every commit (part of the operator's state).
     */
    private long xidReference;
    /** Descriptors of the relfilenodes the family of the commit just decoded deferred (set by a commit). */
    private Map<RelFileLocator, RelationDescriptor> lastCommitDescriptors = Map.of();

    private java.util.function.Consumer<List<CatalogChange>> filterListener = c -> {};

    public WalChangeDecoder(CatalogTracker tracker, RowDecoder rows) {
        this(tracker, rows, null);
    }

    /**
     * @param shadow the catalog kept from the WAL that {@code tracker} loads from, fed every record here before the
     *     tracker sees it; null when the tracker reads the live catalog (a state of an earlier build)
     */
    public WalChangeDecoder(CatalogTracker tracker, RowDecoder rows, ShadowCatalog shadow) {
        this.tracker = tracker;
        this.rows = rows;
        this.shadow = shadow;
    }

    /** The catalog shadow, or null. */
    public ShadowCatalog shadow() {
        return shadow;
    }

    /**
     * The types as of the record just decoded: the catalog shadow's as it stands (a fresh view: the row decoder's
     * may predate this commit's type changes), else the live catalog the decoder uses.
     */
    private io.walshadow.catalog.TypeCatalog typesNow() {
        if (shadow != null) {
            return new io.walshadow.catalog.shadow.ShadowTypes(shadow);
        }
        io.walshadow.catalog.TypeCatalog t = rows.values().catalog();
        return t != null ? t : io.walshadow.catalog.TypeSet.EMPTY;
    }

    /** Decode later records with this row decoder (types reloaded after a catalog change). */
    public void replaceRowDecoder(RowDecoder rows) {
        this.rows = rows;
    }

    public DecoderCounters counters() {
        return counters;
    }

    public DescriptorHistory history() {
        return tracker.history();
    }

    /** Relfilenodes created and not yet settled (part of the operator's state). */
    public Set<RelFileLocator> pendingCreated() {
        return created;
    }

    /**
     * Relations that in-progress transactions changed the catalog state of, by top-level xid (part of the
     * operator's state, like {@link #pendingCreated()}: heap records of those transactions on those relations are
     * deferred).
     */
    public Map<Integer, Set<Integer>> pendingAltered() {
        return alteredBy;
    }

    /** Subtransaction to top-level xid, for transactions in progress (part of the operator's state). */
    public Map<Integer, Integer> pendingSubxactParents() {
        return topOf;
    }

    /** Relfilenodes deferred per in-progress top-level xid (part of the operator's state). */
    public Map<Integer, Set<RelFileLocator>> pendingDeferred() {
        return deferredBy;
    }

    /** The commit sequence the next commit gets (part of the operator's state). */
    public long nextCommitSeq() {
        return nextCommitSeq;
    }

    public void restoreNextCommitSeq(long seq) {
        if (seq < 1) {
            throw new IllegalArgumentException("commit sequence " + seq);
        }
        nextCommitSeq = seq;
    }

    /** The full-xid reference (part of the operator's state); 0 when not known yet. */
    public long xidReference() {
        return xidReference;
    }

    /**
     * Sets the full-xid reference: a full xid at most 2^31 xids away from any xid the stream will commit (the
     * start snapshot's xmax, a restored reference, the server's current next xid).
     */
    public void restoreXidReference(long fullXid) {
        if (fullXid < 0) {
            throw new IllegalArgumentException("full xid " + Long.toUnsignedString(fullXid));
        }
        xidReference = fullXid;
    }

    /** The full xid of a 32-bit xid the stream just committed: relative to, and then advancing, the reference. */
    private long fullXidOf(int xid) {
        if (xidReference == 0) {
            return 0; // unknown: callers without a seed (unit tests); the operator always seeds or restores one
        }
        long full = TransactionIds.fullXidRelativeTo(xidReference, xid);
        if (full > xidReference) {
            xidReference = full;
        }
        return full;
    }

    private void advanceXidReference(int nextXid) {
        if (xidReference != 0 && TransactionIds.isNormal(nextXid)) {
            long full = TransactionIds.fullXidRelativeTo(xidReference, nextXid);
            if (full > xidReference) {
                xidReference = full;
            }
        }
    }

    /**
     * Events of one record for the transaction buffer: each with its family's top-level xid; a commit with its
     * commit sequence and the descriptors of what its family deferred. XLOG_XACT_ASSIGNMENT (routing only, already
     * applied here) and events without any xid are not passed on. The latter are counted in
     * {@link DecoderCounters#eventsWithoutXid}.
     */
    public List<BufferEvent> decodeForBuffer(XLogRecord r) throws CatalogReadException {
        int recordTop = topXid(r); // before decode(): an end record makes the decoder forget the family
        List<ChangeEvent> events = decode(r);
        if (RunningXacts.is(r)) {
            int oldestRunning = RunningXacts.of(r).oldestRunningXid();
            return TransactionIds.isNormal(oldestRunning) ? List.of(BufferEvent.runningXacts(r.lsn(),
                    xidReference == 0 ? Integer.toUnsignedLong(oldestRunning)
                            : TransactionIds.fullXidRelativeTo(xidReference, oldestRunning))) : List.of();
        }
        if (events.isEmpty()) {
            return List.of();
        }
        List<BufferEvent> out = new ArrayList<>(events.size());
        for (ChangeEvent e : events) {
            if (e instanceof XactEvent x) {
                if (x.xact() instanceof XactCommit c) {
                    // deferred rows are decoded in the buffer, DDL applied in the sink: with the types as of this
                    // commit, taken along
                    io.walshadow.catalog.TypeSet types = io.walshadow.catalog.TypeSet.EMPTY;
                    List<io.walshadow.catalog.CatalogChange> changes = x.catalogChanges() == null ? List.of()
                            : x.catalogChanges();
                    if (!lastCommitDescriptors.isEmpty() || !changes.isEmpty()) { // an ordinary commit allocates nothing
                        List<RelationDescriptor> typed = new ArrayList<>(lastCommitDescriptors.values());
                        changes.forEach(ch -> typed.add(ch.after()));
                        types = io.walshadow.catalog.TypeSet.of(typed, typesNow());
                    }
                    out.add(new BufferEvent(c.xid(), nextCommitSeq++, fullXidOf(c.xid()), e, lastCommitDescriptors,
                            types));
                    lastCommitDescriptors = Map.of();
                } else if (x.xact() instanceof XactAbort a) {
                    int top = a.isPrepared() ? a.xid() : a.toplevelXid() != 0 ? a.toplevelXid() : recordTop;
                    out.add(BufferEvent.of(top, e));
                } else if (x.xact() instanceof XactPrepare p) {
                    out.add(BufferEvent.of(p.xid(), e));
                }
                // XactAssignment: routing only
            } else if (recordTop == 0) {
                counters.eventsWithoutXid++;
            } else {
                out.add(BufferEvent.of(recordTop, e));
            }
        }
        return out;
    }

    /** Told the relations that entered or left the filter when the stream reaches a scheduled filter change. */
    public void onFilterChange(java.util.function.Consumer<List<CatalogChange>> listener) {
        this.filterListener = listener;
    }

    /** Events of one record, in order (usually zero or one; a MULTI_INSERT yields one per tuple). */
    public List<ChangeEvent> decode(XLogRecord r) throws CatalogReadException {
        counters.records++;
        List<CatalogChange> refiltered = tracker.reach(r.lsn());
        if (!refiltered.isEmpty()) {
            filterListener.accept(refiltered);
        }
        if (r.toplevelXid() != 0 && r.xid() != 0 && r.xid() != r.toplevelXid()) {
            topOf.put(r.xid(), r.toplevelXid());
        }
        if (shadow != null && r.rmid() != Rmgrs.RM_XACT_ID) {
            shadow.apply(r); // transaction ends reach it from xact(), before the tracker's boundary
        }
        RmgrHandler h = handlers.get(r.rmid());
        return h == null ? List.of() : h.decode(r);
    }

    /** Standby: RUNNING_XACTS moves the xid reference and the horizon of what has ended. */
    private List<ChangeEvent> standby(XLogRecord r) throws CatalogReadException {
        if (RunningXacts.is(r)) {
            RunningXacts rx = RunningXacts.of(r);
            advanceXidReference(rx.nextXid());
            if (shadow != null) {
                shadow.runningXacts(r.lsn(), rx.oldestRunningXid());
            }
            tracker.onRunningXacts(r.lsn(), rx.oldestRunningXid());
            forgetFinishedBefore(rx.oldestRunningXid());
        }
        return List.of();
    }

    /** XLOG: full-page images of new pages; a checkpoint's absolute next full xid keeps the xid reference exact. */
    private List<ChangeEvent> xlog(XLogRecord r) throws CatalogReadException {
        if (r.rmgrInfo() == HeapRecordDecoder.XLOG_FPI) {
            return newPages(r);
        }
        if (Checkpoint.is(r)) {
            long next = Checkpoint.of(r).nextFullXid();
            if (next > xidReference) {
                xidReference = next;
            }
        }
        return List.of();
    }

    /** Storage: a relation created in this database (its main fork), for the commit that publishes it. */
    private List<ChangeEvent> smgr(XLogRecord r) {
        if (SmgrCreate.is(r)) {
            SmgrCreate c = SmgrCreate.of(r);
            if (c.locator().dbOid() == history().dbOid() && c.mainFork()) {
                created.add(c.locator());
            }
        }
        return List.of();
    }

    private List<ChangeEvent> heap(XLogRecord r) throws CatalogReadException {
        HeapRecordKind kind = HeapRecordDecoder.kind(r);
        if (kind == HeapRecordKind.TRUNCATE) {
            return truncate(r);
        }
        BlockRef b0 = r.block(0);
        if (b0 == null || !kind.producesChanges()) {
            return List.of();
        }
        RelFileLocator rel = b0.rel();
        if (rel.dbOid() != history().dbOid()) {
            counters.skippedForeignDatabase++;
            return List.of();
        }
        Lookup lookup = history().lookup(rel, r.lsn());
        switch (lookup.outcome()) {
            case PRESENT:
                if (alteredByOwnTransaction(r, lookup.descriptor().relOid())) {
                    // The tuple may already have the shape this transaction's DDL gives the relation at commit.
                    return defer(r, rel);
                }
                return rowChanges(r, lookup.descriptor());
            case AMBIGUOUS:
                if (awaitsOwnTransaction(r, lookup)) {
                    // The catalog change that makes this relation ambiguous is this transaction's own: its
                    // commit will settle the shape, so the record waits for it.
                    return defer(r, rel);
                }
                lookup.descriptorOrSkip(); // throws CatalogAheadException: fail closed
                throw new AssertionError("unreachable");
            case FOREIGN_DB:
                counters.skippedForeignDatabase++;
                return List.of();
            default:
                if (lookup.reason() == Lookup.NotCoveredReason.UNKNOWN && created.contains(rel)) {
                    return defer(r, rel);
                }
                if (lookup.reason() == Lookup.NotCoveredReason.BEFORE_HISTORY) {
                    counters.skippedBeforeHistory++;
                } else {
                    counters.skippedNotCovered++;
                }
                return List.of();
        }
    }

    /**
     * Pages a transaction writes whole into storage it created (VACUUM FULL, CLUSTER, SET TABLESPACE copy tuples so):
     * their rows wait for its commit, like any record of new storage, and arrive as inserts at their new TIDs. Index
     * pages (CREATE INDEX writes them so too) are not heap pages and are let through.
     */
    private List<ChangeEvent> newPages(XLogRecord r) {
        BlockRef b0 = r.block(0);
        if (b0 == null || r.xid() == 0 || !created.contains(b0.rel()) || b0.forkNumber() != SmgrCreate.MAIN_FORKNUM
                || !HeapRecordDecoder.writesHeapPagesOf(r, b0.rel())) {
            return List.of();
        }
        return defer(r, b0.rel());
    }

    private int topXid(XLogRecord r) {
        return r.toplevelXid() != 0 ? r.toplevelXid() : topOf.getOrDefault(r.xid(), r.xid());
    }

    private boolean alteredByOwnTransaction(XLogRecord r, int relOid) {
        if (alteredBy.isEmpty()) {
            return false;
        }
        Set<Integer> rels = alteredBy.get(topXid(r));
        return rels != null && (rels.contains(relOid) || rels.contains(ALL_RELATIONS));
    }

    /** Transactions preceding the oldest running xid have ended: forget what a missed commit/abort left behind. */
    private void forgetFinishedBefore(int oldestRunningXid) {
        if (!TransactionIds.isNormal(oldestRunningXid)) {
            return;
        }
        alteredBy.keySet().removeIf(x -> TransactionIds.precedes(x, oldestRunningXid));
        deferredBy.keySet().removeIf(x -> TransactionIds.precedes(x, oldestRunningXid));
        topOf.values().removeIf(x -> TransactionIds.precedes(x, oldestRunningXid));
    }

    private List<ChangeEvent> defer(XLogRecord r, RelFileLocator rel) {
        counters.deferredRecords++;
        int top = topXid(r);
        if (top != 0) {
            deferredBy.computeIfAbsent(top, k -> new HashSet<>()).add(rel);
        }
        return List.of(new DeferredRecord(r.lsn(), r.xid(), rel, r));
    }

    /**
     * Decodes a deferred record at its transaction's commit, with the history as of the commit: row changes, or
     * for a deferred TRUNCATE its {@link TruncateChange} with the relations as of the commit.
     */
    public List<ChangeEvent> decodeDeferred(DeferredRecord d, long commitLsn) {
        if (isDeferredTruncate(d)) {
            int db = history().dbOid();
            return new ArrayList<>(truncateChanges(d.record(), (dbOid, relOid) -> dbOid != db ? null
                    : history().lookupRelation(relOid, commitLsn).descriptorOrSkip()));
        }
        RelationDescriptor desc = history().lookup(d.rel(), commitLsn).descriptorOrSkip();
        if (desc == null) {
            return List.of(); // created and dropped inside the transaction, or not replicated after all
        }
        List<ChangeEvent> out = new ArrayList<>(rowsOf(rows, d, desc));
        counters.rowChanges += out.size();
        return out;
    }

    /**
     * The row changes of a deferred record other than a TRUNCATE, with the descriptor as of its transaction's
     * commit: a heap record's, or the copies in pages a rewrite wrote whole ({@link #newPages}).
     */
    public static List<RowChange> rowsOf(RowDecoder rows, DeferredRecord d, RelationDescriptor desc) {
        List<HeapChange> changes = d.record().rmid() == Rmgrs.RM_XLOG_ID
                ? HeapRecordDecoder.decodeNewPages(d.record(), d.rel()) : HeapRecordDecoder.decode(d.record());
        List<RowChange> out = new ArrayList<>(changes.size());
        for (HeapChange c : changes) {
            out.add(rows.decode(c, desc));
        }
        return out;
    }

    private List<ChangeEvent> rowChanges(XLogRecord r, RelationDescriptor d) {
        List<HeapChange> changes = HeapRecordDecoder.decode(r);
        List<ChangeEvent> out = new ArrayList<>(changes.size());
        for (HeapChange c : changes) {
            out.add(rows.decode(c, d));
        }
        counters.rowChanges += out.size();
        return out;
    }

    private List<ChangeEvent> truncate(XLogRecord r) {
        int db = history().dbOid();
        boolean defer = false;
        for (HeapChange c : HeapRecordDecoder.decode(r)) {
            if (c.truncateDbOid() != db) {
                counters.skippedForeignDatabase++;
                continue;
            }
            for (int relOid : c.truncateRelids()) {
                Lookup lookup = history().lookupRelation(relOid, r.lsn());
                if (lookup.outcome() == Lookup.Outcome.AMBIGUOUS) {
                    if (!awaitsOwnTransaction(r, lookup)) {
                        lookup.descriptorOrSkip(); // throws CatalogAheadException: fail closed
                        throw new AssertionError("unreachable");
                    }
                    defer = true;
                }
            }
        }
        if (defer) {
            // The transaction's own catalog change makes a truncated relation ambiguous (catch-up with the catalog
            // ahead): its commit settles the relations' identity, so the TRUNCATE waits for it, in its place
            // among the family's records.
            counters.deferredRecords++;
            int top = topXid(r);
            if (top != 0) {
                Set<RelFileLocator> keys = deferredBy.computeIfAbsent(top, k -> new HashSet<>());
                for (HeapChange c : HeapRecordDecoder.decode(r)) {
                    if (c.truncateDbOid() == db) {
                        for (int relOid : c.truncateRelids()) {
                            keys.add(truncatedRelationKey(db, relOid));
                        }
                    }
                }
            }
            return List.of(new DeferredRecord(r.lsn(), r.xid(), null, r));
        }
        List<ChangeEvent> out = new ArrayList<>(1);
        out.addAll(truncateChanges(r, (dbOid, relOid) -> dbOid != db ? null
                : history().lookupRelation(relOid, r.lsn()).descriptorOrSkip()));
        counters.truncates += out.size();
        return out;
    }

    private static boolean awaitsOwnTransaction(XLogRecord r, Lookup lookup) {
        return lookup.ambiguity().awaitedXids().contains(r.xid())
                || (r.toplevelXid() != 0 && lookup.ambiguity().awaitedXids().contains(r.toplevelXid()));
    }

    /**
     * Key, among a commit's deferred descriptors ({@link BufferEvent#deferredDescriptors()}), of a relation a
     * deferred TRUNCATE names: by relation oid, with tablespace 0, which no relfilenode has.
     */
    public static RelFileLocator truncatedRelationKey(int dbOid, int relOid) {
        return new RelFileLocator(0, dbOid, relOid);
    }

    /** Whether a deferred record is a TRUNCATE (deferred without a relfilenode: it names relations by oid). */
    public static boolean isDeferredTruncate(DeferredRecord d) {
        return d.rel() == null && d.record() != null
                && HeapRecordDecoder.kind(d.record()) == HeapRecordKind.TRUNCATE;
    }

    /**
     * The truncates of a heap TRUNCATE record, each with the relations {@code resolve} (database oid, relation
     * oid) gives a descriptor for; none when it gives none.
     */
    public static List<TruncateChange> truncateChanges(XLogRecord r,
            BiFunction<Integer, Integer, RelationDescriptor> resolve) {
        List<TruncateChange> out = new ArrayList<>(1);
        for (HeapChange c : HeapRecordDecoder.decode(r)) {
            List<RelationDescriptor> rels = new ArrayList<>();
            for (int relOid : c.truncateRelids()) {
                RelationDescriptor d = resolve.apply(c.truncateDbOid(), relOid);
                if (d != null) {
                    rels.add(d);
                }
            }
            if (!rels.isEmpty()) {
                out.add(new TruncateChange(r.lsn(), r.xid(), rels, c.truncateCascade(), c.truncateRestartSeqs()));
            }
        }
        return out;
    }

    private List<ChangeEvent> xact(XLogRecord r) throws CatalogReadException {
        XactRecord x = XactRecordParser.parse(r);
        List<CatalogChange> changes = List.of();
        int db = history().dbOid();
        if (shadow != null) {
            if (x instanceof XactCommit c) {
                shadow.commit(c.lsn(), c.allXids().toIntArray());
            } else if (x instanceof XactAbort a) {
                shadow.abort(a.lsn(), a.allXids().toIntArray());
            }
        }
        if (x instanceof XactCommit c) {
            Set<RelFileLocator> dropped = c.rels() == null ? Set.of() : new HashSet<>(c.rels());
            Set<Integer> invalidated = c.invals() == null ? Set.of() : c.invals().relcacheRelIds(db);
            boolean all = c.invals() != null && (c.invals().resetsAllRelations(db) || c.invals().resetsCatalog(db));
            if (shadow != null && !shadow.changedRelations().isEmpty()) {
                // what the commit changed in the catalogs, exactly (a schema rename sends no relcache message)
                invalidated = new java.util.LinkedHashSet<>(invalidated);
                invalidated.addAll(shadow.changedRelations());
            }
            all |= shadow != null && shadow.namespacesChanged();
            changes = tracker.onCommit(new CommitInfo(c.lsn(), c.xid(),
                    c.subxids() == null ? new int[0] : c.subxids().toIntArray(), c.dbIdOrZero(), invalidated, all,
                    dropped, created)); // only this database's are ever added
            settleCreated(changes, dropped);
            Set<RelFileLocator> deferred = deferredBy.remove(c.xid());
            if (deferred == null || deferred.isEmpty()) {
                lastCommitDescriptors = Map.of();
            } else {
                Map<RelFileLocator, RelationDescriptor> descs = new HashMap<>();
                for (RelFileLocator rel : deferred) {
                    RelationDescriptor d = rel.spcOid() == 0 // a deferred TRUNCATE's relation, by oid
                            ? history().lookupRelation(rel.relNumber(), c.lsn()).descriptorOrSkip()
                            : history().lookup(rel, c.lsn()).descriptorOrSkip();
                    if (d != null) {
                        descs.put(rel, d);
                    }
                }
                lastCommitDescriptors = descs;
            }
            forget(c.allXids().toIntArray());
        } else if (x instanceof XactAbort a) {
            if (a.rels() != null) {
                a.rels().forEach(created::remove); // storage an aborted transaction created is dropped
            }
            // A rolled back subtransaction's DDL is undone, but deferring its family's later records stays correct
            // (they decode with the shape at the commit); only the family's own end forgets it.
            forget(a.allXids().toIntArray());
        } else if (x instanceof XactInvalidations inv) {
            // Command-boundary invalidations change nothing in the history before the commit, but the transaction's
            // later tuples of the relations they name may have the new shape already.
            Set<Integer> rels = new HashSet<>(inv.invals().relcacheRelIds(db));
            if (inv.invals().resetsAllRelations(db) || inv.invals().resetsCatalog(db)) {
                rels.add(ALL_RELATIONS);
            }
            if (!rels.isEmpty()) {
                int top = inv.toplevelXid() != 0 ? inv.toplevelXid()
                        : topOf.getOrDefault(inv.recordXid(), inv.recordXid());
                alteredBy.computeIfAbsent(top, k -> new HashSet<>()).addAll(rels);
            }
            return List.of();
        } else if (x instanceof XactAssignment as) {
            for (int sub : as.subxids().toIntArray()) {
                topOf.put(sub, as.xtop());
            }
        }
        counters.xactEvents++;
        return List.of(new XactEvent(x, changes));
    }

    private void forget(int[] xids) {
        for (int x : xids) {
            alteredBy.remove(x);
            deferredBy.remove(x);
            topOf.remove(x);
        }
    }

    /** A relfilenode is settled once a commit resolved it into the history, or dropped it. */
    private void settleCreated(List<CatalogChange> changes, Set<RelFileLocator> dropped) {
        created.removeAll(dropped);
        for (CatalogChange ch : changes) {
            if (ch.after() != null) {
                created.remove(ch.after().locator());
            }
        }
    }
}
