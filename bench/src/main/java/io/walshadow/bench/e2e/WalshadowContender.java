package io.walshadow.bench.e2e;

import org.apache.flink.util.FileUtils;
import io.walshadow.bench.buffer.BenchMetrics;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.SinkTables;
import io.walshadow.job.JobConfig;
import io.walshadow.job.JobOptions;
import io.walshadow.job.WalshadowJob;
import io.walshadow.testing.LocalPg;
import io.walshadow.wal.Lsn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.TimeUtils;

/**
 * Our pipeline, end to end: the real job ({@link WalshadowJob#build}: WAL source, decoder, transaction buffer in
 * RocksDB, two-phase ClickHouse sink) in a local MiniCluster with RocksDB state and file checkpoints, writing into a
 * fresh ClickHouse database per capture. A change counts once it is <em>visible</em>: at the job's default
 * ({@code clickhouse.visibility=commit}, checkpoints every 10 s) once {@code _walshadow_visible} has passed its
 * commit, which the sink writes after each direct write; with {@code --walshadow clickhouse.visibility=checkpoint}
 * once its batch's committed-watermark row ({@code _walshadow_watermark}, phase 1) is in ClickHouse, which happens
 * after the checkpoint that staged it completed and the committer's INSERT ... SELECT ran, so the checkpoint interval
 * (1 s by default here in that mode) bounds how soon a change can be seen.
 *
 * <p><b>Slots.</b> The job confirms WAL to its slot at each completed checkpoint, and a physical slot cannot be moved
 * back; yet every round must re-read the same WAL. So {@link #prepare} creates an <em>anchor</em> slot that no one
 * reads (it holds the WAL from before the workload) and {@link #slot()} as a copy of it
 * ({@code pg_copy_physical_replication_slot} keeps the restart LSN); a capture reads and moves the copy, and closing
 * it replaces the copy with a fresh one of the anchor: the slot is where {@code prepare} left it, as the runner
 * checks.
 *
 * <p><b>Catalog seed.</b> The decoder seeds its catalog history from the live catalog when it first opens and skips
 * the records before that point, so a job first started after the workload would skip all of it. {@link #prepare}
 * therefore starts the job once, lets it read up to the present (records before its seed are skipped) and stops it
 * with a savepoint; every capture restores that savepoint (split position and catalog history from before the
 * workload, empty transaction buffer and sink state) into a new MiniCluster. That is the job restarting after
 * downtime, and the counterpart of Debezium's slot and publication created before the workload: neither contender
 * reads the catalog as of after the workload, and both start a capture from a stopped state (a capture's time includes
 * the MiniCluster's start-up and the restore, as Debezium's includes its engine's start).
 *
 * <p><b>Visibility</b> is polled by a reader of the database, as an application would, every {@value #POLL_MS} ms
 * (20 Hz) in the latency mode and every {@value #THROUGHPUT_POLL_MS} ms in the throughput mode (each poll is a query
 * on the ClickHouse server the sink writes to: fewer of them there, where they only time the last change): each
 * poll reads the newly finished batches; their row counts are the changes visible. In the latency mode the poll also
 * reads the commit log rows of those batches ({@code _walshadow_commit_log}: commit time on the source
 * in microseconds, row changes) and reports, per change, the time the poll's answer arrived minus its commit time:
 * what a reader polling the watermark sees, including up to one poll period (25 ms on average) of its own. The
 * watermark's {@code written_at} is a {@code DateTime} (whole seconds), too coarse for this.
 *
 * <p>Job settings other than the connection, slot, table filter and database are the job's defaults unless
 * overridden with {@code --walshadow key=value} (the job's own keys without the leading dashes, e.g.
 * {@code clickhouse.flush.bytes=4194304}).
 *
 * <p><b>Phases.</b> Besides {@link #start}'s captures (each from the seed, into a fresh database, all put back on
 * close), {@link #begin} hands out a {@link Run} that can {@link Run#suspend stop with a savepoint} and leave its
 * database and the slot as they are, for a later {@code begin} to continue from ({@link Resume}): the TOAST
 * benchmark's second phase is written while the job is stopped, then caught up by the job as it left off. Metrics
 * of the running job are in {@link BenchMetrics} (its reporter is registered in every MiniCluster started here).
 */
