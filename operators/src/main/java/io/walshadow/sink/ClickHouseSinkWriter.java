package io.walshadow.sink;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.PartitionOf;
import io.walshadow.buffer.Drained;
import io.walshadow.buffer.DrainedCatalog;
import io.walshadow.buffer.DrainedChange;
import io.walshadow.buffer.DrainedCommit;
import io.walshadow.change.RowChange;
import io.walshadow.change.TruncateChange;
import io.walshadow.catalog.PartitionOf;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.clickhouse.CopyRequests;
import io.walshadow.clickhouse.BatchCommitter;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.ClickHouseException;
import io.walshadow.clickhouse.ColumnCodec;
import io.walshadow.clickhouse.DestinationSchema;
import io.walshadow.clickhouse.Faults;
import io.walshadow.clickhouse.Retrier;
import io.walshadow.clickhouse.RowBinaryBuffer;
import io.walshadow.clickhouse.RowEncoder;
import io.walshadow.clickhouse.SchemaPlanner;
import io.walshadow.clickhouse.ServerCapabilities;
import io.walshadow.clickhouse.SinkTables;
import io.walshadow.clickhouse.StepExecutor;
import io.walshadow.clickhouse.ToastMirror;
import io.walshadow.clickhouse.ValueConversionException;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.xact.PgTimestamps;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stages drained commits for the committer. Between two checkpoints, a batch: rows go, RowBinary-encoded, to the
 * staging table of their destination table's current shape (partition = batch, {@code _seg} = the segment between
 * two DDL steps), flushed whenever {@code flushBytes} are buffered (the flush blocks: backpressure, not unbounded
 * memory); catalog changes and truncates become DDL steps at their place in the sequence; every commit adds a
 * commit log row. At a checkpoint the batch's step list becomes the committable.
 *
 * <p>After a restore, staging partitions at or above the restored next batch were written after the checkpoint and
 * are dropped; on a fresh start every staging partition of this sink is. Batch numbers always continue above any the
 * watermark has seen, so a batch number is never used for two different batches.
 *
 * <p>Metrics (group {@code clickhouse_sink}): counters {@code rows_staged}, {@code bytes_staged}, {@code flushes},
 * {@code writer_retries}, {@code toast_values_written_empty} (TOAST values the TOAST stage filled, written NULL or
 * empty), {@code rows_skipped_dropped_table}, {@code changes_superseded_by_rewrite}, {@code ddl_steps},
 * {@code toast_chunk_changes_skipped} (chunk rows not mirrored: mirrors off, or not a chunk),
 * {@code snapshot_rows_superseded} (initial-snapshot rows of storage the stream replaced, or of a relation it dropped);
 * per destination table and operation, counter {@code rows} in subgroups {@code table} (the replicated relation or
 * partition root, {@code schema.table}) and {@code op} ({@code insert}, {@code update}, {@code delete} for the
 * stream's row changes, one per row PostgreSQL changed; {@code copy} for rows of the initial snapshot or of a
 * partition copy), counted when the row is staged.
 *
 * <p>With {@code clickhouse.visibility=commit} ({@link ClickHouseSinkOptions#visibleAtCommit()}) rows skip staging:
 * after a commit, at least every {@code clickhouse.visibility.interval}, the buffered rows go straight into their
 * destinations (and mirrors, and the commit log), and {@code _walshadow_visible} says which commit they end with.
 * That is safe because rows commute: a version replayed after a restore is byte-identical to the one written before,
 * and ReplacingMergeTree keeps the newest {@code _lsn} whatever the order. Steps do not commute with the rows
 * around them (a column dropped, a table renamed or truncated, a partition ended, a copy): the first such step sends
 * the rest of the batch down the staged path, and direct writes resume only at a batch that starts after the
 * committer finished every batch holding staged work (the watermark says so), so no row is ever written before a
 * step that precedes it, or replayed after one that follows it. {@code CREATE TABLE IF NOT EXISTS} is run at once.
 * Rows of a batch that starts while the committer is behind wait (parked) until it has caught up; a restored writer
 * waits the same way for the newest batch with staged work its state names. {@code _walshadow_committed} stays the
 * checkpointed cut.
 *
 * <p>Chunk rows of {@code pg_toast} relations go to their TOAST mirrors ({@link ToastMirror}) with the batch; an
 * owner's TRUNCATE empties its mirror in the same step; a dropped TOAST relation's mirror is emptied in the batch
 * after the next one (see {@link SinkWriterState#retireMirrors()}).
 */
final class ClickHouseSinkWriter implements CommittingSinkWriter<Drained, SinkBatch>,
        StatefulSinkWriter<Drained, SinkWriterState> {
    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseSinkWriter.class);

    private final ClickHouseSinkOptions options;
    private final PgConnectionConfig pg;
    private final String sinkId;
    private final ClickHouseConnection ch;
    private final Retrier retry;
    private final StepExecutor executor;
    private final SchemaPlanner planner;
    private final ServerCapabilities caps;
    private io.walshadow.pg.StreamTypes types;
    private ValueDecoder values;

    /** Destination tables by source relation oid. */
    private final Map<Integer, DestTable> tables = new HashMap<>();
    /** Per relation, what writing its rows needs for the destination's current shape (derived once per shape). */
    private final Map<Integer, Target> targets = new HashMap<>();
    /** Buffered rows per staging table, and the staging tables known to exist. */
    private final Map<String, Stage> stages = new LinkedHashMap<>();
    private final Set<String> createdStages = new HashSet<>();
    private RowBinaryBuffer commitLog = new RowBinaryBuffer(4096);

    // the batch
    private long batch;
    /**
     * This writer's attempt, in every row it stages: a restored attempt reuses the batch number of the batch left
     * unfinished, and a writer of an earlier attempt cut off from the job (a zombie) may still be writing into that
     * partition; the committer takes only the rows of the attempt named in the committable. Random: attempts of
     * different jobs restored from one checkpoint must differ too.
     */
    private final long attempt = newAttempt();
    /** Rows this attempt staged into each staging table in the current batch (to tell whether a failed try landed). */
    private final Map<String, Long> stagedInBatch = new HashMap<>();
    private int segment;
    /** Destination (or mirror) name to the segment after the batch's last DDL step on it. */
    private final Map<String, Integer> touchedAt = new HashMap<>();
    private final List<Object> steps = new ArrayList<>(); // SinkStep or PendingInsert
    private long commits;
    private long rows;
    private DrainedCommit last;
    private long buffered;

    // the commit being drained
    private final Map<Integer, RelFileLocator> rewrittenTo = new HashMap<>();
    private final Set<Integer> droppedInCommit = new HashSet<>();
    /** Roots that stop being roots in the catalog commit being applied (dropped, or attached under another). */
    private final Set<Integer> rootsGoing = new HashSet<>();
    private final Map<String, RowChange> speculative = new HashMap<>();
    /**
     * Relations the stream dropped (with the writer's state): an initial-snapshot row of one that arrives later was
     * read before the drop and must not bring its destination back.
     */
    private final Set<Integer> droppedRelations = new java.util.TreeSet<>();

    // TOAST mirrors
    /** Mirrors this writer has a CREATE step for (an idempotent step: after a restore, once more). */
    private final Set<Integer> mirrorsCreated = new HashSet<>();
    /** Mirrors whose TOAST relation a commit of this batch dropped: retired in the batch after the next one. */
    private final Set<String> retireQueued = new java.util.LinkedHashSet<>();
    /** TOAST relations the commit being drained moved to new storage under the same oid (rewrite or TRUNCATE). */
    private final Set<Integer> rewrittenToast = new java.util.TreeSet<>();
    /**
     * Partitions whose storage this commit rewrote, under a root keyed by TID: the rows at TIDs the rewrite did not
     * re-insert end at the commit (a {@link SinkStep.PartitionBarrier} below the transaction's first record).
     */
    private final Map<Integer, DestTable> rewrittenPartitions = new java.util.TreeMap<>();
    /**
     * Partitions that left a root (DETACH, DROP, excluded), with that root: a row decoded while the partition was in
     * it but committed after it left (a direct writer straddling a DETACH CONCURRENTLY, or rows of the transaction
     * that detached or dropped it) is the partition's own, as PostgreSQL has it. Part of the writer's state.
     */
    private final Map<Integer, Integer> leftRoots = new HashMap<>();
    /**
     * Partitions that left a root for another (a partitioned table above them detached, a root of its own now), with
     * that root: a row of {@link #leftRoots} goes there, mapped onto its columns by name. Part of the writer's state.
     */
    private final Map<Integer, Integer> movedRoots = new HashMap<>();
    /** Partitions attached with rows the WAL does not hold: the LSN of the latest such attach. */
    private final Map<Integer, Long> attachedAt = new HashMap<>();
    /** Mirrors to retire in this batch (dropped in the previous, checkpointed batch). */
    private List<String> retireDue = List.of();

    private final Counter rowsStaged;
    private final Counter bytesStaged;
    private final Counter flushes;
    private final Counter toastEmpty;
    private final Counter skippedDropped;
    private final Counter superseded;
    private final Counter ddlSteps;
    private final Counter toastChunks;
    private final Counter snapshotSuperseded;
    private final Counter partitionsEnded;
    private final Counter partitionsAttachedUncopied;
    private final Counter partitionsCopied;
    private final Counter partitionsAttachedCopied;
    private final Counter partitionsAttachRequested;
    private final Counter partitionsMovedCopied;
    /** The roots of their own the catalog change being applied attached below another root. */
    private Set<Integer> attachedRoots = Set.of();
    private final Counter partitionRowsLeft;
    private final Quarantine quarantine;
    /** The batch's commit times, sampled for the committer's commit-to-visible latency. */
    private final CommitTimeSample commitTimes = new CommitTimeSample();

    // direct writes (clickhouse.visibility=commit)
    /** Writing rows straight into the destinations now (else staging, as with checkpoint visibility). */
    private boolean direct;
    /**
     * Waiting to write directly: a batch that began while the committer still had staged work to do keeps its rows
     * encoded for a direct write until the watermark shows that work done; if a step, a full buffer or the barrier
     * comes first, they are staged after all ({@link #unpark}).
     */
    private boolean parked;
    /** The newest batch that holds staged work: direct writes wait for the watermark to show it finished. */
    private long awaitBatch;
    /** When the watermark may be asked again whether {@link #awaitBatch} finished (ms). */
    private long nextAwaitPoll;
    /** Commit log rows of this batch that were staged (the others went straight into the log). */
    private long stagedCommits;
    /** The newest commit {@code _walshadow_visible} was told of by this writer. */
    private DrainedCommit lastVisible;
    private long lastDirectWrite;
    /** Events of a commit that has not arrived yet are buffered: a timer must not write half a transaction. */
    private boolean inTransaction;
    private final org.apache.flink.api.common.operators.ProcessingTimeService timers;
    private final Counter directWrites;
    private final Counter stagedForOrder;
    /** Rows that waited for the committer (parked), then written directly / staged after all. */
    private final Counter parkedDirect;
    private final Counter parkedStaged;
    /**
     * Set by the direct write that advanced {@code _walshadow_visible}, once it landed: its commit -> visible ms (-1
     * none yet), the commit's LSN (0 none yet) and time on the source.
     */
    private volatile long directVisibleLagMs = -1;
    private volatile long directVisibleLsn;
    private volatile long directVisibleCommitMs = -1;
    /** Runs the direct write in flight (created with the first write). */
    private java.util.concurrent.ExecutorService directPool;
    /** Runs the INSERTs of a direct write, a few at once. */
    private java.util.concurrent.ExecutorService insertPool;
    /**
     * The direct write in flight, null when none: INSERTs and bytes written (counted on the task thread). One
     * at a time: two in flight measured slower on a shared ClickHouse (more, smaller parts at once).
     */
    private java.util.concurrent.Future<long[]> inFlight;

    private static final class Stage {
        final String name;
        final String createSql;
        /** The destination table whose shape the stage has; null for a TOAST mirror's stage. */
        final DestTable table;
        /** Where its rows go, and their columns (a direct write names them). */
        final String dest;
        final List<String> columns;
        /** Replaced by a fresh buffer when a direct write takes its rows. */
        RowBinaryBuffer rows = new RowBinaryBuffer(1 << 16);
        /** The batch's insert step of this stage's current segment (null until a row came in it). */
        PendingInsert insert;

        Stage(String name, String createSql, DestTable table, String dest, List<String> columns) {
            this.name = name;
            this.createSql = createSql;
            this.table = table;
            this.dest = dest;
            this.columns = columns;
        }
    }

    /**
     * @param rows the destination's {@code rows} counter per {@link #OPS} index, registered on first use (shared by
     *     the targets of one destination name)
     */
    private record Target(DestTable table, RowEncoder encoder, String stage, List<String> columns, Counter[] rows) {}

    /** The {@code op} label of the per-table row counters; {@code copy}: rows of a snapshot (no transaction). */
    private static final String[] OPS = {"insert", "update", "delete", "copy"};
    private static final int COPY = 3;
    private final MetricGroup metrics;
    /** Per destination's qualified name, its {@code rows} counters (Flink registers a name in a group only once). */
    private final Map<String, Counter[]> tableRows = new HashMap<>();

    private static final class PendingInsert {
        final String table;
        final String stage;
        final List<String> columns;
        final int segment;
        long rows;

        PendingInsert(String table, String stage, List<String> columns, int segment) {
            this.table = table;
            this.stage = stage;
            this.columns = columns;
            this.segment = segment;
        }
    }

    ClickHouseSinkWriter(ClickHouseSinkOptions options, PgConnectionConfig pg, WriterInitContext ctx,
                         SinkWriterState restored) throws IOException {
        this.options = options;
        this.pg = pg;
        this.sinkId = options.sinkId();
        MetricGroup g = ctx.metricGroup().addGroup("clickhouse_sink");
        metrics = g;
        rowsStaged = g.counter("rows_staged");
        g.meter("rows_staged_per_second", new org.apache.flink.metrics.MeterView(rowsStaged));
        bytesStaged = g.counter("bytes_staged");
        g.meter("bytes_staged_per_second", new org.apache.flink.metrics.MeterView(bytesStaged));
        flushes = g.counter("flushes");
        toastEmpty = g.counter("toast_values_written_empty");
        skippedDropped = g.counter("rows_skipped_dropped_table");
        superseded = g.counter("changes_superseded_by_rewrite");
        ddlSteps = g.counter("ddl_steps");
        toastChunks = g.counter("toast_chunk_changes_skipped");
        snapshotSuperseded = g.counter("snapshot_rows_superseded");
        partitionsEnded = g.counter("partition_barriers");
        partitionsAttachedUncopied = g.counter("partitions_attached_uncopied");
        partitionsCopied = g.counter("partitions_detached_copied");
        partitionsAttachedCopied = g.counter("partitions_attached_copied");
        partitionsAttachRequested = g.counter("partitions_attached_copy_requested");
        partitionsMovedCopied = g.counter("partitions_moved_copied");
        partitionRowsLeft = g.counter("partition_rows_skipped_left_root");
        directWrites = g.counter("direct_writes");
        // clickhouse.visibility=commit: the last direct write's commit -> visible (the committer's visible_lag_ms and
        // commit_to_visible_ms follow the checkpointed batches)
        g.gauge("direct_visible_lag_ms", () -> directVisibleLagMs);
        // as the committer's visible_lsn / visible_commit_age_ms, for the rows written at commit
        g.gauge("direct_visible_lsn", () -> directVisibleLsn);
        g.gauge("direct_visible_commit_age_ms", () -> {
            long t = directVisibleCommitMs;
            return t < 0 ? -1L : Math.max(0L, System.currentTimeMillis() - t);
        });
        stagedForOrder = g.counter("batches_staged_for_order");
        parkedDirect = g.counter("rows_parked_written_directly");
        parkedStaged = g.counter("rows_parked_staged");
        timers = ctx.getProcessingTimeService();
        Counter retries = g.counter("writer_retries");
        ch = options.connect();
        retry = new Retrier(options.retryTimeout(), retries::inc);
        quarantine = new Quarantine(sinkId, ch, retry, g);
        try {
            caps = retry.call("SELECT version()", () -> ServerCapabilities.probe(ch));
            executor = new StepExecutor(ch, caps, retry, sinkId);
            new BatchCommitter(ch, caps, retry, sinkId).setup();
            if (options.visibleAtCommit()) {
                readVisibleMark();
            }
            types = new io.walshadow.pg.StreamTypes(pg, restored == null ? io.walshadow.catalog.TypeSet.EMPTY : restored.types());
            loadTypes();
            if (restored != null) {
                if (!restored.sinkId().equals(sinkId)) {
                    throw new IOException("restored sink state belongs to sink '" + restored.sinkId()
                            + "', this job is configured as '" + sinkId + "'");
                }
                restored.tables().forEach(t -> tables.put(t.relOid(), t));
                executor.addMissingConsistentViews(restored.tables().stream().map(DestTable::destName).toList());
                retireDue = restored.retireMirrors();
                droppedRelations.addAll(restored.droppedRelations());
                leftRoots.putAll(restored.leftRoots());
                attachedAt.putAll(restored.attachedAt());
                movedRoots.putAll(restored.movedRoots());
                quarantine.restore(restored.quarantined(), options.filter());
                dropStagedFrom(restored.nextBatch());
                // Above every committed batch too: restored from an older savepoint, numbers it already used
                // may have been committed since, with other commits in them.
                batch = Math.max(restored.nextBatch(), nextFreshBatch());
                // the restored committable (if any) may not be committed yet: its steps go first
                awaitBatch = restored.stagedBatch();
            } else {
                dropStagedFrom(0);
                batch = nextFreshBatch();
                quarantine.restore(List.of(), options.filter());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to ClickHouse", e);
        } catch (ClickHouseException e) {
            throw new IOException("sink " + sinkId + " could not start: " + e.getMessage(), e);
        }
        planner = new SchemaPlanner(ch.database(), caps, options.dropTables());
        direct = options.visibleAtCommit() && awaitBatch <= 0;
        if (options.visibleAtCommit()) {
            scheduleDirectWrite();
        }
        LOG.info("ClickHouse sink {} on {} (server {}), {} destination tables, batch {}, attempt {}", sinkId, ch,
                caps.version(), tables.size(), batch, Long.toUnsignedString(attempt));
    }

    /**
     * The gauges of the direct writes start from the sink's mark in ClickHouse (what a restarted job has visible), not
     * from 0 until this run's first write: on an idle source that could be a long time.
     */
    private void readVisibleMark() throws InterruptedException {
        String q = SinkTables.lastVisibleSql(ch.database(), sinkId);
        List<String[]> rows = retry.call(q, () -> ch.queryTsv(q));
        if (!rows.isEmpty()) {
            directVisibleLsn = Long.parseUnsignedLong(rows.get(0)[0]);
            directVisibleCommitMs = Long.parseLong(rows.get(0)[1]) * 1000;
        }
    }

    private static long newAttempt() {
        long a;
        do {
            a = new java.security.SecureRandom().nextLong();
        } while (a == 0); // 0 marks batches staged without an attempt
        return a;
    }

    /** New value decoders and encoders: the types a commit brought (or a reload) may differ from the cached ones. */
    private void loadTypes() {
        values = new ValueDecoder(types);
        targets.clear();
    }

    // ---- staging housekeeping

    private static final Pattern OWN_STAGE_SUFFIX = Pattern.compile("([0-9a-f]{16}|commit_log)");

    /** Drops this sink's staging partitions with batch >= {@code from}. */
    private void dropStagedFrom(long from) throws InterruptedException {
        String prefix = SinkTables.STAGE_PREFIX + sinkId + "_";
        String q = "SELECT DISTINCT table, partition FROM system.parts WHERE active AND database = "
                + ColumnCodec.quote(ch.database()) + " AND startsWith(table, " + ColumnCodec.quote(prefix) + ")";
        for (String[] row : retry.call(q, () -> ch.queryTsv(q))) {
            String suffix = row[0].substring(prefix.length());
            if (OWN_STAGE_SUFFIX.matcher(suffix).matches() && Long.parseLong(row[1]) >= from) {
                LOG.info("dropping staged batch {} of {} (written after the checkpoint restored from)", row[1], row[0]);
                executor.sql("ALTER TABLE " + DestinationSchema.quote(ch.database()) + "." + DestinationSchema.quote(row[0]) + " DROP PARTITION " + row[1]);
            }
        }
    }

    /** On a fresh start: above every batch this sink id ever committed (an earlier job's, with this sink id). */
    private long nextFreshBatch() throws InterruptedException {
        String q = "SELECT max(batch) FROM " + DestinationSchema.quote(ch.database()) + "."
                + DestinationSchema.quote(SinkTables.WATERMARK) + " WHERE sink = "
                + ColumnCodec.quote(sinkId);
        String max = retry.call(q, () -> ch.queryString(q));
        return (max == null || max.isEmpty() ? 0 : Long.parseLong(max)) + 1;
    }

    // ---- the stream

    @Override
    public void write(Drained d, Context context) throws IOException, InterruptedException {
        Faults.at("writer.write");
        try {
            if (options.visibleAtCommit() && !direct) {
                resumeDirect();
            }
            if (d instanceof DrainedChange c) {
                inTransaction = c.fullXid() != 0;
                if (c.change() instanceof RowChange r) {
                    row(c, r);
                } else {
                    truncate((TruncateChange) c.change());
                }
            } else if (d instanceof DrainedCatalog cat) {
                inTransaction = cat.fullXid() != 0;
                catalog(cat);
            } else {
                inTransaction = false;
                commit((DrainedCommit) d);
            }
            if (direct && !inTransaction && timers.getCurrentProcessingTime() - lastDirectWrite
                    >= options.directWrites().toMillis() && !directWriteInFlight()) {
                writeDirect();
            } else if (buffered >= options.flushBytes()) {
                if (parked) {
                    unpark();
                }
                if (direct) {
                    writeDirect(); // a large transaction: its rows so far (_walshadow_visible waits for its commit)
                } else {
                    flushStages();
                }
            }
        } catch (ClickHouseException e) {
            throw new IOException("sink " + sinkId + ": " + e.getMessage(), e);
        }
    }

    private void catalog(DrainedCatalog cat) {
        boolean snapshot = cat.fullXid() == 0;
        if (!snapshot) {
            types.add(cat.types()); // the changed tables' types as of the commit
        }
        loadTypes();
        // roots of their own attached below another root (ATTACH of a sub-partitioned table): their partitions move
        // to the other root in this commit, and their rows there are copied before their own table goes
        attachedRoots = snapshot ? Set.of() : attachedRoots(cat.changes());
        // a root that stops being one (dropped, or attached as a partition) goes last: the partitions leaving it in
        // this commit read their rows from its table first (to their new root's), and need no barrier there
        rootsGoing.clear();
        List<CatalogChange> last = new ArrayList<>();
        for (CatalogChange change : cat.changes()) {
            RelationDescriptor b = change.before();
            if (b != null && b.relkind() == 'p' && !routed(b) && (change.after() == null || routed(change.after()))) {
                rootsGoing.add(change.relOid());
                last.add(change);
            }
        }
        for (CatalogChange change : cat.changes()) {
            if (!rootsGoing.contains(change.relOid())) {
                catalogChange(change, cat, snapshot);
            }
        }
        for (CatalogChange change : last) {
            if (attachedRoots.contains(change.relOid())) {
                attachedRoot(change, cat.commitLsn()); // its partitions' rows went to the other root's table
            } else {
                catalogChange(change, cat, snapshot);
            }
        }
        rootsGoing.clear();
    }

    private void catalogChange(CatalogChange change, DrainedCatalog cat, boolean snapshot) {
        if (snapshot && lateSnapshotRow(change.relOid(), change.after().locator())) {
            return; // an empty table of the snapshot the stream has since rewritten or dropped
        }
        if (snapshot && routed(change.after()) && Integer.valueOf(change.after().partition().root().relOid())
                .equals(leftRoots.get(change.relOid()))) {
            return; // an empty partition of the snapshot that has since left that root
        }
        if (!snapshot) {
            if (change.after() == null) {
                droppedRelations.add(change.relOid());
            } else {
                droppedRelations.remove(change.relOid());
            }
        }
        retireToastOf(change);
        if (isToast(change.after()) || isToast(change.before())) {
            return; // TOAST relations get mirrors, not destination tables
        }
        if (routed(change.before()) || routed(change.after())) {
            partitionChange(change, cat.commitLsn());
            return; // a partition's rows go to its root's destination, whose own changes plan its DDL
        }
        DestTable current = tables.get(change.relOid());
        SchemaPlanner.Plan plan = planner.plan(current, change, cat.commitLsn(), types, values);
        addSteps(plan.steps());
        targets.remove(change.relOid());
        if (plan.table() == null) {
            if (tables.remove(change.relOid()) != null) {
                droppedInCommit.add(change.relOid());
            }
            return;
        }
        checkNameFree(plan.table());
        tables.put(change.relOid(), plan.table());
        if (snapshot) {
            types.pin(List.of(change.after())); // an empty table the snapshot created: its types for later
        }
        if (plan.supersedeOldStorage()) {
            rewrittenTo.put(change.relOid(), change.after().locator());
        }
    }

    /**
     * The roots of their own the commit made partitions of another root: gone as roots (a partitioned table below
     * another is not followed on its own), while partitions they routed now route to another root. (A root dropped
     * in a transaction that also moved one of its partitions elsewhere looks the same: its other partitions' rows
     * end in its table as they would, and only the moved ones are copied.)
     */
    private Set<Integer> attachedRoots(List<CatalogChange> changes) {
        Set<Integer> gone = new HashSet<>();
        for (CatalogChange c : changes) {
            if (c.after() == null && c.before() != null && !routed(c.before())
                    && PartitionOf.isRootLocator(c.before().locator())) {
                gone.add(c.relOid());
            }
        }
        Set<Integer> out = new HashSet<>();
        for (CatalogChange c : changes) {
            if (routed(c.before()) && routed(c.after()) && gone.contains(c.before().partition().root().relOid())
                    && c.after().partition().root().relOid() != c.before().partition().root().relOid()) {
                out.add(c.before().partition().root().relOid());
            }
        }
        return out;
    }

    /**
     * A root of its own attached below another root: its partitions' rows have been copied into the other root's
     * table ({@link #partitionChange}); its own table goes as a dropped table's does, as a plain table's at its
     * attach.
     */
    private void attachedRoot(CatalogChange change, long commitLsn) {
        int rel = change.relOid();
        droppedRelations.add(rel);
        targets.remove(rel);
        DestTable own = tables.remove(rel);
        if (own == null) {
            return;
        }
        droppedInCommit.add(rel);
        String aside = own.destName() + "__attached_" + Lsn.format(commitLsn).replace('/', '_');
        addSteps(List.of(options.dropTables() ? new SinkStep.DropTable(own.destName())
                : new SinkStep.RenameTable(own.destName(), aside)));
        partitionsAttachedCopied.inc();
        LOG.info("sink {}: {} was attached below another partitioned table at {}: its partitions' rows went from {}"
                + " to their new root's table; {} is then {}", sinkId, change.before().qualifiedName(),
                Lsn.format(commitLsn), own.destName(), own.destName(),
                options.dropTables() ? "dropped (clickhouse.on.drop drop)" : "renamed to " + aside);
    }

    private static boolean routed(RelationDescriptor d) {
        return d != null && d.partition() != null;
    }

    /**
     * A partition's catalog change at a commit: it left its root (DETACH, DROP, excluded), so its rows there end; or
     * its storage was rewritten under a root keyed by TID (VACUUM FULL, CLUSTER, ALTER TYPE), so the rows at the old
     * TIDs end before the rewrite's re-inserts, which this commit stages after this step.
     */
    private void partitionChange(CatalogChange change, long commitLsn) {
        RelationDescriptor b = change.before();
        RelationDescriptor a = change.after();
        int leaf = change.relOid();
        if (routed(a)) {
            leftRoots.remove(leaf); // attached (again): no writer straddles an ATTACH, which locks the partition
        }
        movedRoots.remove(leaf);
        if (routed(b)) {
            int root = b.partition().root().relOid();
            boolean left = !routed(a) || a.partition().root().relOid() != root;
            if (left) {
                leftRoots.put(leaf, root);
            }
            boolean rewritten = !left && !a.locator().equals(b.locator());
            DestTable dest = tables.get(root);
            if (rewritten) {
                rewrittenTo.put(leaf, a.locator());
            }
            if (dest != null && left && a != null && !routed(a) && tables.get(leaf) == null) {
                ownTable(dest, a); // detached, and included on its own: a table of its own from its rows there
            }
            if (left && routed(a)) {
                // moved to another root with the partitioned table above it (attached below that root, or detached
                // from this one and a root of its own since): its rows in this root's table go with it, and rows of
                // writers that straddled the move follow it there
                movedRoots.put(leaf, a.partition().root().relOid());
                moved(dest, a, commitLsn);
            }
            // a root that stops being one keeps its table as it was (renamed aside, or dropped, after the copies)
            if (dest != null && left && !options.keepDetachedRows() && !rootsGoing.contains(root)) {
                endPartition(dest, leaf, commitLsn, commitLsn); // its rows, this transaction's too, end here
                partitionsEnded.inc();
            } else if (dest != null && rewritten && dest.keyedByTid()) {
                rewrittenPartitions.put(leaf, dest); // ended at the commit, after the rewrite's re-inserts
            }
        } else if (a != null && tables.get(a.partition().root().relOid()) == null
                && !droppedInCommit.contains(a.partition().root().relOid())) {
            create(a.partition().root()); // an empty partition in the initial snapshot: the root exists all the same
        }
        if (change.attachedWithRows() && b == null && routed(a)) {
            requestCopy(a, commitLsn);
            return;
        }
        if (!routed(b) && b != null && routed(a)) {
            // a table with rows of its own attached: they are not in the WAL after its attach
            DestTable own = tables.remove(leaf);
            targets.remove(leaf);
            DestTable root = tables.get(a.partition().root().relOid());
            if (own != null && root != null) {
                intoRoot(own, root, leaf, commitLsn); // replicated on its own until now: its table has them all
                return;
            }
            partitionsAttachedUncopied.inc();
            LOG.warn("sink {}: {} was attached as a partition of {} at {}: rows it held before are not copied into"
                    + " {}'s destination by this build (only its changes from here on){}", sinkId, b.qualifiedName(),
                    a.partition().root().qualifiedName(), Lsn.format(commitLsn), a.partition().root().qualifiedName(),
                    own == null ? "" : "; its own ClickHouse table " + own.destName() + " is kept, no longer written");
        }
    }

    /**
     * A partition that moves from one root to another with a partitioned table above it: its rows as of this commit
     * go from the old root's table ({@code from}) to the new one's, {@code _partition}, versions and TIDs kept (the
     * old table holds every earlier commit). Without the old table, the rows are copied from PostgreSQL.
     */
    private void moved(DestTable from, RelationDescriptor leaf, long commitLsn) {
        RelationDescriptor root = leaf.partition().root();
        DestTable into = tables.get(root.relOid());
        if (into == null && !droppedInCommit.contains(root.relOid())) {
            into = create(root);
        }
        if (from == null || into == null) {
            if (into != null) {
                requestCopy(leaf, commitLsn);
            }
            return;
        }
        List<String>[] cols = sameColumns(from, into);
        addSteps(List.of(new SinkStep.CopyPartition(from.destName(), into.destName(), leaf.relOid(), false, cols[0],
                cols[1])));
        partitionsMovedCopied.inc();
    }

    /**
     * A table the job did not replicate on its own, attached: the rows it held then are in its heap only, not in the
     * WAL. The request, committed in order with this batch, has the snapshot's coordinator copy them from PostgreSQL
     * at a start point after the attach (rows versioned just below it, routed to the root like any of its rows);
     * until then the root's table lacks them.
     */
    private void requestCopy(RelationDescriptor leaf, long commitLsn) {
        RelationDescriptor root = leaf.partition().root();
        addSteps(List.of(new SinkStep.RequestCopy(CopyRequests.TABLE, sinkId, leaf.relOid(), root.relOid(),
                commitLsn)));
        attachedAt.put(leaf.relOid(), commitLsn);
        partitionsAttachRequested.inc();
        LOG.info("sink {}: {} was attached as a partition of {} at {}; the rows it held then are copied into {}'s"
                + " table from PostgreSQL (copy requested in {})", sinkId, leaf.qualifiedName(), root.qualifiedName(),
                Lsn.format(commitLsn), root.qualifiedName(), CopyRequests.TABLE);
    }

    /**
     * A detached partition's own destination, filled from its rows in its root's: the root's table holds every
     * commit before this one, so the copy is the partition as of the detach.
     */
    private void ownTable(DestTable root, RelationDescriptor leaf) {
        DestTable own = create(leaf);
        List<String>[] cols = sameColumns(root, own);
        addSteps(List.of(new SinkStep.CopyPartition(root.destName(), own.destName(), leaf.relOid(), false, cols[0],
                cols[1])));
        partitionsCopied.inc();
    }

    /**
     * A table replicated on its own, attached: its rows as of the attach go to its root's table; its own table then
     * goes as a dropped table's does ({@code clickhouse.on.drop}: dropped, or renamed aside), so that a later detach
     * starts its table afresh.
     */
    private void intoRoot(DestTable own, DestTable root, int leaf, long commitLsn) {
        List<String>[] cols = sameColumns(own, root);
        String aside = own.destName() + "__attached_" + Lsn.format(commitLsn).replace('/', '_');
        addSteps(List.of(new SinkStep.CopyPartition(own.destName(), root.destName(), leaf, true, cols[0], cols[1]),
                options.dropTables() ? new SinkStep.DropTable(own.destName())
                        : new SinkStep.RenameTable(own.destName(), aside)));
        partitionsAttachedCopied.inc();
        LOG.info("sink {}: {} was attached as a partition of {}: its rows go from {} to {}, which is then {}", sinkId,
                own.shape().qualifiedName(), root.shape().qualifiedName(), own.destName(), root.destName(),
                options.dropTables() ? "dropped (clickhouse.on.drop drop)" : "renamed to " + aside);
    }

    /**
     * The columns two destinations of one partition share, matched by PostgreSQL name (either may keep an older
     * ClickHouse name for a sorting-key column), then the replication columns both have: [from (select expressions),
     * into (column names)]. A Nullable column going into one that is not (a partition key column is NOT NULL in the
     * partition, not in its root) is read with {@code assumeNotNull}: only tombstones hold NULL there.
     */
    @SuppressWarnings("unchecked")
    private static List<String>[] sameColumns(DestTable from, DestTable into) {
        List<String> f = new ArrayList<>();
        List<String> t = new ArrayList<>();
        for (io.walshadow.catalog.Column c : into.shape().columns()) {
            String to = into.chName(c.attnum());
            io.walshadow.catalog.Column fc = liveColumn(from, c.name());
            if (to != null && fc != null && from.chName(fc.attnum()) != null) {
                String src = DestinationSchema.quote(from.chName(fc.attnum()));
                boolean narrowing = from.chTypes().get(fc.attnum() - 1).startsWith("Nullable(")
                        && !into.chTypes().get(c.attnum() - 1).startsWith("Nullable(");
                f.add(narrowing ? "assumeNotNull(" + src + ")" : src);
                t.add(to);
            }
        }
        List<String> fromCols = SinkTables.columns(from);
        List<String> intoCols = SinkTables.columns(into);
        // _partition only between two roots' tables (a partition moving with a partitioned table above it)
        for (String meta : List.of(DestinationSchema.LSN, DestinationSchema.COMMIT_LSN, DestinationSchema.XID,
                DestinationSchema.IS_DELETED, DestinationSchema.TID_BLOCK, DestinationSchema.TID_OFFSET,
                DestinationSchema.PARTITION)) {
            if (fromCols.contains(meta) && intoCols.contains(meta)) {
                f.add(DestinationSchema.quote(meta));
                t.add(meta);
            }
        }
        return new List[] {f, t};
    }

    /** A table's live PostgreSQL column {@code pgName}, or null. */
    private static io.walshadow.catalog.Column liveColumn(DestTable t, String pgName) {
        for (io.walshadow.catalog.Column c : t.shape().columns()) {
            if (!c.dropped() && c.name().equals(pgName)) {
                return c;
            }
        }
        return null;
    }

    /** A {@link SinkStep.PartitionBarrier}: the partition's live rows older than {@code below} end at {@code lsn}. */
    private void endPartition(DestTable dest, int leaf, long below, long lsn) {
        addSteps(List.of(new SinkStep.PartitionBarrier(dest.destName(), leaf, keyColumns(dest), below, lsn)));
    }

    private static List<String> keyColumns(DestTable t) {
        if (t.keyedByTid()) {
            return List.of(DestinationSchema.PARTITION, DestinationSchema.TID_BLOCK, DestinationSchema.TID_OFFSET);
        }
        List<String> key = new ArrayList<>();
        for (int a : t.keyAttnums()) {
            key.add(t.chName(a));
        }
        return key;
    }

    /**
     * A dropped TOAST relation (with its owner, or replaced by a rewrite's) retires its mirror, but not in this batch:
     * a restore from the checkpoint before it re-reads rows that still refer to it. The mirror is emptied, not
     * dropped, so a fetch finds a table (its absence means something removed it behind the job's back).
     */
    private void retireToastOf(CatalogChange change) {
        if (!options.toastMirrors() || change.before() == null) {
            return;
        }
        RelationDescriptor b = change.before();
        RelationDescriptor a = change.after();
        if (isToast(b) && isToast(a) && !a.locator().equals(b.locator())) {
            rewrittenToast.add(b.relOid()); // new storage, same oid and value ids: the commit's chunks are reborn
        }
        if (isToast(b) ? a == null : b.toastRelOid() != 0 && (a == null || a.toastRelOid() != b.toastRelOid())) {
            retireQueued.add(ToastMirror.name(isToast(b) ? b.relOid() : b.toastRelOid()));
        }
    }

    private void checkNameFree(DestTable t) {
        for (DestTable other : tables.values()) {
            if (other.relOid() != t.relOid() && other.destName().equals(t.destName())) {
                throw new IllegalStateException("relations " + other.shape().qualifiedName() + " and "
                        + t.shape().qualifiedName() + " both map to ClickHouse table " + t.destName()
                        + ": exclude one of them (tables.exclude)");
            }
        }
    }

    private void truncate(TruncateChange t) {
        Set<Integer> named = new java.util.HashSet<>();
        for (RelationDescriptor d : t.relations()) {
            named.add(d.relOid());
        }
        for (RelationDescriptor d : t.relations()) {
            if (routed(d)) {
                // a partition truncated alone ends its own rows; one truncated with its root goes with the root's
                DestTable root = tables.get(d.partition().root().relOid());
                if (root != null && !named.contains(root.relOid()) && !quarantine.skips(d.relOid())
                        && !options.keepDetachedRows()) {
                    endPartition(root, d.relOid(), t.lsn(), t.lsn());
                    partitionsEnded.inc();
                }
                continue;
            }
            DestTable dest = isToast(d) ? null : tables.get(d.relOid());
            if (dest != null && !quarantine.skips(d.relOid())) {
                List<SinkStep> truncates = new ArrayList<>(2);
                truncates.add(new SinkStep.Truncate(dest.destName()));
                if (options.toastMirrors() && d.toastRelOid() != 0) {
                    // the TOAST relation keeps its oid (the mirror its name) and loses every chunk, in this step
                    truncates.add(new SinkStep.Truncate(ToastMirror.name(d.toastRelOid())));
                }
                addSteps(truncates);
            }
        }
    }

    /**
     * Whether an initial-snapshot row of {@code rel}, read from the storage {@code locator}, comes after the stream
     * replaced that storage or dropped the relation (the copy no longer locks its tables across chunks, so a chunk
     * read before such DDL can reach the sink after it). Such a row is dropped, and counted: whenever the storage
     * changed after the start point, the stream itself re-inserted every row the table held then (a rewrite) or held
     * none (TRUNCATE), and carries every change after; the snapshot row adds nothing.
     */
    private boolean lateSnapshotRow(int rel, RelFileLocator locator) {
        DestTable dest = tables.get(rel);
        boolean late = dest == null ? droppedRelations.contains(rel) : !dest.shape().locator().equals(locator);
        if (late) {
            snapshotSuperseded.inc();
        }
        return late;
    }

    /**
     * Whether a snapshot row of a partition was copied before the partition's latest attach with rows (a copy of an
     * earlier attach, the partition detached and attached again since): the copy that attach requested holds the
     * partition as it is now, and this older one may hold rows deleted while it was away. A copy planned after the
     * attach is versioned at or above it.
     */
    private boolean copiedBeforeAttach(RowChange r) {
        Long at = attachedAt.get(r.relOid());
        if (at != null && routed(r.descriptor()) && Long.compareUnsigned(r.lsn(), at) < 0) {
            snapshotSuperseded.inc();
            return true;
        }
        return false;
    }

    private static boolean isToast(RelationDescriptor d) {
        return d != null && d.relkind() == 't';
    }

    private void row(DrainedChange c, RowChange r) throws InterruptedException {
        if (isToast(r.descriptor())) {
            if (options.toastMirrors()) {
                mirror(r);
            } else {
                toastChunks.inc();
            }
            return;
        }
        int rel = r.relOid();
        if (c.fullXid() == 0 && (lateSnapshotRow(rel, r.rel()) || copiedBeforeAttach(r))) {
            return;
        }
        if (quarantine.skips(rel)) {
            return;
        }
        RelFileLocator rewritten = rewrittenTo.get(rel);
        if (rewritten != null && !rewritten.equals(r.rel())) {
            superseded.inc(); // the rewrite later in this commit re-inserts the row as it ends up
            return;
        }
        switch (r.op()) {
            case SPECULATIVE_INSERT:
                speculative.put(r.rel() + "/" + r.newTid(), r);
                return;
            case SPECULATIVE_ABORT:
                speculative.remove(r.rel() + "/" + r.oldTid());
                return;
            case SPECULATIVE_CONFIRM:
                r = speculative.remove(r.rel() + "/" + r.newTid());
                if (r == null) {
                    return; // confirmed an insert of a relation this sink does not write
                }
                break;
            default:
                break;
        }
        if (routed(r.descriptor()) && Integer.valueOf(r.descriptor().partition().root().relOid())
                .equals(leftRoots.get(rel))) {
            // decoded while the partition was in that root, committed after it left: the partition's own row, or
            // its new root's
            Integer moved = movedRoots.get(rel);
            DestTable to = moved == null ? null : tables.get(moved);
            if (to != null) {
                r = new RowChange(r.lsn(), r.xid(), r.op(), r.rel(),
                        r.descriptor().withPartition(PartitionOf.of(to.shape(), r.descriptor())), r.newTid(),
                        r.oldTid(), r.newValues(), r.oldValues(), r.oldIsFullRow());
            } else if (tables.get(rel) == null) {
                // dropped with its partition, or the partition is not replicated on its own
                (c.fullXid() == 0 ? snapshotSuperseded : partitionRowsLeft).inc();
                return;
            } else {
                r = new RowChange(r.lsn(), r.xid(), r.op(), r.rel(), r.descriptor().withPartition(null),
                        r.newTid(), r.oldTid(), r.newValues(), r.oldValues(), r.oldIsFullRow());
            }
        }
        // a partition's row goes to its root's destination (the encoder maps its columns by name)
        RelationDescriptor shape = routed(r.descriptor()) ? r.descriptor().partition().root() : r.descriptor();
        int destRel = shape.relOid();
        DestTable dest = tables.get(destRel);
        if (dest == null) {
            if (droppedInCommit.contains(destRel)) {
                skippedDropped.inc(); // written, then dropped, in the same transaction
                return;
            }
            dest = create(shape);
        }
        Target tgt = targets.get(destRel);
        if (tgt == null || tgt.table() != dest) {
            tgt = new Target(dest, new RowEncoder(dest, types, values, (relation, column) -> toastEmpty.inc()),
                    SinkTables.stageName(sinkId, dest), SinkTables.columns(dest),
                    tableRows.computeIfAbsent(dest.shape().qualifiedName(), k -> new Counter[OPS.length]));
            targets.put(destRel, tgt);
        }
        Stage stage = stages.get(tgt.stage());
        if (stage == null) {
            stage = new Stage(tgt.stage(), SinkTables.createStageSql(ch.database(), tgt.stage(), dest), dest,
                    dest.destName(), tgt.columns());
            stages.put(tgt.stage(), stage);
        }
        int before = stage.rows.size();
        int seg = segmentFor(stage, dest.destName());
        int n;
        try {
            n = tgt.encoder().encode(r, c.commitLsn(), c.fullXid(), rowBatch(), seg, attempt, stage.rows);
        } catch (ValueConversionException e) {
            if (!options.quarantine()) {
                throw e;
            }
            quarantine.add(r, dest.destName(), e);
            return;
        }
        staged(stage, dest.destName(), tgt.columns(), before, n, seg);
        countRow(tgt, c.fullXid() == 0 ? COPY : switch (r.op()) {
            case UPDATE -> 1;
            case DELETE -> 2;
            default -> 0; // INSERT, or a confirmed speculative insert
        });
    }

    /** One row PostgreSQL changed (an UPDATE staged as tombstone and live row counts once). */
    private void countRow(Target tgt, int op) {
        Counter k = tgt.rows()[op];
        if (k == null) {
            k = metrics.addGroup("table", tgt.table().shape().qualifiedName()).addGroup("op", OPS[op]).counter("rows");
            tgt.rows()[op] = k;
        }
        k.inc();
    }

    /** A destination for a relation first seen in a row (or an empty partition of the initial snapshot). */
    private DestTable create(RelationDescriptor shape) {
        SchemaPlanner.Plan plan = planner.create(shape, types);
        types.pin(List.of(shape)); // the types it was created with, for after a restore
        checkNameFree(plan.table());
        addSteps(plan.steps());
        tables.put(shape.relOid(), plan.table());
        return plan.table();
    }

    /**
     * The segment a row of {@code table} staged now goes in: its stage's open insert's, unless a DDL step touched the
     * table since that insert began (then the rows after the DDL need an insert step after it). DDL of other tables
     * does not split an insert: a burst of ALTERs on one table costs one INSERT step per ALTER for that table only.
     */
    private int segmentFor(Stage stage, String table) {
        PendingInsert ins = stage.insert;
        if (ins != null && ins.table.equals(table) && touchedAt.getOrDefault(table, -1) <= ins.segment) {
            return ins.segment;
        }
        return segment;
    }

    private void staged(Stage stage, String table, List<String> columns, int sizeBefore, int n, int seg) {
        buffered += stage.rows.size() - sizeBefore;
        rows += n;
        rowsStaged.inc(n);
        if (direct || parked) {
            return; // no insert step: the rows go straight into the table
        }
        PendingInsert ins = stage.insert;
        if (ins == null || ins.segment != seg) {
            ins = new PendingInsert(table, stage.name, columns, seg);
            stage.insert = ins;
            steps.add(ins);
        }
        ins.rows += n;
    }

    /**
     * A chunk row of a TOAST relation: a birth at its new TID, a tombstone at its old one. Staged with the batch like
     * any row, so the mirror becomes visible with the rows that refer to it (the TOAST stage holds the chunks until
     * then).
     */
    private void mirror(RowChange r) {
        int rel = r.descriptor().relOid();
        String mirror = ToastMirror.name(rel);
        if (mirrorsCreated.add(rel)) {
            addSteps(List.of(new SinkStep.CreateTable(mirror, ToastMirror.createSql(ch.database(), rel, caps))));
        }
        String stageName = SinkTables.mirrorStageName(sinkId, rel);
        Stage stage = stages.get(stageName);
        if (stage == null) {
            stage = new Stage(stageName, SinkTables.createMirrorStageSql(ch.database(), stageName), null, mirror,
                    ToastMirror.COLUMNS);
            stages.put(stageName, stage);
        }
        int before = stage.rows.size();
        int n = 0;
        int seg = segmentFor(stage, mirror);
        if (r.oldTid() != null && (r.op() == RowChange.Op.DELETE || r.op() == RowChange.Op.UPDATE)) {
            ToastMirror.tombstone(stage.rows, r.oldTid(), r.lsn(), rowBatch(), seg, attempt);
            n++;
        }
        Object[] v = r.newValues();
        if (r.newTid() != null && v != null && v.length == 3 && v[0] instanceof Long id && v[1] instanceof Integer seq
                && v[2] instanceof byte[] data && (r.op() == RowChange.Op.INSERT || r.op() == RowChange.Op.UPDATE)) {
            ToastMirror.birth(stage.rows, r.newTid(), id, seq, data, r.lsn(), rowBatch(), seg, attempt);
            n++;
        }
        if (n == 0) {
            toastChunks.inc(); // not a chunk shape (counted by the TOAST stage as malformed) or no TID
            return;
        }
        staged(stage, mirror, ToastMirror.COLUMNS, before, n, seg);
    }

    /** While writing directly: runs CREATE TABLE steps at once; any other step ends direct writes (see the class). */
    private void directStep(List<SinkStep> ddl) throws InterruptedException {
        if (ddl.stream().allMatch(st -> st instanceof SinkStep.CreateTable)) {
            for (SinkStep st : ddl) {
                // IF NOT EXISTS: before the rows that need it, and harmless when a replay runs it again
                executor.execute(st, batch, attempt, sinkId + "-" + batch + "-create");
            }
            ddlSteps.inc(ddl.size());
            return;
        }
        // a step that does not commute with the rows around it: the rows before it are written now, the step
        // and everything after it in this batch are staged, and committed in order after the checkpoint
        writeDirect();
        direct = false;
        stagedForOrder.inc();
        LOG.info("sink {}: {} at batch {} is applied after the checkpoint; rows are staged until the committer"
                + " has applied it", sinkId, ddl.get(0).getClass().getSimpleName(), batch);
    }

    private void addSteps(List<SinkStep> ddl) {
        if (ddl.isEmpty()) {
            return;
        }
        if (parked) {
            unpark(); // the step goes after the rows parked so far, staged (even a CREATE: the committer may drop first)
        }
        if (direct) {
            try {
                directStep(ddl);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the task is being cancelled
                throw new org.apache.flink.util.FlinkRuntimeException("interrupted", e);
            }
            if (direct) {
                return; // CREATE TABLE, run at once
            }
        }
        steps.addAll(ddl);
        ddlSteps.inc(ddl.size());
        segment++; // rows after the DDL copy in a later INSERT step
        for (SinkStep s : ddl) {
            touchedAt.put(s.table(), segment);
            if (s instanceof SinkStep.RenameTable rt) {
                touchedAt.put(rt.to(), segment);
            } else if (s instanceof SinkStep.CopyLive cl) {
                touchedAt.put(cl.to(), segment);
            }
        }
    }

    private void commit(DrainedCommit c) {
        if (!rewrittenToast.isEmpty()) {
            List<SinkStep> barriers = new ArrayList<>();
            for (int rel : rewrittenToast) {
                barriers.add(new SinkStep.ToastBarrier(ToastMirror.name(rel), c.firstLsn() == 0 ? c.commitLsn() : c.firstLsn(),
                        c.commitLsn()));
            }
            addSteps(barriers); // after the commit's rows: the new generation's births are in the mirror by then
            rewrittenToast.clear();
        }
        // after the rewrite's re-inserts (newer than the transaction's first record, so a barrier below it spares
        // them, at whatever TID): what is older at the partition's TIDs was not carried over
        rewrittenPartitions.forEach((leaf, dest) -> {
            endPartition(dest, leaf, c.firstLsn() == 0 ? c.commitLsn() : c.firstLsn(), c.commitLsn());
            partitionsEnded.inc();
        });
        rewrittenPartitions.clear();
        RowBinaryBuffer out = commitLog;
        int start = out.size();
        out.string(sinkId);
        out.i64(c.commitSeq());
        out.i64(c.fullXid());
        out.i64(c.commitLsn());
        out.string(Lsn.format(c.commitLsn()));
        long micros = PgTimestamps.toUnixMicros(c.commitTime());
        out.i32((int) Math.max(0, Math.min(0xFFFF_FFFFL, Math.floorDiv(micros, 1_000_000L))));
        out.i64(micros);
        out.uvarint(c.relations().size());
        c.relations().forEach(out::string);
        out.u8(c.schemaChange() ? 1 : 0);
        out.i64(c.changes());
        out.string(c.gid() == null ? "" : c.gid());
        out.i64(batch);
        SinkTables.stagingSuffix(out, rowBatch(), 0, attempt);
        out.endRow();
        if (!direct && !parked) {
            stagedCommits++;
        }
        buffered += out.size() - start;
        commits++;
        commitTimes.add(c.commitTime());
        last = c;
        rewrittenTo.clear();
        droppedInCommit.clear();
        speculative.clear();
    }

    // ---- flush and checkpoint

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        try {
            if (parked) {
                unpark(); // the barrier: what waited goes into this checkpoint's batch
            }
            if (direct) {
                writeDirect();
            }
            awaitDirectWrite(); // written before the checkpoint lets the slot release their WAL
            flushStages();
        } catch (ClickHouseException e) {
            throw new IOException("sink " + sinkId + ": " + e.getMessage(), e);
        }
    }

    private void flushStages() throws InterruptedException {
        for (Stage s : stages.values()) {
            if (s.rows.size() > 0) {
                ensureStage(s.name, s.createSql);
                insert(s.name, s.rows);
            }
        }
        if (commitLog.size() > 0) {
            String stage = SinkTables.commitLogStage(sinkId);
            ensureStage(stage, SinkTables.createCommitLogStageSql(ch.database(), sinkId));
            insert(stage, commitLog);
        }
        stages.values().removeIf(s -> s.table != null && s.table != tables.get(s.table.relOid()));
        buffered = 0;
    }

    // ---- direct writes (clickhouse.visibility=commit)

    /** The batch number rows are encoded with: {@link SinkTables#DIRECT} (no staging columns) when written directly. */
    private long rowBatch() {
        return direct || parked ? SinkTables.DIRECT : batch;
    }

    /**
     * Back to direct writes, at a batch with nothing in it yet, once the watermark shows every batch with staged
     * work finished (asked at most every 20 ms): rows written from here on follow every step before them.
     */
    private void resumeDirect() throws InterruptedException {
        if (!parked) {
            if (commits > 0 || buffered > 0 || !steps.isEmpty() || !stagedInBatch.isEmpty() || inTransaction) {
                return; // this batch has staged rows or steps: it stays staged to its end
            }
            parked = true;
        }
        long now = timers.getCurrentProcessingTime();
        if (now < nextAwaitPoll) {
            return;
        }
        nextAwaitPoll = now + 20;
        String q = SinkTables.lastFinishedBatchSql(ch.database(), sinkId);
        String max = retry.call(q, () -> ch.queryString(q));
        if (max != null && !max.isEmpty() && Long.parseLong(max) >= awaitBatch) {
            parked = false;
            direct = true;
            parkedDirect.inc(rows);
            LOG.info("sink {}: batch {} committed; rows are written directly again from batch {}", sinkId,
                    awaitBatch, batch);
        }
    }

    /**
     * Starts writing the buffered rows straight into their tables, in the background: one INSERT per table at once
     * (the commit log with them), then {@code _walshadow_visible} advanced to the last commit drained. The stream
     * goes on into fresh buffers meanwhile; a write waits for the one before it, and every path that needs the rows
     * written (the barrier, a full buffer) waits for it ({@link #awaitDirectWrite}).
     */
    private void writeDirect() throws InterruptedException {
        awaitDirectWrite();
        List<java.util.concurrent.Callable<Long>> inserts = new ArrayList<>();
        for (Stage st : stages.values()) {
            if (st.rows.size() > 0) {
                inserts.add(insertDirect(st.dest, st.columns, st.rows));
                st.rows = new RowBinaryBuffer(Math.max(1 << 16, st.rows.size()));
            }
        }
        if (commitLog.size() > 0) {
            inserts.add(insertDirect(SinkTables.COMMIT_LOG, SinkTables.COMMIT_LOG_COLUMNS, commitLog));
            commitLog = new RowBinaryBuffer(Math.max(4096, commitLog.size()));
        }
        stages.values().removeIf(st -> st.table != null && st.table != tables.get(st.table.relOid()));
        buffered = 0;
        lastDirectWrite = timers.getCurrentProcessingTime();
        String visible = null;
        if (last != null && last != lastVisible) {
            visible = SinkTables.visibleSql(ch.database(), sinkId, last.commitSeq(), last.commitLsn(),
                    last.commitTime(), batch);
            lastVisible = last;
        }
        if (inserts.isEmpty() && visible == null) {
            return;
        }
        String visibleSql = visible;
        int n = inserts.size();
        long commitMs = visible == null ? -1 : io.walshadow.xact.PgTimestamps.toUnixMicros(last.commitTime()) / 1000;
        long commitLsn = visible == null ? 0 : last.commitLsn();
        inFlight = directPool().submit(() -> {
            long bytes = runAll(inserts);
            if (visibleSql != null) {
                retry.call("INSERT INTO " + SinkTables.VISIBLE, () -> {
                    ch.execute(visibleSql);
                    return null;
                });
                directVisibleLagMs = Math.max(0, System.currentTimeMillis() - commitMs);
                directVisibleLsn = commitLsn;
                directVisibleCommitMs = commitMs;
            }
            return new long[] {n, bytes};
        });
    }

    /** Waits for the direct write in flight, if any, and fails as it did. */
    private void awaitDirectWrite() throws InterruptedException {
        if (inFlight == null) {
            return;
        }
        java.util.concurrent.Future<long[]> f = inFlight;
        inFlight = null;
        try {
            long[] done = f.get();
            flushes.inc(done[0]);
            directWrites.inc(done[0]);
            bytesStaged.inc(done[1]);
        } catch (java.util.concurrent.ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    /** Whether a direct write is in flight (one that ended is accounted for, or its failure thrown, here). */
    private boolean directWriteInFlight() throws InterruptedException {
        if (inFlight != null && inFlight.isDone()) {
            awaitDirectWrite();
        }
        return inFlight != null;
    }

    private static RuntimeException rethrow(Throwable cause) throws InterruptedException {
        if (cause instanceof RuntimeException r) {
            throw r;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        if (cause instanceof InterruptedException ie) {
            throw ie;
        }
        throw new IllegalStateException(cause);
    }

    /** One buffer straight into its table, retried until it lands (a repeat writes byte-identical rows). */
    private java.util.concurrent.Callable<Long> insertDirect(String table, List<String> columns, RowBinaryBuffer b) {
        String target = DestinationSchema.quote(ch.database()) + "." + DestinationSchema.quote(table) + " ("
                + String.join(", ", columns.stream().map(DestinationSchema::quote).toList()) + ")";
        return () -> {
            Faults.at("writer.flush");
            retry.call("INSERT INTO " + table, () -> {
                long n = ch.insertRowBinary(target, b);
                Faults.at("writer.flush.landed");
                return n;
            });
            return (long) b.size();
        };
    }

    /** Runs the inserts, at once when there are several; returns their bytes; the first failure is thrown. */
    private long runAll(List<java.util.concurrent.Callable<Long>> inserts) throws InterruptedException {
        try {
            if (inserts.size() == 1) {
                return inserts.get(0).call();
            }
            long bytes = 0;
            for (java.util.concurrent.Future<Long> f : insertPool.invokeAll(inserts)) {
                bytes += f.get();
            }
            return bytes;
        } catch (java.util.concurrent.ExecutionException e) {
            throw rethrow(e.getCause());
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private java.util.concurrent.ExecutorService directPool() {
        if (directPool == null) {
            directPool = java.util.concurrent.Executors.newSingleThreadExecutor(daemon("writes"));
            insertPool = java.util.concurrent.Executors.newFixedThreadPool(8, daemon("inserts"));
        }
        return directPool;
    }

    private java.util.concurrent.ThreadFactory daemon(String what) {
        return r -> {
            Thread t = new Thread(r, "walshadow-direct-" + what + "-" + sinkId);
            t.setDaemon(true);
            return t;
        };
    }

    /** The rows parked so far are staged after all: encoded again with the staging columns, one insert step each. */
    private void unpark() {
        parked = false;
        LOG.info("sink {}: batch {} waited for batch {} to be committed; its {} rows so far are staged instead", sinkId,
                batch, awaitBatch, rows);
        parkedStaged.inc(rows);
        buffered = 0;
        for (Stage st : stages.values()) {
            long n = st.rows.rows();
            if (n > 0) {
                int seg = segmentFor(st, st.dest);
                restage(st.rows, seg);
                PendingInsert ins = new PendingInsert(st.dest, st.name, st.columns, seg);
                ins.rows = n;
                st.insert = ins;
                steps.add(ins);
            }
            buffered += st.rows.size();
        }
        if (commitLog.rows() > 0) {
            stagedCommits += commitLog.rows();
            restage(commitLog, 0);
        }
        buffered += commitLog.size();
    }

    /** Rows encoded for a direct write, encoded again with this batch's staging columns for {@code segment}. */
    private void restage(RowBinaryBuffer rows, int segment) {
        RowBinaryBuffer staged = new RowBinaryBuffer(rows.size() + (int) rows.rows() * 20);
        rows.copyRowsTo(staged, b -> SinkTables.stagingSuffix(b, batch, segment, attempt));
        rows.replaceWith(staged);
    }

    /**
     * A timer that writes what an idle stream left buffered after its last commit (and, waiting to write directly,
     * asks whether it may).
     */
    private void scheduleDirectWrite() {
        long every = options.directWrites().toMillis();
        timers.registerTimer(timers.getCurrentProcessingTime() + every, time -> {
            if (parked) {
                resumeDirect();
            }
            if (direct && !inTransaction && (buffered > 0 || last != lastVisible) && !directWriteInFlight()) {
                try {
                    writeDirect();
                } catch (ClickHouseException e) {
                    throw new IOException("sink " + sinkId + ": " + e.getMessage(), e);
                }
            }
            scheduleDirectWrite();
        });
    }

    private void ensureStage(String name, String sql) throws InterruptedException {
        if (createdStages.add(name)) {
            executor.sql(sql);
        }
    }

    /**
     * Stages one buffer, exactly once. A try that failed without an answer may still have landed (ClickHouse wrote
     * the part and was killed before answering), so before trying again the staging partition's count for this
     * attempt says which: the rows staged before plus this buffer's, it landed; only those before, it did not;
     * anything else, the partition was changed under the writer (a restart stages the batch anew, as a new attempt).
     * The buffer goes in one block (one part), so a try lands whole or not at all. A try that timed out on a live
     * server is not retried: it may land after any count.
     */
    private void insert(String stage, RowBinaryBuffer b) throws InterruptedException {
        Faults.at("writer.flush");
        String table = DestinationSchema.quote(ch.database()) + "." + DestinationSchema.quote(stage);
        long before = stagedInBatch.getOrDefault(stage, 0L);
        long rows = b.rows();
        boolean[] tried = {false};
        retry.call("INSERT INTO " + stage, () -> {
            if (tried[0]) {
                long now = Long.parseLong(ch.queryString("SELECT count() FROM " + table + " WHERE "
                        + SinkTables.stagedWhere(batch, attempt)));
                if (now == before + rows) {
                    LOG.warn("sink {}: the INSERT of {} rows into {} that failed without an answer had landed;"
                            + " not sent again", sinkId, rows, stage);
                    return null;
                }
                if (now != before) {
                    throw new IllegalStateException("sink " + sinkId + ": staging table " + stage + " holds " + now
                            + " rows of batch " + batch + " (attempt " + Long.toUnsignedString(attempt) + "), but "
                            + before + " were staged before this INSERT of " + rows + " rows failed without an"
                            + " answer; restarting stages the batch again");
                }
            }
            tried[0] = true;
            long written;
            try {
                written = ch.insertRowBinary(table, b);
                Faults.at("writer.flush.landed");
            } catch (ClickHouseException e) {
                if (e.timedOut()) {
                    // The server took the INSERT and may still apply it, after any count taken now: no retry can
                    // know. Give up the attempt instead; the restored one stages under a new attempt number, and
                    // the committer takes only that attempt's rows, so this INSERT's late rows are never read.
                    throw new IllegalStateException("sink " + sinkId + ": the INSERT of " + rows + " rows into "
                            + stage + " timed out (clickhouse.statement.timeout) while the server may still run it;"
                            + " attempt " + Long.toUnsignedString(attempt) + " is given up so that its late rows"
                            + " are ignored, and the job goes back to its last checkpoint", e);
                }
                throw e;
            }
            return written;
        });
        stagedInBatch.merge(stage, rows, Long::sum);
        flushes.inc();
        bytesStaged.inc(b.size());
        b.clear();
    }

    @Override
    public Collection<SinkBatch> prepareCommit() throws IOException, InterruptedException {
        flush(false);
        Faults.at("writer.prepareCommit");
        if (commits == 0 && steps.isEmpty() && retireDue.isEmpty()) {
            return List.of();
        }
        List<SinkStep> out = new ArrayList<>(retireDue.size() + steps.size() + 1);
        for (String m : retireDue) {
            out.add(new SinkStep.Truncate(m)); // its drop is in a completed checkpoint now
        }
        retireDue = List.copyOf(retireQueued);
        retireQueued.clear();
        for (Object s : steps) {
            if (s instanceof PendingInsert p) {
                out.add(new SinkStep.Insert(p.table, p.stage, p.columns, p.segment, p.rows));
            } else {
                out.add((SinkStep) s);
            }
        }
        if (stagedCommits > 0) {
            out.add(new SinkStep.Insert(SinkTables.COMMIT_LOG, SinkTables.commitLogStage(sinkId),
                    SinkTables.COMMIT_LOG_COLUMNS, 0, stagedCommits));
        }
        if (!steps.isEmpty() || stagedCommits > 0) {
            awaitBatch = batch; // staged work: direct writes wait until the committer has done it
        }
        SinkBatch b = new SinkBatch(sinkId, batch, out, commits, rows, last == null ? 0 : last.commitSeq(),
                last == null ? 0 : last.commitLsn(), last == null ? 0 : last.fullXid(),
                last == null ? 0 : last.commitTime(), attempt, commitTimes.times());
        commitTimes.clear();
        batch++;
        stagedInBatch.clear();
        segment = 0;
        touchedAt.clear();
        steps.clear();
        stages.values().forEach(st -> st.insert = null);
        commits = 0;
        stagedCommits = 0;
        rows = 0;
        return List.of(b);
    }

    @Override
    public List<SinkWriterState> snapshotState(long checkpointId) {
        return List.of(new SinkWriterState(sinkId, batch, new ArrayList<>(tables.values()), retireDue,
                new ArrayList<>(droppedRelations), types.stream(), quarantine.list(), leftRoots, attachedAt,
                movedRoots, awaitBatch));
    }

    @Override
    public void close() {
        if (directPool != null) {
            directPool.shutdownNow();
            insertPool.shutdownNow();
        }
        ch.close();
    }
}
