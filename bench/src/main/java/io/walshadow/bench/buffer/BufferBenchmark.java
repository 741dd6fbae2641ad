package io.walshadow.bench.buffer;

import org.apache.flink.util.FileUtils;
import io.walshadow.bench.e2e.HeapWatch;
import io.walshadow.bench.e2e.Source;
import io.walshadow.job.JobConfig;
import io.walshadow.job.WalshadowJob;
import io.walshadow.testing.LocalPg;
import io.walshadow.wal.Lsn;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * Transaction buffer benchmark: drained rows per second and peak heap of the job's first three stages (WAL
 * source, decoder, transaction buffer on RocksDB, as {@link WalshadowJob#transactionBuffer} builds them) ending in a
 * counting sink ({@link DrainCounter}, no ClickHouse), in a MiniCluster with RocksDB state and checkpoints, in this
 * JVM (started with a small heap by deploy/bench/buffer.sh). A program that prints figures, not a test.
 *
 * <p><b>One large transaction</b> ({@code --mode large}): a table of an int8 id and {@code --columns} text columns of
 * {@code --width} characters (random hex, so RocksDB's block compression gains little), rows small enough to stay
 * inline (no TOAST: every byte is in the heap record), and one {@code INSERT ... SELECT} of as many rows as make
 * {@code --large-mb} MiB of values, while the job runs. The job buffers the rows as the WAL arrives; the commit record
 * starts the drain. Printed: the workload's time to its commit, how much the buffer held at the commit and how long
 * it took to catch up, then the drain (first drained row to the commit marker): rows/s, MB/s of values; peak heap of
 * the ingest phase and of the drain phase, peak RSS, the buffer's own estimate of what it held, RocksDB's directory
 * on disk, the checkpoints. Checked: the drained rows, their id sum and their value bytes equal what PostgreSQL
 * says the transaction wrote ({@code count(*)}, {@code sum(id)}, {@code sum(octet_length(...))}), the commit marker's
 * count too, and no value came out as a TOAST pointer.
 *
 * <p><b>Many small transactions</b> ({@code --mode small}): pgbench's TPC-B-like script (4 row changes per
 * transaction), caught up from the slot: the job starts, seeds its catalog and checkpoints, is cancelled; pgbench
 * runs {@code --transactions}; the job restores from its last checkpoint and drains the lot. Printed: rows/s from
 * the first drained row to the last (and from the job's start), MB/s of values, peak heap. Checked: changes by
 * table and operation equal 4 x the transactions PostgreSQL committed (rows added to pgbench_history).
 *
 * <pre>
 * Options (all optional):
 *   --mode both|large|small     what to measure (default both: small first, then large)
 *   --large-mb N                MiB of row values in the large transaction (default 2300, i.e. 2.4 GB)
 *   --columns N                 text columns of the large table (default 12)
 *   --width N                   characters per text value, even (default 150)
 *   --transactions N            small mode: pgbench transactions in all (default 100000)
 *   --clients N                 small mode: pgbench clients (default 4)
 *   --scale N                   small mode: pgbench -i scale (default 10)
 *   --checkpoint-interval D     the job's --checkpoint.interval (default 10s, the job's default)
 *   --incremental               incremental RocksDB checkpoints (the job's default, and Flink's, is full ones)
 *   --timeout-seconds S         give up waiting for a drain after S seconds (default 1800)
 *   --keep                      keep the scratch database (walshadow_bench_buffer) afterwards
 *   --buffer-parallelism N      subtasks of the transaction buffer (the job's --xact.buffer.parallelism, default 1);
 *                               small mode prints the CPU of each task thread (a subtask) next to it
 * </pre>
 *
 * <p>Everything lives in the scratch database {@value #DB} and the physical slot {@value #SLOT}; both, the tables,
 * and the RocksDB and checkpoint directories (under java.io.tmpdir) are dropped at the end, leftovers of an
 * interrupted run at the next start. The slot holds all WAL the large transaction writes (about its size) until the
 * job confirms a checkpoint after the drain.
 */
public final class BufferBenchmark {
    static final String DB = "walshadow_bench_buffer";
    static final String SLOT = "walshadow_bench_buffer";
    private static final String LARGE_TABLE = "bench_large";
    private static final String PROBE_TABLE = "bench_probe";
    /** pgbench's builtin TPC-B-like transaction: 3 UPDATEs and one INSERT. */
    private static final int PGBENCH_CHANGES = 4;

    private BufferBenchmark() {}

    static void log(String s) {
        System.out.println("[bench] " + s);
    }

    /** One measured workload, for the summary table. */
    record Result(String workload, long transactions, long rows, long valueBytes, double drainSeconds,
                  double cpuSeconds, HeapWatch.Peak heap, long rssPeak, long bufferEstimate, long rocksBytes,
                  double load, boolean correct) {
        double rate() {
            return rows / drainSeconds;
        }

        double mbRate() {
            return mb(valueBytes) / drainSeconds;
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        HeapWatch heap = HeapWatch.install();
        FileStore tmpStore = Files.getFileStore(Path.of(System.getProperty("java.io.tmpdir")));
        try (Connection admin = LocalPg.connect()) {
            log(String.format(Locale.ROOT, "PostgreSQL %s; JVM %s, max heap %d MB (%s), %d cores; checkpoints every"
                            + " %s (%s); disk free %.1f GB",
                    LocalPg.queryString(admin, "SHOW server_version"), Runtime.version(),
                    Runtime.getRuntime().maxMemory() >> 20,
                    ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
                            .collect(Collectors.joining(", ")),
                    Runtime.getRuntime().availableProcessors(), o.checkpointInterval,
                    o.incremental ? "incremental" : "full", tmpStore.getUsableSpace() / 1e9));
            dropLeftovers(admin);
            LocalPg.exec(admin, "CREATE DATABASE " + DB);
        }
        List<Result> results = new ArrayList<>();
        boolean ok = true;
        try {
            if (o.small()) {
                Result r = small(o, heap);
                results.add(r);
                ok &= r.correct;
            }
            if (o.large()) {
                Result r = large(o, heap);
                results.add(r);
                ok &= r.correct;
            }
        } finally {
            try (Connection admin = LocalPg.connect()) {
                Source.dropSlot(admin, SLOT);
                if (!o.keep) {
                    LocalPg.exec(admin, "DROP DATABASE IF EXISTS " + DB);
                }
            }
            log(String.format(Locale.ROOT, "slot %s dropped%s; disk free %.1f GB", SLOT,
                    o.keep ? "" : ", database " + DB + " dropped", tmpStore.getUsableSpace() / 1e9));
        }
        printSummary(o, results);
        System.exit(ok ? 0 : 1); // the MiniCluster may leave non-daemon threads behind
    }

    // ------------------------------------------------------------------------------------------------
    // One large transaction
    // ------------------------------------------------------------------------------------------------

    private static Result large(Options o, HeapWatch heap) throws Exception {
        long rowBytes = 8L + (long) o.columns * o.width;
        long rows = (o.largeMb * 1048576L + rowBytes - 1) / rowBytes;
        log(String.format(Locale.ROOT, "large transaction: %d rows of an int8 and %d x %d characters (%d bytes of"
                + " values a row, %.0f MB in all)", rows, o.columns, o.width, rowBytes, mb(rows * rowBytes)));
        try (Connection c = connect()) {
            StringBuilder ddl = new StringBuilder("CREATE TABLE " + LARGE_TABLE + " (id int8 NOT NULL");
            for (int i = 1; i <= o.columns; i++) {
                ddl.append(", ").append(column(i)).append(" text");
            }
            // no autovacuum on it: its WAL would only add to what the slot holds
            ddl.append(") WITH (autovacuum_enabled = off)");
            LocalPg.exec(c, "DROP TABLE IF EXISTS " + LARGE_TABLE, ddl.toString(),
                    "CREATE TABLE IF NOT EXISTS " + PROBE_TABLE + " (id int PRIMARY KEY, at timestamptz)");
        }
        Path dir = Files.createTempDirectory("walshadow-bench-buffer-large");
        DrainCounter.reset();
        BenchMetrics.clear();
        JobClient job = startJob(o, dir, null);
        try (Sampler sampler = new Sampler(dir.resolve("rocksdb"), dir.resolve("checkpoints"));
             Connection c = connect()) {
            awaitStreaming(c, job, "INSERT INTO " + PROBE_TABLE + " VALUES (%d, now())", o);
            long checkpoints0 = BenchMetrics.value("numberOfCompletedCheckpoints");
            long failed0 = BenchMetrics.value("numberOfFailedCheckpoints");

            // The workload: one INSERT ... SELECT in one transaction.
            heap.begin();
            ProcStats.reset();
            sampler.reset();
            double load0 = ProcStats.loadAverage();
            c.setAutoCommit(false);
            long t0 = System.nanoTime();
            long cpu0 = ProcStats.cpuNanos();
            int xid = (int) Long.parseLong(LocalPg.queryString(c,
                    "SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text"));
            DrainCounter.watch(xid, heap);
            long lsn0 = LocalPg.currentLsn(c);
            long inserted;
            try (Statement st = c.createStatement()) {
                inserted = st.executeUpdate(insertSql(o, rows));
            }
            long tInserted = System.nanoTime();
            c.commit();
            long tCommitted = System.nanoTime();
            c.setAutoCommit(true);
            long bufferedAtCommit = BenchMetrics.value("buffered_changes");
            long lsn1 = LocalPg.currentLsn(c);
            log(String.format(Locale.ROOT, "xid %s: INSERT of %d rows took %.1f s, COMMIT %.2f s; %.0f MB of WAL"
                            + " (%s..%s); the buffer held %d changes at the commit", Integer.toUnsignedString(xid),
                    inserted, (tInserted - t0) / 1e9, (tCommitted - tInserted) / 1e9, mb(lsn1 - lsn0),
                    Lsn.format(lsn0), Lsn.format(lsn1), bufferedAtCommit));

            if (!DrainCounter.watchedDone().await(o.timeoutSeconds, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the large transaction did not drain within " + o.timeoutSeconds
                        + " s: " + DrainCounter.wRows + " of " + inserted + " rows drained");
            }
            double load1 = ProcStats.loadAverage();
            HeapWatch.Peak ingestPeak = DrainCounter.ingestPeak;
            HeapWatch.Peak drainPeak = DrainCounter.drainPeak;
            long drainNanos = DrainCounter.wMarkerNanos - DrainCounter.wFirstNanos;
            long checkpoints = BenchMetrics.value("numberOfCompletedCheckpoints") - checkpoints0;
            long failedCheckpoints = BenchMetrics.value("numberOfFailedCheckpoints") - failed0;
            long drainedRows = DrainCounter.wRows;
            long drainedBytes = DrainCounter.wBytes;
            long drainedIdSum = DrainCounter.wIdSum;

            // Correctness: what PostgreSQL says the transaction wrote (read after the drain: not measured).
            StringBuilder len = new StringBuilder("8");
            for (int i = 1; i <= o.columns; i++) {
                len.append(" + octet_length(").append(column(i)).append(")");
            }
            long pgRows;
            long pgIdSum;
            long pgBytes;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*), sum(id),"
                    + " sum(" + len + ") FROM " + LARGE_TABLE)) {
                rs.next();
                pgRows = rs.getLong(1);
                pgIdSum = rs.getLong(2);
                pgBytes = rs.getLong(3);
            }
            boolean correct = drainedRows == pgRows && pgRows == inserted && DrainCounter.wMarkerChanges == pgRows
                    && drainedIdSum == pgIdSum && drainedBytes == pgBytes && DrainCounter.wToastPointers == 0;

            double toCommit = (tCommitted - t0) / 1e9;
            double lag = (DrainCounter.wFirstNanos - tCommitted) / 1e9;
            double drain = drainNanos / 1e9;
            System.out.printf(Locale.ROOT, "%nOne large transaction: %d rows, %.1f MB of values (%.2f GB), %.1f MB of"
                            + " WAL; JVM max heap %d MB%n", pgRows, mb(pgBytes), pgBytes / 1e9, mb(lsn1 - lsn0),
                    Runtime.getRuntime().maxMemory() >> 20);
            System.out.printf(Locale.ROOT, "  workload start -> commit           %8.1f s  (INSERT %.1f s, %.0f rows/s"
                    + " written)%n", toCommit, (tInserted - t0) / 1e9, inserted / ((tInserted - t0) / 1e9));
            System.out.printf(Locale.ROOT, "  buffered at the commit             %8d of %d changes (%.0f%%)%n",
                    bufferedAtCommit, pgRows, 100.0 * bufferedAtCommit / pgRows);
            System.out.printf(Locale.ROOT, "  commit -> first drained row        %8.1f s  (the pipeline catching up with"
                            + " the WAL; ingest %.0f rows/s from the workload's start)%n", lag,
                    pgRows / ((DrainCounter.wFirstNanos - t0) / 1e9));
            double drainCpu = (DrainCounter.wMarkerCpu - DrainCounter.wFirstCpu) / 1e9;
            System.out.printf(Locale.ROOT, "  drain: first row -> commit marker  %8.1f s  %.0f rows/s  %.1f MB/s"
                            + "  (JVM CPU %.1f s: %.1f us a row)%n", drain, drainedRows / drain,
                    mb(drainedBytes) / drain, drainCpu, drainCpu * 1e6 / drainedRows);
            System.out.printf(Locale.ROOT, "  JVM CPU before the drain           %8.1f s  (%.1f us a row: decode, buffer)%n",
                    (DrainCounter.wFirstCpu - cpu0) / 1e9, (DrainCounter.wFirstCpu - cpu0) / 1e3 / drainedRows);
            System.out.printf(Locale.ROOT, "  load average (1 min), start / end  %8.1f / %.1f on %d cores%n", load0, load1,
                    Runtime.getRuntime().availableProcessors());
            System.out.printf(Locale.ROOT, "  peak heap, ingest phase            %8.0f MB (most in use after a GC %.0f MB)%n",
                    mb(ingestPeak.peak()), mb(ingestPeak.afterGc()));
            System.out.printf(Locale.ROOT, "  peak heap, drain phase             %8.0f MB (most in use after a GC %.0f MB)%n",
                    mb(drainPeak.peak()), mb(drainPeak.afterGc()));
            System.out.printf(Locale.ROOT, "  peak RSS, ingest / drain           %8.0f MB / %.0f MB (heap + RocksDB native"
                    + " + the rest)%n", mb(DrainCounter.ingestRssPeak), mb(DrainCounter.drainRssPeak));
            System.out.printf(Locale.ROOT, "  buffer's estimate of what it held  %8.0f MB (gauge buffered_bytes, peak)%n",
                    mb(sampler.bufferedBytes.get()));
            System.out.printf(Locale.ROOT, "  RocksDB directory on disk, peak    %8.0f MB%n", mb(sampler.rocksBytes.get()));
            System.out.printf(Locale.ROOT, "  checkpoints                        %8d completed during the run (%d failed),"
                            + " longest %.1f s, largest %.0f MB; checkpoint directory peak %.0f MB%n", checkpoints,
                    failedCheckpoints, sampler.checkpointMillis.get() / 1e3, mb(sampler.checkpointSize.get()),
                    mb(sampler.checkpointBytes.get()));
            System.out.printf(Locale.ROOT, "  check: drained %d rows (commit marker %d), id sum %d, %d value bytes,"
                            + " %d TOAST pointers; PostgreSQL: INSERT %d, count %d, id sum %d, %d bytes -> %s%n",
                    drainedRows, DrainCounter.wMarkerChanges, drainedIdSum, drainedBytes, DrainCounter.wToastPointers,
                    inserted, pgRows, pgIdSum, pgBytes, correct ? "OK" : "MISMATCH");
            HeapWatch.Peak both = new HeapWatch.Peak(Math.max(ingestPeak.peak(), drainPeak.peak()),
                    Math.max(ingestPeak.afterGc(), drainPeak.afterGc()));
            return new Result("one large transaction", 1, drainedRows, drainedBytes, drain, drainCpu, both,
                    Math.max(DrainCounter.ingestRssPeak, DrainCounter.drainRssPeak), sampler.bufferedBytes.get(),
                    sampler.rocksBytes.get(), Math.max(load0, load1), correct);
        } finally {
            stop(job);
            try (Connection admin = LocalPg.connect()) {
                Source.dropSlot(admin, SLOT);
            }
            try (Connection c = connect()) {
                LocalPg.exec(c, "DROP TABLE IF EXISTS " + LARGE_TABLE);
            }
            FileUtils.deleteDirectory(dir.toFile());
        }
    }

    private static String column(int i) {
        return String.format(Locale.ROOT, "c%02d", i);
    }

    /**
     * The large INSERT: each text value a slice of hex of 640 kB of random bytes, at an offset that differs per row
     * and column (bytea slices are O(1), unlike text substrings in a multibyte encoding); the random bytes are
     * computed once, in an InitPlan.
     */
    static String insertSql(Options o, long rows) {
        int half = o.width / 2;
        int randomBytes = 40_000 * 16;
        StringBuilder sql = new StringBuilder("INSERT INTO " + LARGE_TABLE + " SELECT g");
        for (int i = 1; i <= o.columns; i++) {
            sql.append(", encode(substring(r.b FROM (1 + (g * 2654435761 + ").append(i * 100_003L).append(") % ")
                    .append(randomBytes - half).append(")::int FOR ").append(half).append("), 'hex')");
        }
        sql.append(" FROM (SELECT decode(string_agg(md5(i::text || random()::text), ''), 'hex') AS b")
                .append(" FROM generate_series(1, 40000) i) r, generate_series(1, ").append(rows).append(") g");
        return sql.toString();
    }

    // ------------------------------------------------------------------------------------------------
    // Many small transactions
    // ------------------------------------------------------------------------------------------------

    private static Result small(Options o, HeapWatch heap) throws Exception {
        long t = System.nanoTime();
        pgbench("-i", "-q", "-s", String.valueOf(o.scale));
        log(String.format(Locale.ROOT, "pgbench -i -s %d in %.1f s", o.scale, (System.nanoTime() - t) / 1e9));
        Path dir = Files.createTempDirectory("walshadow-bench-buffer-small");
        JobClient first = null;
        JobClient second = null;
        try (Sampler sampler = new Sampler(dir.resolve("rocksdb"), dir.resolve("checkpoints"));
             Connection c = connect()) {
            // 1. The job seeds its catalog and checkpoints after its first drained commit, then is cancelled.
            DrainCounter.reset();
            BenchMetrics.clear();
            first = startJob(o, dir, null);
            awaitStreaming(c, first, "UPDATE pgbench_branches SET bbalance = bbalance WHERE bid = 1 AND %d > 0", o);
            // The checkpoint after the one that may have been in progress at the drain: it was triggered after the
            // probe drained, so the restored job does not drain the probes again.
            long streamingAt = newestCheckpoint(dir).map(BufferBenchmark::checkpointId).orElse(0L);
            await("a checkpoint triggered after the first drained commit completes", o,
                    () -> newestCheckpoint(dir).map(BufferBenchmark::checkpointId).orElse(0L) >= streamingAt + 2);
            stop(first);
            first = null;
            Path restoreFrom = newestCheckpoint(dir).orElseThrow();

            // 2. The workload, while the job is down (its slot keeps the WAL).
            long history0 = Long.parseLong(LocalPg.queryString(c, "SELECT count(*) FROM pgbench_history"));
            long lsn0 = LocalPg.currentLsn(c);
            long perClient = (o.transactions + o.clients - 1) / o.clients;
            t = System.nanoTime();
            pgbench("-n", "-c", String.valueOf(o.clients), "-j", String.valueOf(o.clients), "-t",
                    String.valueOf(perClient));
            double workloadSeconds = (System.nanoTime() - t) / 1e9;
            long lsn1 = LocalPg.currentLsn(c);
            long committed = Long.parseLong(LocalPg.queryString(c, "SELECT count(*) FROM pgbench_history")) - history0;
            long expected = committed * PGBENCH_CHANGES;
            log(String.format(Locale.ROOT, "pgbench: %d transactions committed (%d row changes) in %.1f s, %.0f MB of"
                    + " WAL", committed, expected, workloadSeconds, mb(lsn1 - lsn0)));

            // 3. The job restores from its checkpoint and drains the lot.
            DrainCounter.reset();
            BenchMetrics.clear();
            heap.begin();
            ProcStats.reset();
            sampler.reset();
            double load0 = ProcStats.loadAverage();
            long t0 = System.nanoTime();
            long cpu0 = ProcStats.cpuNanos();
            second = startJob(o, dir, restoreFrom);
            JobClient running = second;
            await("the restored job drains " + expected + " changes", o, () -> {
                checkRunning(running);
                return DrainCounter.changes >= expected;
            });
            Thread.sleep(1000); // anything beyond the expected would show now
            long cpu1 = ProcStats.cpuNanos();
            Map<String, Double> taskCpu = taskThreadCpuSeconds();
            double load1 = ProcStats.loadAverage();
            HeapWatch.Peak peak = heap.end();
            long rss = ProcStats.peakAndReset();
            long drained = DrainCounter.changes;
            long commits = DrainCounter.commits;
            double seconds = (DrainCounter.lastNanos - DrainCounter.firstNanos) / 1e9;
            double fromStart = (DrainCounter.lastNanos - t0) / 1e9;
            long bytes = DrainCounter.valueBytes;

            Map<String, Long> want = new LinkedHashMap<>();
            want.put("public.pgbench_accounts UPDATE", committed);
            want.put("public.pgbench_branches UPDATE", committed);
            want.put("public.pgbench_history INSERT", committed);
            want.put("public.pgbench_tellers UPDATE", committed);
            Map<String, Long> got = byTableAndOp();
            boolean correct = got.equals(want) && drained == expected && commits == committed;

            System.out.printf(Locale.ROOT, "%nMany small transactions: pgbench TPC-B-like, scale %d, %d clients, %d"
                            + " transactions, %d row changes, %.0f MB of WAL, caught up from the slot; JVM max heap %d MB%n",
                    o.scale, o.clients, committed, expected, mb(lsn1 - lsn0), Runtime.getRuntime().maxMemory() >> 20);
            System.out.printf(Locale.ROOT, "  first -> last drained row          %8.1f s  %.0f rows/s  %.1f MB/s  %.0f"
                    + " commits/s%n", seconds, drained / seconds, mb(bytes) / seconds, commits / seconds);
            double cpu = (cpu1 - cpu0) / 1e9;
            System.out.printf(Locale.ROOT, "  job start -> last drained row      %8.1f s  %.0f rows/s  (JVM CPU %.1f s: %.1f"
                    + " us a row, start-up included)%n", fromStart, drained / fromStart, cpu, cpu * 1e6 / drained);
            System.out.printf(Locale.ROOT, "  load average (1 min), start / end  %8.1f / %.1f on %d cores%n", load0, load1,
                    Runtime.getRuntime().availableProcessors());
            System.out.printf(Locale.ROOT, "  transaction buffer subtasks        %8d%n", o.bufferParallelism);
            taskCpu.forEach((name, sec) -> System.out.printf(Locale.ROOT, "  task CPU %-40s %6.1f s  %.2f us a row%n",
                    name, sec, sec * 1e6 / drained));
            System.out.printf(Locale.ROOT, "  peak heap                          %8.0f MB (most in use after a GC %.0f MB);"
                    + " peak RSS %.0f MB%n", mb(peak.peak()), mb(peak.afterGc()), mb(rss));
            System.out.printf(Locale.ROOT, "  RocksDB directory on disk, peak    %8.0f MB; buffer's estimate, peak %.1f MB%n",
                    mb(sampler.rocksBytes.get()), mb(sampler.bufferedBytes.get()));
            System.out.printf(Locale.ROOT, "  check: drained %d changes in %d commits %s; PostgreSQL: %d transactions"
                            + " (pgbench_history rows), %d of each -> %s%n", drained, commits, got, committed, committed,
                    correct ? "OK" : "MISMATCH");
            return new Result("many small transactions", commits, drained, bytes, seconds, cpu, peak, rss,
                    sampler.bufferedBytes.get(), sampler.rocksBytes.get(), Math.max(load0, load1), correct);
        } finally {
            stop(first);
            stop(second);
            try (Connection admin = LocalPg.connect()) {
                Source.dropSlot(admin, SLOT);
            }
            FileUtils.deleteDirectory(dir.toFile());
        }
    }

    /**
     * CPU seconds of each Flink task thread of the running job since it started ({@code "name (i/n)#attempt"}, the
     * restored job's own threads): what each subtask costs, to project a machine with more cores.
     */
    private static Map<String, Double> taskThreadCpuSeconds() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Double> out = new java.util.TreeMap<>();
        for (java.lang.management.ThreadInfo ti : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (ti != null && ti.getThreadName().matches(".* \\(\\d+/\\d+\\)#\\d+")
                    && !ti.getThreadName().matches(".*(Trigger|Flusher) for .*")) { // Flink's helper threads
                long ns = mx.getThreadCpuTime(ti.getThreadId());
                String name = ti.getThreadName();
                name = name.length() > 40 ? "…" + name.substring(name.length() - 39) : name;
                out.merge(name, ns / 1e9, Double::sum);
            }
        }
        return out;
    }

    private static Map<String, Long> byTableAndOp() {
        Map<String, Long> m = new java.util.TreeMap<>();
        for (Map.Entry<String, AtomicLongArray> e : DrainCounter.BY_TABLE.entrySet()) {
            AtomicLongArray a = e.getValue();
            for (int i = 0; i < a.length(); i++) {
                if (a.get(i) != 0) {
                    String op = i < io.walshadow.change.RowChange.Op.values().length
                            ? io.walshadow.change.RowChange.Op.values()[i].name() : "TRUNCATE";
                    m.put(e.getKey() + " " + op, a.get(i));
                }
            }
        }
        return m;
    }

    private static void pgbench(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(LocalPg.bin("pgbench").toString(), "-h", LocalPg.host(), "-p",
                String.valueOf(LocalPg.port()), "-U", LocalPg.user()));
        cmd.addAll(List.of(args));
        cmd.add(DB);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PGPASSWORD", LocalPg.password());
        log("$ " + String.join(" ", cmd));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("pgbench failed:\n" + out);
        }
        for (String line : out.split("\n")) {
            if (line.startsWith("tps") || line.startsWith("number of transactions actually")) {
                log("  " + line.trim());
            }
        }
    }

    // ------------------------------------------------------------------------------------------------
    // The job
    // ------------------------------------------------------------------------------------------------

    /**
     * Source, decoder and transaction buffer as the job builds them, then the counting sink; the Flink settings
     * of {@link WalshadowJob#main} (RocksDB, the checkpoint interval, checkpoints retained on cancellation), with
     * the RocksDB and checkpoint directories under {@code dir}, no restarts (a failure fails the benchmark), and
     * the benchmark's metric reporter.
     */
    private static JobClient startJob(Options o, Path dir, Path restoreFrom) throws Exception {
        JobConfig config = JobConfig.from(new String[] {"--pg.host", LocalPg.host(), "--pg.port",
                String.valueOf(LocalPg.port()), "--pg.database", DB, "--pg.user", LocalPg.user(), "--pg.sslmode",
                "disable", "--slot", SLOT, "--checkpoint.interval", o.checkpointInterval, "--snapshot.mode", "never",
                "--xact.buffer.parallelism", String.valueOf(o.bufferParallelism)},
                Map.of(JobConfig.PG_PASSWORD_ENV, LocalPg.password()));
        Configuration flink = new Configuration();
        flink.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        flink.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.checkpointInterval());
        flink.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        flink.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.resolve("checkpoints").toUri().toString());
        flink.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, o.incremental);
        flink.setString("state.backend.rocksdb.localdir", dir.resolve("rocksdb").toString());
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        flink.setString("metrics.reporter.bench.factory.class", BenchMetrics.class.getName());
        if (restoreFrom != null) {
            flink.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom.toUri().toString());
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        env.setParallelism(1);
        WalshadowJob.transactionBuffer(env, config)
                .map(new DrainCounter()).returns(Types.LONG).uid("bench-drain-counter").name("drain counter")
                .setParallelism(1)
                .sinkTo(new DiscardingSink<>()).uid("bench-discard").name("discard").setParallelism(1);
        return env.executeAsync("walshadow transaction buffer benchmark");
    }

    /**
     * Runs {@code probeSql} (formatted with a counter) once a second until the job drains a commit: the slot
     * exists, the catalog is seeded (commits before the seed are skipped) and the pipeline is streaming.
     */
    private static void awaitStreaming(Connection c, JobClient job, String probeSql, Options o) throws Exception {
        long before = DrainCounter.commits;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.min(o.timeoutSeconds, 180));
        for (int i = 1; DrainCounter.commits == before; i++) {
            checkRunning(job);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the job did not drain a probe transaction within 180 s");
            }
            LocalPg.exec(c, String.format(Locale.ROOT, probeSql, i));
            for (int k = 0; k < 10 && DrainCounter.commits == before; k++) {
                Thread.sleep(100);
            }
        }
    }

    private static void checkRunning(JobClient job) {
        try {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get(); // throws with the failure
                throw new IllegalStateException("the job ended");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the job failed: " + e.getCause(), e.getCause());
        }
    }

    /** Cancels the job (its checkpoints stay) and waits until it has ended; null: nothing. */
    private static void stop(JobClient job) throws InterruptedException {
        if (job == null) {
            return;
        }
        try {
            if (!job.getJobStatus().get().isGloballyTerminalState()) {
                job.cancel().get(60, TimeUnit.SECONDS);
            }
            job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | java.util.concurrent.TimeoutException | RuntimeException e) {
            // cancelled (or failed: reported by checkRunning)
        }
    }

    private static void await(String what, Options o, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.timeoutSeconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Directory of the newest completed checkpoint (one with its _metadata) under {@code dir}/checkpoints. */
    private static Optional<Path> newestCheckpoint(Path dir) {
        try (Stream<Path> s = Files.walk(dir.resolve("checkpoints"), 3)) {
            return s.filter(p -> p.getFileName().toString().equals("_metadata")).map(Path::getParent)
                    .max(Comparator.comparingLong(BufferBenchmark::checkpointId));
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty(); // not created yet, or a checkpoint removed during the walk
        }
    }

    private static long checkpointId(Path chk) {
        return Long.parseLong(chk.getFileName().toString().substring("chk-".length()));
    }

    // ------------------------------------------------------------------------------------------------

    private static Connection connect() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", LocalPg.user());
        p.setProperty("password", LocalPg.password());
        return DriverManager.getConnection("jdbc:postgresql://" + LocalPg.host() + ":" + LocalPg.port() + "/" + DB, p);
    }

    private static void dropLeftovers(Connection admin) throws Exception {
        if (LocalPg.queryString(admin, "SELECT 1 FROM pg_replication_slots WHERE slot_name = '" + SLOT + "'") != null) {
            log("dropping slot " + SLOT + " left over by an earlier run");
            Source.dropSlot(admin, SLOT);
        }
        if (LocalPg.queryString(admin, "SELECT 1 FROM pg_database WHERE datname = '" + DB + "'") != null) {
            log("dropping database " + DB + " left over by an earlier run");
            LocalPg.exec(admin, "DROP DATABASE " + DB);
        }
    }

    private static void printSummary(Options o, List<Result> results) {
        System.out.printf(Locale.ROOT, "%nTransaction buffer drain: WAL source -> decoder -> transaction buffer (RocksDB)"
                        + " -> counting sink, MiniCluster, checkpoints every %s (%s); JVM max heap %d MB%n",
                o.checkpointInterval, o.incremental ? "incremental" : "full", Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf(Locale.ROOT, "%-24s %8s %9s %9s | %8s %9s %7s %7s | %9s %8s %8s | %9s %9s | %5s | %s%n",
                "workload", "commits", "rows", "value MB", "drain s", "rows/s", "MB/s", "us/row", "peak heap",
                "after GC", "peak RSS", "buffer est", "RocksDB", "load", "check");
        for (Result r : results) {
            System.out.printf(Locale.ROOT, "%-24s %8d %9d %9.0f | %8.1f %9.0f %7.1f %7.1f | %6.0f MB %5.0f MB %5.0f MB |"
                            + " %6.0f MB %6.0f MB | %5.1f | %s%n", r.workload, r.transactions, r.rows, mb(r.valueBytes),
                    r.drainSeconds, r.rate(), r.mbRate(), r.cpuSeconds * 1e6 / r.rows, mb(r.heap.peak()),
                    mb(r.heap.afterGc()), mb(r.rssPeak), mb(r.bufferEstimate), mb(r.rocksBytes), r.load,
                    r.correct ? "OK" : "MISMATCH");
        }
        System.out.println("(drain s: large: from its first drained row (the commit record starts the drain) to its commit"
                + " marker; small: first to last drained row of the catch-up. value MB: bytes of the drained values as"
                + " decoded (text characters, 8 a bigint, ...). peak heap: most heap in use, from GC notifications (before"
                + " each collection); after GC: most in use right after one (the live set). peak RSS: the whole process."
                + " buffer est: the buffer's buffered_bytes gauge, peak. RocksDB: its directory on disk, peak."
                + " us/row: this JVM's CPU time over the drain a row (small: from the job's start). load: the machine's"
                + " 1-minute load average, the higher of start and end: figures from a loaded machine are low."
                + " check: drained rows equal what PostgreSQL says the workload wrote.)");
    }

    static double mb(long bytes) {
        return bytes / 1048576.0;
    }

    static final class Options {
        String mode = "both";
        long largeMb = 2300;
        int columns = 12;
        int width = 150;
        long transactions = 100_000;
        int clients = 4;
        int scale = 10;
        String checkpointInterval = "10s";
        boolean incremental;
        long timeoutSeconds = 1800;
        boolean keep;
        int bufferParallelism = 1;

        boolean small() {
            return mode.equals("both") || mode.equals("small");
        }

        boolean large() {
            return mode.equals("both") || mode.equals("large");
        }

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--mode" -> o.mode = args[++i];
                    case "--large-mb" -> o.largeMb = Long.parseLong(args[++i]);
                    case "--columns" -> o.columns = Integer.parseInt(args[++i]);
                    case "--width" -> o.width = Integer.parseInt(args[++i]);
                    case "--transactions" -> o.transactions = Long.parseLong(args[++i]);
                    case "--clients" -> o.clients = Integer.parseInt(args[++i]);
                    case "--scale" -> o.scale = Integer.parseInt(args[++i]);
                    case "--checkpoint-interval" -> o.checkpointInterval = args[++i];
                    case "--incremental" -> o.incremental = true;
                    case "--timeout-seconds" -> o.timeoutSeconds = Long.parseLong(args[++i]);
                    case "--keep" -> o.keep = true;
                    case "--buffer-parallelism" -> o.bufferParallelism = Integer.parseInt(args[++i]);
                    default -> throw new IllegalArgumentException("unknown option " + a + " (see the class comment)");
                }
            }
            if (!List.of("both", "large", "small").contains(o.mode)) {
                throw new IllegalArgumentException("--mode is both, large or small, not " + o.mode);
            }
            if (o.width < 2 || o.width % 2 != 0 || o.columns < 1 || o.largeMb < 1 || o.transactions < 1
                    || o.clients < 1 || o.scale < 1) {
                throw new IllegalArgumentException("--width must be even and at least 2; --columns, --large-mb,"
                        + " --transactions, --clients and --scale at least 1");
            }
            // heap tuple header (24) + int8 + per value a 4-byte varlena header: above ~2032 bytes PostgreSQL
            // compresses or moves values out of line (TOAST), and the row's bytes would no longer be in its record
            long tuple = 24 + 8 + (long) o.columns * (o.width + 4);
            if (tuple > 2000) {
                throw new IllegalArgumentException("rows of " + o.columns + " x " + o.width + " characters (" + tuple
                        + " bytes a tuple) would be TOASTed; keep columns x (width + 4) under ~1960");
            }
            return o;
        }
    }
}
