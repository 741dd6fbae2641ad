package io.walshadow.snapshot;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.CopyRequests;
import io.walshadow.clickhouse.Retrier;
import io.walshadow.clickhouse.SnapshotMarkers;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.sink.ClickHouseSinkOptions;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The initial snapshot's coordinator (on the JobManager). Exports the snapshot and holds it until the copy is over;
 * plans the chunks on the first start; hands them out one at a time to readers that ask; counts progress. No lock is
 * held across chunks: each chunk's read locks its table for that chunk only, so DDL on a copied table waits for one
 * chunk, and the snapshot's rows stay consistent with the stream by the rules of {@link SnapshotSplitReader} (columns
 * by attnum, chunks of rewritten tables skipped) and of the sink (snapshot rows of replaced storage dropped).
 *
 * <p>The copy is over when every chunk was read and a checkpoint taken after the last one completed: by then every
 * snapshot row is in a committed sink batch.
 * A restarted coordinator exports a fresh snapshot for the chunks left (and the rest of a chunk a reader resumes):
 * each TID range is still read under exactly one snapshot, and the rows carry the same version, so the argument of
 * {@link SnapshotExport} holds per row (docs/architecture.md, "Initial snapshot").
 *
 * <p><b>Tables included later.</b> The state records the filter the plans cover. A job restored with a filter that
 * includes more plans another round for the tables it newly includes, versioned just below the build's start point
 * (where the decoder starts their history): their TOAST chunks first, then their tables, the same rule at a later
 * point. Unstarted chunks of tables the filter no longer includes are dropped; readers skip such chunks they hold.
 *
 * <p><b>Tables attached with rows.</b> A table the job did not replicate on its own, attached as a partition of a
 * replicated root, brings rows the WAL does not hold; the sink records a request for their copy in ClickHouse
 * ({@link CopyRequests}). While nothing else is being copied, the coordinator polls for requests every
 * {@value #COPY_POLL_MS} ms and plans a round for the new ones at a start point taken then (after the attach, which
 * is committed in the snapshot the round exports): rows versioned just below it, the TOAST chunks first, the rows
 * routed through the partition's descriptor to its root's table as the initial snapshot's are. The changes the
 * stream applied between the attach and that point are older than the copy's version (superseded by it); later ones
 * are newer. The state records the requests planned, so a restore neither loses nor repeats one.
 *
 * <p>Metrics (group {@code snapshot}): gauges {@code chunks_total}, {@code chunks_done}, {@code rows_done} (rows of
 * finished chunks), {@code complete} (1 once over), counted over every round; {@code waiting_for_start_transactions_ms}
 * (how long the export has been waiting for transactions running at the start point, 0 when not waiting).
 */
