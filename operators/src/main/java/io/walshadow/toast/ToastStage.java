package io.walshadow.toast;

import io.walshadow.buffer.Drained;
import io.walshadow.buffer.DrainedCatalog;
import io.walshadow.buffer.DrainedChange;
import io.walshadow.buffer.DrainedCommit;
import io.walshadow.catalog.CatalogChange;
import io.walshadow.change.RowChange;
import io.walshadow.change.TruncateChange;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.ClickHouseException;
import io.walshadow.clickhouse.ColumnCodec;
import io.walshadow.clickhouse.DestinationSchema;
import io.walshadow.clickhouse.Retrier;
import io.walshadow.clickhouse.ServerCapabilities;
import io.walshadow.clickhouse.SinkTables;
import io.walshadow.clickhouse.SnapshotMarkers;
import io.walshadow.clickhouse.ToastMirror;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.sink.ClickHouseSinkOptions;
import io.walshadow.types.ValueDecoder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TOAST stage between the transaction buffer and the sink: resolves the TOAST pointers of drained rows
 * ({@link ToastResolver}) and passes chunk rows on to the sink, which mirrors them (mode {@code clickhouse}; mode
 * {@code disabled} drops them here).
 *
 * <p>Chunks are kept in keyed RocksDB state (one key: the stage runs at parallelism 1 on the drain order), keyed by
 * (TOAST relation oid, value id, seq), from their commit until the sink's committed watermark in ClickHouse covers
 * that commit: until then a later transaction referring to the value cannot find it in the mirror (the sink makes
 * rows visible only after their checkpoint), afterwards the mirror has it. Pruning follows the watermark the
 * committer wrote, never the checkpoint notification alone: a notification can precede the committer's work.
 * Bodies therefore sit in RocksDB, not on the heap; the heap holds one value being reassembled.
 *
 * <p>In mode {@code disabled} only the drained transaction's own chunks count, and they are cleared at its commit.
 *
 * <p><b>Batched mirror lookups across commits.</b> Rows whose values only the mirror has wait on the heap, with every
 * event drained after them, until {@link #MAX_PENDING_ROWS} rows (or {@code fetchBatchBytes}) wait, a
 * {@link #FLUSH_AFTER_MS} ms timer fires, a catalog event comes, or a checkpoint barrier is about to pass
 * ({@link ToastOperator#prepareSnapshotPreBarrier}); then one query per TOAST relation answers them all and the queue
 * is emitted in drain order. Many small transactions that keep an unchanged out-of-line value (an UPDATE of another
 * column) thus cost a query per batch, not one per commit (ClickHouse spends milliseconds of CPU on each), and
 * nothing waits on the heap when a barrier passes.
 *
 * <p><b>Waiting for the initial snapshot's TOAST seed.</b> A mirror lookup that comes back short before the seed
 * marker is in ClickHouse may be for a value older than the job, which only the seed brings. Then the stage holds
 * that row, and everything drained after it, in keyed state (in drain order) and looks for the marker on a timer;
 * checkpoints go on meanwhile (the held events are in them). Once the marker is there, the held events are
 * processed in slices of {@link #RESUME_SLICE}, so a long hold does not block the task in one piece either.
 *
 * <p><b>Waiting for a copy round's TOAST seed.</b> A table the job did not replicate, attached with rows as a
 * partition ({@link CatalogChange#attachedWithRows()}), has values older than the job too: the snapshot's coordinator
 * copies its rows in a round of their own, TOAST chunks first, and lists the attach's request in
 * {@link SnapshotMarkers#COPIES_TABLE} once they are in the mirror. From the attach's catalog event on (keyed state,
 * so a restore keeps it) a short lookup of that table's TOAST relation holds the stream the same way until the
 * request is listed; then the held rows are looked up again. An attach inside the held events can make a resumed
 * row wait again: the rows not emitted yet go back to the head of the held events, in order. A value such a seeded
 * mirror still lacks belongs to a superseded row (older than the copy, or its value deleted before a resumed round
 * read the table): filled and counted ({@code toast_values_filled_attached}) whatever {@code toast.missing} says
 * ({@link ToastResolver#complete(ToastResolver.Pending, Map, Set)}).
 *
 * <p>Metrics (group {@code toast}): the counters of {@link ToastCounters}, and the gauges {@code toast_buffered_chunks}
 * and {@code toast_held_for_seed} (events held until the seed is done).
 */
public final class ToastStage extends KeyedProcessFunction<Integer, Drained, Drained> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ToastStage.class);
    /** The single key of the stage's state. */
    public static final int KEY = 0;

    private final ToastResolver.Mode mode;
    private final ToastResolver.Missing missing;
    private final long valueMaxBytes;
    private final long fetchBatchBytes;
    private final ClickHouseSinkOptions clickhouse;
    private final PgConnectionConfig pg;

    private transient MapState<Tuple3<Integer, Integer, Integer>, Tuple3<Long, Long, byte[]>> chunks;
    /** TOAST relations whose mirror the job knows to exist (it created or wrote it): absence there is an error. */
    private transient MapState<Integer, Boolean> mirrors;
    private transient ToastCounters counters;
    private transient ToastResolver resolver;
    private transient ValueDecoder values;
    /** Types the stream sent since this task started, then the live catalog's. */
    private transient io.walshadow.pg.StreamTypes types;
    private transient ClickHouseConnection ch;
    private transient Retrier retry;
    private transient ServerCapabilities caps;
    private transient boolean addedThisCommit;
    /** Chunks in state, -1 until counted (after a restore, by the first prune). */
    private transient long bufferedChunks;
    private final long seedLsn;
    /** The seed marker was seen (or there is none to wait for). */
    private transient boolean seedSeen;
    private transient long prunedThrough;
    private transient Set<Integer> warnedCreated;
    private transient List<Queued> queue;
    private transient int pendingRows;
    private transient long pendingBytes;
    /** Events held for the seed, by sequence number in [range[0], range[1]) (keyed state: checkpointed). */
    private transient MapState<Long, Drained> held;
    private transient org.apache.flink.api.common.state.ValueState<long[]> heldRange;
    /** The held range, cached (read from state at the first element or timer after a restore); null until then. */
    private transient long[] range;
    /** range[1] - range[0], for the gauge (read on the metrics thread). */
    private transient volatile long heldCount;
    /** A poll timer is registered (after a restore, the first held element makes sure of one). */
    private transient boolean pollArmed;
    /** When the flush timer for the rows waiting for the mirror fires; 0 none armed. */
    private transient long flushAt;
    private transient long heldSince;
    private transient long heldLogged;
    /** Held events are being processed (held again only for a copy seed of an attach among them). */
    private transient boolean resuming;
    /** While resuming: the rows not emitted went back to the head of the held events. */
    private transient boolean reheld;
    /**
     * TOAST relations of tables attached with rows (keyed state): TOAST relation oid -> (the attached table, the
     * attach's commit LSN: the copy request's key; the start point of the copy round that seeded it, 0 until then).
     * Kept after the seed: a row older than the round, drained later, is superseded by the copy.
     */
    private transient MapState<Integer, Tuple3<Integer, Long, Long>> copySeeds;
    /** The TOAST relations (of {@code copySeeds}) whose seed the held events wait for, besides the initial seed. */
    private transient MapState<Integer, Boolean> awaited;

    /**
     * @param fetchBatchBytes raw bytes of values that rows held for one batched mirror fetch may wait for (the
     *     fetched values are on the heap until the rows are emitted)
     * @param clickhouse the sink's connection and id (mode clickhouse); may be null in mode disabled
     * @param seedLsn the start point whose initial snapshot seeds the mirrors: mirror lookups wait until the seed
     *     marker for it is in ClickHouse ({@link SnapshotMarkers}); 0: no snapshot, no wait
     */
    public ToastStage(ToastResolver.Mode mode, ToastResolver.Missing missing, long valueMaxBytes, long fetchBatchBytes,
                      ClickHouseSinkOptions clickhouse, PgConnectionConfig pg, long seedLsn) {
        this.seedLsn = seedLsn;
        if (mode == ToastResolver.Mode.CLICKHOUSE && clickhouse == null) {
            throw new IllegalArgumentException("toast.mode clickhouse needs the ClickHouse settings");
        }
        this.mode = mode;
        this.missing = missing;
        this.valueMaxBytes = valueMaxBytes;
        this.fetchBatchBytes = fetchBatchBytes;
        this.clickhouse = clickhouse;
        this.pg = pg;
    }

    @Override
    public void open(OpenContext ctx) throws Exception {
        chunks = getRuntimeContext().getMapState(new MapStateDescriptor<>("toast-chunks",
                Types.TUPLE(Types.INT, Types.INT, Types.INT),
                Types.TUPLE(Types.LONG, Types.LONG, Types.PRIMITIVE_ARRAY(Types.BYTE))));
        mirrors = getRuntimeContext().getMapState(new MapStateDescriptor<>("toast-mirrors", Types.INT, Types.BOOLEAN));
        held = getRuntimeContext().getMapState(new MapStateDescriptor<>("toast-held-for-seed", Types.LONG,
                io.walshadow.buffer.DrainedSerializer.typeInfo()));
        heldRange = getRuntimeContext().getState(new org.apache.flink.api.common.state.ValueStateDescriptor<>(
                "toast-held-range", org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        copySeeds = getRuntimeContext().getMapState(new MapStateDescriptor<>("toast-copy-seeds", Types.INT,
                Types.TUPLE(Types.INT, Types.LONG, Types.LONG)));
        awaited = getRuntimeContext().getMapState(new MapStateDescriptor<>("toast-held-awaits", Types.INT,
                Types.BOOLEAN));
        counters = new ToastCounters();
        bufferedChunks = -1;
        warnedCreated = new HashSet<>();
        queue = new ArrayList<>();
        MetricGroup g = getRuntimeContext().getMetricGroup().addGroup("toast");
        for (String name : counters.asMap().keySet()) {
            g.gauge(name, () -> counters.asMap().get(name));
        }
        g.gauge("toast_buffered_chunks", () -> bufferedChunks);
        g.gauge("toast_held_for_seed", () -> heldCount);
        loadTypes();
        if (mode == ToastResolver.Mode.CLICKHOUSE) {
            ch = clickhouse.connect();
            retry = new Retrier(clickhouse.retryTimeout(), () -> {});
            caps = retry.call("SELECT version()", () -> ServerCapabilities.probe(ch));
        }
        resolver = new ToastResolver(mode, missing, valueMaxBytes, () -> values, this::buffered,
                mode == ToastResolver.Mode.CLICKHOUSE ? this::fetch : null, counters);
        LOG.info("TOAST stage: mode {}, missing values {}, values up to {} bytes{}", mode.name().toLowerCase(),
                missing.name().toLowerCase(), valueMaxBytes,
                ch == null ? "" : ", mirrors in " + ch);
    }

    /** New value decoders (their cache may hold a type a commit changed). */
    private void loadTypes() {
        if (types == null) {
            types = new io.walshadow.pg.StreamTypes(pg, io.walshadow.catalog.TypeSet.EMPTY);
        }
        values = new ValueDecoder(types);
    }

    @Override
    public void processElement(Drained d, Context ctx, Collector<Drained> out) throws Exception {
        if (holding()) {
            hold(d); // behind events held for the seed: the order is the drain order
            if (!pollArmed) {
                pollSeedSoon(ctx.timerService()); // a restore keeps timers; this makes sure of one
            }
            return;
        }
        handle(d, ctx.timerService(), out);
    }

    private void handle(Drained d, TimerService timers, Collector<Drained> out) throws Exception {
        if (d instanceof DrainedChange c) {
            if (c.change() instanceof RowChange r) {
                if (ToastResolver.isToastRelation(r.descriptor())) {
                    chunk(r, c.commitSeq());
                    if (mode == ToastResolver.Mode.DISABLED) {
                        return; // no mirror to feed
                    }
                } else {
                    Object prepared = resolver.prepare(r, c.commitSeq());
                    if (prepared instanceof ToastResolver.Pending p) {
                        queue.add(new Queued(c, p));
                        pendingRows++;
                        pendingBytes += p.rawBytes();
                        if (pendingRows >= MAX_PENDING_ROWS || pendingBytes >= fetchBatchBytes) {
                            flush(timers, out);
                        } else if (pendingRows == 1 && !resuming) {
                            armFlush(timers); // a resumed slice flushes at its end
                        }
                        return;
                    }
                    if (prepared != r) {
                        d = new DrainedChange(c.commitSeq(), c.commitLsn(), c.fullXid(), c.commitTime(),
                                (RowChange) prepared);
                    }
                }
            } else {
                truncated((TruncateChange) c.change());
            }
        } else if (d instanceof DrainedCatalog cat) {
            flush(timers, out); // rows of earlier commits first: their values decode with the types as they were
            if (cat.fullXid() != 0) {
                types.add(cat.types()); // enums, domains and composites as of the commit
            }
            loadTypes();
            attached(cat);
        } else if (d instanceof DrainedCommit) {
            if (mode == ToastResolver.Mode.DISABLED && addedThisCommit) {
                chunks.clear();
                bufferedChunks = 0;
                addedThisCommit = false;
            }
            if (queue.isEmpty()) {
                out.collect(d);
            } else {
                queue.add(new Queued(d, null)); // behind its rows: flushed with the batch they wait in
            }
            return;
        }
        if (!resuming && holding()) {
            hold(d); // the flush above began holding: this event goes behind what it held
        } else if (queue.isEmpty()) {
            out.collect(d);
        } else {
            queue.add(new Queued(d, null)); // behind rows waiting for the mirror: the order is the drain order
        }
    }

    /** An event held behind a row that waits for the mirror; {@code pending} set for such a row. */
    private record Queued(Drained event, ToastResolver.Pending pending) {}

    /** Rows waiting for mirror values are fetched in batches of at most this many rows (or fetchBatchBytes). */
    static final int MAX_PENDING_ROWS = 1000;
    /** How long the first row waiting for the mirror waits for others to share its query. */
    static final long FLUSH_AFTER_MS = 20;

    /**
     * Fetches what the queued rows need from the mirrors (one query per TOAST relation), emits the queue in order;
     * or, when an answer comes back short before the seed is done, holds the queue for the seed.
     */
    private void flush(TimerService timers, Collector<Drained> out) throws Exception {
        if (queue.isEmpty()) {
            return;
        }
        flushAt = 0;
        List<ToastResolver.Pending> rows = new ArrayList<>(pendingRows);
        for (Queued q : queue) {
            if (q.pending() != null) {
                rows.add(q.pending());
            }
        }
        var fetched = rows.isEmpty() ? Map.<Integer, Map<ToastMirror.Need, List<ToastMirror.Chunk>>>of()
                : resolver.fetch(rows);
        Set<Integer> seededByCopy = new HashSet<>();
        Set<Integer> lacking = rows.isEmpty() || seedLsn == 0 || ch == null ? Set.of()
                : ToastResolver.incompleteRelations(rows, fetched);
        if (!lacking.isEmpty()) {
            // a value the mirror lacks may be one the initial snapshot, or the copy of an attached table, still seeds
            boolean initialSeen = seedSeen;
            boolean initial = !seeded();
            Set<Integer> copies = new java.util.TreeSet<>();
            boolean copySeen = false;
            for (int rel : lacking) {
                Tuple3<Integer, Long, Long> req = copySeeds.get(rel);
                if (req == null) {
                    continue;
                }
                if (req.f2 == 0 && seededCopy(rel, req) != 0) {
                    copySeen = true;
                }
                if (req.f2 == 0) {
                    copies.add(rel);
                } else {
                    seededByCopy.add(rel);
                }
            }
            if (initial || !copies.isEmpty()) {
                for (int rel : copies) {
                    awaited.put(rel, true);
                }
                putBack(); // as drained: resolved again when they resume
                heldSince = heldLogged = System.currentTimeMillis();
                LOG.info("a row refers to a TOAST value the job did not see written: holding it, and what follows, until"
                        + " {}", waitingFor(initial, copies));
                pollSeedSoon(timers);
                return;
            }
            if (!initialSeen || copySeen) {
                fetched = resolver.fetch(rows); // a seed landed since the lookup
            }
        }
        for (Queued q : queue) {
            if (q.pending() == null) {
                out.collect(q.event());
            } else {
                DrainedChange c = (DrainedChange) q.event();
                out.collect(new DrainedChange(c.commitSeq(), c.commitLsn(), c.fullXid(), c.commitTime(),
                        resolver.complete(q.pending(), fetched, seededByCopy)));
            }
        }
        queue.clear();
        pendingRows = 0;
        pendingBytes = 0;
    }

    /** How often a stage holding events looks for the seed marker. */
    static final long SEED_POLL_MS = 500;
    /** Held events processed per timer once the seed is done (between slices, barriers get through). */
    static final int RESUME_SLICE = 5_000;

    /**
     * The queued events, as drained, back at the head of the held events (behind none: they precede every held one,
     * which is none unless resuming, when they are the ones just taken from the head).
     */
    private void putBack() throws Exception {
        long[] r = range();
        r[0] -= queue.size();
        for (int i = 0; i < queue.size(); i++) {
            held.put(r[0] + i, queue.get(i).event());
        }
        heldRange.update(r);
        heldCount = r[1] - r[0];
        queue.clear();
        pendingRows = 0;
        pendingBytes = 0;
        reheld = resuming;
    }

    /** An attach of a table with rows: its TOAST relation's values older than the job come with its copy round. */
    private void attached(DrainedCatalog cat) throws Exception {
        if (seedLsn == 0 || ch == null) {
            return; // no snapshot, no copy round
        }
        for (CatalogChange c : cat.changes()) {
            RelationDescriptor a = c.after();
            // as the sink requests the copy (ClickHouseSinkWriter.partitionChange)
            if (c.attachedWithRows() && c.before() == null && a != null && a.partition() != null
                    && a.toastRelOid() != 0) {
                copySeeds.put(a.toastRelOid(), Tuple3.of(a.relOid(), cat.commitLsn(), 0L));
            }
        }
    }

    /**
     * The start point of the copy round that seeded this request's (attached table, attach LSN) TOAST mirror, 0 when
     * none has yet; once there, recorded in {@code req} and the state.
     */
    private long seededCopy(int rel, Tuple3<Integer, Long, Long> req) throws Exception {
        String v;
        try {
            v = ch.queryString(SnapshotMarkers.copySeededSql(ch.database(), clickhouse.sinkId(), req.f0, req.f1));
        } catch (RuntimeException e) {
            v = null; // the marker table is created with the first copy marker
        }
        long start = v == null || v.isEmpty() ? 0 : Long.parseUnsignedLong(v);
        if (start != 0) {
            req.f2 = start;
            copySeeds.put(rel, req);
        }
        return start;
    }

    /** Whether every copy seed the held events wait for is done (those done leave the state). */
    private boolean awaitedSeeded() throws Exception {
        boolean all = true;
        Iterator<Integer> it = awaited.keys().iterator();
        List<Integer> done = new ArrayList<>();
        while (it.hasNext()) {
            int rel = it.next();
            Tuple3<Integer, Long, Long> req = copySeeds.get(rel);
            if (req == null || req.f2 != 0 || seededCopy(rel, req) != 0) {
                done.add(rel);
            } else {
                all = false;
            }
        }
        for (int rel : done) {
            awaited.remove(rel);
        }
        return all;
    }

    private String waitingFor(boolean initial, Collection<Integer> copies) {
        String c = "the copy of the attached tables of TOAST relations " + copies + " has seeded their mirrors";
        return initial ? "the initial snapshot has seeded the TOAST mirrors" + (copies.isEmpty() ? "" : " and " + c) : c;
    }

    /** Whether the seed marker for this job's start point is in ClickHouse (remembered once it is). */
    private boolean seeded() {
        if (seedSeen || seedLsn == 0 || ch == null) {
            return true;
        }
        String v;
        try {
            v = ch.queryString(SnapshotMarkers.seededSql(ch.database(), clickhouse.sinkId(), seedLsn));
        } catch (RuntimeException e) {
            v = null; // the marker table is created with the first marker
        }
        seedSeen = "1".equals(v);
        return seedSeen;
    }

    /** Polls for the seed while events are held; once it is done, processes them in order, a slice per timer. */
    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Drained> out) throws Exception {
        if (flushAt != 0 && timestamp >= flushAt) {
            flushAt = 0;
            if (!holding()) {
                flush(ctx.timerService(), out); // the rows waiting for the mirror waited long enough for company
            }
        }
        pollArmed = false;
        if (!holding()) {
            return;
        }
        long now = ctx.timerService().currentProcessingTime();
        boolean initial = !seeded();
        if (initial || !awaitedSeeded()) {
            if (System.currentTimeMillis() - heldLogged >= 10_000) {
                heldLogged = System.currentTimeMillis();
                List<Integer> copies = new ArrayList<>();
                awaited.keys().forEach(copies::add);
                LOG.info("waiting until {}: {} events held{}", waitingFor(initial, copies), heldCount,
                        heldSince == 0 ? "" : " for " + (heldLogged - heldSince) / 1000 + " s");
            }
            pollSeedSoon(ctx.timerService());
            return;
        }
        long[] r = range();
        long end = Math.min(r[1], r[0] + RESUME_SLICE);
        resuming = true;
        reheld = false;
        try {
            for (long i = r[0]; i < end && !reheld; i++) {
                Drained d = held.get(i);
                held.remove(i);
                r[0] = i + 1;
                heldCount = r[1] - r[0];
                handle(d, ctx.timerService(), out);
            }
            if (!reheld) {
                flush(ctx.timerService(), out); // the slice's queued rows go now, a barrier may follow
            }
        } finally {
            resuming = false;
        }
        heldRange.update(r);
        if (reheld) {
            pollSeedSoon(ctx.timerService()); // a row behind an attach among the held events waits for its copy
        } else if (holding()) {
            ctx.timerService().registerProcessingTimeTimer(now);
            pollArmed = true;
        } else {
            LOG.info("TOAST mirrors seeded: held events resumed{}", heldSince == 0 ? ""
                    : " after " + (System.currentTimeMillis() - heldSince) / 1000 + " s");
        }
    }

    /** A timer at the next poll-interval boundary (timers of one key and time are one timer). */
    private void pollSeedSoon(TimerService timers) {
        long now = timers.currentProcessingTime();
        timers.registerProcessingTimeTimer((now / SEED_POLL_MS + 1) * SEED_POLL_MS);
        pollArmed = true;
    }

    /** A timer that flushes the rows waiting for the mirror, {@link #FLUSH_AFTER_MS} from now. */
    private void armFlush(TimerService timers) {
        flushAt = timers.currentProcessingTime() + FLUSH_AFTER_MS;
        timers.registerProcessingTimeTimer(flushAt);
    }

    /**
     * Before a checkpoint barrier passes (and when the input ends): the rows waiting for the mirror are looked up and
     * emitted with what queued behind them, or held in keyed state for a seed; the heap then holds none.
     */
    void flushBeforeBarrier(TimerService timers, Collector<Drained> out) throws Exception {
        flush(timers, out);
    }

    /** The held range [head, tail), read from state once. */
    private long[] range() throws Exception {
        if (range == null) {
            long[] r = heldRange.value();
            range = r == null ? new long[2] : r;
            heldCount = range[1] - range[0];
        }
        return range;
    }

    private boolean holding() throws Exception {
        long[] r = range();
        return r[0] < r[1];
    }

    private void hold(Drained d) throws Exception {
        long[] r = range();
        held.put(r[1], d);
        r[1]++;
        heldRange.update(r);
        heldCount = r[1] - r[0];
    }

    /** Whether no event waits on the heap (so after {@link #flushBeforeBarrier}, at every checkpoint barrier). */
    boolean idle() {
        return queue.isEmpty();
    }

    private void chunk(RowChange r, long commitSeq) throws Exception {
        ToastResolver.Chunk c = resolver.chunkOf(r);
        if (c == null) {
            return; // deletes are the mirror's (tombstones); malformed rows are counted
        }
        if (mode == ToastResolver.Mode.CLICKHOUSE && !mirrors.contains(c.toastRelOid())) {
            mirrors.put(c.toastRelOid(), true); // the sink creates it with the batch
        }
        chunks.put(Tuple3.of(c.toastRelOid(), c.valueId(), c.seq()), Tuple3.of(commitSeq, r.lsn(), c.data()));
        addedThisCommit = true;
        if (bufferedChunks >= 0) {
            bufferedChunks++;
        }
    }

    /** The owner's TRUNCATE empties its TOAST relation (same oid, new storage): its buffered chunks are dead. */
    private void truncated(TruncateChange t) throws Exception {
        Set<Integer> toast = new HashSet<>();
        for (RelationDescriptor d : t.relations()) {
            if (d.toastRelOid() != 0) {
                toast.add(d.toastRelOid());
            }
        }
        if (!toast.isEmpty() && bufferedChunks != 0) {
            removeWhere(e -> toast.contains(e.getKey().f0));
        }
    }

    private ToastResolver.BufferedChunk buffered(int rel, int valueId, int seq) {
        try {
            Tuple3<Long, Long, byte[]> v = chunks.get(Tuple3.of(rel, valueId, seq));
            return v == null ? null : new ToastResolver.BufferedChunk(v.f0, v.f1, v.f2);
        } catch (Exception e) {
            throw new IllegalStateException("reading buffered TOAST chunks: " + e.getMessage(), e);
        }
    }

    private Map<ToastMirror.Need, List<ToastMirror.Chunk>> fetch(int rel, Collection<ToastMirror.Need> needs) {
        try {
            String mirror = ToastMirror.name(rel);
            if (!mirrors.contains(rel)) {
                // First reference to a relation the job never wrote chunks of: its values predate the job. The
                // mirror starts empty (a snapshot seeds it); until then such values are superseded-fills.
                retry.run("CREATE mirror " + mirror, () -> ch.execute(ToastMirror.createSql(ch.database(), rel, caps)));
                mirrors.put(rel, true);
                if (warnedCreated.add(rel)) {
                    LOG.warn("TOAST mirror {} created on first reference ({} values): values written before the job"
                            + " started are not in it, they are filled and counted (toast_values_filled_superseded)",
                            mirror, needs.size());
                }
            }
            String q = ToastMirror.fetchBatchSql(ch.database(), rel, needs);
            counters.mirrorFetches++;
            try {
                return ToastMirror.parseBatch(ch.queryTsv(q));
            } catch (ClickHouseException first) {
                // a vanished mirror is not worth retrying (and not a transient error): tell it apart first
                String exists = "SELECT count() FROM system.tables WHERE database = " + ColumnCodec.quote(ch.database())
                        + " AND name = " + ColumnCodec.quote(mirror);
                if ("0".equals(retry.call(exists, () -> ch.queryString(exists)))) {
                    return null;
                }
                return ToastMirror.parseBatch(retry.call("fetch TOAST values", () -> ch.queryTsv(q)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while fetching a TOAST value", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("TOAST stage state: " + e.getMessage(), e);
        }
    }

    /**
     * Drops the buffered chunks of commits the sink's committed watermark covers: the mirror has them now. Called by
     * {@link ToastOperator} on each completed checkpoint, with the key set.
     */
    void pruneCommitted() throws Exception {
        if (mode != ToastResolver.Mode.CLICKHOUSE || bufferedChunks == 0) {
            return;
        }
        String q = "SELECT commit_seq FROM " + DestinationSchema.quote(ch.database()) + "."
                + DestinationSchema.quote(SinkTables.COMMITTED_VIEW) + " WHERE sink = "
                + ColumnCodec.quote(clickhouse.sinkId());
        String w = retry.call(q, () -> ch.queryString(q));
        long committed = w == null || w.isEmpty() ? 0 : Long.parseUnsignedLong(w);
        if (committed <= prunedThrough && bufferedChunks >= 0) {
            return;
        }
        removeWhere(e -> e.getValue().f0 <= committed);
        prunedThrough = committed;
    }

    private void removeWhere(java.util.function.Predicate<Map.Entry<Tuple3<Integer, Integer, Integer>,
            Tuple3<Long, Long, byte[]>>> dead) throws Exception {
        long kept = 0;
        Iterator<Map.Entry<Tuple3<Integer, Integer, Integer>, Tuple3<Long, Long, byte[]>>> it = chunks.iterator();
        while (it.hasNext()) {
            if (dead.test(it.next())) {
                it.remove();
            } else {
                kept++;
            }
        }
        bufferedChunks = kept;
    }

    @Override
    public void close() throws Exception {
        if (ch != null) {
            ch.close();
        }
        super.close();
    }
}
