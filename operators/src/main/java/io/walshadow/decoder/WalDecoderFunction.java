package io.walshadow.decoder;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.CatalogHistorySerializer;
import io.walshadow.catalog.CatalogSnapshot;
import io.walshadow.catalog.CatalogSource;
import io.walshadow.catalog.shadow.ShadowCatalog;
import io.walshadow.catalog.shadow.ShadowCatalogSerializer;
import io.walshadow.catalog.shadow.ShadowCatalogSource;
import io.walshadow.catalog.shadow.ShadowTypes;
import io.walshadow.catalog.CatalogTracker;
import io.walshadow.catalog.DescriptorHistory;
import io.walshadow.catalog.CatalogAheadException;
import io.walshadow.catalog.FilterChange;
import io.walshadow.change.BufferEvent;
import io.walshadow.change.ColumnDecodeException;
import io.walshadow.change.RowDecoder;
import io.walshadow.change.WalChangeDecoder;
import io.walshadow.change.XactEvent;
import io.walshadow.pg.JdbcCatalogSource;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.pg.TypeCatalogLoader;
import io.walshadow.snapshot.StartPoint;
import io.walshadow.types.UndecodableColumns;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.XLogRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decoder stage: WAL records in, change events out, in WAL order. Runs with parallelism 1 right after the
 * source (it must see every commit boundary in order). Its catalog history is operator state, so a restore
 * decodes what it re-reads with the descriptors it had, not with whatever the live catalog says by then.
 *
 * <p>On the very first start the history is seeded from the live catalog: the snapshot is taken before the
 * insert position is read, and the history answers from that position on; records before it are skipped and
 * counted ({@code decoder_skipped_before_history}). Restored with another table filter, it schedules the change at
 * the build's start point (where the snapshot source copies the tables it newly includes) and makes it when the
 * stream gets there ({@link CatalogTracker#reach}).
 */
public final class WalDecoderFunction extends ProcessFunction<XLogRecord, BufferEvent> implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(WalDecoderFunction.class);
    /**
     * Version of this operator's own state layout (the history bytes carry their own version inside). From 5 on,
     * everything after the version is LZ4-compressed: Flink writes operator state whole into every checkpoint, and
     * catalog tuples (names, repeated attribute rows) compress several times over.
     */
    static final int STATE_VERSION = 5;

    private final PgConnectionConfig pg;
    private final String include;
    private final String exclude;
    private final StartPoint start;
    /** The catalog bootstrap of a new job (gzipped shadow), null when the job is restored from state. */
    private final byte[] catalogBootstrap;
    /** What to do with columns whose type has no decoder ({@code types.undecodable}). */
    private UndecodableColumns undecodable = UndecodableColumns.FAIL;
    private boolean partitionRoots;
    /** Keys that reach each buffer subtask once ({0} for one subtask: the horizon's own key). */
    private int[] runningXactsKeys = {0};

    private transient ListState<byte[]> state;
    private transient DescriptorHistory restoredHistory;
    private transient Set<RelFileLocator> restoredCreated;
    private transient Map<Integer, Set<Integer>> restoredAltered;
    private transient Map<Integer, Integer> restoredParents;
    private transient Map<Integer, Set<RelFileLocator>> restoredDeferred;
    private transient long restoredNextCommitSeq;
    /** Full-xid reference from the state (v3), 0 when restored from an older state. */
    private transient long restoredXidReference;
    /** The catalog shadow from the state (v4), null in an earlier build's state. */
    private transient ShadowCatalog restoredShadow;
    private transient ShadowCatalog shadow;
    /** The newest record decoded: a restore re-reads from past it, so no lookup goes below it again. */
    private transient long lastRecordLsn;
    private transient long typesVersion;
    /** The start snapshot's xmax (a full xid), from {@link #seed}. */
    private transient long seedXmax;
    private transient Connection catalogConnection;
    private transient WalChangeDecoder decoder;
    private transient Counter columnErrors;
    private transient Counter catalogAheadFailures;

    public WalDecoderFunction(PgConnectionConfig pg, String include, String exclude) {
        this(pg, include, exclude, null);
    }

    /**
     * @param start where a fresh decoder's catalog history begins (the initial snapshot's point); null: here and
     *     now, at the first start
     */
    public WalDecoderFunction(PgConnectionConfig pg, String include, String exclude, StartPoint start) {
        this(pg, include, exclude, start, null);
    }

    /**
     * @param catalogBootstrap a new job's catalog as of {@code start} ({@link StartPoint#bootstrap}); null for a job
     *     restored from state (then it is not needed)
     */
    public WalDecoderFunction(PgConnectionConfig pg, String include, String exclude, StartPoint start,
                              byte[] catalogBootstrap) {
        this.start = start;
        this.catalogBootstrap = catalogBootstrap;
        this.pg = pg;
        this.include = include == null ? "" : include;
        this.exclude = exclude == null ? "" : exclude;
        CatalogFilter.parse(this.include, this.exclude); // fail at submission on a malformed pattern
    }

    /** This decoder with partitions replicated through their roots, or as tables of their own (the default). */
    public WalDecoderFunction withPartitionRoots(boolean roots) {
        this.partitionRoots = roots;
        return this;
    }

    /**
     * This decoder in front of a transaction buffer of {@code parallelism} subtasks (keyed by top-level xid over
     * {@code maxParallelism} key groups): the running-transactions horizon goes to each of them.
     */
    public WalDecoderFunction withBufferParallelism(int parallelism, int maxParallelism) {
        this.runningXactsKeys = BufferRouting.keyPerSubtask(parallelism, maxParallelism);
        return this;
    }

    /** This decoder with the policy for columns whose type has no decoder (default: fail). */
    public WalDecoderFunction withUndecodable(UndecodableColumns policy) {
        this.undecodable = policy;
        return this;
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) throws Exception {
        state = ctx.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("catalog-history", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        if (ctx.isRestored()) {
            for (byte[] b : state.get()) {
                readState(b);
            }
        }
    }

    @Override
    public void open(OpenContext ctx) throws Exception {
        CatalogFilter filter = CatalogFilter.parse(include, exclude).withPartitionRoots(partitionRoots);
        CatalogTracker tracker;
        if (restoredShadow != null) {
            shadow = restoredShadow;
            tracker = restore(filter, new ShadowCatalogSource(shadow, filter));
        } else if (restoredHistory != null) {
            // an earlier build's state: its history goes on from the live catalog, as that build did
            LOG.warn("the restored decoder state has no catalog shadow (written by an earlier build): its catalog "
                    + "history continues from the live catalog, which DDL the job has not reached yet can make "
                    + "ambiguous (CatalogAheadException); start the job afresh to follow the catalog from the WAL");
            catalogConnection = pg.openSql();
            tracker = restore(filter, new JdbcCatalogSource(catalogConnection, filter));
        } else {
            if (catalogBootstrap == null || start == null) {
                throw new IllegalStateException("a new job needs the catalog bootstrap taken when it was built "
                        + "(StartPoint.bootstrap); this decoder was built without one");
            }
            shadow = ShadowCatalogSerializer.fromCompressed(catalogBootstrap);
            seedXmax = start.runningXids().xmax();
            tracker = CatalogTracker.seedAt(filter, new ShadowCatalogSource(shadow, filter), shadow.dbOid(),
                    shadow.startLsn());
            LOG.info("catalog history starts at {} from the catalog bootstrap ({} catalog tuples), followed from the "
                    + "WAL from the redo point {}", Lsn.format(shadow.startLsn()), shadow.tuplesHeld(),
                    Lsn.format(shadow.redoLsn()));
        }
        decoder = new WalChangeDecoder(tracker, rowDecoder(), shadow);
        decoder.onFilterChange(changes -> LOG.info("catalog filter is now {}: {}", tracker.filter().spec(),
                describe(changes)));
        if (restoredCreated != null) {
            decoder.pendingCreated().addAll(restoredCreated);
            decoder.pendingAltered().putAll(restoredAltered);
            decoder.pendingSubxactParents().putAll(restoredParents);
            decoder.pendingDeferred().putAll(restoredDeferred);
            decoder.restoreNextCommitSeq(restoredNextCommitSeq);
        }
        if (restoredXidReference != 0) {
            decoder.restoreXidReference(restoredXidReference);
        } else if (restoredHistory != null) {
            // State from before the reference existed: the server's next xid is within 2^31 of anything the
            // stream still commits (PostgreSQL refuses to run 2^31 xids past its oldest unfrozen one).
            decoder.restoreXidReference(currentXmax());
        } else {
            decoder.restoreXidReference(seedXmax);
        }
        registerMetrics(getRuntimeContext().getMetricGroup().addGroup("decoder"), tracker);
    }

    /** Whether the restored history follows a relation that is a partition (the live catalog's word without a shadow). */
    private boolean tracksPartitions(DescriptorHistory h, CatalogSource loader) throws SQLException {
        if (!(loader instanceof ShadowCatalogSource shadow)) {
            StringBuilder oids = new StringBuilder("{");
            for (int rel : h.trackedRelations()) {
                oids.append(oids.length() == 1 ? "" : ",").append(Integer.toUnsignedString(rel));
            }
            try (java.sql.PreparedStatement ps = catalogConnection.prepareStatement(
                    "SELECT EXISTS (SELECT 1 FROM pg_class WHERE oid = ANY(?::oid[]) AND relispartition)")) {
                ps.setString(1, oids.append('}').toString());
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getBoolean(1);
                }
            }
        }
        for (int rel : h.trackedRelations()) {
            if (shadow.isPartition(rel)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A restored history; when the configured filter is not the one the history ends with, the change is scheduled
     * at the build's start point (the snapshot source copies the newly included tables as of the same point).
     */
    private CatalogTracker restore(CatalogFilter filter, CatalogSource loader) throws SQLException {
        DescriptorHistory h = restoredHistory;
        FilterChange change = null;
        boolean wasRoots = CatalogFilter.fromSpec(h.finalFilterSpec()).partitionRoots();
        if (wasRoots != filter.partitionRoots() && tracksPartitions(h, loader)) {
            // the destinations hold the partitions' rows one way: switching would leave them there and start over
            // the other way without the rows before the restore
            throw new org.apache.flink.runtime.execution.SuppressRestartsException(new IllegalStateException(
                    "tables.partitions is " + (filter.partitionRoots() ? "root" : "leaf") + " but the restored job"
                    + " replicates partitions " + (wasRoots ? "through their roots (root)" : "as tables of their own"
                    + " (leaf, as builds before the setting did)") + ": pass --tables.partitions "
                    + (wasRoots ? "root" : "leaf") + " to go on, or start the job afresh (new slot and sink id) to"
                    + " switch"));
        }
        if (!filter.spec().equals(h.finalFilterSpec())) {
            StartPoint at = startPoint();
            change = new FilterChange(filter.spec(), at.lsn(), at.runningXids());
        }
        CatalogTracker t = CatalogTracker.restore(filter, loader, h, change);
        LOG.info("catalog history restored: {} versions, boundary {}, filter {}{}", h.versionCount(),
                Lsn.format(h.lastBoundaryLsn()), h.filterSpec(), h.pendingFilters().isEmpty() ? ""
                        : "; filter changes scheduled: " + h.pendingFilters());
        return t;
    }

    /** The build's start point, or (built without one) here and now. */
    private StartPoint startPoint() throws SQLException {
        if (start != null) {
            return start;
        }
        try (Connection c = pg.openSql()) {
            return StartPoint.now(c);
        }
    }

    private static String describe(List<io.walshadow.catalog.CatalogChange> changes) {
        StringBuilder in = new StringBuilder();
        StringBuilder out = new StringBuilder();
        for (io.walshadow.catalog.CatalogChange c : changes) {
            if (c.added() && c.after().relkind() == 'r') {
                in.append(in.length() == 0 ? "" : ", ").append(c.after().qualifiedName());
            } else if (c.before() != null && c.before().relkind() == 'r' && c.after() == null) {
                out.append(out.length() == 0 ? "" : ", ").append(c.before().qualifiedName());
            }
        }
        return "now replicated: " + (in.length() == 0 ? "none" : in) + "; no longer replicated: "
                + (out.length() == 0 ? "none" : out);
    }

    /** The server's next full xid ({@code pg_current_snapshot()}'s xmax). */
    private long currentXmax() throws SQLException {
        try (Connection c = pg.openSql(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_current_snapshot()::text")) {
            rs.next();
            return CatalogSnapshot.Xids.parse(rs.getString(1)).xmax();
        }
    }

    /**
     * Types as of the stream's position, from the catalog shadow; in an earlier build's state, from the live
     * catalog on a connection of its own (the {@link JdbcCatalogSource}'s connection runs its own transactions).
     */
    private RowDecoder rowDecoder() throws SQLException {
        if (shadow != null) {
            ShadowTypes types = new ShadowTypes(shadow);
            typesVersion = types.version();
            return countedRowDecoder(new ValueDecoder(types));
        }
        try (Connection c = pg.openSql()) {
            return countedRowDecoder(new ValueDecoder(TypeCatalogLoader.load(c)));
        }
    }

    /** A new row decoder; the counts of the one it replaces carry over (the gauges show the sum since start). */
    private RowDecoder countedRowDecoder(ValueDecoder values) {
        if (rows != null) {
            skippedBefore += rows.valuesSkipped();
            rawBefore += rows.valuesRaw();
        }
        rows = new RowDecoder(values, undecodable);
        return rows;
    }

    private transient RowDecoder rows;
    private transient long skippedBefore;
    private transient long rawBefore;

    private transient volatile long commitLagMs = -1;
    /** Size and write time of the decoder's state at the last checkpoint (-1 before the first). */
    private transient volatile long stateBytes = -1;
    private transient volatile long stateWriteMs = -1;
    private transient org.apache.flink.metrics.Meter recordsPerSecond;
    private transient org.apache.flink.metrics.Meter changesPerSecond;

    /**
     * Says, once each, that a table attached as a partition brought rows the WAL does not hold (issue 26, S4): its
     * catalog change says so, and the sink requests their copy from PostgreSQL.
     */
    private void noteAttachedWithoutHistory() {
        io.walshadow.catalog.CatalogCounters c = catalogCounters;
        if (c != null && c.partitionsAttachedWithoutHistory() != attachedWithoutHistorySeen) {
            attachedWithoutHistorySeen = c.partitionsAttachedWithoutHistory();
            LOG.info("table attached as a partition: {}; the job did not replicate it on its own before, so the rows"
                    + " it held then are not in the WAL: the sink requests their copy from PostgreSQL (counted in"
                    + " decoder.catalog_partitions_attached_without_history)", c.lastPartitionAttachedWithoutHistory());
        }
    }

    private transient long attachedWithoutHistorySeen;
    private transient io.walshadow.catalog.CatalogCounters catalogCounters;

    private void registerMetrics(MetricGroup group, CatalogTracker tracker) {
        catalogCounters = tracker.counters();
        columnErrors = group.counter("decoder_column_errors");
        catalogAheadFailures = group.counter("decoder_catalog_ahead_failures");
        for (String name : decoder.counters().asMap().keySet()) {
            group.gauge(name, () -> decoder.counters().asMap().get(name));
        }
        for (String name : tracker.counters().asMap().keySet()) {
            group.gauge(name, () -> tracker.counters().asMap().get(name));
        }
        if (shadow != null) {
            for (String name : shadow.counters().asMap().keySet()) {
                group.gauge(name, () -> shadow.counters().asMap().get(name));
            }
            group.gauge("catalog_shadow_tuples", () -> shadow.tuplesHeld());
            group.gauge("catalog_shadow_transactions_in_progress", () -> shadow.transactionsInProgress());
        }
        // Seconds behind the source: how old the newest commit was when the decoder reached it (does not grow while
        // the source is idle; the source's lag_bytes tells an idle stream from a stalled one).
        group.gauge("commit_lag_ms", () -> commitLagMs);
        // values of columns without a decoder left out or written as hex (types.undecodable skip / raw)
        group.gauge("values_skipped", () -> skippedBefore + (rows == null ? 0 : rows.valuesSkipped()));
        group.gauge("values_raw", () -> rawBefore + (rows == null ? 0 : rows.valuesRaw()));
        // the catalog shadow and history are written whole at each checkpoint: what that costs
        group.gauge("catalog_state_bytes", () -> stateBytes);
        group.gauge("catalog_state_write_ms", () -> stateWriteMs);
        recordsPerSecond = group.meter("records_per_second", new org.apache.flink.metrics.MeterView(60));
        changesPerSecond = group.meter("changes_per_second", new org.apache.flink.metrics.MeterView(60));
    }

    @Override
    public void processElement(XLogRecord record, Context ctx, Collector<BufferEvent> out) throws Exception {
        List<BufferEvent> events;
        try {
            events = decoder.decodeForBuffer(record);
            noteAttachedWithoutHistory();
        } catch (ColumnDecodeException | CatalogAheadException e) {
            // Fail closed: the job restarts from its checkpoint and meets the same record again; the counters
            // show how often that happened.
            if (e instanceof ColumnDecodeException c) {
                columnErrors.inc();
                if (c.noDecoder()) {
                    // the policy says stop, and a restart meets the same value again: stop now, in one line
                    LOG.error("walshadow: {}", c.getMessage());
                    throw new org.apache.flink.runtime.execution.SuppressRestartsException(c);
                }
            } else {
                catalogAheadFailures.inc();
            }
            throw e;
        }
        recordsPerSecond.markEvent();
        lastRecordLsn = record.lsn();
        if (shadow != null && shadow.typesVersion() != typesVersion) {
            decoder.replaceRowDecoder(rowDecoder()); // a commit changed types, enum labels or composites
        }
        for (BufferEvent e : events) {
            if (!(e.event() instanceof XactEvent)) {
                changesPerSecond.markEvent();
            }
            if (e.event() instanceof XactEvent x && x.xact() instanceof io.walshadow.xact.XactCommit c) {
                commitLagMs = Math.max(0, System.currentTimeMillis()
                        - Math.floorDiv(io.walshadow.xact.PgTimestamps.toUnixMicros(c.xactTime()), 1000L));
            }
            if (shadow == null && e.event() instanceof XactEvent x && !x.catalogChanges().isEmpty()) {
                // New enum labels, composite or domain types may come with the change: decode with current types.
                decoder.replaceRowDecoder(rowDecoder());
            }
            if (e.isRunningXacts()) {
                // every buffer subtask holds families the horizon may have cut off: one copy to each
                for (int key : runningXactsKeys) {
                    out.collect(new BufferEvent(key, BufferEvent.RUNNING_XACTS, e.fullXid(), e.event(), Map.of()));
                }
                continue;
            }
            // the commit's descriptors as the policy shapes them, with the types as of the commit (replaced above)
            out.collect(undecodable.failsAll() ? e : rows.shape(e));
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        if (lastRecordLsn != 0) {
            decoder.history().pruneBefore(lastRecordLsn); // versions that ended before are never looked up again
        }
        long t0 = System.nanoTime();
        byte[] written = writeState();
        state.update(List.of(written));
        stateBytes = written.length;
        stateWriteMs = (System.nanoTime() - t0) / 1_000_000;
    }

    private byte[] writeState() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new DataOutputStream(bytes).writeInt(STATE_VERSION);
        DataOutputStream out = new DataOutputStream(new net.jpountz.lz4.LZ4BlockOutputStream(bytes));
        CatalogHistorySerializer.write(decoder.history(), out);
        Set<RelFileLocator> created = decoder.pendingCreated();
        out.writeInt(created.size());
        for (RelFileLocator l : created) {
            out.writeInt(l.spcOid());
            out.writeInt(l.dbOid());
            out.writeInt(l.relNumber());
        }
        // Relations each in-progress transaction altered (its later rows decode at its commit).
        Map<Integer, Set<Integer>> altered = decoder.pendingAltered();
        out.writeInt(altered.size());
        for (Map.Entry<Integer, Set<Integer>> e : altered.entrySet()) {
            out.writeInt(e.getKey());
            out.writeInt(e.getValue().size());
            for (int rel : e.getValue()) {
                out.writeInt(rel);
            }
        }
        Map<Integer, Integer> parents = decoder.pendingSubxactParents();
        out.writeInt(parents.size());
        for (Map.Entry<Integer, Integer> e : parents.entrySet()) {
            out.writeInt(e.getKey());
            out.writeInt(e.getValue());
        }
        // v2: relfilenodes each in-progress family deferred, and the next commit sequence
        Map<Integer, Set<RelFileLocator>> deferred = decoder.pendingDeferred();
        out.writeInt(deferred.size());
        for (Map.Entry<Integer, Set<RelFileLocator>> e : deferred.entrySet()) {
            out.writeInt(e.getKey());
            out.writeInt(e.getValue().size());
            for (RelFileLocator l : e.getValue()) {
                out.writeInt(l.spcOid());
                out.writeInt(l.dbOid());
                out.writeInt(l.relNumber());
            }
        }
        out.writeLong(decoder.nextCommitSeq());
        out.writeLong(decoder.xidReference()); // v3
        ShadowCatalog sh = decoder.shadow(); // v4
        out.writeBoolean(sh != null);
        if (sh != null) {
            ShadowCatalogSerializer.write(sh, out);
        }
        out.close(); // ends the LZ4 stream (the byte array needs no closing)
        return bytes.toByteArray();
    }

    private void readState(byte[] b) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(b));
        int version = in.readInt();
        if (version < 1 || version > STATE_VERSION) {
            throw new IOException("decoder state version " + version + " is not readable by this build (reads "
                    + STATE_VERSION + ")");
        }
        if (version >= 5) {
            in = new DataInputStream(new net.jpountz.lz4.LZ4BlockInputStream(new ByteArrayInputStream(b, 4,
                    b.length - 4)));
        }
        restoredHistory = CatalogHistorySerializer.read(in);
        int n = in.readInt();
        restoredCreated = new HashSet<>();
        for (int i = 0; i < n; i++) {
            restoredCreated.add(new RelFileLocator(in.readInt(), in.readInt(), in.readInt()));
        }
        restoredAltered = new HashMap<>();
        int na = in.readInt();
        for (int i = 0; i < na; i++) {
            int xid = in.readInt();
            int m = in.readInt();
            Set<Integer> rels = new HashSet<>();
            for (int k = 0; k < m; k++) {
                rels.add(in.readInt());
            }
            restoredAltered.put(xid, rels);
        }
        restoredParents = new HashMap<>();
        int np = in.readInt();
        for (int i = 0; i < np; i++) {
            restoredParents.put(in.readInt(), in.readInt());
        }
        restoredDeferred = new HashMap<>();
        restoredNextCommitSeq = 1;
        if (version >= 2) {
            int nd = in.readInt();
            for (int i = 0; i < nd; i++) {
                int xid = in.readInt();
                int m = in.readInt();
                Set<RelFileLocator> rels = new HashSet<>();
                for (int k = 0; k < m; k++) {
                    rels.add(new RelFileLocator(in.readInt(), in.readInt(), in.readInt()));
                }
                restoredDeferred.put(xid, rels);
            }
            restoredNextCommitSeq = in.readLong();
        }
        restoredXidReference = version >= 3 ? in.readLong() : 0;
        restoredShadow = version >= 4 && in.readBoolean() ? ShadowCatalogSerializer.read(in) : null;
    }

    @Override
    public void close() throws Exception {
        if (catalogConnection != null) {
            catalogConnection.close();
        }
    }
}
