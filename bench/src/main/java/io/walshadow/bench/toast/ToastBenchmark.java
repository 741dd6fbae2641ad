package io.walshadow.bench.toast;

import io.walshadow.bench.buffer.BenchMetrics;
import io.walshadow.bench.buffer.ProcStats;
import io.walshadow.bench.e2e.Contender;
import io.walshadow.bench.e2e.DebeziumContender;
import io.walshadow.bench.e2e.E2eBenchmark;
import io.walshadow.bench.e2e.HeapWatch;
import io.walshadow.bench.e2e.Source;
import io.walshadow.bench.e2e.Tally;
import io.walshadow.bench.e2e.WalshadowContender;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.DestinationSchema;
import io.walshadow.clickhouse.ToastMirror;
import io.walshadow.testing.LocalPg;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * TOAST benchmark: MB/s of out-of-line values replicated end to end (PostgreSQL, our job in a local MiniCluster,
 * ClickHouse, visible in ClickHouse), with peak heap, next to references measured in the same run
 * on the same machine. A program that prints figures, not a test (deploy/bench/toast.sh runs it).
 *
 * <p><b>Workload</b> ({@link DocsWorkload}): {@code docs (id, note, body text pglz, blob bytea)}, {@code --mb} MiB
 * of large values (raw), each {@code --min-kb}..{@code --max-kb} KiB, all out of line. Two phases, each written
 * while our job is stopped and then caught up from its slot (as E2eBenchmark's throughput mode does):
 * <ol>
 *   <li><b>INSERT</b>: the rows, {@code --rows-per-commit} per transaction. Each value arrives with its chunks in the
 *       same transaction: the TOAST stage resolves it from the chunks it buffered (RocksDB state) and the sink
 *       writes both the rows and the chunks (the {@code pg_toast_<oid>} mirror). Counted visible: the rows and the
 *       chunk rows. Once visible, the job runs on until its buffered chunks are pruned ({@code toast_buffered_chunks}
 *       = 0: the mirror is the only place left to find them) and stops with a savepoint.</li>
 *   <li><b>UPDATE note</b>: then every row's {@code note} is updated (the large values unchanged: the new tuples keep
 *       the TOAST pointers) and the job continues from that savepoint into the same ClickHouse database: every value
 *       is fetched from the mirror as of the UPDATE's LSN (the cold path).</li>
 * </ol>
 * Time of a phase: from the job's start (MiniCluster, restore) to the last row visible; MB/s: the phase's rows'
 * large values over that time, raw ({@code octet_length}) and stored ({@code pg_column_size}: pglz-compressed body,
 * uncompressed blob). Checked after each phase, or the run fails: per row, id, note and the length and md5 of body and
 * blob in ClickHouse ({@code FINAL}, live rows; {@code lower(hex(MD5(x)))}) equal PostgreSQL's; the TOAST stage's
 * counters (filled values and fetch misses 0, the INSERT phase's values from buffered chunks, the UPDATE phase's from
 * the mirror). Printed with them: the peak of buffered chunks, the checkpoints' largest full size, the seconds to
 * prune, and a probe timing single-value mirror fetches ({@link ToastMirror#fetchBatchSql} with one value) from here,
 * with the ClickHouse server's CPU per fetch, on the mirror and on a copy of it with a finer index granularity.
 *
 * <p><b>References</b>, same run, same table: {@code COPY (SELECT * FROM docs) TO STDOUT} through pgjdbc's
 * CopyManager into a discarding stream (text, and binary: reading the values back from PostgreSQL, detoasted; the
 * text format writes bytea as hex), and Debezium's embedded connector (as in E2eBenchmark: pgoutput, capture only,
 * its slot created with ours) reading both phases in one capture: the INSERT phase up to its last event, the UPDATE
 * phase from there; for the UPDATE phase it delivers the placeholder {@code __debezium_unavailable_value} for the
 * unchanged values (no {@code REPLICA IDENTITY FULL}), counted. The ratio column is MB/s over COPY text's.
 *
 * <p>Each round recreates the table and both slots and writes both phases (the phases need a fresh slot, seed and
 * table); printed per line, medians over the rounds (each column its own), 2-core machine: noisy, read the ratios.
 *
 * <pre>
 * Options (all optional):
 *   --mb N               MiB of large values, raw (default 256)
 *   --min-kb N           smallest value in KiB (default 16; above ~8 the compressed body may stay inline)
 *   --max-kb N           largest value in KiB (default 256)
 *   --rows-per-commit N  rows per INSERT / UPDATE transaction (default 32)
 *   --rounds N           rounds (default 3)
 *   --no-debezium        skip the Debezium reference
 *   --debezium k=v       a Debezium setting over the benchmark's (max.queue.size.in.bytes=134217728: 8192 queued
 *                        records of ~270 KB do not fit the heap; database.sslmode=disable, as our job) and the
 *                        contender's own (repeatable)
 *   --walshadow k=v      a job setting of ours (JobConfig key without the dashes; repeatable), e.g.
 *                        checkpoint.interval=1s (the contender's default), toast.value.max.bytes=...
 *   --probe N            mirror fetches timed from the benchmark after the UPDATE phase (default 20; 0: none)
 *   --fine-granularity G the probe again on a copy of the mirror with index_granularity G (default 256, what mirrors
 *                        are created with now; 0: not)
 *   --timeout-seconds S  give up on a phase after S seconds (default 900)
 *   --keep               keep the scratch database (walshadow_bench_toast) after the run
 * </pre>
 *
 * <p>The slots are the e2e contenders' ({@code walshadow_bench_e2e_*}): do not run it next to deploy/bench/e2e.sh.
 */
public final class ToastBenchmark {
    private ToastBenchmark() {}

    static void log(String s) {
        E2eBenchmark.log(s);
    }

    /** One timed pass over the payload. Seconds; heap and RSS in bytes; NaN or -1 where not measured. */
    record Measure(double seconds, double toFirst, double jvmCpu, double walsenderCpu, double chCpu, long peakHeap,
                   long afterGc, long rss) {
        static Measure copy(double seconds) {
            return new Measure(seconds, Double.NaN, Double.NaN, Double.NaN, Double.NaN, -1, -1, -1);
        }
    }

    /** What the TOAST stage did over one of our phases. */
    record Stage(Map<String, Long> counters, long bufferedPeak, double pruneSeconds, long checkpoints,
                 long checkpointFullPeak, long checkpointMsPeak, Probe probe) {}

    /**
     * Mirror fetches timed from the benchmark (the job idle): median wall ms and ClickHouse CPU ms per fetch, on the
     * mirror and on a copy of it with a finer index granularity; the mirror's rows and compressed bytes.
     */
    record Probe(double ms, double chCpuMs, double fineMs, double fineChCpuMs, long mirrorRows, long mirrorBytes) {
        static final Probe NONE = new Probe(Double.NaN, Double.NaN, Double.NaN, Double.NaN, -1, -1);
    }

    private static final List<String> COUNTERS = List.of("toast_chunks", "toast_values_resolved_buffered",
            "toast_values_resolved_mirror", "toast_bytes_resolved", "toast_values_filled_default",
            "toast_values_filled_superseded", "toast_values_filled_mismatch", "toast_fetch_miss",
            "toast_chunks_malformed", "toast_values_written_empty", "toast_mirror_fetches");

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        HeapWatch heap = HeapWatch.install();
        try (Connection admin = LocalPg.connect()) {
            log(String.format(Locale.ROOT, "PostgreSQL %s; JVM %s, max heap %d MB (%s), %d cores; %d MiB of values of"
                            + " %d-%d KiB, %d rows per commit, %d rounds%s",
                    LocalPg.queryString(admin, "SHOW server_version"), Runtime.version(),
                    Runtime.getRuntime().maxMemory() >> 20,
                    ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
                            .collect(Collectors.joining(", ")),
                    Runtime.getRuntime().availableProcessors(), o.mb, o.minKb, o.maxKb, o.rowsPerCommit, o.rounds,
                    o.debezium ? ", Debezium too" : ""));
        }
        DocsWorkload w = new DocsWorkload((long) o.mb << 20, o.minKb << 10, o.maxKb << 10, o.rowsPerCommit);
        w.createDatabase();
        WalshadowContender ws = new WalshadowContender(o.walshadow);
        DeliveredValues delivered = new DeliveredValues();
        DebeziumContender dbz = o.debezium ? new DebeziumContender(o.debeziumSettings(), delivered) : null;
        Runs runs = new Runs();
        try {
            for (int r = 1; r <= o.rounds; r++) {
                round(r, o, w, ws, dbz, delivered, heap, runs);
            }
        } finally {
            List<Contender> cs = new ArrayList<>(List.of(ws));
            if (dbz != null) {
                cs.add(dbz);
            }
            for (Contender c : cs) {
                try {
                    c.cleanup();
                } catch (Exception e) {
                    System.err.println("[bench] cleanup of " + c.name() + ": " + e);
                }
            }
            if (!o.keep) {
                w.dropDatabase();
            }
        }
        print(o, ws, dbz, runs);
        System.exit(0); // engines may leave non-daemon threads behind
    }

    /** Everything the rounds measured. */
    static final class Runs {
        final Map<String, List<Measure>> lines = new LinkedHashMap<>();
        final List<Stage> insertStage = new ArrayList<>();
        final List<Stage> updateStage = new ArrayList<>();
        final List<long[]> debeziumValues = new ArrayList<>(); // insert values, bytes, placeholders; update the same
        DocsWorkload.Phase insert;
        DocsWorkload.Phase update;
        long copyTextBytes;
        long copyBinaryBytes;

        void add(String line, Measure m) {
            lines.computeIfAbsent(line, x -> new ArrayList<>()).add(m);
        }
    }

    private static final String WS_INSERT = "walshadow INSERT";
    private static final String WS_UPDATE = "walshadow UPDATE note";
    private static final String DBZ_INSERT = "debezium INSERT";
    private static final String DBZ_UPDATE = "debezium UPDATE note";
    private static final String COPY_TEXT = "COPY text";
    private static final String COPY_BINARY = "COPY binary";

    private static void round(int r, Options o, DocsWorkload w, WalshadowContender ws, DebeziumContender dbz,
                              DeliveredValues delivered, HeapWatch heap, Runs runs) throws Exception {
        log("round " + r);
        Source src = w.source();
        w.recreateTable();
        ws.prepare(src);
        if (dbz != null) {
            dbz.prepare(src);
        }
        DocsWorkload.Phase a = w.insert();
        runs.insert = a;
        try (ClickHouseConnection ch = WalshadowContender.adminConnection()) {
            // ---- INSERT: our job from the seed, until visible, then until its chunks are pruned; suspended
            Tally tally = new Tally(false);
            WalshadowContender.Resume resume;
            Stage sa;
            try (MetricPeaks peaks = new MetricPeaks(); Connection pg = src.connect()) {
                Timer t = new Timer(heap);
                WalshadowContender.Run run = ws.begin(tally, null);
                try {
                    long reached = tally.await(a.rows() + a.payload().chunks(), o.timeoutNanos());
                    Measure m = t.end(reached, tally, pg, ws.slot());
                    runs.add(WS_INSERT, m);
                    long p0 = System.nanoTime();
                    long deadline = p0 + TimeUnit.SECONDS.toNanos(120);
                    while (BenchMetrics.value("toast_buffered_chunks") != 0) {
                        tally.await(0, o.timeoutNanos()); // rethrows the job's failure
                        if (System.nanoTime() > deadline) {
                            throw new IllegalStateException("the TOAST stage still holds "
                                    + BenchMetrics.value("toast_buffered_chunks") + " chunks 120 s after the last row");
                        }
                        Thread.sleep(50);
                    }
                    sa = new Stage(counters(), peaks.peak("toast_buffered_chunks"), (System.nanoTime() - p0) / 1e9,
                            BenchMetrics.value("numberOfCompletedCheckpoints"), peaks.peak("lastCheckpointFullSize"),
                            peaks.peak("lastCheckpointDuration"), Probe.NONE);
                    logLine(r, WS_INSERT, m, a.payload());
                    resume = run.suspend();
                } catch (Exception e) {
                    run.close();
                    throw e;
                }
            }
            int verified = w.verify(ch, resume.database(), "INSERT");
            checkStage("INSERT", sa, a.payload().outOfLine(), true);
            runs.insertStage.add(sa);
            log("  verified " + verified + " rows in ClickHouse; TOAST stage " + sa.counters + ", buffered chunks peak "
                    + sa.bufferedPeak + ", pruned " + fmt(sa.pruneSeconds) + " s after the last row");

            // ---- UPDATE note: written while the job is stopped; the job continues from its savepoint
            DocsWorkload.Phase b = w.update();
            runs.update = b;
            tally = new Tally(false);
            try (MetricPeaks peaks = new MetricPeaks(); Connection pg = src.connect()) {
                Timer t = new Timer(heap);
                WalshadowContender.Run run = ws.begin(tally, resume);
                try {
                    long reached = tally.await(b.rows(), o.timeoutNanos());
                    Measure m = t.end(reached, tally, pg, ws.slot());
                    runs.add(WS_UPDATE, m);
                    Map<String, Long> counters = counters();
                    logLine(r, WS_UPDATE, m, b.payload());
                    verified = w.verify(ch, run.database(), "UPDATE");
                    Probe probe = probe(o, ch, pg, run.database());
                    Stage sb = new Stage(counters, peaks.peak("toast_buffered_chunks"), Double.NaN,
                            BenchMetrics.value("numberOfCompletedCheckpoints"), peaks.peak("lastCheckpointFullSize"),
                            peaks.peak("lastCheckpointDuration"), probe);
                    checkStage("UPDATE", sb, b.payload().outOfLine(), false);
                    runs.updateStage.add(sb);
                    log("  verified " + verified + " rows in ClickHouse; TOAST stage " + sb.counters + "; mirror fetch"
                            + " probe: " + fmt(probe.ms()) + " ms, ClickHouse CPU " + fmt(probe.chCpuMs()) + " ms per"
                            + " fetch; index_granularity " + o.fineGranularity + ": " + fmt(probe.fineMs()) + " ms, "
                            + fmt(probe.fineChCpuMs()) + " ms (mirror " + probe.mirrorRows() + " rows, "
                            + fmt(DocsWorkload.mb(probe.mirrorBytes())) + " MB compressed)");
                } finally {
                    run.close();
                }
            }
        }

        // ---- Debezium: both phases in one capture from its slot
        if (dbz != null) {
            delivered.reset();
            Tally tally = new Tally(false);
            try (Connection pg = src.connect()) {
                Timer t = new Timer(heap);
                var capture = dbz.start(tally);
                try {
                    long reachedA = tally.await(a.rows(), o.timeoutNanos());
                    Measure ma = t.lap(reachedA, tally, pg, dbz.slot());
                    long reachedB = tally.await(a.rows() + runs.update.rows(), o.timeoutNanos());
                    Measure mb = t.end(reachedB, tally, pg, dbz.slot());
                    mb = new Measure((reachedB - reachedA) / 1e9, Double.NaN, mb.jvmCpu, mb.walsenderCpu, mb.chCpu,
                            mb.peakHeap, mb.afterGc, mb.rss);
                    runs.add(DBZ_INSERT, ma);
                    runs.add(DBZ_UPDATE, mb);
                    logLine(r, DBZ_INSERT, ma, a.payload());
                    log(String.format(Locale.ROOT, "round %d %-22s %8.3f s after its INSERT events (placeholders,"
                            + " see below)", r, DBZ_UPDATE, mb.seconds));
                } finally {
                    capture.close();
                }
            }
            DeliveredValues.Counts i = delivered.inserts;
            DeliveredValues.Counts u = delivered.updates;
            long[] v = {i.values.get(), i.bytes.get(), i.placeholders.get(), u.values.get(), u.bytes.get(),
                    u.placeholders.get()};
            runs.debeziumValues.add(v);
            log(String.format(Locale.ROOT, "  debezium delivered: INSERT %d values, %.1f MB, %d placeholders; UPDATE %d"
                    + " values, %.1f MB, %d placeholders (%s)", v[0], DocsWorkload.mb(v[1]), v[2], v[3],
                    DocsWorkload.mb(v[4]), v[5], DocsWorkload.PLACEHOLDER));
            if (v[1] != a.payload().rawBytes()) {
                log("  WARNING: Debezium's INSERT values add up to " + v[1] + " bytes, PostgreSQL says "
                        + a.payload().rawBytes());
            }
        }

        // ---- COPY: the table read back from PostgreSQL
        for (String format : List.of("text", "binary")) {
            DocsWorkload.Copy c = w.copyOut(format);
            String line = format.equals("text") ? COPY_TEXT : COPY_BINARY;
            runs.add(line, Measure.copy(c.seconds()));
            if (format.equals("text")) {
                runs.copyTextBytes = c.bytes();
            } else {
                runs.copyBinaryBytes = c.bytes();
            }
            logLine(r, line, Measure.copy(c.seconds()), runs.update.payload());
        }
        ws.cleanup();
        if (dbz != null) {
            dbz.cleanup();
        }
    }

    /** Times a capture: wall clock, this JVM's and ClickHouse's CPU, peak heap and RSS from its start. */
    private static final class Timer {
        private final HeapWatch heap;
        private long t0;
        private long cpu0;
        private double ch0;

        Timer(HeapWatch heap) throws InterruptedException {
            this.heap = heap;
            heap.begin();
            ProcStats.reset();
            cpu0 = E2eBenchmark.processCpuNanos();
            ch0 = E2eBenchmark.clickHouseCpuSeconds();
            t0 = System.nanoTime();
        }

        /** The figures from the start (or the last lap) to {@code reached}, and starts the next lap from now. */
        Measure lap(long reached, Tally tally, Connection pg, String slot) {
            long cpu = E2eBenchmark.processCpuNanos();
            double ch = E2eBenchmark.clickHouseCpuSeconds();
            double walsender = E2eBenchmark.walsenderCpuSeconds(pg, slot); // since its start: the capture's
            HeapWatch.Peak p = heap.lap();
            Measure m = new Measure((reached - t0) / 1e9, (tally.firstNanos() - t0) / 1e9, (cpu - cpu0) / 1e9,
                    walsender, ch - ch0, p.peak(), p.afterGc(), ProcStats.peakAndReset());
            t0 = reached;
            cpu0 = cpu;
            ch0 = ch;
            return m;
        }

        Measure end(long reached, Tally tally, Connection pg, String slot) throws InterruptedException {
            Measure m = lap(reached, tally, pg, slot);
            HeapWatch.Peak p = heap.end(); // late GC notifications
            return new Measure(m.seconds, m.toFirst, m.jvmCpu, m.walsenderCpu, m.chCpu, Math.max(m.peakHeap, p.peak()),
                    Math.max(m.afterGc, p.afterGc()), m.rss);
        }
    }

    private static Map<String, Long> counters() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String n : COUNTERS) {
            m.put(n, BenchMetrics.value(n));
        }
        return m;
    }

    /** Fills and misses fail the run; so does a phase whose values did not take the path it is meant to measure. */
    private static void checkStage(String phase, Stage s, long values, boolean buffered) {
        List<String> bad = new ArrayList<>();
        for (String n : List.of("toast_values_filled_default", "toast_values_filled_superseded",
                "toast_values_filled_mismatch", "toast_fetch_miss", "toast_chunks_malformed",
                "toast_values_written_empty")) {
            if (s.counters.get(n) != 0) {
                bad.add(n + " = " + s.counters.get(n));
            }
        }
        long fromBuffer = s.counters.get("toast_values_resolved_buffered");
        long fromMirror = s.counters.get("toast_values_resolved_mirror");
        if (buffered ? fromBuffer != values || fromMirror != 0 : fromMirror != values || fromBuffer != 0) {
            bad.add(values + " values expected from " + (buffered ? "buffered chunks" : "the mirror") + ", got "
                    + fromBuffer + " from buffered chunks and " + fromMirror + " from the mirror");
        }
        if (!bad.isEmpty()) {
            throw new IllegalStateException("TOAST stage after the " + phase + " phase: " + String.join("; ", bad));
        }
    }

    /**
     * Times {@code --probe} single mirror fetches, the stage's query for values spread over the table, from here (the
     * job idle), with the ClickHouse server's CPU time over them; then the same on a copy of the mirror with
     * {@code index_granularity = --fine-granularity} (the mirror has the default 8192 rows per granule, ~16 MB of
     * 2 kB chunks, which a fetch of one value reads whole), dropped afterwards.
     */
    private static Probe probe(Options o, ClickHouseConnection ch, Connection pg, String db) throws Exception {
        if (o.probe == 0) {
            return Probe.NONE;
        }
        int rel = Integer.parseInt(LocalPg.queryString(pg, "SELECT reltoastrelid FROM pg_class WHERE oid = '"
                + DocsWorkload.TABLE + "'::regclass"));
        String toast = LocalPg.queryString(pg, "SELECT " + rel + "::regclass::text");
        List<String> all = LocalPg.queryColumn(pg, "SELECT chunk_id FROM (SELECT DISTINCT chunk_id FROM " + toast
                + ") v ORDER BY chunk_id");
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < o.probe && !all.isEmpty(); i++) {
            ids.add(Integer.parseUnsignedInt(all.get((int) ((long) i * all.size() / o.probe))));
        }
        long lsn = LocalPg.currentLsn(pg);
        String mirror = ToastMirror.name(rel);
        double[] coarse = timeFetches(ch, ids, id -> ToastMirror.fetchBatchSql(db, rel, List.of(new ToastMirror.Need(id, lsn))));
        String[] size = ch.queryTsv("SELECT sum(rows), sum(data_compressed_bytes) FROM system.parts WHERE active"
                + " AND database = '" + db + "' AND table = '" + mirror + "'").get(0);
        double[] fine = {Double.NaN, Double.NaN};
        if (o.fineGranularity > 0) {
            String copy = mirror + "_g" + o.fineGranularity;
            String q = DestinationSchema.quote(db) + ".";
            ch.execute("DROP TABLE IF EXISTS " + q + DestinationSchema.quote(copy));
            ch.execute("CREATE TABLE " + q + DestinationSchema.quote(copy) + " AS " + q + DestinationSchema.quote(mirror)
                    + " ENGINE = ReplacingMergeTree(" + DestinationSchema.LSN + ") ORDER BY (blkno, offnum)"
                    + " SETTINGS index_granularity = " + o.fineGranularity);
            ch.execute("INSERT INTO " + q + DestinationSchema.quote(copy) + " SELECT * FROM " + q
                    + DestinationSchema.quote(mirror));
            try {
                fine = timeFetches(ch, ids, id -> ToastMirror.fetchBatchSql(db, rel, List.of(new ToastMirror.Need(id, lsn)))
                        .replace(DestinationSchema.quote(mirror), DestinationSchema.quote(copy)));
            } finally {
                ch.execute("DROP TABLE IF EXISTS " + q + DestinationSchema.quote(copy));
            }
        }
        return new Probe(coarse[0], coarse[1], fine[0], fine[1], Long.parseLong(size[0]), Long.parseLong(size[1]));
    }

    /** Median wall ms per fetch and ClickHouse CPU ms per fetch (over all of them), after one untimed fetch. */
    private static double[] timeFetches(ClickHouseConnection ch, List<Integer> ids,
                                        java.util.function.IntFunction<String> sql) {
        ch.queryTsv(sql.apply(ids.get(0))); // caches, connection
        List<Double> ms = new ArrayList<>();
        double cpu0 = E2eBenchmark.clickHouseCpuSeconds();
        for (int id : ids) {
            long t0 = System.nanoTime();
            java.util.Map<ToastMirror.Need, List<ToastMirror.Chunk>> chunks = ToastMirror.parseBatch(ch.queryTsv(sql.apply(id)));
            ms.add((System.nanoTime() - t0) / 1e6);
            if (chunks.isEmpty()) {
                throw new IllegalStateException("the mirror has no chunks of value " + Integer.toUnsignedString(id));
            }
        }
        double cpu = E2eBenchmark.clickHouseCpuSeconds() - cpu0;
        return new double[] {E2eBenchmark.median(ms, x -> x), 1000 * cpu / ids.size()};
    }

    private static void logLine(int round, String line, Measure m, DocsWorkload.Payload p) {
        log(String.format(Locale.ROOT, "round %d %-22s %8.3f s, %7.1f MB/s raw, %7.1f MB/s stored, JVM CPU %s, CH CPU %s,"
                        + " peak heap %s", round, line, m.seconds, DocsWorkload.mb(p.rawBytes()) / m.seconds,
                DocsWorkload.mb(p.storedBytes()) / m.seconds, num(m.jvmCpu, "%.2f s"), num(m.chCpu, "%.2f s"),
                megabytes(m.peakHeap)));
    }

    // ------------------------------------------------------------------------------------------------

    private static void print(Options o, WalshadowContender ws, DebeziumContender dbz, Runs runs) {
        DocsWorkload.Payload p = runs.insert.payload();
        System.out.printf(Locale.ROOT, "%nTOAST values end to end, caught up from the slot: %s, %d rows, %d large values"
                        + " (%d out of line, %d chunks) of %d-%d KiB (body text pglz, blob bytea random), %.1f MB raw,"
                        + " %.1f MB stored; WAL: INSERT %.1f MB, UPDATE %.1f MB; %s; medians of %d rounds%n",
                DocsWorkload.TABLE, p.rows(), p.values(), p.outOfLine(), p.chunks(), o.minKb, o.maxKb,
                DocsWorkload.mb(p.rawBytes()), DocsWorkload.mb(p.storedBytes()), DocsWorkload.mb(runs.insert.walBytes()),
                DocsWorkload.mb(runs.update.walBytes()), ws.name(), o.rounds);
        System.out.printf(Locale.ROOT, "%-24s %8s %7s %8s %8s %6s | %7s %9s %7s | %9s %8s %8s%n", "phase", "seconds",
                "1st row", "MB/s raw", "MB/s st.", "x COPY", "JVM CPU", "walsender", "CH CPU", "peak heap", "after GC",
                "peak RSS");
        double copy = runs.lines.containsKey(COPY_TEXT) ? median(runs.lines.get(COPY_TEXT), Measure::seconds) : Double.NaN;
        for (Map.Entry<String, List<Measure>> e : runs.lines.entrySet()) {
            List<Measure> ms = e.getValue();
            double s = median(ms, Measure::seconds);
            double raw = DocsWorkload.mb(p.rawBytes());
            double stored = DocsWorkload.mb(p.storedBytes());
            if (e.getKey().equals(DBZ_UPDATE)) { // placeholders instead of the values: what it delivered
                raw = DocsWorkload.mb((long) median(runs.debeziumValues, v -> v[4]));
                stored = Double.NaN;
            }
            System.out.printf(Locale.ROOT, "%-24s %8.3f %7s %8.1f %8s %6s | %7s %9s %7s | %9s %8s %8s%n",
                    label(e.getKey(), dbz), s, num(median(ms, Measure::toFirst), "%.2fs"), raw / s,
                    num(stored / s, "%.1f"), num(Double.isNaN(stored) ? Double.NaN : copy / s, "%.2fx"),
                    num(median(ms, Measure::jvmCpu), "%.2fs"), num(median(ms, Measure::walsenderCpu), "%.2fs"),
                    num(median(ms, Measure::chCpu), "%.2fs"), megabytes(median(ms, m -> m.peakHeap)),
                    megabytes(median(ms, m -> m.afterGc)), megabytes(median(ms, m -> m.rss)));
        }
        System.out.printf(Locale.ROOT, "(seconds: from the start (MiniCluster and restore, engine start) to the last row"
                + " visible in ClickHouse (walshadow: behind _walshadow_visible at its default visibility) or captured"
                + " (debezium, no sink; its UPDATE line from its last INSERT event on); COPY: the whole COPY. MB/s: the large values the phase's"
                + " rows carry, %.1f MB raw (octet_length) / %.1f MB stored (pg_column_size), over seconds (debezium"
                + " UPDATE: the bytes of real values it delivered, raw). x COPY:"
                + " COPY text's seconds over the line's (COPY text streamed %.1f MB, binary %.1f MB). CPU over the line;"
                + " walsender: the slot's server process since the capture started. Peak heap / after GC: HeapWatch,"
                + " from a collected heap; peak RSS: this JVM's (RocksDB's native memory included). Each column its own"
                + " median.)%n", DocsWorkload.mb(p.rawBytes()), DocsWorkload.mb(p.storedBytes()),
                DocsWorkload.mb(runs.copyTextBytes), DocsWorkload.mb(runs.copyBinaryBytes));
        stage("INSERT (chunks of the same transaction, RocksDB state)", runs.insertStage);
        stage("UPDATE note (every value fetched from the ClickHouse mirror)", runs.updateStage);
        if (!runs.updateStage.isEmpty()) {
            Stage s = runs.updateStage.get(0);
            double sec = median(runs.lines.get(WS_UPDATE), Measure::seconds);
            long values = s.counters.get("toast_values_resolved_mirror");
            double chCpu = median(runs.lines.get(WS_UPDATE), Measure::chCpu);
            System.out.printf(Locale.ROOT, "  UPDATE phase: %.1f ms per value fetched (%d values in %.1f s, batched"
                            + " fetches, start-up included), ClickHouse CPU %.1f ms per value. Probe, %d single-value"
                            + " fetches from here (job idle): %.1f ms, ClickHouse CPU %.1f ms per fetch; on a copy of the"
                            + " mirror with index_granularity %d: %.1f ms, CPU %.1f ms. Mirror pg_toast_<oid>: %d"
                            + " rows, %.1f MB compressed%n",
                    1000 * sec / values, values, sec, 1000 * chCpu / values, o.probe,
                    median(runs.updateStage, x -> x.probe.ms()), median(runs.updateStage, x -> x.probe.chCpuMs()),
                    o.fineGranularity, median(runs.updateStage, x -> x.probe.fineMs()),
                    median(runs.updateStage, x -> x.probe.fineChCpuMs()), s.probe.mirrorRows(),
                    DocsWorkload.mb(s.probe.mirrorBytes()));
        }
        if (!runs.debeziumValues.isEmpty()) {
            long[] v = runs.debeziumValues.get(runs.debeziumValues.size() - 1);
            System.out.printf(Locale.ROOT, "%s delivered: INSERT %d values (%.1f MB, %d placeholders); UPDATE note %d"
                            + " values, %d of them the placeholder %s (%.1f MB of real values)%n", dbz.name(), v[0],
                    DocsWorkload.mb(v[1]), v[2], v[3], v[5], DocsWorkload.PLACEHOLDER, DocsWorkload.mb(v[4]));
        }
        System.out.println("Verified after each phase of each round: per row id, note, length and md5 of body and blob"
                + " equal in ClickHouse and PostgreSQL; no value filled, no fetch miss.");
    }

    private static void stage(String phase, List<Stage> ss) {
        if (ss.isEmpty()) {
            return;
        }
        Map<String, Long> c = ss.get(ss.size() - 1).counters;
        System.out.printf(Locale.ROOT, "TOAST stage, %s: %s; buffered chunks peak %.0f%s; checkpoints %.0f, largest"
                        + " full size %.1f MB, longest %.0f ms (medians; counters of the last round)%n", phase,
                c.entrySet().stream().map(e -> e.getKey().replace("toast_", "") + "=" + e.getValue())
                        .collect(Collectors.joining(" ")), median(ss, s -> s.bufferedPeak),
                Double.isNaN(ss.get(0).pruneSeconds) ? "" : String.format(Locale.ROOT, ", pruned %.1f s after the"
                        + " last row was visible", median(ss, Stage::pruneSeconds)), median(ss, s -> s.checkpoints),
                DocsWorkload.mb((long) median(ss, s -> s.checkpointFullPeak)), median(ss, s -> s.checkpointMsPeak));
    }

    private static String label(String line, DebeziumContender dbz) {
        return line.startsWith("debezium") && dbz != null ? dbz.name().replace(".Final", "") + line.substring(8) : line;
    }

    private static <T> double median(List<T> xs, ToDoubleFunction<T> f) {
        return E2eBenchmark.median(xs, f);
    }

    /** {@code v} formatted, or "-" where not measured (NaN, negative). */
    private static String num(double v, String format) {
        return Double.isNaN(v) || v < 0 ? "-" : String.format(Locale.ROOT, format, v);
    }

    private static String megabytes(double bytes) {
        return num(bytes < 0 ? Double.NaN : bytes / 1048576.0, "%.0f MB");
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static final class Options {
        int mb = 256;
        int minKb = 16;
        int maxKb = 256;
        int rowsPerCommit = 32;
        int rounds = 3;
        boolean debezium = true;
        Map<String, String> debeziumOverrides = new LinkedHashMap<>();
        Map<String, String> walshadow = new LinkedHashMap<>();
        int probe = 20;
        int fineGranularity = 256;
        long timeoutSeconds = 900;
        boolean keep;

        long timeoutNanos() {
            return timeoutSeconds * 1_000_000_000L;
        }

        Map<String, String> debeziumSettings() {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("max.queue.size.in.bytes", String.valueOf(128L << 20));
            m.put("database.sslmode", "disable"); // as our job's connection: TLS is not what is measured
            m.putAll(debeziumOverrides);
            return m;
        }

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--mb" -> o.mb = Integer.parseInt(args[++i]);
                    case "--min-kb" -> o.minKb = Integer.parseInt(args[++i]);
                    case "--max-kb" -> o.maxKb = Integer.parseInt(args[++i]);
                    case "--rows-per-commit" -> o.rowsPerCommit = Integer.parseInt(args[++i]);
                    case "--rounds" -> o.rounds = Integer.parseInt(args[++i]);
                    case "--no-debezium" -> o.debezium = false;
                    case "--debezium", "--walshadow" -> {
                        String kv = args[++i];
                        int eq = kv.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException(a + " takes key=value, not " + kv);
                        }
                        (a.equals("--debezium") ? o.debeziumOverrides : o.walshadow).put(kv.substring(0, eq),
                                kv.substring(eq + 1));
                    }
                    case "--probe" -> o.probe = Integer.parseInt(args[++i]);
                    case "--fine-granularity" -> o.fineGranularity = Integer.parseInt(args[++i]);
                    case "--timeout-seconds" -> o.timeoutSeconds = Long.parseLong(args[++i]);
                    case "--keep" -> o.keep = true;
                    default -> throw new IllegalArgumentException("unknown option " + a + " (see the class comment)");
                }
            }
            if (o.mb < 1 || o.minKb < 1 || o.maxKb < o.minKb || o.rowsPerCommit < 1 || o.rounds < 1 || o.probe < 0) {
                throw new IllegalArgumentException("--mb, --min-kb, --rows-per-commit and --rounds must be at least 1,"
                        + " --max-kb at least --min-kb");
            }
            return o;
        }
    }
}