final class SnapshotEnumerator implements SplitEnumerator<SnapshotSplit, SnapshotEnumeratorState> {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotEnumerator.class);
    static final long COPY_POLL_MS = 3_000;
    private static final String COPY_ROUND = "copy of attached partitions";

    private final SplitEnumeratorContext<SnapshotSplit> context;
    private final PgConnectionConfig pg;
    private final CatalogFilter filter;
    /** The build's start point before the first plan, then the one planned with (from the state). */
    private StartPoint start;
    private final SnapshotOptions options;
    /** The build's start point: a restored job's TOAST stage waits for the seed marker under it. */
    private final StartPoint buildStart;
    /** Where the TOAST mirrors are; null: none to seed. */
    private final ClickHouseSinkOptions mirrors;
    /** The sink's ClickHouse (null: none, e.g. a benchmark's discarding sink). */
    private final ClickHouseSinkOptions destination;

    /** The plan for the configured filter is made (every table it includes has its chunks planned). */
    private boolean planned;
    /** Spec of the filter whose tables the plans so far cover; null before the first plan. */
    private String coveredSpec;
    /** The round being planned adds tables to a finished copy: lock only those. */
    private boolean lockScopeOnly;
    /** TOAST chunks not known to be finished; table chunks wait until none is left and the marker is written. */
    private final Set<String> toastOutstanding = new java.util.LinkedHashSet<>();
    /** Whether {@code toastOutstanding} is exact: after a restore, once every reader said which chunks it holds. */
    private boolean reconciled;
    private final java.util.Map<Integer, List<String>> hellos = new java.util.HashMap<>();
    /** The seed marker is in ClickHouse (or there is nothing to seed). */
    private boolean seeded;
    private boolean markerPending;
    private final Deque<SnapshotSplit> unassigned = new ArrayDeque<>();
    private int chunksTotal;
    private int chunksDone;
    private long rowsDone;
    private boolean complete;

    private ExportedSnapshot snapshot;
    /** Readers that asked for a chunk and got none (all handed out, or not planned yet). */
    private final Set<Integer> idle = new HashSet<>();
    /** The checkpoint after which the copy is over (taken with every chunk done), -1 until then. */
    private long releaseAfter = -1;
    private long startedAt;
    /** Chunks done when this run's round started ({@link #startedAt}): the rate behind the ETA counts only its own. */
    private int chunksDoneAtStart;
    private final java.util.concurrent.atomic.AtomicLong waitingSince = new java.util.concurrent.atomic.AtomicLong();
    /** Keys of the copy requests a round was planned for. */
    private final Set<String> copiesPlanned = new java.util.LinkedHashSet<>();
    /** A copy round is being opened (its start point taken, its snapshot exported). */
    private boolean copyOpening;
    /** What the current round copies, for the logs. */
    private String round = "initial snapshot";
    /** Whether the poll for copy requests may look (read by the worker thread). */
    private volatile boolean copyIdle;
    /** The poll's connection (worker thread only). */
    private ClickHouseConnection requestsConnection;
    private long requestsFailedLogged;

    SnapshotEnumerator(SplitEnumeratorContext<SnapshotSplit> context, PgConnectionConfig pg, CatalogFilter filter,
                       StartPoint start, SnapshotOptions options, ClickHouseSinkOptions destination,
                       SnapshotEnumeratorState state) {
        this.context = context;
        this.buildStart = start;
        this.destination = destination;
        this.mirrors = SnapshotSource.mirrorsOf(destination);
        this.pg = pg;
        this.filter = filter;
        this.options = options;
        coveredSpec = state.coveredSpec();
        if (SnapshotEnumeratorState.COVERED_UNKNOWN.equals(coveredSpec)) {
            LOG.warn("initial snapshot state of an earlier build does not record its filter: taken as {}", filter);
            coveredSpec = filter.spec();
        }
        chunksTotal = state.chunksTotal();
        chunksDone = state.chunksDone();
        rowsDone = state.rowsDone();
        boolean refilter = coveredSpec != null && !coveredSpec.equals(filter.spec()) && options.enabled();
        toastOutstanding.addAll(state.toastOutstanding());
        for (SnapshotSplit sp : state.unassigned()) {
            if (!refilter || filter.includes(sp.descriptor())) {
                unassigned.add(sp);
            } else {
                toastOutstanding.remove(sp.splitId()); // no longer included: not read
                chunksDone++;
            }
        }
        if (refilter) {
            LOG.info("initial snapshot: the filter changed ({} -> {}): {} unstarted chunks dropped, tables it newly"
                    + " includes copied as of {}", coveredSpec, filter.spec(), state.unassigned().size()
                    - unassigned.size(), start);
        }
        reconciled = toastOutstanding.isEmpty(); // else: what the readers hold tells which ones finished
        planned = state.planned() && !refilter;
        lockScopeOnly = refilter && state.complete();
        // a plan's rows keep the version it was made with; unplanned, any start point at or after the decoder's works
        this.start = planned ? new StartPoint(state.startLsn(), state.startXids(), state.startWaitXid()) : start;
        complete = (state.complete() && !refilter) || !options.enabled();
        copiesPlanned.addAll(state.copiesPlanned());
        if (!copiesPlanned.isEmpty() && !refilter) {
            round = COPY_ROUND; // copy rounds start only once the initial snapshot is over
        }
        MetricGroup g = context.metricGroup().addGroup("snapshot");
        g.gauge("chunks_total", () -> chunksTotal);
        g.gauge("chunks_done", () -> chunksDone);
        g.gauge("rows_done", () -> rowsDone);
        g.gauge("complete", () -> complete ? 1 : 0);
        // how long the export has waited for transactions running at the start point (0: not waiting)
        g.gauge("waiting_for_start_transactions_ms", () -> {
            long since = waitingSince.get();
            return since == 0 ? 0L : System.currentTimeMillis() - since;
        });
        g.gauge("eta_ms", this::etaMs);
    }

    /**
     * How long the chunks left take at the rate this run's round has done them so far: 0 once complete, -1 before the
     * round's first chunk is done (no rate yet). Chunks differ in rows, so it is a guide, not a promise.
     */
    private long etaMs() {
        if (complete) {
            return 0;
        }
        int done = chunksDone - chunksDoneAtStart;
        return etaMs(chunksTotal - chunksDone, done, System.currentTimeMillis() - startedAt);
    }

    static long etaMs(int chunksLeft, int chunksDoneThisRound, long elapsedMs) {
        if (chunksDoneThisRound <= 0) {
            return -1;
        }
        return Math.max(0, chunksLeft) * elapsedMs / chunksDoneThisRound;
    }

    @Override
    public void start() {
        if (destination != null && options.enabled()) {
            copyIdle = complete;
            context.callAsync(this::pollRequests, this::requestsPolled, COPY_POLL_MS, COPY_POLL_MS);
        }
        if (complete || (planned && reconciled && toastOutstanding.isEmpty())) {
            writeSeedMarker(); // a restored job's TOAST stage waits for the marker under its own start point
        }
        if (complete) {
            LOG.info("initial snapshot: {}", options.enabled() ? "complete (" + rowsDone + " rows in " + chunksTotal
                    + " chunks)" : "disabled (snapshot.mode=never)");
            return;
        }
        startedAt = System.currentTimeMillis();
        chunksDoneAtStart = chunksDone;
        context.callAsync(this::open, this::opened);
    }

    /**
     * On a worker thread: the export (which may wait for old transactions), and, unless planned, the plan of the
     * tables the filter includes and the plans so far do not cover (all of them the first time).
     */
    private Opened open() throws SQLException, InterruptedException {
        CatalogFilter covered = coveredSpec == null ? null : CatalogFilter.fromSpec(coveredSpec);
        java.util.function.Predicate<io.walshadow.catalog.RelationDescriptor> uncovered =
                d -> covered == null || !covered.includes(d);
        SnapshotExport.Opened o = new SnapshotExport(pg, filter, start, lockScopeOnly ? uncovered : d -> true,
                waitingSince).open();
        List<SnapshotSplit> plan = null;
        int tables = o.relations().size();
        try {
            if (!planned) {
                List<io.walshadow.catalog.RelationDescriptor> scope = o.relations().stream().filter(uncovered).toList();
                tables = scope.size();
                plan = SnapshotExport.plan(o.locks(), scope, start.snapshotVersion(),
                        options.chunkPages(), mirrors != null);
                if (covered != null) {
                    StaleRows.remove(destination, scope, start.snapshotVersion()); // tables included once before
                }
            }
        } catch (SQLException | RuntimeException e) {
            o.snapshot().close();
            throw e;
        } finally {
            o.releaseLocks(); // from here on DDL on the tables waits for one chunk's read at most
        }
        return new Opened(o.snapshot(), plan, tables);
    }

    /**
     * @param copyStart the start point of a copy round (null: the initial snapshot's, or the restored plan's)
     * @param copied the keys of the copy requests the round plans
     */
    private record Opened(ExportedSnapshot snapshot, List<SnapshotSplit> plan, int tables, StartPoint copyStart,
                          List<String> copied) {
        Opened(ExportedSnapshot snapshot, List<SnapshotSplit> plan, int tables) {
            this(snapshot, plan, tables, null, List.of());
        }
    }

    /** A request in {@link CopyRequests}. */
    private record CopyRequest(int relation, int root, long attachLsn) {
        String key() {
            return CopyRequests.key(relation, attachLsn);
        }
    }

    /** On a worker thread, every few seconds: the sink's copy requests, while no round is under way. */
    private List<CopyRequest> pollRequests() {
        if (!copyIdle) {
            return List.of();
        }
        try {
            if (requestsConnection == null) {
                requestsConnection = destination.connect();
                requestsConnection.execute(CopyRequests.createSql(requestsConnection.database()));
            }
            List<CopyRequest> out = new ArrayList<>();
            for (String[] r : requestsConnection.queryTsv(CopyRequests.listSql(requestsConnection.database(),
                    destination.sinkId()))) {
                out.add(new CopyRequest(Integer.parseUnsignedInt(r[0]), Integer.parseUnsignedInt(r[1]),
                        Long.parseUnsignedLong(r[2])));
            }
            return out;
        } catch (RuntimeException e) {
            if (requestsConnection != null) {
                requestsConnection.close();
                requestsConnection = null;
            }
            if (System.currentTimeMillis() - requestsFailedLogged > 60_000) {
                requestsFailedLogged = System.currentTimeMillis();
                LOG.warn("looking for copy requests in ClickHouse failed (tried again every {} ms): {}", COPY_POLL_MS,
                        e.getMessage());
            }
            return List.of();
        }
    }

    /** Plans a round for the requests no round was planned for, once nothing else is being copied. */
    private void requestsPolled(List<CopyRequest> requests, Throwable error) {
        if (error != null || requests == null || !complete || copyOpening || snapshot != null) {
            return;
        }
        List<CopyRequest> fresh = requests.stream().filter(r -> !copiesPlanned.contains(r.key())).toList();
        if (fresh.isEmpty()) {
            return;
        }
        copyOpening = true;
        copyIdle = false;
        LOG.info("copy of tables attached as partitions requested: {}", fresh);
        context.callAsync(() -> openCopy(fresh), this::opened);
    }

    /**
     * On a worker thread: a start point now (after each request's attach, committed by then), the export under it,
     * and the chunks of the requested tables the snapshot's catalog includes (one detached and not included on its
     * own since, or dropped, is not copied: its rows must not come back).
     */
    private Opened openCopy(List<CopyRequest> requests) throws SQLException, InterruptedException {
        StartPoint at;
        try (java.sql.Connection c = pg.openSql()) {
            at = StartPoint.now(c);
        }
        Set<Integer> rels = new HashSet<>();
        requests.forEach(r -> rels.add(r.relation()));
        SnapshotExport.Opened o = new SnapshotExport(pg, filter, at, d -> rels.contains(d.relOid()), waitingSince)
                .open();
        List<SnapshotSplit> plan;
        try {
            plan = SnapshotExport.plan(o.locks(), o.relations(), at.snapshotVersion(), options.chunkPages(),
                    mirrors != null);
        } catch (SQLException | RuntimeException e) {
            o.snapshot().close();
            throw e;
        } finally {
            o.releaseLocks();
        }
        if (o.relations().size() < rels.size()) {
            LOG.info("copy of attached partitions: {} of the {} requested tables are no longer included (detached or"
                    + " dropped since): not copied", rels.size() - o.relations().size(), rels.size());
        }
        return new Opened(o.snapshot(), plan, o.relations().size(), at,
                requests.stream().map(CopyRequest::key).toList());
    }

    private void opened(Opened o, Throwable error) {
        if (error != null) {
            throw new IllegalStateException((copyOpening ? "copy of attached partitions" : "initial snapshot")
                    + " could not start: " + error.getMessage(), error);
        }
        snapshot = o.snapshot();
        if (o.copyStart() != null) {
            // a new round after a finished copy: its own start point, its own TOAST seed marker
            copyOpening = false;
            round = COPY_ROUND;
            start = o.copyStart();
            copiesPlanned.addAll(o.copied());
            complete = false;
            releaseAfter = -1;
            planned = false;
            seeded = false;
            reconciled = true;
            startedAt = System.currentTimeMillis();
            chunksDoneAtStart = chunksDone;
        }
        if (o.plan() != null) {
            // TOAST chunks first (table chunks wait for the seed), then chunks left from an earlier plan, then tables
            List<SnapshotSplit> left = new ArrayList<>(unassigned);
            unassigned.clear();
            o.plan().stream().filter(SnapshotSplit::toast).forEach(unassigned::add);
            unassigned.addAll(left);
            o.plan().stream().filter(sp -> !sp.toast()).forEach(unassigned::add);
            boolean first = coveredSpec == null;
            chunksTotal += o.plan().size();
            planned = true;
            coveredSpec = filter.spec();
            o.plan().stream().filter(SnapshotSplit::toast).forEach(sp -> toastOutstanding.add(sp.splitId()));
            LOG.info("{}: {} TOAST chunks to seed the mirrors with first", round, toastOutstanding.size());
            LOG.info("{} planned: {} tables in {} chunks of up to {} pages, rows versioned {}", o.copyStart() != null
                    ? round : first ? "initial snapshot" : "snapshot of newly included tables", o.tables(),
                    o.plan().size(), options.chunkPages(), start.snapshotVersion());
        } else {
            LOG.info("{} resumed under snapshot {}: {} of {} chunks done, {} not started", round, snapshot.id(),
                    chunksDone, chunksTotal, unassigned.size());
        }
        for (int reader : context.registeredReaders().keySet()) {
            context.sendEventToSourceReader(reader, new SnapshotEvents.Ready(snapshot.id()));
        }
        reconcile();
        serveIdle();
    }

    private void serveIdle() {
        List<Integer> waiting = new ArrayList<>(idle);
        idle.clear();
        waiting.forEach(this::assignTo);
    }

    /**
     * After a restore: TOAST chunks that are neither unassigned nor held by a reader finished between the
     * coordinator's checkpoint and the readers' (their ChunkDone was lost with the restore).
     */
    private void reconcile() {
        if (!reconciled && snapshot != null && hellos.keySet().containsAll(context.registeredReaders().keySet())
                && hellos.size() >= context.currentParallelism()) {
            Set<String> live = new HashSet<>();
            unassigned.forEach(sp -> live.add(sp.splitId()));
            hellos.values().forEach(live::addAll);
            toastOutstanding.retainAll(live);
            reconciled = true;
            LOG.info("{}: {} TOAST chunks left to seed after the restore", round, toastOutstanding.size());
        }
        if (reconciled && toastOutstanding.isEmpty()) {
            writeSeedMarker();
        }
    }

    /** Marks the mirrors seeded, for the plan's start point and the build's, then lets the table chunks go. */
    private void writeSeedMarker() {
        if (seeded || markerPending) {
            return;
        }
        if (mirrors == null) {
            seeded = true;
            return;
        }
        markerPending = true;
        // every request planned so far: earlier rounds are complete, this one's TOAST chunks are all in (a request
        // whose table left before its round has nothing to seed); the TOAST stage holds lookups until it is listed
        List<String> copies = List.copyOf(copiesPlanned);
        long copyStart = start.lsn();
        context.callAsync(() -> {
            try (ClickHouseConnection ch = mirrors.connect()) {
                Retrier retry = new Retrier(mirrors.retryTimeout(), () -> {});
                String create = SnapshotMarkers.createSql(ch.database());
                retry.run(create, () -> ch.execute(create));
                if (!copies.isEmpty()) {
                    String createCopies = SnapshotMarkers.createCopiesSql(ch.database());
                    retry.run(createCopies, () -> ch.execute(createCopies));
                    String sql = SnapshotMarkers.markCopiesSeededSql(ch.database(), mirrors.sinkId(), copyStart, copies);
                    retry.run(sql, () -> ch.execute(sql));
                }
                for (long lsn : java.util.stream.LongStream.of(start.lsn(), buildStart.lsn()).distinct().toArray()) {
                    String sql = SnapshotMarkers.markSeededSql(ch.database(), mirrors.sinkId(), lsn);
                    retry.run(sql, () -> ch.execute(sql));
                }
            }
            return null;
        }, (ok, error) -> {
            markerPending = false;
            if (error != null) {
                throw new IllegalStateException("initial snapshot: could not mark the TOAST mirrors seeded in"
                        + " ClickHouse: " + error.getMessage(), error);
            }
            seeded = true;
            LOG.info("{}: TOAST mirrors seeded (start point {}){}", round, start,
                    complete ? "" : "; copying the tables");
            if (snapshot != null) {
                serveIdle();
            }
        });
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        if (snapshot == null) {
            idle.add(subtaskId); // served once the snapshot is open
            return;
        }
        assignTo(subtaskId);
    }

    private void assignTo(int subtaskId) {
        if (!context.registeredReaders().containsKey(subtaskId)) {
            return;
        }
        SnapshotSplit head = unassigned.peek();
        if (head == null || (!head.toast() && !seeded)) {
            idle.add(subtaskId); // table chunks wait for the TOAST seed
            return;
        }
        SnapshotSplit next = unassigned.poll();
        idle.remove(subtaskId);
        context.assignSplit(next, subtaskId);
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (event instanceof SnapshotEvents.Hello h) {
            hellos.put(subtaskId, h.held());
            if (snapshot != null) {
                context.sendEventToSourceReader(subtaskId, new SnapshotEvents.Ready(snapshot.id()));
                reconcile();
            }
        } else if (event instanceof SnapshotEvents.ChunkDone d) {
            if (toastOutstanding.remove(d.splitId()) && reconciled && toastOutstanding.isEmpty()) {
                writeSeedMarker();
            }
            chunksDone = Math.min(chunksTotal, chunksDone + 1);
            rowsDone += d.rows();
            long secs = Math.max(1, (System.currentTimeMillis() - startedAt) / 1000);
            LOG.info("{}: chunk {} of {} done ({} rows); {} of {} chunks, {} rows in {} s", round, d.splitId(),
                    d.table(), d.rows(), chunksDone, chunksTotal, rowsDone, secs);
        }
    }

    @Override
    public void addSplitsBack(List<SnapshotSplit> splits, int subtaskId) {
        // a failed reader's chunks, as of the last checkpoint: read again from there
        splits.forEach(unassigned::addFirst);
        idle.remove(subtaskId);
    }

    @Override
    public void addReader(int subtaskId) {
        if (snapshot != null) {
            context.sendEventToSourceReader(subtaskId, new SnapshotEvents.Ready(snapshot.id()));
        }
    }

    /** Every chunk handed out and every reader idle: nothing of the copy is left to read. */
    private boolean allRead() {
        return planned && seeded && snapshot != null && unassigned.isEmpty()
                && idle.size() >= context.currentParallelism() && idle.containsAll(context.registeredReaders().keySet());
    }

    @Override
    public SnapshotEnumeratorState snapshotState(long checkpointId) {
        if (!complete && releaseAfter < 0 && allRead()) {
            releaseAfter = checkpointId; // the readers take this checkpoint's barrier after their last row
        }
        return new SnapshotEnumeratorState(planned ? start.lsn() : 0, planned ? start.xids() : "", planned,
                new ArrayList<>(unassigned), chunksTotal, chunksDone, rowsDone,
                complete, new ArrayList<>(toastOutstanding), coveredSpec, planned ? start.waitXid() : 0,
                new ArrayList<>(copiesPlanned));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        if (!complete && releaseAfter >= 0 && checkpointId >= releaseAfter) {
            complete = true;
            chunksDone = chunksTotal;
            closeSnapshot();
            LOG.info("{} complete: {} rows in {} chunks ({} s)", round, rowsDone, chunksTotal,
                    (System.currentTimeMillis() - startedAt) / 1000);
            copyIdle = true;
        }
    }

    private void closeSnapshot() {
        if (snapshot != null) {
            try {
                snapshot.close();
            } catch (SQLException e) {
                LOG.warn("closing the initial snapshot's transaction: {}", e.getMessage());
            }
            snapshot = null;
        }
    }

    @Override
    public void close() {
        closeSnapshot();
        copyIdle = false;
        ClickHouseConnection c = requestsConnection;
        if (c != null) {
            c.close();
        }
    }
}
