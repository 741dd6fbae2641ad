package io.walshadow.bench.snapshot;

import io.walshadow.bench.buffer.ProcStats;
import io.walshadow.bench.e2e.HeapWatch;
import io.walshadow.bench.e2e.Source;
import io.walshadow.bench.e2e.WalshadowContender.LocalCh;
import io.walshadow.buffer.Drained;
import io.walshadow.buffer.DrainedChange;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.job.JobConfig;
import io.walshadow.job.WalshadowJob;
import io.walshadow.testing.LocalPg;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.postgresql.PGConnection;

/**
 * Initial-snapshot benchmark: rows/s and MB/s of a table that exists before the job, copied by our job's snapshot,
 * next to {@code COPY t TO STDOUT} of the same table through pgjdbc in the same run (the floor of what reading it
 * from PostgreSQL costs). A program that prints figures, not a test (deploy/bench/snapshot.sh runs it).
 *
 * <p>Contenders, per round in alternating order: <b>COPY text</b> (CopyManager into a counting, discarding
 * stream); <b>walshadow discard</b> (the job's source, decoder and transaction buffer with the snapshot source, in a
 * local MiniCluster with RocksDB state, into a counting sink: the time until every snapshot row passed the buffer);
 * <b>walshadow ClickHouse</b> (the whole job at its defaults, until the ClickHouse table holds every row). Each
 * walshadow run has a fresh slot and ClickHouse database. MB/s is the table's heap size ({@code pg_table_size}) over
 * the seconds; the ratio column is rows/s over COPY's. Printed: medians over the rounds, this JVM's and the local
 * ClickHouse server's CPU seconds and peak heap (after GC, of the round). Rows are written as they arrive (the
 * job's default {@code clickhouse.visibility commit}); with checkpoint visibility they would show after the
 * checkpoint that follows them.
 * 2-core machine: noisy, read the ratios.
 *
 * <pre>
 * Options (all optional):
 *   --rows N             rows of the table (default 2000000)
 *   --rounds N           measured rounds (default 3)
 *   --parallelism N      snapshot.parallelism (default 2)
 *   --chunk-pages N      snapshot.chunk.pages (default 4096)
 *   --checkpoint-interval D  the job's checkpoint.interval (default 5s)
 *   --timeout-seconds S  give up on a run after S seconds (default 900)
 * </pre>
 */
public final class SnapshotBenchmark {
    static final String SCHEMA = "bench_snapshot";
    static final String SLOT = "walshadow_bench_snapshot";
    static final String CH_DB = "walshadow_bench_snapshot";

    /** Snapshot rows that passed the transaction buffer (MiniCluster in this JVM). */
    static final AtomicLong PASSED = new AtomicLong();
    /** The job's checkpoint interval (the slot advances at each; rows are written as they arrive). */
    private static String checkpointInterval;

    private record Run(double seconds, double cpuSeconds, long heapAfterGc, double clickHouseCpu) {}