public final class WalshadowContender implements Contender {
    public static final String ID = "walshadow";
    /** Poll periods: 20 Hz where the poll's granularity is part of the figure, 10 Hz where it only ends a run. */
    static final long POLL_MS = 50;
    static final long THROUGHPUT_POLL_MS = 100;
    private static final String SINK_ID = "bench";
    /** With checkpoint visibility the interval is part of the latency: the contender's default is short there. */
    private static final Duration STAGED_CHECKPOINT_INTERVAL = Duration.ofSeconds(1);
    private static final int SEED_ATTEMPTS = 3;
    /** WAL page size (XLOG_BLCKSZ, pg_config.h). */
    private static final int XLOG_BLCKSZ = 8192;

    private final Map<String, String> overrides;
    private final Duration checkpointInterval;
    /**
     * {@code clickhouse.visibility=commit} (the job's default): rows are visible when {@code _walshadow_visible} passes
     * their commit (written by the sink after each direct write, and by the committer after each batch).
     */
    private final boolean atCommit;
    private final String slot = Source.slotName(ID);
    private final String anchor = Source.slotName(ID + "_anchor");
    private Source source;
    private Path work;
    private String savepoint;
    private int captures;

    public WalshadowContender(Map<String, String> overrides) {
        this.overrides = new LinkedHashMap<>(overrides);
        this.atCommit = "commit".equals(this.overrides.getOrDefault("clickhouse.visibility",
                JobOptions.CLICKHOUSE_VISIBILITY.defaultValue()));
        String ck = this.overrides.remove("checkpoint.interval");
        this.checkpointInterval = ck != null ? TimeUtils.parseDuration(ck)
                : atCommit ? JobOptions.CHECKPOINT_INTERVAL.defaultValue() : STAGED_CHECKPOINT_INTERVAL;
    }

    @Override
    public String name() {
        return ID + " ckpt " + TimeUtils.formatWithHighestUnit(checkpointInterval);
    }

    @Override
    public String slot() {
        return slot;
    }

    Duration checkpointInterval() {
        return checkpointInterval;
    }

    @Override
    public void prepare(Source src) throws Exception {
        this.source = src;
        cleanupSlots();
        dropChDatabases(); // an interrupted run's
        work = Files.createTempDirectory("walshadow-bench-e2e-");
        try (Connection c = src.connect()) {
            LocalPg.exec(c, "SELECT pg_create_physical_replication_slot('" + anchor + "', true)");
        }
        long t0 = System.nanoTime();
        long target = 0;
        for (int attempt = 1; savepoint == null; attempt++) {
            resetSlot(); // a seed run confirms WAL to the slot: every run starts from the anchor
            target = seed(attempt);
            if (savepoint == null && attempt == SEED_ATTEMPTS) {
                throw new IllegalStateException("the seed run's savepoint carried a batch for ClickHouse in each of "
                        + SEED_ATTEMPTS + " attempts (something keeps committing in " + src.database() + "?)");
            }
        }
        resetSlot();
        E2eBenchmark.log(String.format(Locale.ROOT, "%s: catalog seeded up to %s and stopped with a savepoint in %.1f s;"
                        + " checkpoint interval %s, RocksDB state, sink %s, tables %s", name(), Lsn.format(target),
                (System.nanoTime() - t0) / 1e9, TimeUtils.formatWithHighestUnit(checkpointInterval), SINK_ID,
                String.join(",", src.tables())));
    }

