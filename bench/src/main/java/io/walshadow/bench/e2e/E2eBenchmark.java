package io.walshadow.bench.e2e;

import io.walshadow.testing.LocalPg;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * End-to-end capture benchmark: row changes per second and commit-to-capture latency of each {@link Contender}
 * on the same pgbench workload ({@link PgbenchWorkload}), Debezium's embedded PostgreSQL connector being the
 * reference. A program that prints figures, not a test (deploy/bench/e2e.sh runs it).
 *
 * <p><b>Throughput</b> (default): every contender's slot is created first, then the workload runs once (as fast
 * as it can), then each contender catches up from its own slot in turn, from the slot's start to the workload's
 * last change, while nothing else runs; in alternating order over the rounds (after untimed warm-up captures, which
 * load and JIT-compile each contender's code). Printed per contender, medians over the rounds: row changes captured,
 * seconds (from start-up to the last change), rows/s, the ratio to the reference's rows/s, the seconds to the first
 * change (connect, slot, catalog reads) and the rows/s after it, the CPU time of this JVM and of the slot's
 * walsender process on the server (logical decoding, for a logical slot) and of the ClickHouse server (where a
 * contender with a sink does part of its work; others' load on the shared server shows here too) over the capture,
 * and the peak heap.
 *
 * <p><b>Latency</b> ({@code --latency}): for each contender in turn, per round: slot, live capture, a one-change
 * probe transaction awaited (the contender is streaming), then the workload rate-limited ({@code pgbench -R}) while it
 * captures; the latency of each change is the wall time it was captured at minus its transaction's commit time on
 * the source (Debezium: {@code source.ts_us}); same machine, so the clocks compare. Printed: p50 / p99 / max in ms,
 * medians over the rounds, after untimed warm-up rounds (a cold JVM competing with pgbench for the cores showed
 * several times the latency of the next rounds).
 *
 * <pre>
 * Options (all optional):
 *   --scale N            pgbench -i scale (default 10: 1 M pgbench_accounts rows)
 *   --transactions N     TPC-B-like transactions in all, split over the clients (default 20000; --latency: 10000)
 *   --clients N          pgbench clients (default 4)
 *   --rounds N           measured rounds (default 3)
 *   --warmup N           untimed captures per contender before the rounds (default 2; --latency: 1 live round)
 *   --latency            latency mode instead of throughput
 *   --rate TPS           pgbench -R in latency mode, transactions per second in all (default 500)
 *   --ddl-every MS       latency mode: an ALTER TABLE of pgbench_history every MS milliseconds while pgbench runs
 *                        (ADD COLUMN, then DROP COLUMN of the one added before, and so on); the DDL-heavy run prints
 *                        how many ran and, for walshadow, the catalog shadow's size, descriptor versions and the size of
 *                        the decoder's catalog state at the last checkpoint
 *   --contenders a,b     which contenders, in first-round order (default: all registered: debezium,walshadow)
 *   --debezium k=v       a Debezium connector/engine setting over the contender's own (repeatable)
 *   --walshadow k=v      a job setting of ours (JobConfig key without the dashes; repeatable), e.g.
 *                        checkpoint.interval=2s (the contender's default: the job's, 10 s; 1 s with
 *                        clickhouse.visibility=checkpoint), clickhouse.flush.bytes=4194304
 *   --timeout-seconds S  give up on a capture after S seconds (default 600)
 *   --keep               keep the scratch database (walshadow_bench_e2e) after the run
 * </pre>
 */
public final class E2eBenchmark {
    /** Registered contenders by id; {@link #REFERENCE} is the one the ratios are relative to. */
    static final Map<String, Function<Options, Contender>> CONTENDERS = new LinkedHashMap<>();
    static final String REFERENCE = DebeziumContender.ID;

    static {
        CONTENDERS.put(DebeziumContender.ID, o -> new DebeziumContender(o.debezium));
        CONTENDERS.put(WalshadowContender.ID, o -> new WalshadowContender(o.walshadow));
    }

    private E2eBenchmark() {}

    public static void log(String s) {
        System.out.println("[bench] " + s);
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        HeapWatch heap = HeapWatch.install();
        Map<String, Contender> contenders = new LinkedHashMap<>();
        for (String id : o.contenders) {
            contenders.put(id, CONTENDERS.get(id).apply(o));
        }
        try (Connection admin = LocalPg.connect()) {
            log(String.format(Locale.ROOT, "PostgreSQL %s; JVM %s, max heap %d MB, %d cores; contenders %s",
                    LocalPg.queryString(admin, "SHOW server_version"), Runtime.version(),
                    Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors(), o.contenders));
        }
        PgbenchWorkload w = PgbenchWorkload.create(o.scale);
        try {
            if (o.latency) {
                latency(o, w, contenders, heap);
            } else {
                throughput(o, w, contenders, heap);
            }
        } finally {
            for (Contender c : contenders.values()) {
                try {
                    c.cleanup();
                } catch (Exception e) {
                    System.err.println("[bench] cleanup of " + c.name() + ": " + e);
                }
            }
            if (o.keep) {
                w.close();
            } else {
                w.drop();
            }
        }
        System.exit(0); // engines may leave non-daemon threads behind
    }

    // ------------------------------------------------------------------------------------------------
    // Throughput
    // ------------------------------------------------------------------------------------------------

    /** One catch-up capture. Times in seconds, heap in bytes; NaN where not measured. */
    record Capture(long changes, double seconds, double toFirst, double jvmCpu, double walsenderCpu,
                   double clickHouseCpu, long peakHeap, long afterGc) {
        double rate() {
            return changes / seconds;
        }

        double steadyRate() {
            return changes / (seconds - toFirst);
        }
    }

    private static void throughput(Options o, PgbenchWorkload w, Map<String, Contender> cs, HeapWatch heap)
            throws Exception {
        Source src = w.source();
        Map<String, String> slotAt = new LinkedHashMap<>();
        for (Map.Entry<String, Contender> e : cs.entrySet()) {
            e.getValue().prepare(src);
            slotAt.put(e.getKey(), slotPosition(src, e.getValue().slot()));
        }
        PgbenchWorkload.Run run = w.run(o.transactions(), o.clients, 0);
        long expected = run.changes();

        for (int i = 0; i < o.warmup(); i++) {
            for (Map.Entry<String, Contender> e : cs.entrySet()) {
                Capture c = capture(e.getValue(), src, slotAt.get(e.getKey()), expected, heap, o);
                log(String.format(Locale.ROOT, "warm-up %d %-24s %.3f s, %.0f rows/s", i + 1, e.getValue().name(),
                        c.seconds, c.rate()));
            }
        }
        Map<String, List<Capture>> results = new LinkedHashMap<>();
        for (int r = 0; r < o.rounds; r++) {
            List<String> order = new ArrayList<>(cs.keySet());
            if (r % 2 == 1) {
                Collections.reverse(order);
            }
            for (String id : order) {
                Contender k = cs.get(id);
                Capture c = capture(k, src, slotAt.get(id), expected, heap, o);
                results.computeIfAbsent(id, x -> new ArrayList<>()).add(c);
                log(String.format(Locale.ROOT, "round %d %-24s %.3f s, %.0f rows/s (first change after %.3f s),"
                        + " JVM CPU %.2f s, walsender CPU %.2f s, ClickHouse CPU %.2f s, peak heap %.0f MB", r + 1,
                        k.name(), c.seconds, c.rate(), c.toFirst, c.jvmCpu, c.walsenderCpu, c.clickHouseCpu,
                        mb(c.peakHeap)));
            }
        }

        System.out.printf(Locale.ROOT, "%nEnd-to-end capture, catch-up from each contender's slot: pgbench TPC-B-like,"
                        + " scale %d, %d clients, %d transactions, %d row changes, %.1f MB of WAL; medians of %d rounds%n",
                o.scale, o.clients, run.transactions(), expected, mb(run.walBytes()), o.rounds);
        System.out.printf(Locale.ROOT, "%-24s %9s %8s %9s %6s | %8s %9s | %7s %9s %7s | %9s %8s%n", "contender",
                "changes", "seconds", "rows/s", "ratio", "1st chg", "rows/s", "JVM CPU", "walsender", "CH CPU",
                "peak heap", "after GC");
        Capture ref = results.containsKey(REFERENCE) ? median(results.get(REFERENCE)) : null;
        for (Map.Entry<String, List<Capture>> e : results.entrySet()) {
            Capture m = median(e.getValue());
            System.out.printf(Locale.ROOT, "%-24s %9d %8.3f %9.0f %5.2fx | %7.3fs %9.0f | %6.2fs %8.2fs %6.2fs | %6.0f MB"
                            + " %5.0f MB%n", cs.get(e.getKey()).name(), m.changes, m.seconds, m.rate(),
                    ref == null ? Double.NaN : m.rate() / ref.rate(), m.toFirst, m.steadyRate(), m.jvmCpu,
                    m.walsenderCpu, m.clickHouseCpu, mb(m.peakHeap), mb(m.afterGc));
        }
        System.out.println("(seconds: from the contender's start to its last change; rows/s: changes / seconds; ratio: to "
                + REFERENCE + "'s rows/s. 1st chg: seconds from the start to the first change (connect, slot, catalog);"
                + " rows/s after it. CPU: this JVM's, the slot's walsender process's and the ClickHouse server's CPU"
                + " time over the capture (" + WalshadowContender.ID + ": \"captured\" = visible in ClickHouse, behind"
                + " _walshadow_visible, or the committed watermark with clickhouse.visibility=checkpoint; the reference"
                + " captures without a sink)."
                + " Peak heap: most heap in use during the capture, which starts from a collected heap; after GC: the most"
                + " in use right after a collection. Each column is its own median.)");
        if (ref != null && results.containsKey(WalshadowContender.ID)) {
            double ratio = median(results.get(WalshadowContender.ID)).rate() / ref.rate();
            System.out.printf(Locale.ROOT, "%s: %.2fx %s's rows/s, target >= 2x: %s%n",
                    cs.get(WalshadowContender.ID).name(), ratio, REFERENCE, ratio >= 2 ? "met" : "NOT met");
        }
    }

    private static Capture capture(Contender k, Source src, String slotAt, long expected, HeapWatch heap, Options o)
            throws Exception {
        try (Connection pg = src.connect()) {
            heap.begin();
            Tally tally = new Tally(false);
            long cpu0 = processCpuNanos();
            double ch0 = clickHouseCpuSeconds();
            long t0 = System.nanoTime();
            Contender.Capture running = k.start(tally);
            long reached;
            long cpu1;
            double ch1;
            double walsender;
            HeapWatch.Peak peak;
            try {
                reached = tally.await(expected, o.timeoutNanos());
                cpu1 = processCpuNanos();
                ch1 = clickHouseCpuSeconds();
                peak = heap.end();
                walsender = walsenderCpuSeconds(pg, k.slot()); // before close: the walsender ends with the capture
            } finally {
                running.close();
            }
            if (tally.changes() != expected) {
                log("WARNING: " + k.name() + " captured " + tally.changes() + " changes, the workload wrote " + expected);
            }
            String now = slotPosition(src, k.slot());
            if (!now.equals(slotAt)) {
                throw new IllegalStateException(k.name() + " moved its slot " + k.slot() + " from " + slotAt + " to " + now
                        + ": later rounds would not re-read the workload");
            }
            return new Capture(expected, (reached - t0) / 1e9, (tally.firstNanos() - t0) / 1e9, (cpu1 - cpu0) / 1e9,
                    walsender, ch1 - ch0, peak.peak(), peak.afterGc());
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Latency
    // ------------------------------------------------------------------------------------------------

    /** One live capture's latencies in microseconds. */
    record Latency(long changes, double p50, double p99, double max, double toProbe, long peakHeap) {}

    private static void latency(Options o, PgbenchWorkload w, Map<String, Contender> cs, HeapWatch heap) throws Exception {
        Map<String, List<Latency>> results = new LinkedHashMap<>();
        long transactions = 0;
        int ddls = 0;
        long catalogTuples = -1;
        long catalogVersions = -1;
        long catalogStateBytes = -1;
        long catalogStateWriteMs = -1;
        for (int r = -o.warmup(); r < o.rounds; r++) { // r < 0: warm-up
            List<String> order = new ArrayList<>(cs.keySet());
            if (Math.floorMod(r, 2) == 1) {
                Collections.reverse(order);
            }
            for (String id : order) {
                Contender k = cs.get(id);
                k.prepare(w.source());
                Latency l;
                try {
                    heap.begin();
                    Tally tally = new Tally(true);
                    long t0 = System.nanoTime();
                    Contender.Capture running = k.start(tally);
                    PgbenchWorkload.Run run;
                    long probeAt;
                    HeapWatch.Peak peak;
                    try {
                        int probe = w.probe();
                        probeAt = tally.await(probe, o.timeoutNanos());
                        tally.resetLatencies();
                        try (DdlLoad ddl = o.ddlEveryMs > 0 ? new DdlLoad(w.source(), o.ddlEveryMs) : null) {
                            run = w.run(o.transactions(), o.clients, o.rate);
                            if (ddl != null) {
                                ddls = ddl.stop();
                            }
                        }
                        tally.await(probe + run.changes(), o.timeoutNanos());
                        peak = heap.end();
                        if (o.ddlEveryMs > 0 && k instanceof WalshadowContender) { // while the job still runs
                            catalogTuples = io.walshadow.bench.buffer.BenchMetrics.value("catalog_shadow_tuples");
                            catalogVersions = io.walshadow.bench.buffer.BenchMetrics.value("catalog_versions_created");
                            // as written at the last checkpoint (the decoder's catalog state is written whole)
                            catalogStateBytes = io.walshadow.bench.buffer.BenchMetrics.value("catalog_state_bytes");
                            catalogStateWriteMs = io.walshadow.bench.buffer.BenchMetrics.value("catalog_state_write_ms");
                        }
                    } finally {
                        running.close();
                    }
                    transactions = run.transactions();
                    long[] v = tally.sortedLatencies();
                    if (v.length != run.changes()) {
                        log("WARNING: " + k.name() + " reported " + v.length + " latencies for " + run.changes() + " changes");
                    }
                    l = new Latency(v.length, Tally.percentile(v, 50), Tally.percentile(v, 99), v[v.length - 1],
                            (probeAt - t0) / 1e9, peak.peak());
                } finally {
                    k.cleanup();
                }
                if (r >= 0) {
                    results.computeIfAbsent(id, x -> new ArrayList<>()).add(l);
                }
                log(String.format(Locale.ROOT, "%s %-24s %d changes: p50 %.1f ms, p99 %.1f ms, max %.1f ms"
                                + " (streaming %.2f s after start), peak heap %.0f MB",
                        r < 0 ? "warm-up " + (r + o.warmup() + 1) : "round " + (r + 1), k.name(), l.changes,
                        l.p50 / 1e3, l.p99 / 1e3, l.max / 1e3, l.toProbe, mb(l.peakHeap)));
            }
        }
        System.out.printf(Locale.ROOT, "%nCommit-to-capture latency, live: pgbench TPC-B-like at %.0f tps (-R), scale %d,"
                + " %d clients, %d transactions per round; medians of %d rounds%n", o.rate, o.scale, o.clients,
                transactions, o.rounds);
        System.out.printf(Locale.ROOT, "%-24s %9s %9s %9s %9s | %9s%n", "contender", "changes", "p50 ms", "p99 ms",
                "max ms", "peak heap");
        for (Map.Entry<String, List<Latency>> e : results.entrySet()) {
            List<Latency> ls = e.getValue();
            System.out.printf(Locale.ROOT, "%-24s %9d %9.1f %9.1f %9.1f | %6.0f MB%n", cs.get(e.getKey()).name(),
                    ls.get(0).changes, median(ls, Latency::p50) / 1e3, median(ls, Latency::p99) / 1e3,
                    median(ls, Latency::max) / 1e3, mb((long) median(ls, x -> x.peakHeap)));
        }
        if (o.ddlEveryMs > 0) {
            System.out.printf(Locale.ROOT, "DDL-heavy: an ALTER TABLE pgbench_history every %d ms while pgbench ran (%d in"
                    + " the last round); walshadow's catalog shadow at its end: %d catalog tuples, %d descriptor versions"
                    + " created; catalog state at the last checkpoint %.2f MB, written in %d ms%n", o.ddlEveryMs, ddls,
                    catalogTuples, catalogVersions, catalogStateBytes / 1e6, catalogStateWriteMs);
        }
        System.out.println("(latency of a change: the wall time the contender captured it at minus its transaction's commit"
                + " time on the source; PostgreSQL and the benchmark share this machine's clock. Each column is its own"
                + " median over the rounds. " + WalshadowContender.ID + ": captured = seen visible in ClickHouse by a reader"
                + " polling _walshadow_visible (with clickhouse.visibility=checkpoint: the committed watermark) every "
                + WalshadowContender.POLL_MS + " ms; with checkpoint visibility a change becomes visible after the"
                + " checkpoint that follows it, so the interval is part of its latency.)");
        for (Contender k : cs.values()) {
            if (k instanceof WalshadowContender ws && results.containsKey(WalshadowContender.ID)) {
                double p99 = median(results.get(WalshadowContender.ID), Latency::p99) / 1e3;
                if (ws.visibleAtCommit()) {
                    System.out.printf(Locale.ROOT, "%s (clickhouse.visibility=commit): p99 %.1f ms, target <= 250 ms:"
                            + " %s%n", k.name(), p99, p99 <= 250 ? "met" : "NOT met");
                    continue;
                }
                long bound = ws.checkpointInterval().toMillis() + 1000;
                System.out.printf(Locale.ROOT, "%s: p99 %.1f ms, target <= checkpoint interval + 1 s = %d ms: %s%n",
                        k.name(), p99, bound, p99 <= bound ? "met" : "NOT met");
            }
        }
    }

    // ------------------------------------------------------------------------------------------------

    /** The slot's restart and confirmed flush LSNs, as text. */
    private static String slotPosition(Source src, String slot) throws SQLException {
        try (Connection c = src.connect()) {
            String p = Source.query(c, "SELECT restart_lsn::text || ' / ' || coalesce(confirmed_flush_lsn::text, '-')"
                    + " FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
            if (p == null) {
                throw new IllegalStateException("slot " + slot + " does not exist");
            }
            return p;
        }
    }

    private static long clockTicks = -1;

    /**
     * CPU time (user + system) of the walsender process that holds the slot, from /proc (the server runs on this
     * machine); NaN when it cannot be read. The walsender lives as long as the capture's replication connection, so
     * this is its CPU over the capture.
     */
    public static double walsenderCpuSeconds(Connection pg, String slot) {
        try {
            String pid = Source.query(pg, "SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
            if (pid == null) {
                return Double.NaN;
            }
            return procCpuSeconds(pid);
        } catch (SQLException | IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /**
     * CPU time of the local ClickHouse server ({@code deploy/local/stack.sh} writes its pid file) from /proc; NaN
     * when it cannot be read.
     */
    public static double clickHouseCpuSeconds() {
        try {
            String pid = Files.readString(Path.of(LocalPg.stateDir(), "ch", "clickhouse-server.pid")).trim();
            return procCpuSeconds(pid);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** utime + stime of a process, in seconds. */
    private static double procCpuSeconds(String pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", pid, "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // after "pid (comm) "; f[0] is field 3
        if (clockTicks < 0) {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").start();
            clockTicks = Long.parseLong(new String(p.getInputStream().readAllBytes()).trim());
        }
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) clockTicks; // utime, stime
    }

    public static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Each field the median of its own over the rounds. */
    private static Capture median(List<Capture> cs) {
        return new Capture(cs.get(0).changes, median(cs, Capture::seconds), median(cs, Capture::toFirst),
                median(cs, Capture::jvmCpu), median(cs, Capture::walsenderCpu), median(cs, Capture::clickHouseCpu),
                (long) median(cs, c -> c.peakHeap), (long) median(cs, c -> c.afterGc));
    }

    /** The median of {@code f} over {@code xs} (the mean of the middle two for an even count). */
    public static <T> double median(List<T> xs, ToDoubleFunction<T> f) {
        double[] v = xs.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static double mb(long bytes) {
        return bytes / 1048576.0;
    }

    static final class Options {
        int scale = 10;
        Long transactions;
        int clients = 4;
        int rounds = 3;
        Integer warmup;
        boolean latency;
        int ddlEveryMs;
        double rate = 500;
        List<String> contenders = new ArrayList<>(CONTENDERS.keySet());
        Map<String, String> debezium = new LinkedHashMap<>();
        Map<String, String> walshadow = new LinkedHashMap<>();
        long timeoutSeconds = 600;
        boolean keep;

        long transactions() {
            return transactions != null ? transactions : latency ? 10_000 : 20_000;
        }

        int warmup() {
            return warmup != null ? warmup : latency ? 1 : 2;
        }

        long timeoutNanos() {
            return timeoutSeconds * 1_000_000_000L;
        }

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--scale" -> o.scale = Integer.parseInt(args[++i]);
                    case "--transactions" -> o.transactions = Long.parseLong(args[++i]);
                    case "--clients" -> o.clients = Integer.parseInt(args[++i]);
                    case "--rounds" -> o.rounds = Integer.parseInt(args[++i]);
                    case "--warmup" -> o.warmup = Integer.parseInt(args[++i]);
                    case "--latency" -> o.latency = true;
                    case "--ddl-every" -> o.ddlEveryMs = Integer.parseInt(args[++i]);
                    case "--rate" -> o.rate = Double.parseDouble(args[++i]);
                    case "--contenders" -> o.contenders = List.of(args[++i].split(","));
                    case "--debezium", "--walshadow" -> {
                        String kv = args[++i];
                        int eq = kv.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException(a + " takes key=value, not " + kv);
                        }
                        (a.equals("--debezium") ? o.debezium : o.walshadow).put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                    case "--timeout-seconds" -> o.timeoutSeconds = Long.parseLong(args[++i]);
                    case "--keep" -> o.keep = true;
                    default -> throw new IllegalArgumentException("unknown option " + a + " (see the class comment)");
                }
            }
            for (String c : o.contenders) {
                if (!CONTENDERS.containsKey(c)) {
                    throw new IllegalArgumentException("unknown contender " + c + "; registered: " + CONTENDERS.keySet());
                }
            }
            if (o.rounds < 1 || o.scale < 1 || o.clients < 1 || o.transactions() < 1 || o.contenders.isEmpty()) {
                throw new IllegalArgumentException("--rounds, --scale, --clients and --transactions must be at least 1");
            }
            if (o.latency && o.rate <= 0) {
                throw new IllegalArgumentException("--latency needs a --rate above 0");
            }
            return o;
        }
    }
}
