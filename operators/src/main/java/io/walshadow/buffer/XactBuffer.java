package io.walshadow.buffer;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.BufferEvent;
import io.walshadow.change.ChangeEvent;
import io.walshadow.change.ColumnDecodeException;
import io.walshadow.change.DeferredRecord;
import io.walshadow.change.Drained;
import io.walshadow.change.DrainedChange;
import io.walshadow.change.DrainedCommit;
import io.walshadow.change.RowChange;
import io.walshadow.change.RowDecoder;
import io.walshadow.change.TruncateChange;
import io.walshadow.change.WalChangeDecoder;
import io.walshadow.change.XactEvent;
import io.walshadow.heap.HeapChange;
import io.walshadow.heap.HeapRecordDecoder;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.state.ChangeEventTypeInfo;
import io.walshadow.types.SqlTypeCatalog;
import io.walshadow.types.ValueDecoder;
import io.walshadow.xact.XactAbort;
import io.walshadow.xact.XactCommit;
import io.walshadow.xact.XactPrepare;
import io.walshadow.xact.XactRecord;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 *       iterate in key order (the heap backend).
 *   <li>COMMIT (and COMMIT PREPARED): emits, in seq order, the entries whose xid is the top xid or one of the commit
 *       record's subxids (authoritative: rows of rolled-back savepoints never come out); deferred records are
 *       decoded here with the descriptor the decoder resolved as of the commit (a deferred TRUNCATE with its
 *       relations by oid, {@link WalChangeDecoder#truncatedRelationKey}); then one {@link DrainedCommit};
 *       the key's state is cleared. A commit of a family that buffered nothing emits only a marker, and only
 *       when it published catalog changes (DDL).
 *   <li>ABORT of the top: clears the key. ABORT of a subtransaction (ROLLBACK TO SAVEPOINT): discards the entries
 *       of the subtransaction and its children now (the commit's list would leave them out anyway).
 *   <li>PREPARE: the state stays, with the GID (a family that buffered nothing is only counted); COMMIT PREPARED drains it, ROLLBACK PREPARED clears it. All of it
 *       is keyed state, so it survives restores from checkpoints and savepoints.
 * </ul>
 *
 * <p>Metrics (group {@code xact_buffer}): counters {@code prepares}, {@code commit_prepared},
 * {@code rollback_prepared}, {@code commits_drained}, {@code aborts}, {@code subxact_aborts},
 * {@code changes_drained}, {@code changes_discarded}; gauges {@code in_flight_transactions} (keys holding state)
 * and {@code prepared_transactions_held}. The two gauges are kept in operator state (summed over the restored
 * entries; exact at parallelism 1, their sum over subtasks stays exact after a rescale).
 */
public final class XactBuffer extends KeyedProcessFunction<Integer, BufferEvent, Drained>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(XactBuffer.class);

    /** Index of the per-key meta values. */
    private static final int NEXT_SEQ = 0;
    private static final int FIRST_LSN = 1;
    private static final int LIVE = 2;

    private final PgConnectionConfig pg;
    /** Discard a rolled-back savepoint's entries at its ABORT record (else only the commit's subxid list does). */
    private final boolean discardAtSubxactAbort;

    private transient MapState<Long, ChangeEvent> entries;
    /** {next seq, first LSN, live entries}; null when the key has no buffered entries. */
    private transient ValueState<long[]> meta;
    /** GID of a prepared family; null when not prepared. */
    private transient ValueState<String> gid;
    private transient ListState<long[]> gaugeState;

    private transient long inFlight;
    private transient long preparedHeld;
    private transient RowDecoder rowDecoder;

    private transient Counter prepares;
    private transient Counter commitPrepared;
    private transient Counter rollbackPrepared;
    private transient Counter commitsDrained;
    private transient Counter aborts;
    private transient Counter subxactAborts;
    private transient Counter changesDrained;
    private transient Counter changesDiscarded;

    /** @param pg connection for the type catalog that decodes deferred records at commit (null: fail on one) */
    public XactBuffer(PgConnectionConfig pg) {
        this(pg, true);
    }

    /**
     * @param discardAtSubxactAbort false leaves a rolled-back savepoint's entries in state until the family ends
     *     (the commit's subxid list still excludes them): for tests that the commit's list alone is right
     */
    public XactBuffer(PgConnectionConfig pg, boolean discardAtSubxactAbort) {
        this.pg = pg;
        this.discardAtSubxactAbort = discardAtSubxactAbort;
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
        meta = getRuntimeContext().getState(
                new ValueStateDescriptor<>("xact-meta", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        gid = getRuntimeContext().getState(new ValueStateDescriptor<>("xact-gid", Types.STRING));
        if (pg != null) {
            rowDecoder = loadRowDecoder();
        }
        MetricGroup g = getRuntimeContext().getMetricGroup().addGroup("xact_buffer");
        prepares = g.counter("prepares");
        commitPrepared = g.counter("commit_prepared");
        rollbackPrepared = g.counter("rollback_prepared");
        commitsDrained = g.counter("commits_drained");
        aborts = g.counter("aborts");
        subxactAborts = g.counter("subxact_aborts");
        changesDrained = g.counter("changes_drained");
        changesDiscarded = g.counter("changes_discarded");
        g.gauge("in_flight_transactions", () -> inFlight);
        g.gauge("prepared_transactions_held", () -> preparedHeld);
    }

    private RowDecoder loadRowDecoder() throws SQLException {
        try (Connection c = pg.openSql()) {
            return new RowDecoder(new ValueDecoder(SqlTypeCatalog.load(c)));
        }
    }

    @Override
    public void processElement(BufferEvent be, Context ctx, Collector<Drained> out) throws Exception {
        ChangeEvent e = be.event();
        if (!(e instanceof XactEvent x)) {
            append(e);
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
                    discardSubtransactions(a);
                }
            }
        } else if (r instanceof XactPrepare p) {
            prepares.inc();
            if (meta.value() != null && gid.value() == null) {
                // Held only when the family buffered something: a prepared transaction without replicated
                // changes (another database, other tables) has nothing to drain at COMMIT PREPARED.
                preparedHeld++;
                gid.update(p.gid() == null ? "" : p.gid());
            }
        }
    }

    private boolean hasState() throws Exception {
        return meta.value() != null || gid.value() != null;
    }

    private void append(ChangeEvent e) throws Exception {
        long[] m = meta.value();
        if (m == null) {
            if (gid.value() == null) {
                inFlight++;
            } else {
                // Only a prepared family with nothing buffered yet (or WAL after PREPARE): still buffer it.
                LOG.warn("change at {} for prepared transaction {} ({})", e.lsn(), e.xid(), gid.value());
            }
            m = new long[] {0, e.lsn(), 0};
        }
        entries.put(m[NEXT_SEQ], e);
        m[NEXT_SEQ]++;
        m[LIVE]++;
        meta.update(m);
    }

    private void drain(BufferEvent be, XactCommit c, String preparedGid, Collector<Drained> out) throws Exception {
        long[] m = meta.value();
        List<CatalogChange> catalogChanges = ((XactEvent) be.event()).catalogChanges();
        if (m == null) {
            // Nothing of this family was buffered (read-only, or only tables not replicated): a marker only when
            // the commit changed replicated relations' schema (the DDL must apply in commit order).
            if (catalogChanges != null && !catalogChanges.isEmpty()) {
                out.collect(new DrainedCommit(be.commitSeq(), c.lsn(), c.xid(), c.xactTime(), preparedGid, 0, 0,
                        catalogChanges));
                commitsDrained.inc();
            }
            return;
        }
        Set<Integer> committed = new HashSet<>();
        for (int xid : c.allXids().toIntArray()) {
            committed.add(xid);
        }
        Map<io.walshadow.wal.RelFileLocator, RelationDescriptor> descriptors = be.deferredDescriptors();
        long seqNo = be.commitSeq();
        long lsn = c.lsn();
        int xid = c.xid();
        long time = c.xactTime();
        long prev = -1;
        long drained = 0;
        long discarded = 0;
        for (Map.Entry<Long, ChangeEvent> en : entries.entries()) {
            long seq = en.getKey();
            if (seq <= prev) {
                throw new IllegalStateException("transaction buffer state of xid " + xid + " is not iterated in "
                        + "key order (entry " + seq + " after " + prev + "): the buffer needs the RocksDB backend");
            }
            prev = seq;
            ChangeEvent ev = en.getValue();
            if (!committed.contains(ev.xid())) {
                discarded++;
                continue;
            }
            if (ev instanceof DeferredRecord d && WalChangeDecoder.isDeferredTruncate(d)) {
                // A TRUNCATE the family's own DDL made ambiguous: its relations as of the commit, by oid.
                List<TruncateChange> truncates = WalChangeDecoder.truncateChanges(d.record(),
                        (db, relOid) -> descriptors.get(WalChangeDecoder.truncatedRelationKey(db, relOid)));
                if (truncates.isEmpty()) {
                    discarded++; // none of its relations survived the commit, or none is replicated
                    continue;
                }
                for (TruncateChange t : truncates) {
                    out.collect(new DrainedChange(seqNo, lsn, xid, time, t));
                    drained++;
                }
            } else if (ev instanceof DeferredRecord d) {
                RelationDescriptor desc = descriptors.get(d.rel());
                if (desc == null) {
                    discarded++; // the relation did not survive the commit, or is not replicated
                    continue;
                }
                for (RowChange row : decodeDeferred(d, desc)) {
                    out.collect(new DrainedChange(seqNo, lsn, xid, time, row));
                    drained++;
                }
            } else {
                out.collect(new DrainedChange(seqNo, lsn, xid, time, ev));
                drained++;
            }
        }
        out.collect(new DrainedCommit(seqNo, lsn, xid, time, preparedGid, drained, m[FIRST_LSN], catalogChanges));
        commitsDrained.inc();
        changesDrained.inc(drained);
        changesDiscarded.inc(discarded);
    }

    private List<RowChange> decodeDeferred(DeferredRecord d, RelationDescriptor desc) throws SQLException {
        if (rowDecoder == null) {
            throw new IllegalStateException("deferred record at " + d.lsn() + " but the buffer has no type catalog");
        }
        try {
            return decodeWith(rowDecoder, d, desc);
        } catch (ColumnDecodeException e) {
            // Types created after open() (an enum, a composite): retry once with the current type catalog.
            rowDecoder = loadRowDecoder();
            return decodeWith(rowDecoder, d, desc);
        }
    }

    private static List<RowChange> decodeWith(RowDecoder rows, DeferredRecord d, RelationDescriptor desc) {
        List<HeapChange> changes = HeapRecordDecoder.decode(d.record());
        List<RowChange> out = new java.util.ArrayList<>(changes.size());
        for (HeapChange hc : changes) {
            out.add(rows.decode(hc, desc));
        }
        return out;
    }

    private void discardAll() throws Exception {
        long[] m = meta.value();
        if (m != null) {
            changesDiscarded.inc(m[LIVE]);
        }
        clear();
    }

    /** ROLLBACK TO SAVEPOINT: drop the entries of the aborted subtransaction and of its children. */
    private void discardSubtransactions(XactAbort a) throws Exception {
        long[] m = meta.value();
        if (m == null) {
            return;
        }
        Set<Integer> aborted = new HashSet<>();
        for (int xid : a.allXids().toIntArray()) {
            aborted.add(xid);
        }
        long removed = 0;
        Iterator<Map.Entry<Long, ChangeEvent>> it = entries.iterator();
        while (it.hasNext()) {
            if (aborted.contains(it.next().getValue().xid())) {
                it.remove();
                removed++;
            }
        }
        changesDiscarded.inc(removed);
        m[LIVE] -= removed;
        meta.update(m); // the key keeps its meta (and next seq) even when nothing is left: the top is still open
    }

    private void clear() throws Exception {
        if (hasState()) {
            inFlight--;
        }
        entries.clear();
        meta.clear();
        gid.clear();
    }
}