    /**
     * The seed run: starts fresh (the decoder seeds its catalog history now, before the workload), reads what the
     * slot holds up to the present, stops with a savepoint. It reports its position every 100 ms so that we can tell
     * when it has read that far. Every capture restores the savepoint into a fresh ClickHouse database, so it must
     * carry no committable: a batch staged in the seed's database cannot be committed in another (the committer
     * fails it, its staging table being gone). What the seed read may hold commits (the bootstrap's own xid); they
     * are let commit here first, and the savepoint is kept only if stopping committed no further batch (the sink
     * commits a savepoint's batches as the job stops). Returns the position read up to; {@link #savepoint} stays
     * null when the savepoint carried a batch.
     */
    private long seed(int attempt) throws Exception {
        String db = chDatabase("seed");
        createChDatabase(db);
        BenchMetrics.clear();
        JobClient job = execute(config(db, "status.interval.ms", "100"), null, work.resolve("seed-checkpoints-" + attempt));
        long target;
        long committed;
        String sp;
        try {
            target = awaitStreaming(job);
            awaitReceived(job, target);
            committed = awaitSeedCommitted(job, db, target);
            sp = stopWithSavepoint(job, work.resolve("savepoint-seed-" + attempt));
        } catch (Exception e) {
            job.cancel();
            throw e;
        }
        job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        long after = committedBatches(db);
        dropChDatabase(db);
        if (after != committed) {
            E2eBenchmark.log(String.format(Locale.ROOT, "%s: the seed's savepoint carried a batch for ClickHouse (%d"
                    + " batches committed before the stop, %d after); seeding again", name(), committed, after));
            return target;
        }
        savepoint = sp;
        return target;
    }

