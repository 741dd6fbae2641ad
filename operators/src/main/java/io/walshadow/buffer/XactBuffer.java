package io.walshadow.buffer;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.BufferEvent;
import io.walshadow.change.ChangeEvent;
import io.walshadow.change.DeferredRecord;
import io.walshadow.change.RowChange;
import io.walshadow.change.RowDecoder;
import io.walshadow.change.TruncateChange;
import io.walshadow.change.WalChangeDecoder;
import io.walshadow.change.XactEvent;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.xact.XactAbort;
import io.walshadow.xact.XactCommit;
import io.walshadow.xact.XactPrepare;
import io.walshadow.xact.XactRecord;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction buffer: keyed by top-level xid ({@link BufferEvent#topXid()}), it holds every change of a
 * transaction family in keyed state until the family ends, then drains the committed part in WAL order.
 *
 * <ul>
 *   <li>Changes are appended, in arrival (= WAL) order, to a {@code MapState<Long seq, ChangeEvent>}. On the
 *       RocksDB backend (the one this operator is for) the map is iterated lazily in key-byte order, and the seq
 *       key (Flink's LongSerializer: big-endian, always non-negative here) sorts like the number, so a huge
 *       transaction is never held on the heap. The drain checks the order and fails on a backend that does not
 *       iterate in key order (the heap backend; {@link XactBufferOperator} refuses it at start-up). A small family
 *       (at most {@link #POINT_LOOKUP_MAX_ENTRIES} entries) is read and cleared by point lookups of its seqs
 *       instead, which costs RocksDB no scan over the tombstones earlier drains left behind.
 *   <li>COMMIT (and COMMIT PREPARED): emits the commit's catalog changes first ({@link DrainedCatalog}, when it
 *       published any: DDL applies before the rows), then, in seq order, the entries whose xid is the top xid or
 *       one of the commit record's subxids (authoritative: rows of rolled-back savepoints never come out);
 *       deferred records are decoded here with the descriptor the decoder resolved as of the commit (a deferred
 *       TRUNCATE with its relations by oid, {@link WalChangeDecoder#truncatedRelationKey}); then one
 *       {@link DrainedCommit} with the relations touched; the key's state is cleared. A commit of a family that
 *       buffered nothing emits only the catalog event and the marker, and only when it published catalog changes.
 *   <li>ABORT of the top: clears the key. ABORT of a subtransaction (ROLLBACK TO SAVEPOINT): discards the entries
 *       of the subtransaction and its children now (the commit's list would leave them out anyway).
 *   <li>PREPARE: the state stays, with the GID and the record's prepared_at (a family that buffered nothing is
 *       only counted); COMMIT PREPARED drains it, ROLLBACK PREPARED clears it. All of it
 *       is keyed state, so it survives restores from checkpoints and savepoints.
 * </ul>
 *
 * <p>Metrics (group {@code xact_buffer}): counters {@code prepares}, {@code commit_prepared},
 * {@code rollback_prepared}, {@code commits_drained}, {@code aborts}, {@code subxact_aborts},
 * {@code changes_drained}, {@code changes_discarded}, {@code prepared_dropped} (an operator's drop request, see
 * {@link XactBufferOperator}); gauges {@code in_flight_transactions} (keys holding state)
 * and {@code prepared_transactions_held}. The two gauges are kept in operator state (summed over the restored
 * entries; exact at parallelism 1, their sum over subtasks stays exact after a rescale).
 *
 * <p>In-flight diagnostics: each key's meta also holds an estimate of its buffered bytes and the wall-clock time
 * its first change arrived. A non-keyed index of the in-flight keys of this subtask (xid → changes, bytes,
 * first LSN, first arrival), updated on each event and drain, backs the gauges {@code buffered_changes},
 * {@code buffered_bytes}, {@code oldest_in_flight_first_lsn} and {@code oldest_in_flight_age_ms} (0 when nothing
 * is tracked), and an INFO line summarizing the in-flight transactions, at most every 30 s, on event arrival.
 * The index is not checkpointed: after a restore it is rebuilt lazily, a restored key entering it (with its
 * checkpointed counts, first LSN and first arrival) only when its next event arrives, so until then the
 * diagnostics undercount ({@code in_flight_transactions} stays exact).
 */
public final class XactBuffer extends KeyedProcessFunction<Integer, BufferEvent, Drained>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(XactBuffer.class);

    /**
     * Families with at most this many entries (next seq) are drained and cleared by point lookups of seqs
     * 0 .. next-1 instead of a RocksDB iteration. An iteration has to step past the family's last entry to learn
     * that it was the last, and RocksDB's next() there skips every tombstone (entries of families drained before,
     * deleted, not compacted away yet) up to the next live entry of the column family, since Flink's map state
     * iterators have no upper bound. With many small transactions that scan, at each drain and each clear, grew
     * with the tombstones and dominated the buffer (pgbench: ~250 commits/s, the buffer's thread in
     * RocksIterator.next most of the time). A large family is still iterated: one scan per drain is small next to
     * its entries, and one pass over millions of entries is cheaper than as many lookups.
     */
    static final long POINT_LOOKUP_MAX_ENTRIES = 1024;
    /** Default heap budget of the families that have not gone to RocksDB yet (all keys of a subtask). */
    public static final long DEFAULT_HEAP_BYTES = 64L << 20;
    /** Default size from which one family goes to RocksDB. */
    public static final long DEFAULT_HEAP_FAMILY_BYTES = 4L << 20;

    private final PgConnectionConfig pg;
    /** Discard a rolled-back savepoint's entries at its ABORT record (else only the commit's subxid list does). */
    private final boolean discardAtSubxactAbort;
    private final long heapBudgetBytes;
    private final long heapFamilyBytes;

    /**
     * A family that has not gone to keyed state yet: most transactions begin and end between two checkpoints
     * and never touch RocksDB. Its entries by seq (null where a rolled-back savepoint's entry was discarded) and
     * its meta, laid out as the keyed meta. A family goes to RocksDB ({@link #spill}) when it grows past the family
     * limit, when the heap budget is used up, at PREPARE, and at every checkpoint (the barrier must find every
     * family in keyed state: the WAL after the checkpoint is re-read on restore, the heap is not).
     */
    private static final class HeapFamily {
        final java.util.ArrayList<ChangeEvent> entries = new java.util.ArrayList<>();
        final FamilyMeta meta;

        HeapFamily(FamilyMeta meta) {
            this.meta = meta;
        }
    }

    /** Whether a commit that drains nothing still says so ({@link DrainedCommit#orderOnly}). */
    private boolean orderMarkers;

    private transient Map<Integer, HeapFamily> heap;
    /** Only {@link XactBufferOperator} spills the heap before a barrier; run without it, nothing stays on the heap. */
    private transient boolean heapTier;
    private transient long heapBytes;
    private transient Counter familiesSpilled;

    private transient MapState<Long, ChangeEvent> entries;
    /** {next seq, first LSN, live entries}; null when the key has no buffered entries. */
    private transient ValueState<long[]> meta;
    /** GID of a prepared family; null when not prepared. */
    private transient ValueState<String> gid;
    private transient ListState<long[]> gaugeState;

    private transient long inFlight;
    private transient long preparedHeld;
    private transient DeferredDecoding deferred;

    /** Non-keyed index of the in-flight keys seen since open: xid → meta copy. Rebuilt lazily after a restore. */
    private transient InFlightIndex index;
    /** Key of the event being processed. */
    private transient int currentTop;

    private transient Counter prepares;
    private transient Counter commitPrepared;
    private transient Counter rollbackPrepared;
    private transient Counter commitsDrained;
    private transient Counter aborts;
    private transient Counter subxactAborts;
    private transient Counter changesDrained;
    private transient Counter changesDiscarded;
    private transient Counter preparedDropped;
    private transient Counter cutOff;

    /** @param pg connection for the type catalog that decodes deferred records at commit (null: fail on one) */
    public XactBuffer(PgConnectionConfig pg) {
        this(pg, true);
    }

    /**
     * @param discardAtSubxactAbort false leaves a rolled-back savepoint's entries in state until the family ends
     *     (the commit's subxid list still excludes them): for tests that the commit's list alone is right
     */
    public XactBuffer(PgConnectionConfig pg, boolean discardAtSubxactAbort) {
        this(pg, discardAtSubxactAbort, DEFAULT_HEAP_BYTES, DEFAULT_HEAP_FAMILY_BYTES);
    }

    /**
     * @param heapBudgetBytes estimated bytes of families kept on the heap before they go to RocksDB, for all keys
     *     of the subtask (0: every change goes to RocksDB at once)
     * @param heapFamilyBytes estimated bytes from which a single family goes to RocksDB
     */
    public XactBuffer(PgConnectionConfig pg, boolean discardAtSubxactAbort, long heapBudgetBytes, long heapFamilyBytes) {
        this.pg = pg;
        this.discardAtSubxactAbort = discardAtSubxactAbort;
        this.heapBudgetBytes = heapBudgetBytes;
        this.heapFamilyBytes = heapFamilyBytes;
    }

    /**
     * This buffer with an {@link DrainedCommit#orderOnly} end for every commit that drains nothing, for a
     * {@link CommitOrderOperator} behind it (which must see every commit sequence number to restore the order).
     */
    public XactBuffer withOrderMarkers() {
        this.orderMarkers = true;
        return this;
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) throws Exception {
        gaugeState = ctx.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("xact-buffer-gauges", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        inFlight = 0;
        preparedHeld = 0;
        if (ctx.isRestored()) {
            for (long[] g : gaugeState.get()) {
                inFlight += g[0];
                preparedHeld += g[1];
            }
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        gaugeState.update(List.of(new long[] {inFlight, preparedHeld}));
    }

    @Override
    public void open(OpenContext ctx) throws Exception {
        entries = getRuntimeContext().getMapState(
                new MapStateDescriptor<>("xact-entries", Types.LONG, ChangeEventTypeInfo.INSTANCE));
        meta = getRuntimeContext().getState(metaStateDescriptor());
        gid = getRuntimeContext().getState(gidStateDescriptor());
        MetricGroup g = getRuntimeContext().getMetricGroup().addGroup("xact_buffer");
        prepares = g.counter("prepares");
        commitPrepared = g.counter("commit_prepared");
        rollbackPrepared = g.counter("rollback_prepared");
        commitsDrained = g.counter("commits_drained");
        aborts = g.counter("aborts");
        subxactAborts = g.counter("subxact_aborts");
        changesDrained = g.counter("changes_drained");
        changesDiscarded = g.counter("changes_discarded");
        preparedDropped = g.counter("prepared_dropped");
        cutOff = g.counter("cut_off_transactions_discarded");
        familiesSpilled = g.counter("families_spilled");
        heap = new java.util.HashMap<>();
        heapBytes = 0;
        g.gauge("heap_families", () -> heap.size());
        g.gauge("heap_bytes", () -> heapBytes);
        g.gauge("in_flight_transactions", () -> inFlight);
        g.gauge("prepared_transactions_held", () -> preparedHeld);
        index = new InFlightIndex(g);
        deferred = new DeferredDecoding(pg);
    }

    @Override
    public void processElement(BufferEvent be, Context ctx, Collector<Drained> out) throws Exception {
        ChangeEvent e = be.event();
        if (be.isSnapshotRow()) {
            // committed before the stream's start point: nothing to hold; its _lsn is the snapshot's version
            if (e instanceof XactEvent t) {
                out.collect(new DrainedCatalog(0, 0, 0, 0, t.catalogChanges())); // an empty table
            } else {
                out.collect(new DrainedChange(0, ((RowChange) e).lsn(), 0, 0, e));
            }
            return;
        }
        currentTop = ctx.getCurrentKey();
        index.maybeLogSummary(inFlight);
        if (!(e instanceof XactEvent x)) {
            append(e, ctx.getCurrentKey());
            return;
        }
        XactRecord r = x.xact();
        int top = ctx.getCurrentKey();
        if (r instanceof XactCommit c) {
            boolean held = gid.value() != null;
            if (c.isPrepared()) {
                commitPrepared.inc();
            }
            drain(be, c, held ? gid.value() : null, out);
            if (held) {
                preparedHeld--;
            }
            clear();
        } else if (r instanceof XactAbort a) {
            if (a.isPrepared()) {
                rollbackPrepared.inc();
                if (gid.value() != null) {
                    preparedHeld--;
                }
                discardAll();
            } else if (a.xid() == top) {
                aborts.inc();
                discardAll();
            } else {
                subxactAborts.inc();
                if (discardAtSubxactAbort) {
                    discardSubtransactions(a, top);
                }
            }
        } else if (r instanceof XactPrepare p) {
            prepares.inc();
            HeapFamily h = heap.get(top);
            if (h != null) {
                spill(top, h); // a prepared family lives in keyed state: it must survive restarts
            }
            if (meta.value() != null && gid.value() == null) {
                // Held only when the family buffered something: a prepared transaction without replicated
                // changes (another database, other tables) has nothing to drain at COMMIT PREPARED.
                preparedHeld++;
                gid.update(p.gid() == null ? "" : p.gid());
                FamilyMeta m = storedMeta();
                m.prepared(p.preparedAt());
                meta.update(m.toState());
            }
        }
    }

    /** Keyed state {@code xact-meta} (long[]: next seq, first LSN, live entries, bytes, first arrival, prepared at). */
    public static ValueStateDescriptor<long[]> metaStateDescriptor() {
        return new ValueStateDescriptor<>("xact-meta", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);
    }

    /** Keyed state {@code xact-gid}: set exactly for the keys that hold a prepared family. */
    public static ValueStateDescriptor<String> gidStateDescriptor() {
        return new ValueStateDescriptor<>("xact-gid", Types.STRING);
    }

    /** What a key's {@code xact-gid} and {@code xact-meta} values say about its prepared family (gid non-null). */
    public static PreparedTransaction preparedTransaction(int xid, String gid, long[] meta) {
        FamilyMeta m = FamilyMeta.fromState(meta);
        return new PreparedTransaction(gid, xid, m == null ? 0 : m.live(), m == null ? 0 : m.firstLsn(),
                m != null && m.preparedAt() != 0 ? io.walshadow.xact.PgTimestamps.toInstant(m.preparedAt()) : null);
    }

    /**
     * The prepared family held under the backend's current key, or null. For {@link XactBufferOperator}, which
     * sets the key (outside of processElement) after open.
     */
    PreparedTransaction heldPrepared(int xid) throws Exception {
        String g = gid.value();
        return g == null ? null : preparedTransaction(xid, g, meta.value());
    }

    /**
     * Discards the prepared family under the backend's current key, as an operator's drop request asks: its
     * entries, meta and GID, and fixes the gauges. Its COMMIT / ROLLBACK PREPARED, if it ever comes, then finds
     * nothing to drain.
     */
    void dropPrepared(int xid) throws Exception {
        if (gid.value() == null) {
            throw new IllegalStateException("xid " + Integer.toUnsignedString(xid) + " holds no prepared transaction");
        }
        currentTop = xid;
        preparedHeld--;
        preparedDropped.inc();
        discardAll();
    }

    /**
     * Discards the family under the backend's current key, {@code xid}, when it is older than the running
     * transactions' horizon and not prepared: it ended without a commit or abort record (see
     * {@link io.walshadow.change.BufferEvent#runningXacts}). Returns whether it did.
     */
    boolean discardIfCutOff(int xid, int oldestRunningXid, long horizonLsn) throws Exception {
        if (!io.walshadow.xact.TransactionIds.precedes(xid, oldestRunningXid) || gid.value() != null) {
            return false;
        }
        currentTop = xid;
        HeapFamily h = heap.get(xid);
        FamilyMeta m = h != null ? h.meta : storedMeta();
        if (m == null) {
            return false;
        }
        LOG.warn("transaction {} ended without a commit or abort record (cut off by a PostgreSQL crash or immediate"
                + " shutdown; RUNNING_XACTS at {} has every xid below {} ended): discarding its {} buffered changes"
                + " (first LSN {})", Integer.toUnsignedString(xid), io.walshadow.wal.Lsn.format(horizonLsn),
                Integer.toUnsignedString(oldestRunningXid), m.live(), io.walshadow.wal.Lsn.format(m.firstLsn()));
        cutOff.inc();
        discardAll();
        return true;
    }

    /** Name of the state every family in keyed state has (spilled, or restored): the operator lists keys by it. */
    static String metaStateName() {
        return metaStateDescriptor().getName();
    }

    private boolean hasState() throws Exception {
        return heap.containsKey(currentTop) || meta.value() != null || gid.value() != null;
    }

    private void append(ChangeEvent e, int top) throws Exception {
        long bytes = estimateBytes(e);
        HeapFamily h = heap.get(top);
        if (h == null) {
            FamilyMeta m = storedMeta();
            if (heapTier && m == null && gid.value() == null && heapBytes + bytes <= heapBudgetBytes) {
                // a new family: on the heap until it ends, grows or a checkpoint comes
                h = new HeapFamily(FamilyMeta.first(e.lsn()));
                heap.put(top, h);
                inFlight++;
            } else {
                appendToState(e, top, m, bytes);
                return;
            }
        }
        h.entries.add(e);
        FamilyMeta m = h.meta;
        m.added(bytes);
        heapBytes += bytes;
        index.track(top, m);
        if (m.bytes() > heapFamilyBytes || heapBytes > heapBudgetBytes) {
            spill(top, h); // the growing family makes room: what stays on the heap stays small
        }
    }

    private void appendToState(ChangeEvent e, int top, FamilyMeta m, long bytes) throws Exception {
        if (m == null) {
            if (gid.value() == null) {
                inFlight++;
            } else {
                // Only a prepared family with nothing buffered yet (or WAL after PREPARE): still buffer it.
                LOG.warn("change at {} for prepared transaction {} ({})", e.lsn(), e.xid(), gid.value());
            }
            m = FamilyMeta.first(e.lsn());
        }
        entries.put(m.nextSeq(), e);
        m.added(bytes);
        meta.update(m.toState());
        index.track(top, m);
    }

    /** Moves the family of {@code top} (the backend's current key) from the heap to keyed state. */
    private void spill(int top, HeapFamily h) throws Exception {
        Map<Long, ChangeEvent> batch = new HashMap<>();
        for (int seq = 0; seq < h.entries.size(); seq++) {
            ChangeEvent e = h.entries.get(seq);
            if (e != null) {
                batch.put((long) seq, e);
            }
        }
        entries.putAll(batch);
        meta.update(h.meta.toState());
        heap.remove(top);
        heapBytes -= h.meta.bytes();
        familiesSpilled.inc();
    }

    /** Called by {@link XactBufferOperator}, which spills the heap families at every checkpoint. */
    void enableHeapTier() {
        heapTier = true;
    }

    /** Keys of the families on the heap (for {@link XactBufferOperator}, which spills them at a checkpoint). */
    java.util.Set<Integer> heapKeys() {
        return new java.util.HashSet<>(heap.keySet());
    }

    /** Moves the heap family of the backend's current key, {@code top}, to keyed state. */
    void spillHeapFamily(int top) throws Exception {
        HeapFamily h = heap.get(top);
        if (h != null) {
            spill(top, h);
        }
    }

    /** The family of the backend's current key as keyed state holds it (a copy), or null. */
    private FamilyMeta storedMeta() throws Exception {
        return FamilyMeta.fromState(meta.value());
    }

    /** A cheap estimate of an entry's heap size; not its serialized size. */
    static long estimateBytes(ChangeEvent e) {
        if (e instanceof DeferredRecord d) {
            return 48L + d.record().totalLength();
        }
        if (e instanceof RowChange r) {
            return 64L + estimateBytes(r.newValues()) + estimateBytes(r.oldValues());
        }
        if (e instanceof TruncateChange t) {
            return 48L + 16L * t.relations().size();
        }
        return 32L;
    }

    private static long estimateBytes(Object[] values) {
        if (values == null) {
            return 0;
        }
        long n = 16L + 8L * values.length;
        for (Object v : values) {
            if (v instanceof CharSequence cs) {
                n += 40L + cs.length();
            } else if (v instanceof byte[] b) {
                n += 16L + b.length;
            } else if (v != null) {
                n += 16L;
            }
        }
        return n;
    }

    private void drain(BufferEvent be, XactCommit c, String preparedGid, Collector<Drained> out) throws Exception {
        HeapFamily h = heap.get(currentTop);
        FamilyMeta m = h != null ? h.meta : storedMeta();
        List<CatalogChange> catalogChanges = ((XactEvent) be.event()).catalogChanges();
        boolean schemaChange = catalogChanges != null && !catalogChanges.isEmpty();
        long seqNo = be.commitSeq();
        long lsn = c.lsn();
        // Full xid from the decoder; epoch 0 when it had none (only tests that feed events by hand)
        long fullXid = be.fullXid() != 0 ? be.fullXid() : Integer.toUnsignedLong(c.xid());
        long time = c.xactTime();
        if (m == null && !schemaChange) {
            // Nothing of this family was buffered (read-only, or only tables not replicated) and no replicated
            // relation's schema changed: nothing to emit but the commit order's marker.
            if (orderMarkers) {
                out.collect(DrainedCommit.orderOnly(seqNo, lsn, fullXid, time));
            }
            return;
        }
        // by oid while draining (a name per row would cost a string per row), sorted names at the end
        Map<Integer, RelationDescriptor> touched = new HashMap<>();
        if (schemaChange) {
            // Catalog changes first: a sink applies DDL before any row of the commit (rows written before the DDL
            // still follow, with the descriptor they were written with).
            out.collect(new DrainedCatalog(seqNo, lsn, fullXid, time, catalogChanges, be.types()));
            for (CatalogChange ch : catalogChanges) {
                RelationDescriptor d = ch.after() != null ? ch.after() : ch.before();
                if (d != null) {
                    touched.put(d.relOid(), d);
                }
            }
        }
        long drained = 0;
        long discarded = 0;
        if (m != null) {
            Set<Integer> committed = new HashSet<>();
            for (int xid : c.allXids().toIntArray()) {
                committed.add(xid);
            }
            Map<io.walshadow.wal.RelFileLocator, RelationDescriptor> descriptors = be.deferredDescriptors();
            // the types as of the commit, which the decoder sent along (an event of an earlier build has none)
            RowDecoder commitTypes = DeferredDecoding.forCommit(be);
            long prev = -1;
            for (Map.Entry<Long, ChangeEvent> en : h != null ? heapEntries(h) : inSeqOrder(m.nextSeq())) {
                long seq = en.getKey();
                if (seq <= prev) {
                    throw new IllegalStateException("transaction buffer state of xid " + c.xid() + " is not iterated "
                            + "in key order (entry " + seq + " after " + prev + "): the buffer needs the RocksDB backend");
                }
                prev = seq;
                ChangeEvent ev = en.getValue();
                if (!committed.contains(ev.xid())) {
                    discarded++;
                    continue;
                }
                List<? extends ChangeEvent> decoded;
                if (ev instanceof DeferredRecord d && WalChangeDecoder.isDeferredTruncate(d)) {
                    // A TRUNCATE the family's own DDL made ambiguous: its relations as of the commit, by oid.
                    decoded = WalChangeDecoder.truncateChanges(d.record(),
                            (db, relOid) -> descriptors.get(WalChangeDecoder.truncatedRelationKey(db, relOid)));
                } else if (ev instanceof DeferredRecord d) {
                    RelationDescriptor desc = descriptors.get(d.rel());
                    // null: the relation did not survive the commit, or is not replicated
                    decoded = desc == null ? List.of()
                            : deferred.decode(d, desc, commitTypes);
                } else {
                    decoded = List.of(ev);
                }
                if (decoded.isEmpty()) {
                    discarded++;
                    continue;
                }
                for (ChangeEvent change : decoded) {
                    if (change instanceof RowChange r) {
                        touched.putIfAbsent(r.relOid(), r.descriptor());
                    } else if (change instanceof TruncateChange t) {
                        t.relations().forEach(rel -> touched.putIfAbsent(rel.relOid(), rel));
                    }
                    out.collect(new DrainedChange(seqNo, lsn, fullXid, time, change));
                    drained++;
                }
            }
        }
        Set<String> relations = new TreeSet<>();
        touched.values().forEach(d -> relations.add(d.qualifiedName()));
        out.collect(new DrainedCommit(seqNo, lsn, fullXid, time, preparedGid, drained, m == null ? 0 : m.firstLsn(),
                List.copyOf(relations), schemaChange));
        commitsDrained.inc();
        changesDrained.inc(drained);
        changesDiscarded.inc(discarded);
    }

    /** A heap family's entries in seq order (the discarded ones left out). */
    private static List<Map.Entry<Long, ChangeEvent>> heapEntries(HeapFamily h) {
        List<Map.Entry<Long, ChangeEvent>> l = new java.util.ArrayList<>(h.entries.size());
        for (int seq = 0; seq < h.entries.size(); seq++) {
            if (h.entries.get(seq) != null) {
                l.add(Map.entry((long) seq, h.entries.get(seq)));
            }
        }
        return l;
    }

    /**
     * The key's entries in seq order, lazily: by point lookups for a small family ({@link #POINT_LOOKUP_MAX_ENTRIES};
     * a seq without entry was discarded at a subtransaction's abort), else RocksDB's iteration.
     */
    private Iterable<Map.Entry<Long, ChangeEvent>> inSeqOrder(long nextSeq) throws Exception {
        if (nextSeq > POINT_LOOKUP_MAX_ENTRIES) {
            return entries.entries();
        }
        return () -> new Iterator<>() {
            private long seq = -1;
            private ChangeEvent next = advance();

            private ChangeEvent advance() {
                try {
                    while (++seq < nextSeq) {
                        ChangeEvent e = entries.get(seq);
                        if (e != null) {
                            return e;
                        }
                    }
                    return null;
                } catch (Exception e) {
                    throw new org.apache.flink.util.FlinkRuntimeException("reading transaction buffer entry " + seq, e);
                }
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public Map.Entry<Long, ChangeEvent> next() {
                if (next == null) {
                    throw new java.util.NoSuchElementException();
                }
                Map.Entry<Long, ChangeEvent> en = Map.entry(seq, next);
                next = advance();
                return en;
            }
        };
    }

    private void discardAll() throws Exception {
        HeapFamily h = heap.get(currentTop);
        FamilyMeta m = h != null ? h.meta : storedMeta();
        if (m != null) {
            changesDiscarded.inc(m.live());
        }
        clear();
    }

    /** ROLLBACK TO SAVEPOINT: drop the entries of the aborted subtransaction and of its children. */
    private void discardSubtransactions(XactAbort a, int top) throws Exception {
        Set<Integer> aborted = new HashSet<>();
        for (int xid : a.allXids().toIntArray()) {
            aborted.add(xid);
        }
        HeapFamily h = heap.get(top);
        if (h != null) {
            long removed = 0;
            long removedBytes = 0;
            for (int seq = 0; seq < h.entries.size(); seq++) {
                ChangeEvent ev = h.entries.get(seq);
                if (ev != null && aborted.contains(ev.xid())) {
                    h.entries.set(seq, null);
                    removed++;
                    removedBytes += estimateBytes(ev);
                }
            }
            changesDiscarded.inc(removed);
            h.meta.removed(removed, removedBytes);
            heapBytes = Math.max(0, heapBytes - removedBytes);
            index.track(top, h.meta);
            return;
        }
        FamilyMeta m = storedMeta();
        if (m == null) {
            return;
        }
        long removed = 0;
        long removedBytes = 0;
        Iterator<Map.Entry<Long, ChangeEvent>> it = entries.iterator();
        while (it.hasNext()) {
            ChangeEvent ev = it.next().getValue();
            if (aborted.contains(ev.xid())) {
                it.remove();
                removed++;
                removedBytes += estimateBytes(ev);
            }
        }
        changesDiscarded.inc(removed);
        m.removed(removed, removedBytes);
        meta.update(m.toState());
        index.track(top, m); // the key keeps its meta (and next seq) even when nothing is left: the top is still open
    }

    private void clear() throws Exception {
        HeapFamily h = heap.remove(currentTop);
        if (h != null) {
            // never in keyed state (spilling removes it from the heap): nothing there to delete
            inFlight--;
            heapBytes -= h.meta.bytes();
            index.track(currentTop, null);
            return;
        }
        if (hasState()) {
            inFlight--;
        }
        index.track(currentTop, null);
        FamilyMeta m = storedMeta();
        // Entries exist only under a meta (append writes both, this removes both). Point deletes for a small
        // family: RocksDB's iteration in MapState.clear() would scan the tombstones past the family's last entry.
        if (m != null && m.nextSeq() <= POINT_LOOKUP_MAX_ENTRIES) {
            for (long seq = 0; seq < m.nextSeq(); seq++) {
                entries.remove(seq);
            }
        } else if (m != null) {
            entries.clear();
        }
        meta.clear();
        gid.clear();
    }
}
