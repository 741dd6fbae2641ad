package io.walshadow.e2e;

import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.job.JobConfig;
import io.walshadow.job.WalshadowJob;
import io.walshadow.buffer.TestMetricReporter;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalClickHouse;
import io.walshadow.testing.LocalPg;
import io.walshadow.wal.Lsn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The end-to-end test harness: one PostgreSQL schema and one ClickHouse database per test (unique names, dropped
 * afterwards, as is the slot), the real job topology ({@link WalshadowJob#build}) in a MiniCluster with RocksDB and
 * frequent checkpoints, a wait until ClickHouse's committed watermark passed everything written so far, and the
 * table comparison ({@link TableComparison}).
 */
public final class E2e implements AutoCloseable {
    public final String name;
    public final String schema;
    public final String slot;
    public final String chDatabase;
    public final Path checkpoints;
    /** The PostgreSQL cluster's port: the test's sessions and the job's connections. */
    public final int pgPort;
    /** The test's PostgreSQL session (replaced by {@link #reconnectPg} after a server crash). */
    public Connection pg;
    public final ClickHouseConnection ch;
    private final List<JobClient> jobs = new ArrayList<>();
    /** Flink settings added to every job this test starts (a RocksDB directory, say). */
    public final Configuration flink = new Configuration();

    public E2e(String prefix) throws Exception {
        this(prefix, LocalPg.port());
    }

    /** As {@link #E2e(String)}, against the cluster on {@code pgPort} (the second one of stack.sh pg-wrap-start). */
    public E2e(String prefix, int pgPort) throws Exception {
        this.pgPort = pgPort;
        name = prefix + "_" + Long.toString(System.nanoTime(), 36);
        schema = name;
        slot = "ws_" + name;
        chDatabase = name;
        checkpoints = Files.createTempDirectory("walshadow-" + prefix + "-ck");
        pg = LocalPg.connect(pgPort);
        LocalPg.exec(pg, "CREATE SCHEMA " + schema, "CREATE TABLE " + schema + "._marker (id bigserial PRIMARY KEY)");
        try (ClickHouseConnection admin = new ClickHouseConnection(LocalClickHouse.url(), LocalClickHouse.user(),
                LocalClickHouse.password(), "default")) {
            admin.execute("CREATE DATABASE IF NOT EXISTS `" + chDatabase + "`");
        }
        ch = new ClickHouseConnection(LocalClickHouse.url(), LocalClickHouse.user(), LocalClickHouse.password(),
                chDatabase);
    }

    /** Job arguments for this test's schema, slot and database; {@code extra} adds or overrides {@code --key value}. */
    public String[] args(String... extra) {
        Map<String, String> a = new java.util.LinkedHashMap<>();
        String[] defaults = {"--pg.host", LocalPg.host(), "--pg.port", String.valueOf(pgPort),
                "--pg.database", LocalPg.database(), "--pg.user", LocalPg.user(), "--pg.sslmode", "disable",
                "--slot", slot, "--tables.include", schema + ".*", "--clickhouse.url", LocalClickHouse.url(),
                "--clickhouse.user", LocalClickHouse.user(), "--clickhouse.database", chDatabase,
                "--clickhouse.retry.timeout", "20s"};
        for (String[] kv : List.of(defaults, extra)) {
            for (int i = 0; i + 1 < kv.length; i += 2) {
                a.put(kv[i], kv[i + 1]);
            }
        }
        List<String> out = new ArrayList<>();
        a.forEach((k, v) -> {
            out.add(k);
            out.add(v);
        });
        return out.toArray(new String[0]);
    }

    /** A new session after the server went away (its old connection is broken). */
    public void reconnectPg() throws Exception {
        try {
            pg.close();
        } catch (java.sql.SQLException ignored) {
            // already broken
        }
        pg = LocalPg.connect(pgPort);
    }

    /** Another session on this test's cluster. */
    public Connection connectPg() throws java.sql.SQLException {
        return LocalPg.connect(pgPort);
    }

    public JobConfig config(String... extra) {
        return JobConfig.from(args(extra), Map.of(JobConfig.PG_PASSWORD_ENV, LocalPg.password(),
                JobConfig.CH_PASSWORD_ENV, LocalClickHouse.password()));
    }

    /** Whether the job started last copies tables (snapshot.mode other than never). */
    private boolean copying;

    /**
     * Starts the job (restored from {@code restoreFrom} when given). {@code restarts} > 0 lets Flink restart it from
     * its latest checkpoint after a failure, that many times.
     */
    public JobClient start(JobConfig config, Path restoreFrom, int restarts) throws Exception {
        return start(config, restoreFrom, restarts, (io.walshadow.sink.ClickHouseSink) null);
    }

    /** As {@link #start(JobConfig, Path, int)}, with this sink (null: the job's own). */
    public JobClient start(JobConfig config, Path restoreFrom, int restarts,
                           io.walshadow.sink.ClickHouseSink sink) throws Exception {
        return start(config, restoreFrom, restarts, (env, c) -> {
            if (sink == null) {
                WalshadowJob.build(env, c);
            } else {
                WalshadowJob.build(env, c, sink);
            }
        });
    }

    /** As {@link #start(JobConfig, Path, int)}, the job built by {@code topology} (tests: an earlier build's). */
    public JobClient start(JobConfig config, Path restoreFrom, int restarts,
                           java.util.function.BiConsumer<StreamExecutionEnvironment, JobConfig> topology)
            throws Exception {
        TestMetricReporter.METRICS.remove("complete"); // the new job's coordinator registers its own
        Configuration conf = FlinkTestJobs.checkpointed(checkpoints, restoreFrom);
        conf.setString("metrics.reporter.wstest.factory.class", TestMetricReporter.class.getName());
        conf.addAll(flink);
        if (restarts > 0) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        // a test's own MiniCluster set as the context has no test reporter: no snapshot gauges to wait for there
        copying = config.snapshot().enabled() && !(env instanceof org.apache.flink.streaming.util.TestStreamEnvironment);
        topology.accept(env, config);
        JobClient job = env.executeAsync("e2e " + name);
        jobs.add(job);
        return job;
    }

    /** Starts the job and waits until it replicates (what the workload writes before that is not in the stream). */
    public JobClient start(String... extra) throws Exception {
        JobClient job = start(config(extra), null, 0);
        awaitCaughtUp(Duration.ofSeconds(120));
        return job;
    }

    /**
     * Commits a marker row and waits until the watermark in ClickHouse is past it: then every commit before it is
     * visible in the destination tables; and, when the job copies tables, until the copy is over (every row the
     * tables held at its start point visible too).
     */
    public void awaitCaughtUp(Duration timeout) throws Exception {
        awaitStreamCaughtUp(timeout);
        if (copying) {
            // the watermark follows the stream only: a copy resumed after a restore may still be writing the rows
            // its tables held before the job started
            awaitSnapshotComplete(timeout);
        }
    }

    /** As {@link #awaitCaughtUp}, without waiting for the initial snapshot's copy (a test holding a chunk back). */
    public void awaitStreamCaughtUp(Duration timeout) throws Exception {
        long before = LocalPg.currentLsn(pg);
        long[] lastMarker = {0};
        FlinkTestJobs.awaitTrue(() -> "the watermark of sink " + slot + " passes " + Lsn.format(before) + " (now "
                + watermarkText() + ")", timeout, () -> {
                    if (committedLsn() >= before) {
                        return true;
                    }
                    failFastIfAJobFailed();
                    // a new marker now and then: one written before the job's catalog history began is not seen
                    if (System.currentTimeMillis() - lastMarker[0] > 2000) {
                        try {
                            LocalPg.exec(pg, "INSERT INTO " + schema + "._marker DEFAULT VALUES");
                        } catch (java.sql.SQLException e) {
                            throw new IllegalStateException(e);
                        }
                        lastMarker[0] = System.currentTimeMillis();
                    }
                    return false;
                });
    }

    /** Waits until a job of this test fails and returns its root cause's message (a test expecting it to stop). */
    /** Waits until the snapshot metrics say the copy (every round so far) is over. */
    public void awaitSnapshotComplete(Duration timeout) throws Exception {
        FlinkTestJobs.awaitTrue(() -> "the snapshot completes (chunks " + TestMetricReporter.value("chunks_done")
                + " of " + TestMetricReporter.value("chunks_total") + ")", timeout, () -> {
                    failFastIfAJobFailed();
                    return TestMetricReporter.value("complete") == 1;
                });
    }

    /** Stops the job with a savepoint (how an operator changes its configuration) and returns it. */
    public static Path stopWithSavepoint(JobClient job) throws Exception {
        Path dir = Files.createTempDirectory("walshadow-sp");
        return Path.of(java.net.URI.create(job.stopWithSavepoint(false, dir.toUri().toString(),
                org.apache.flink.core.execution.SavepointFormatType.CANONICAL).get()));
    }

    public String awaitJobFailure(Duration timeout) throws Exception {
        java.util.concurrent.atomic.AtomicReference<String> failure = new java.util.concurrent.atomic.AtomicReference<>();
        FlinkTestJobs.awaitTrue(() -> "the job fails", timeout, () -> {
            try {
                failFastIfAJobFailed();
                return false;
            } catch (IllegalStateException x) {
                failure.set(x.getMessage());
                return true;
            }
        });
        return failure.get();
    }

    /**
     * Holds the sink's writer at its next record until closed (at most a minute): the stages behind the source
     * back up and no checkpoint completes meanwhile.
     */
    public static AutoCloseable stallSink() {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        io.walshadow.clickhouse.Faults.install(point -> {
            if (point.equals("writer.write")) {
                try {
                    release.await(60, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        return () -> {
            release.countDown();
            io.walshadow.clickhouse.Faults.install(null);
        };
    }

    /** Runs a command of the local stack ({@code deploy/local/stack.sh}): {@code pg-crash}, {@code ch-crash}, {@code ch-stall 8}. */
    public static void stack(String... command) throws Exception {
        java.nio.file.Path stack = java.nio.file.Path.of("..", "deploy", "local", "stack.sh").toAbsolutePath()
                .normalize();
        List<String> argv = new ArrayList<>(List.of("bash", stack.toString()));
        argv.addAll(List.of(command));
        Process p = new ProcessBuilder(argv).inheritIO().start();
        if (!p.waitFor(180, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("stack.sh " + String.join(" ", command) + " failed");
        }
    }

    /** Throws the failure of a job that failed (a test waiting for it would otherwise wait for nothing). */
    public void failFastIfAJobFailed() {
        for (JobClient j : jobs) {
            java.util.concurrent.CompletableFuture<?> result = j.getJobExecutionResult();
            if (!result.isDone()) {
                continue;
            }
            try {
                result.get();
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                if (root instanceof org.apache.flink.runtime.client.JobCancellationException) {
                    continue; // cancelled by the test
                }
                throw new IllegalStateException("job " + j.getJobID() + " failed: " + root, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            // ended normally (stopped with a savepoint): nothing to report
        }
    }

    /** The committed watermark's commit LSN, 0 before the first batch. */
    public long committedLsn() {
        try {
            String v = ch.queryString("SELECT commit_lsn FROM `" + chDatabase + "`.`_walshadow_committed` WHERE sink = '" + slot + "'");
            return v == null ? 0 : Long.parseLong(v);
        } catch (RuntimeException e) {
            return 0; // the sink has not created its tables yet
        }
    }

    private String watermarkText() {
        try {
            return ch.queryString("SELECT commit_lsn_text FROM `" + chDatabase + "`.`_walshadow_committed` WHERE sink = '" + slot + "'");
        } catch (RuntimeException e) {
            return "none: " + e.getMessage();
        }
    }

    /** Compares every table of the schema (but the marker) with ClickHouse; returns the rows compared per table. */
    public Map<String, Integer> assertAllTablesEqual() throws Exception {
        Map<String, Integer> n = new java.util.TreeMap<>();
        for (String t : LocalPg.queryColumn(pg, "SELECT relname FROM pg_class c JOIN pg_namespace s ON s.oid ="
                + " c.relnamespace WHERE s.nspname = '" + schema + "' AND relkind = 'r' AND relname <> '_marker'")) {
            try {
                n.put(t, TableComparison.assertEqual(pg, ch, schema, t));
            } catch (AssertionError x) {
                throw new AssertionError(x.getMessage() + "\n" + diagnosis(t), x);
            }
        }
        return n;
    }

    /**
     * What a failed comparison's message carries besides the rows (often all CI shows of a race seen once): the
     * destination's versions as stored (no FINAL), the table's storage in PostgreSQL, the job's nonzero metrics.
     */
    public String diagnosis(String table) {
        StringBuilder out = new StringBuilder("diagnosis of " + schema + "." + table + ":\n  ClickHouse rows by _lsn,"
                + " deleted (unmerged): ");
        try {
            for (String[] r : ch.queryTsv("SELECT _lsn, _is_deleted, count() FROM `" + chDatabase + "`.`" + schema
                    + "__" + table + "` GROUP BY _lsn, _is_deleted ORDER BY _lsn LIMIT 30")) {
                out.append(Lsn.format(Long.parseUnsignedLong(r[0]))).append(r[1].equals("1") ? " del " : " ")
                        .append('x').append(r[2]).append(", ");
            }
            out.append("\n  PostgreSQL: ").append(LocalPg.queryColumn(pg, "SELECT 'relfilenode ' || relfilenode"
                    + " || ', oid ' || oid FROM pg_class WHERE oid = '" + schema + "." + table + "'::regclass"));
        } catch (Exception e) {
            out.append("(not read: ").append(e.getMessage()).append(')');
        }
        out.append("\n  metrics: ");
        new java.util.TreeMap<>(TestMetricReporter.METRICS).forEach((name, m) -> {
            long v = TestMetricReporter.value(name);
            if (v != 0 && v != -1) {
                out.append(name).append('=').append(v).append(' ');
            }
        });
        return out.toString();
    }

    /** Each commit once in the commit log: a commit_seq never names two different commits. */
    public void assertEachCommitOnce() {
        org.junit.jupiter.api.Assertions.assertEquals("0", ch.queryString("SELECT count() FROM (SELECT commit_seq FROM `"
                + chDatabase + "`.`_walshadow_commit_log` GROUP BY commit_seq HAVING uniqExact(xid, commit_lsn, changes)"
                + " > 1)"), "commit_seq values naming different commits");
    }

    /**
     * Rows ClickHouse holds more than once for one (key, version) are byte-identical copies (retries folded by
     * ReplacingMergeTree), never two different values written at one version.
     */
    public void assertCopiesIdentical(String table, String keyColumns, String valueColumns) {
        org.junit.jupiter.api.Assertions.assertEquals("0", ch.queryString("SELECT count() FROM (SELECT " + keyColumns
                + ", _lsn FROM `" + chDatabase + "`.`" + schema + "__" + table + "` GROUP BY " + keyColumns
                + ", _lsn HAVING uniqExact(" + valueColumns + ", _commit_lsn, _xid, _is_deleted) > 1)"),
                table + ": versions that differ between copies");
    }

    public void cancelJobs() {
        for (JobClient j : jobs) {
            try {
                j.cancel().get();
            } catch (Exception e) {
                // finished or failed already
            }
            awaitTerminal(j); // cancel() returns once asked: a task still running could write after the next step
        }
        jobs.clear();
    }

    private static void awaitTerminal(JobClient j) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            try {
                if (j.getJobStatus().get().isGloballyTerminalState()) {
                    return;
                }
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                return; // the cluster no longer knows the job: it is over
            }
        }
        throw new IllegalStateException("job " + j.getJobID() + " still not terminal 60 s after it was cancelled");
    }

    @Override
    public void close() throws Exception {
        try {
            cancelJobs();
        } finally {
            cleanUp(); // also when a job did not end in time: a leaked checkpoint directory once held 33 GB
        }
    }

    private void cleanUp() throws Exception {
        try {
            FlinkTestJobs.dropSlot(pg, slot);
            LocalPg.exec(pg, "DROP SCHEMA " + schema + " CASCADE");
        } finally {
            pg.close();
            try (ClickHouseConnection admin = new ClickHouseConnection(LocalClickHouse.url(), LocalClickHouse.user(),
                    LocalClickHouse.password(), "default")) {
                admin.execute("DROP DATABASE IF EXISTS `" + chDatabase + "`");
            }
            ch.close();
            // the checkpoints go with the test: left behind, the disk-full rounds alone kept 5 GB of spilled
            // transactions, and a CI run's ClickHouse then failed with ENOSPC
            org.apache.flink.util.FileUtils.deleteDirectory(checkpoints.toFile());
        }
    }
}