    /**
     * Waits until the seed job has processed the WAL up to {@code target} and committed in {@code db} every commit
     * its transaction buffer drained from it. Processed, not received: the source reads far ahead of the pipeline
     * (the slot holds pgbench -i's WAL), so it is the position the job confirmed to its slot, which a completed
     * checkpoint covers (every record before it has passed the sink's writer by then, its commits in that
     * checkpoint's batch or an earlier one). Returns the batches committed.
     */
    private long awaitSeedCommitted(JobClient job, String db, long target) throws Exception {
        // A record ending at a page boundary: the insert position is past the next page's header, which no record
        // end reaches (XLogBytePosToRecPtr vs XLogBytePosToEndRecPtr, xlog.c; SizeOfXLogLongPHD 40, xlog_internal.h)
        long reached = target % XLOG_BLCKSZ <= 40 ? target - target % XLOG_BLCKSZ : target;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (true) {
            long confirmed = BenchMetrics.value("confirmed_lsn");
            long drained = BenchMetrics.value("commits_drained");
            if (confirmed != -1 && Long.compareUnsigned(confirmed, reached) >= 0 && drained >= 0
                    && committedCommits(db) == drained) {
                return committedBatches(db);
            }
            failIfEnded(job);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the seed run did not commit what it read up to " + Lsn.format(target)
                        + " within 300 s: confirmed to its slot up to " + Lsn.format(confirmed) + ", " + drained
                        + " commits drained, " + committedCommits(db) + " committed in ClickHouse database " + db);
            }
            Thread.sleep(100);
        }
    }

    /** This sink's commits in {@code db}'s commit log whose batch finished (phase 1); 0 before the sink's tables. */
    private static long committedCommits(String db) {
        String wm = "`" + db + "`.`" + SinkTables.WATERMARK + "`";
        return count("SELECT uniqExact(commit_seq) FROM `" + db + "`.`" + SinkTables.COMMIT_LOG + "` WHERE sink = '"
                + SINK_ID + "' AND batch IN (SELECT batch FROM " + wm + " WHERE sink = '" + SINK_ID + "' AND phase = 1)");
    }

    /** This sink's finished batches in {@code db}; 0 before the sink created its tables. */
    private static long committedBatches(String db) {
        return count("SELECT uniqExact(batch) FROM `" + db + "`.`" + SinkTables.WATERMARK + "` WHERE sink = '"
                + SINK_ID + "' AND phase = 1");
    }

    private static long count(String sql) {
        try (ClickHouseConnection ch = adminConnection()) {
            return Long.parseLong(ch.queryString(sql));
        } catch (RuntimeException e) {
            return 0; // the sink has not created its tables yet
        }
    }

    /**
     * Stops the job with a savepoint into {@code dir}. The walsender being up says the source task runs, not that the
     * downstream task (buffer, TOAST, sink) is deployed yet, and a savepoint needs all of them: on a busy machine the
     * first attempt may be refused ("not all required tasks are currently running"), so it is retried for 60 s.
     */
    private static String stopWithSavepoint(JobClient job, Path dir) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return job.stopWithSavepoint(false, dir.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(120, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (System.nanoTime() > deadline || !String.valueOf(e.getMessage()).contains("not all required tasks")
                        && !String.valueOf(e.getMessage()).contains("Not all required tasks")) {
                    throw e;
                }
                failIfEnded(job);
                Thread.sleep(200);
            }
        }
    }

    /** Job settings for a run writing into ClickHouse database {@code db}, plus {@code extra} key/value pairs. */
    private JobConfig config(String db, String... extra) {
        List<String> a = new ArrayList<>(List.of("--pg.host", source.host(), "--pg.port", String.valueOf(source.port()),
                "--pg.database", source.database(), "--pg.user", source.user(), "--pg.sslmode", "disable",
                "--slot", slot, "--slot.create", "false", "--tables.include", String.join(",", source.tables()),
                "--clickhouse.url", LocalCh.url(), "--clickhouse.user", LocalCh.user(),
                "--clickhouse.database", db, "--clickhouse.sink.id", SINK_ID,
                "--checkpoint.interval", checkpointInterval.toMillis() + "ms",
                // capture from the slot only: the workload's tables exist before the job (SnapshotBenchmark
                // measures the initial snapshot)
                "--snapshot.mode", "never"));
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            a.add("--" + e.getKey());
            a.add(e.getValue());
        }
        for (int i = 0; i < extra.length; i += 2) {
            a.add("--" + extra[i]);
            a.add(extra[i + 1]);
        }
        return JobConfig.from(a.toArray(new String[0]), Map.of(JobConfig.PG_PASSWORD_ENV, source.password(),
                JobConfig.CH_PASSWORD_ENV, LocalCh.password()));
    }

    /** The job in a MiniCluster of its own (it shuts down with the job), restored from {@code restoreFrom} if given. */
    private static JobClient execute(JobConfig config, String restoreFrom, Path checkpoints) throws Exception {
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.checkpointInterval());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a failure fails the capture, visibly
        conf.setString("metrics.reporter.bench.factory.class", BenchMetrics.class.getName());
        if (restoreFrom != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        WalshadowJob.build(env, config);
        return env.executeAsync("walshadow bench");
    }

    /**
     * Waits until the job streams from the slot: its walsender is up. The source and the decoder are one chained
     * task whose operators open (the decoder seeding its catalog history) before the source reader fetches, so from
     * here on the seed is in place. Returns the server's insert position now, which is past the seed.
     */
    private long awaitStreaming(JobClient job) throws Exception {
        try (Connection c = source.connect()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (Source.query(c, "SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + slot + "'") == null) {
                failIfEnded(job);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the seed run did not start streaming from slot " + slot + " in 120 s");
                }
                Thread.sleep(50);
            }
            return LocalPg.currentLsn(c);
        }
    }

    /** Waits until the job reported (standby status, write position) that it received the WAL up to {@code lsn}. */
    private void awaitReceived(JobClient job, long lsn) throws Exception {
        try (Connection c = source.connect()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
            while (true) {
                String w = Source.query(c, "SELECT coalesce(r.write_lsn::text, '0/0') FROM pg_replication_slots s"
                        + " JOIN pg_stat_replication r ON r.pid = s.active_pid WHERE s.slot_name = '" + slot + "'");
                if (w != null && Long.compareUnsigned(Lsn.parse(w), lsn) >= 0) {
                    return;
                }
                failIfEnded(job);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the seed run did not receive the WAL up to " + Lsn.format(lsn)
                            + " in 300 s (at " + w + ")");
                }
                Thread.sleep(50);
            }
        }
    }

    private static void failIfEnded(JobClient job) throws Exception {
        JobStatus st = job.getJobStatus().get(10, TimeUnit.SECONDS);
        if (st.isGloballyTerminalState()) {
            job.getJobExecutionResult().get(); // throws the job's failure
            throw new IllegalStateException("the job ended: " + st);
        }
    }

    @Override
    public Capture start(Tally tally) throws Exception {
        return begin(tally, null);
    }

    /**
     * Where a {@link Run#suspend suspended} run left off: its savepoint, its ClickHouse database, the last batch
     * visible there and the last commit {@code _walshadow_visible} shows (the next run counts the batches, or with
     * rows visible at commit the commits, after them).
     */
    public record Resume(String savepoint, String database, long lastBatch, long lastCommitSeq) {}

    /**
     * Starts a capture: from the seed savepoint into a fresh database ({@code from} null, as {@link #start}), or
     * continuing a suspended run ({@code from}: its savepoint, database and slot), counting only the batches made
     * visible from now on.
     */
    public Run begin(Tally tally, Resume from) throws Exception {
        if (savepoint == null) {
            throw new IllegalStateException("prepare() has not run");
        }
        int n = ++captures;
        String db = from == null ? chDatabase(String.valueOf(n)) : from.database();
        if (from == null) {
            createChDatabase(db);
        }
        Path checkpoints = work.resolve("checkpoints-" + n);
        BenchMetrics.clear();
        JobClient job = execute(config(db), from == null ? savepoint : from.savepoint(), checkpoints);
        Poller poller = from == null ? new Poller(job, db, tally, 0, 0)
                : new Poller(job, db, tally, from.lastBatch(), from.lastCommitSeq());
        poller.start();
        return new Run(n, job, poller, db, checkpoints);
    }

    /** A running capture: closing it puts everything back; suspending it keeps its database and slot position. */
    public final class Run implements Capture {
        private final int n;
        private final JobClient job;
        private final Poller poller;
        private final String db;
        private final Path checkpoints;
        private boolean ended;

        private Run(int n, JobClient job, Poller poller, String db, Path checkpoints) {
            this.n = n;
            this.job = job;
            this.poller = poller;
            this.db = db;
            this.checkpoints = checkpoints;
        }

        /** The ClickHouse database the job writes to. */
        public String database() {
            return db;
        }

        /**
         * Stops the job with a savepoint (its state as of a completed checkpoint: what the next run restores); the
         * database and the slot stay as they are. Rows the job wrote after the last count are in the database.
         */
        public Resume suspend() throws Exception {
            ended = true;
            poller.halt();
            String sp = stopWithSavepoint(job, work.resolve("savepoint-" + n));
            job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
            E2eBenchmark.log("  " + name() + " capture " + n + ": " + poller.batches + " batches visible, suspended");
            long last = poller.lastBatch;
            long lastSeq = poller.lastSeq;
            try (ClickHouseConnection ch = adminConnection()) { // batches and commits made visible after the last poll
                String m = ch.queryString(SinkTables.lastFinishedBatchSql(db, SINK_ID));
                if (m != null && !m.isEmpty()) {
                    last = Math.max(last, Long.parseLong(m));
                }
                String v = ch.queryString(visibleSeqSql(db));
                if (v != null && !v.isEmpty()) {
                    lastSeq = Math.max(lastSeq, Long.parseLong(v));
                }
            }
            FileUtils.deleteDirectory(checkpoints.toFile());
            return new Resume(sp, db, last, lastSeq);
        }

        @Override
        public void close() throws Exception {
            if (!ended) {
                ended = true;
                poller.halt();
                try {
                    job.cancel().get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // it failed or ended already (the poller reported that)
                }
                awaitEnded(job);
                E2eBenchmark.log("  " + name() + " capture " + n + ": " + poller.batches + " batches visible");
            }
            dropChDatabase(db);
            resetSlot();
            FileUtils.deleteDirectory(checkpoints.toFile());
        }
    }

    /** Waits until the job and its MiniCluster are gone (the walsender, with them). */
    private static void awaitEnded(JobClient job) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try {
                if (job.getJobStatus().get(10, TimeUnit.SECONDS).isGloballyTerminalState()) {
                    job.getJobExecutionResult().handle((r, e) -> null).get(60, TimeUnit.SECONDS);
                    return;
                }
            } catch (Exception e) {
                return; // the MiniCluster is down already
            }
            Thread.sleep(50);
        }
    }

    /**
     * Reads the newly finished batches from the watermark table at each poll and reports their rows;
     * in the latency mode, the latency of each change of each of their commits (before the rows, since the runner
     * reads the latencies once the count is reached). Also fails the tally when the job fails.
     */
    private final class Poller extends Thread {
        private final JobClient job;
        private final String db;
        private final Tally tally;
        private volatile boolean halted;
        volatile int batches;
        volatile long lastBatch;
        /** The last commit counted: a resumed run's visible mark starts where the suspended one's was. */
        volatile long lastSeq;

        Poller(JobClient job, String db, Tally tally, long lastBatch, long lastSeq) {
            super("walshadow-bench-poller");
            setDaemon(true);
            this.job = job;
            this.db = db;
            this.tally = tally;
            this.lastBatch = lastBatch;
            this.lastSeq = lastSeq;
        }

        void halt() throws InterruptedException {
            halted = true;
            join(10_000);
        }

        @Override
        public void run() {
            String wm = "`" + db + "`.`" + SinkTables.WATERMARK + "`";
            String log = "`" + db + "`.`" + SinkTables.COMMIT_LOG + "`";
            long polls = 0;
            try (ClickHouseConnection ch = new ClickHouseConnection(LocalCh.url(), LocalCh.user(),
                    LocalCh.password(), db)) {
                long next = System.nanoTime();
                while (!halted) {
                    if (polls++ % 10 == 0) {
                        JobStatus st = job.getJobStatus().get(10, TimeUnit.SECONDS);
                        if (st.isGloballyTerminalState()) {
                            Throwable cause = job.getJobExecutionResult().handle((r, e) -> e).get();
                            tally.fail(cause != null ? cause : new IllegalStateException("the job ended: " + st));
                            return;
                        }
                    }
                    if (atCommit) {
                        lastSeq = pollVisible(ch, lastSeq);
                        next = sleepUntil(next);
                        continue;
                    }
                    List<String[]> rows;
                    try {
                        rows = ch.queryTsv("SELECT batch, commit_seq, rows FROM " + wm + " WHERE sink = '" + SINK_ID
                                + "' AND phase = 1 AND batch > " + lastBatch + " ORDER BY batch LIMIT 1 BY batch");
                    } catch (RuntimeException e) {
                        rows = List.of(); // the sink has not created its tables yet
                    }
                    long seenAt = Tally.nowMicros();
                    if (!rows.isEmpty()) {
                        long visible = 0;
                        for (String[] r : rows) {
                            visible += Long.parseLong(r[2]);
                        }
                        long seq = Long.parseLong(rows.get(rows.size() - 1)[1]);
                        if (tally.wantsLatency() && seq > lastSeq) {
                            for (String[] c : ch.queryTsv("SELECT commit_time_us, changes FROM " + log + " WHERE sink = '"
                                    + SINK_ID + "' AND commit_seq > " + lastSeq + " AND commit_seq <= " + seq
                                    + " ORDER BY commit_seq LIMIT 1 BY commit_seq")) {
                                long latency = seenAt - Long.parseLong(c[0]);
                                for (long k = Long.parseLong(c[1]); k > 0; k--) {
                                    tally.latency(latency);
                                }
                            }
                        }
                        lastBatch = Long.parseLong(rows.get(rows.size() - 1)[0]);
                        lastSeq = Math.max(lastSeq, seq);
                        batches += rows.size();
                        tally.changes(Math.toIntExact(visible));
                    }
                    next = sleepUntil(next);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                tally.fail(e);
            }
        }

        private long sleepUntil(long next) throws InterruptedException {
            next += TimeUnit.MILLISECONDS.toNanos(tally.wantsLatency() ? POLL_MS : THROUGHPUT_POLL_MS);
            long sleep = next - System.nanoTime();
            if (sleep > 0) {
                TimeUnit.NANOSECONDS.sleep(sleep);
                return next;
            }
            return System.nanoTime(); // a slow poll: no burst of catch-up polls
        }

        /**
         * Visible at commit: the commits up to {@code _walshadow_visible} are counted from the commit log (their
         * changes, and each change's latency); returns the last commit counted.
         */
        private long pollVisible(ClickHouseConnection ch, long lastSeq) {
            String visible;
            try {
                visible = ch.queryString(visibleSeqSql(db));
            } catch (RuntimeException e) {
                return lastSeq; // the sink has not created its tables yet
            }
            long seenAt = Tally.nowMicros();
            long seq = visible == null || visible.isEmpty() ? 0 : Long.parseLong(visible);
            if (seq <= lastSeq) {
                return lastSeq;
            }
            long changes = 0;
            for (String[] c : ch.queryTsv("SELECT commit_time_us, changes FROM `" + db + "`.`" + SinkTables.COMMIT_LOG
                    + "` WHERE sink = '" + SINK_ID + "' AND commit_seq > " + lastSeq + " AND commit_seq <= " + seq
                    + " ORDER BY commit_seq LIMIT 1 BY commit_seq")) {
                long n = Long.parseLong(c[1]);
                changes += n;
                if (tally.wantsLatency()) {
                    long latency = seenAt - Long.parseLong(c[0]);
                    for (long k = n; k > 0; k--) {
                        tally.latency(latency);
                    }
                }
            }
            tally.changes(Math.toIntExact(changes));
            return seq;
        }
    }

    /** The last commit {@code _walshadow_visible} shows for the bench's sink in {@code db}. */
    private static String visibleSeqSql(String db) {
        return "SELECT max(commit_seq) FROM `" + db + "`.`" + SinkTables.VISIBLE + "` WHERE sink = '" + SINK_ID + "'";
    }

    /** Whether rows are written straight after each commit ({@code clickhouse.visibility=commit}). */
    public boolean visibleAtCommit() {
        return atCommit;
    }

    @Override
    public void cleanup() throws Exception {
        if (source == null) {
            return;
        }
        cleanupSlots();
        dropChDatabases();
        if (work != null) {
            FileUtils.deleteDirectory(work.toFile());
            work = null;
        }
        savepoint = null;
    }

    // ---- slots, databases, files

    private void cleanupSlots() throws Exception {
        try (Connection c = source.connect()) {
            Source.dropSlot(c, slot);
            Source.dropSlot(c, anchor);
        }
    }

    /** (Re)creates the slot the job reads as a copy of the anchor: same restart LSN, never confirmed. */
    private void resetSlot() throws Exception {
        try (Connection c = source.connect()) {
            Source.dropSlot(c, slot);
            LocalPg.exec(c, "SELECT pg_copy_physical_replication_slot('" + anchor + "', '" + slot + "')");
        }
    }

    /**
     * The local ClickHouse of {@code deploy/local/stack.sh}: its {@code env} variables, else its defaults and password
     * file (as the tests' LocalClickHouse, whose test jar would bring the tests' logging configuration along).
     */
    public static final class LocalCh {
        public static String url() {
            return env("WALSHADOW_CH_URL", "http://127.0.0.1:" + env("WALSHADOW_CH_HTTP_PORT", "18123"));
        }

        public static String user() {
            return env("WALSHADOW_CH_USER", "walshadow");
        }

        public static String password() {
            String v = env("WALSHADOW_CH_PASSWORD", null);
            if (v != null) {
                return v;
            }
            try {
                return Files.readString(Path.of(LocalPg.stateDir(), "secrets", "ch_password")).trim();
            } catch (IOException e) {
                throw new IllegalStateException("no WALSHADOW_CH_PASSWORD and no password file: start the stack with"
                        + " deploy/local/stack.sh start", e);
            }
        }

        private static String env(String name, String dflt) {
            String v = System.getenv(name);
            return v == null || v.isEmpty() ? dflt : v;
        }
    }

    /** ClickHouse databases are named after the source database: {@code <database>_walshadow_<suffix>}. */
    private String chDatabase(String suffix) {
        return source.database() + "_" + ID + "_" + suffix;
    }

    private static void createChDatabase(String db) {
        try (ClickHouseConnection admin = adminConnection()) {
            admin.execute("DROP DATABASE IF EXISTS `" + db + "`");
            admin.execute("CREATE DATABASE `" + db + "`");
        }
    }

    /** Every ClickHouse database this contender names (it creates them one at a time; leftovers of a crash). */
    private void dropChDatabases() {
        try (ClickHouseConnection admin = adminConnection()) {
            for (String[] r : admin.queryTsv("SELECT name FROM system.databases WHERE startsWith(name, '"
                    + chDatabase("") + "')")) {
                admin.execute("DROP DATABASE IF EXISTS `" + r[0] + "`");
            }
        }
    }

    private static void dropChDatabase(String db) {
        try (ClickHouseConnection admin = adminConnection()) {
            admin.execute("DROP DATABASE IF EXISTS `" + db + "`");
        }
    }

    /** A connection to the local ClickHouse (database {@code default}; queries name their database). */
    public static ClickHouseConnection adminConnection() {
        return new ClickHouseConnection(LocalCh.url(), LocalCh.user(), LocalCh.password(),
                "default");
    }
}