    public static void main(String[] args) throws Exception {
        Map<String, String> o = options(args);
        long rows = Long.parseLong(o.getOrDefault("rows", "2000000"));
        int rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
        String parallelism = o.getOrDefault("parallelism", "2");
        String chunkPages = o.getOrDefault("chunk-pages", "4096");
        long timeout = Long.parseLong(o.getOrDefault("timeout-seconds", "900"));
        checkpointInterval = o.getOrDefault("checkpoint-interval", "5s");

        long bytes;
        try (Connection c = LocalPg.connect()) {
            dropSlot(c);
            LocalPg.exec(c, "DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE", "CREATE SCHEMA " + SCHEMA,
                    "CREATE TABLE " + SCHEMA + ".t (id bigint PRIMARY KEY, v text, n numeric(12,2), at timestamptz,"
                            + " flag bool, tags text[])",
                    "INSERT INTO " + SCHEMA + ".t SELECT g, 'row ' || g || ' ' || md5(g::text), g / 7.0,"
                            + " timestamptz '2020-01-01 00:00:00+00' + g * interval '1 second', g % 3 = 0,"
                            + " ARRAY['a' || g, 'b'] FROM generate_series(1, " + rows + ") g",
                    "VACUUM ANALYZE " + SCHEMA + ".t", "CHECKPOINT");
            bytes = Long.parseLong(LocalPg.queryString(c, "SELECT pg_table_size('" + SCHEMA + ".t')"));
        }
        log(String.format(Locale.ROOT, "table %s.t: %d rows, %.1f MB", SCHEMA, rows, bytes / 1e6));

        Map<String, List<Run>> runs = new LinkedHashMap<>();
        List<String> order = new ArrayList<>(List.of("COPY text", "walshadow discard", "walshadow ClickHouse"));
        HeapWatch heap = HeapWatch.install();
        for (int r = 0; r <= rounds; r++) { // round 0: warm-up, not counted
            for (String who : order) {
                heap.begin();
                long cpu0 = ProcStats.cpuNanos();
                double ch0 = io.walshadow.bench.e2e.E2eBenchmark.clickHouseCpuSeconds();
                long t0 = System.nanoTime();
                switch (who) {
                    case "COPY text" -> copy(rows);
                    case "walshadow discard" -> snapshot(rows, false, parallelism, chunkPages, timeout);
                    default -> snapshot(rows, true, parallelism, chunkPages, timeout);
                }
                Run run = new Run((System.nanoTime() - t0) / 1e9, (ProcStats.cpuNanos() - cpu0) / 1e9,
                        heap.end().afterGc(), io.walshadow.bench.e2e.E2eBenchmark.clickHouseCpuSeconds() - ch0);
                log(String.format(Locale.ROOT, "round %d %s: %.2f s", r, who, run.seconds()));
                if (r > 0) {
                    runs.computeIfAbsent(who, k -> new ArrayList<>()).add(run);
                }
            }
            java.util.Collections.reverse(order);
        }
        double copyRate = rows / median(runs.get("COPY text"), Run::seconds);
        System.out.printf(Locale.ROOT, "%nsnapshot benchmark: %d rows, %.1f MB, parallelism %s, chunk pages %s,"
                + " checkpoint interval %s, medians of %d rounds%n", rows, bytes / 1e6, parallelism, chunkPages,
                checkpointInterval, rounds);
        System.out.printf(Locale.ROOT, "%-22s %9s %11s %8s %9s %8s %8s %14s%n", "", "seconds", "rows/s", "MB/s",
                "vs COPY", "JVM cpu", "CH cpu", "heap after GC");
        for (String who : List.of("COPY text", "walshadow discard", "walshadow ClickHouse")) {
            List<Run> l = runs.get(who);
            double s = median(l, Run::seconds);
            System.out.printf(Locale.ROOT, "%-22s %9.2f %11.0f %8.1f %9.2f %8.1f %8.1f %11.0f MB%n", who, s, rows / s,
                    bytes / 1e6 / s, rows / s / copyRate, median(l, Run::cpuSeconds), median(l, Run::clickHouseCpu),
                    median(l, x -> x.heapAfterGc()) / 1e6);
        }
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "DROP SCHEMA " + SCHEMA + " CASCADE");
        }
        System.exit(0);
    }

    private static void copy(long rows) throws Exception {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("user", LocalPg.user());
        p.setProperty("password", LocalPg.password());
        p.setProperty("sslmode", "disable");
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + LocalPg.host() + ":" + LocalPg.port()
                + "/" + LocalPg.database(), p)) {
            long n = c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY " + SCHEMA + ".t TO STDOUT",
                    OutputStream.nullOutputStream());
            if (n != rows) {
                throw new IllegalStateException("COPY returned " + n + " rows, not " + rows);
            }
        }
    }

    /** One snapshot of the table by a fresh job, to the counting sink or to ClickHouse; returns once all arrived. */
    private static void snapshot(long rows, boolean clickhouse, String parallelism, String chunkPages, long timeout)
            throws Exception {
        try (ClickHouseConnection admin = new ClickHouseConnection(LocalCh.url(), LocalCh.user(), LocalCh.password(),
                "default")) {
            admin.execute("DROP DATABASE IF EXISTS `" + CH_DB + "`");
            admin.execute("CREATE DATABASE `" + CH_DB + "`");
        }
        JobConfig config = JobConfig.from(new String[] {"--pg.host", LocalPg.host(), "--pg.port",
                String.valueOf(LocalPg.port()), "--pg.database", LocalPg.database(), "--pg.user", LocalPg.user(),
                "--pg.sslmode", "disable", "--slot", SLOT, "--tables.include", SCHEMA + ".t", "--clickhouse.url",
                LocalCh.url(), "--clickhouse.user", LocalCh.user(), "--clickhouse.database", CH_DB,
                "--snapshot.parallelism", parallelism, "--snapshot.chunk.pages", chunkPages,
                "--checkpoint.interval", checkpointInterval},
                Map.of(JobConfig.PG_PASSWORD_ENV, LocalPg.password(), JobConfig.CH_PASSWORD_ENV, LocalCh.password()));
        Path dir = Files.createTempDirectory("walshadow-bench-snapshot");
        Configuration flink = new Configuration();
        flink.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        flink.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.checkpointInterval());
        flink.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.resolve("checkpoints").toUri().toString());
        flink.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        PASSED.set(0);
        LongSupplier arrived;
        if (clickhouse) {
            WalshadowJob.build(env, config);
            ClickHouseConnection ch = new ClickHouseConnection(LocalCh.url(), LocalCh.user(), LocalCh.password(), CH_DB);
            arrived = () -> {
                try {
                    return Long.parseLong(ch.queryString("SELECT count() FROM `" + CH_DB + "`.`" + SCHEMA + "__t`"));
                } catch (RuntimeException e) {
                    return 0; // not created yet
                }
            };
        } else {
            WalshadowJob.transactionBuffer(env, config).map(new Count()).returns(Types.LONG).setParallelism(1)
                    .sinkTo(new DiscardingSink<>()).setParallelism(1);
            arrived = PASSED::get;
        }
        JobClient job = env.executeAsync("walshadow snapshot benchmark");
        long deadline = System.nanoTime() + timeout * 1_000_000_000L;
        try {
            while (arrived.getAsLong() < rows) {
                if (job.getJobExecutionResult().isDone()) {
                    job.getJobExecutionResult().get(); // throws the failure
                    throw new IllegalStateException("the job ended before the snapshot arrived");
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("snapshot not arrived within " + timeout + " s: "
                            + arrived.getAsLong() + " of " + rows + " rows");
                }
                Thread.sleep(clickhouse ? 200 : 20);
            }
        } finally {
            try {
                job.cancel().get();
            } catch (Exception e) {
                // already ended
            }
            try (Connection c = LocalPg.connect()) {
                dropSlot(c);
            }
        }
    }

    /** Counts the snapshot's rows (no transaction: xid 0) that passed the buffer. */
    static final class Count implements MapFunction<Drained, Long> {
        @Override
        public Long map(Drained d) {
            if (d instanceof DrainedChange c && c.fullXid() == 0) {
                PASSED.incrementAndGet();
            }
            return 0L;
        }
    }

    private static void dropSlot(Connection c) throws Exception {
        Source.dropSlot(c, SLOT);
    }

    private static <T> double median(List<T> l, java.util.function.ToDoubleFunction<T> f) {
        double[] v = l.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --option value, got " + args[i]);
            }
            o.put(args[i].substring(2), args[i + 1]);
        }
        return o;
    }

    static void log(String s) {
        System.err.println("[bench] " + s);
    }
}
