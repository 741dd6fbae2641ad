package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.buffer.TestMetricReporter;
import io.walshadow.job.LocalEndpoints;
import io.walshadow.job.StatusLineReporter;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import io.walshadow.wal.Lsn;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;

/**
 * What an operator watching a job run from a plain JVM sees ({@link LocalEndpoints}): Flink's web dashboard, opened
 * in a real headless Chromium (Debian's {@code chromium}), shows the job RUNNING with its operators; a real
 * Prometheus (Debian's {@code prometheus}) scrapes the job's endpoint, and PromQL answers the WAL lag and the rows
 * per second with values that move while a workload runs, the rows per table and operation PostgreSQL changed, and
 * the commit-to-visible latency's quantiles. {@code deploy/local/test.sh} installs both programs.
 */
class ObservabilityEndToEndIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void theDashboardShowsTheJobRunningWithItsOperators() throws Exception {
        Path chromium = Path.of("/usr/bin/chromium");
        assertTrue(Files.isExecutable(chromium), "Debian's chromium is installed (deploy/local/stack.sh test-tools)");
        try (E2e e = new E2e("e2e_dash"); CapturedLog console = new CapturedLog("io.walshadow.job.status")) {
            LocalPg.exec(e.pg, "CREATE TABLE " + e.schema + ".t (id int PRIMARY KEY, v text)",
                    // rows before the start: the initial snapshot copies them, a few pages a chunk
                    "CREATE TABLE " + e.schema + ".c (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + e.schema + ".c SELECT g, repeat('c', 200) FROM generate_series(1, 3000) g");
            int port = freePort();
            int metricsPort = freePort();
            new LocalEndpoints(port, metricsPort).applyTo(e.flink);
            StatusLineReporter.applyTo(e.flink, Duration.ofSeconds(1));
            // the copy's second chunk of c is held: the copy runs, with a rate from its first chunk
            java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.Semaphore release = new java.util.concurrent.Semaphore(0);
            java.util.concurrent.atomic.AtomicInteger chunksOfC = new java.util.concurrent.atomic.AtomicInteger();
            JobClient job;
            io.walshadow.clickhouse.Faults.install(point -> {
                if (point.equals("snapshot.chunk.read " + e.schema + ".c") && chunksOfC.incrementAndGet() == 2) {
                    held.countDown();
                    release.acquireUninterruptibly();
                }
            });
            try {
                job = e.start(e.config("--snapshot.parallelism", "1", "--snapshot.chunk.pages", "8"), null, 0);
                assertTrue(held.await(3, TimeUnit.MINUTES), "the copy reaches the second chunk of c");
                copyLineIsTheSnapshotsProgress(console);
            } finally {
                io.walshadow.clickhouse.Faults.install(null);
                release.release(100);
            }
            e.awaitCaughtUp(Duration.ofMinutes(2));
            LocalPg.exec(e.pg, "INSERT INTO " + e.schema + ".t SELECT g, 'v' FROM generate_series(1, 100) g");
            e.awaitCaughtUp(Duration.ofMinutes(2));
            lineIsTheJobsLagAndWatermark(e, console);
            lagIsZeroOnceEverythingIsHandedOn(e);
            String status = status(e, port, metricsPort);
            // deploy/local/status.sh: the job, its slot, its rates and its watermark, as a person asks for them
            assertTrue(status.contains(": RUNNING for "), status);
            assertTrue(status.contains("slot       " + e.slot + ": active"), status);
            assertTrue(status.matches("(?s).*WAL lag \\d+ bytes.*rows/s into ClickHouse.*"), status);
            String watermark = Lsn.format(e.committedLsn());
            assertTrue(status.contains("checkpointed up to " + watermark), "watermark " + watermark + " in:\n" + status);
            String visible = Lsn.format(visibleLsn(e));
            assertTrue(status.contains("visible up to " + visible), "visible " + visible + " in:\n" + status);
            String page = "http://127.0.0.1:" + port + "/#/job/running/" + job.getJobID() + "/overview";
            Path shot = Path.of("target", "dashboard-" + e.schema + ".png").toAbsolutePath();
            Files.createDirectories(shot.getParent());
            Path profile = Files.createTempDirectory("walshadow-chromium").resolve("profile");
            String dom = "";
            // the page is an Angular app that asks the REST API after it loads: a few tries, each with more time
            for (int attempt = 1; attempt <= 3 && !(dom.contains("RUNNING") && dom.contains("ClickHouse sink")); attempt++) {
                dom = chromium(chromium, profile, attempt * 8000, "--dump-dom", page);
            }
            chromium(chromium, profile, 12000, "--screenshot=" + shot, "--window-size=1600,1000", page);
            assertTrue(dom.contains("RUNNING"), "the dashboard shows the job RUNNING:\n" + tail(dom));
            for (String operator : List.of("WAL source", "decoder", "transaction buffer", "TOAST", "ClickHouse sink")) {
                assertTrue(dom.contains(operator), "the dashboard names operator '" + operator + "'");
            }
            assertTrue(Files.size(shot) > 10_000, "a screenshot of the dashboard kept at " + shot);
        }
    }

    @Test
    void prometheusScrapesTheLagAndTheRowsPerSecondWhileAWorkloadRuns() throws Exception {
        Path prometheus = Path.of("/usr/bin/prometheus");
        assertTrue(Files.isExecutable(prometheus), "Debian's prometheus is installed (deploy/local/stack.sh test-tools)");
        try (E2e e = new E2e("e2e_prom"); CapturedLog console = new CapturedLog("io.walshadow.job.status")) {
            LocalPg.exec(e.pg, "CREATE TABLE " + e.schema + ".t (id serial PRIMARY KEY, v text)",
                    // rows before the start: the initial snapshot copies them (op copy)
                    "CREATE TABLE " + e.schema + ".s (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + e.schema + ".s SELECT g, 's' FROM generate_series(1, 37) g");
            long copied = Long.parseLong(LocalPg.queryString(e.pg, "SELECT count(*) FROM " + e.schema + ".s"));
            // the rows each statement of the workload changed, as PostgreSQL reports them
            java.util.Map<String, Long> changed = new java.util.TreeMap<>(java.util.Map.of("insert", 0L, "update", 0L,
                    "delete", 0L));
            int metricsPort = freePort();
            new LocalEndpoints(0, metricsPort).applyTo(e.flink);
            StatusLineReporter.applyTo(e.flink, Duration.ofSeconds(1));
            e.start();
            String exposed = get("http://127.0.0.1:" + metricsPort + "/metrics");
            // kept for a person reading what the job exports (docs/operations.md lists them)
            Files.writeString(Files.createDirectories(Path.of("target")).resolve("metrics-" + e.schema + ".txt"), exposed);
            metricNamesCarryTheirUnits(exposed);
            String lag = metricName(exposed, "wal_lag_bytes");
            String received = metricName(exposed, "wal_received_lsn");
            String rows = metricName(exposed, "rows_staged_per_second");
            int promPort = freePort();
            Path dir = Files.createTempDirectory("walshadow-prometheus");
            // the shipped scrape configuration, pointed at this job's port and scraping every second
            String shipped = Files.readString(repo().resolve("deploy/observability/prometheus.yml"));
            assertTrue(shipped.contains("127.0.0.1:9249") && shipped.contains("scrape_interval: 5s"), shipped);
            Files.writeString(dir.resolve("prometheus.yml"), shipped.replace("127.0.0.1:9249", "127.0.0.1:" + metricsPort)
                    .replace("scrape_interval: 5s", "scrape_interval: 1s"));
            Process prom = new ProcessBuilder(prometheus.toString(), "--config.file=" + dir.resolve("prometheus.yml"),
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + promPort)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
            try {
                String api = "http://127.0.0.1:" + promPort;
                FlinkTestJobs.awaitTrue(() -> "Prometheus scrapes the job (" + api + ")", Duration.ofSeconds(60),
                        () -> {
                            try {
                                return !query(api, "up{job=\"walshadow\"} == 1").isEmpty();
                            } catch (IOException | AssertionError notYet) {
                                return false; // Prometheus not listening yet
                            } catch (InterruptedException x) {
                                Thread.currentThread().interrupt();
                                return false;
                            }
                        });
                double receivedBefore = max(query(api, received));
                List<Double> lags = new ArrayList<>();
                double rowsPerSecond = 0;
                long until = System.currentTimeMillis() + 20_000;
                int i = 0;
                while (System.currentTimeMillis() < until || rowsPerSecond == 0) {
                    assertTrue(System.currentTimeMillis() < until + 60_000, "rows/s seen above 0 within 80 s");
                    changed.merge("insert", update(e, "INSERT INTO " + e.schema + ".t (v) SELECT repeat('x', 100)"
                            + " FROM generate_series(1, 200)"), Long::sum);
                    changed.merge("update", update(e, "UPDATE " + e.schema + ".t SET v = v || 'u' WHERE id % 50 = "
                            + (i % 50)), Long::sum);
                    changed.merge("delete", update(e, "DELETE FROM " + e.schema + ".t WHERE id % 97 = " + (i % 97)),
                            Long::sum);
                    if (++i % 5 == 0) {
                        lags.addAll(query(api, lag));
                        rowsPerSecond = Math.max(rowsPerSecond, max(query(api, "sum(" + rows + ")")));
                    }
                    Thread.sleep(200);
                }
                double receivedAfter = max(query(api, received));
                assertTrue(!lags.isEmpty() && lags.stream().allMatch(v -> v >= 0), "PromQL answers the WAL lag: " + lags);
                assertTrue(rowsPerSecond > 0, "PromQL answers rows/s above 0 while rows are written: " + rowsPerSecond);
                // the console's status line says so too
                assertTrue(console.lines().stream().map(STREAM::matcher).anyMatch(m -> m.matches()
                        && Double.parseDouble(m.group(2)) > 0), "a status line with rows/s above 0: " + console.lines());
                assertTrue(receivedAfter > receivedBefore, "the received LSN moves: " + receivedBefore + " -> "
                        + receivedAfter);
                e.awaitCaughtUp(Duration.ofMinutes(2));
                String table = e.schema + ".t";
                changed.forEach((op, n) -> assertTrue(n > 0, "the workload's " + op + "s changed rows: " + changed));
                String exposition = rowsPerTableAndOpAreWhatPostgresChanged(api, metricsPort, table, changed,
                        e.schema + ".s", copied);
                commitToVisibleQuantilesArePlausible(api, exposition);
                retainedWalIsWhatTheServerKeeps(e);
                dashboardQueriesNameExportedMetrics(api, get("http://127.0.0.1:" + metricsPort + "/metrics"));
            } finally {
                prom.destroy();
                if (!prom.waitFor(10, TimeUnit.SECONDS)) {
                    prom.destroyForcibly();
                }
            }
        }
    }

    /**
     * Caught up and idle, the slot's retained WAL the job reports is what PostgreSQL says the slot holds back (its
     * current position minus the slot's restart_lsn), within the WAL the server writes between the two reads (the
     * dashboard's query of it is checked against the endpoint with the others).
     */
    private static void retainedWalIsWhatTheServerKeeps(E2e e) throws Exception {
        String sql = "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint FROM pg_replication_slots"
                + " WHERE slot_name = '" + e.slot + "'";
        long[] seen = new long[2];
        FlinkTestJobs.awaitTrue(() -> "the reported retained WAL " + seen[0] + " is the server's " + seen[1],
                Duration.ofSeconds(30), () -> {
                    try {
                        seen[0] = TestMetricReporter.value("slot_retained_wal_bytes");
                        seen[1] = Long.parseLong(LocalPg.queryString(e.pg, sql));
                        return seen[0] >= 0 && Math.abs(seen[0] - seen[1]) <= 64 * 1024;
                    } catch (java.sql.SQLException x) {
                        throw new IllegalStateException(x);
                    }
                });
    }

    /** Runs one statement; the rows PostgreSQL says it changed. */
    private static long update(E2e e, String sql) throws java.sql.SQLException {
        try (java.sql.Statement st = e.pg.createStatement()) {
            return st.executeUpdate(sql);
        }
    }

    /**
     * Caught up, the sink's per-table counters, labelled {@code table} and {@code op}, say what PostgreSQL changed:
     * per operation, the rows its statements reported, and the rows of the table the initial snapshot copied as
     * {@code copy}; read from the endpoint and through Prometheus (which scrapes every second). Returns the endpoint's
     * exposition.
     */
    private static String rowsPerTableAndOpAreWhatPostgresChanged(String api, int metricsPort, String table,
            java.util.Map<String, Long> changed, String copiedTable, long copied) throws Exception {
        String exposition = get("http://127.0.0.1:" + metricsPort + "/metrics");
        Files.writeString(Path.of("target").resolve("metrics-" + table.substring(0, table.indexOf('.')) + ".txt"),
                exposition);
        String rows = metricName(exposition, "clickhouse_sink_table_op_rows");
        // Flink's Prometheus reporter writes a label value's characters outside [a-zA-Z0-9:_] as '_'
        String label = table.replaceAll("[^a-zA-Z0-9:_]", "_");
        String copiedLabel = copiedTable.replaceAll("[^a-zA-Z0-9:_]", "_");
        java.util.Map<String, Long> expected = new java.util.TreeMap<>();
        changed.forEach((op, n) -> expected.put(label + " " + op, n));
        expected.put(copiedLabel + " copy", copied);
        java.util.Map<String, Long> seen = new java.util.TreeMap<>();
        Pattern line = Pattern.compile("(?m)^" + Pattern.quote(rows) + "\\{([^}]*)\\} ([0-9.E+-]+)$");
        Matcher m = line.matcher(exposition);
        while (m.find()) {
            Matcher t = Pattern.compile("table=\"([^\"]+)\"").matcher(m.group(1));
            Matcher o = Pattern.compile("op=\"([^\"]+)\"").matcher(m.group(1));
            assertTrue(t.find() && o.find(), "table and op labels on " + m.group());
            seen.merge(t.group(1) + " " + o.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
        }
        seen.keySet().removeIf(k -> !k.startsWith(label + " ") && !k.startsWith(copiedLabel + " "));
        assertTrue(expected.equals(seen), "rows per table and op exported " + seen + ", PostgreSQL changed " + expected);
        for (java.util.Map.Entry<String, Long> x : expected.entrySet()) {
            String[] k = x.getKey().split(" ");
            String q = "sum(" + rows + "{table=\"" + k[0] + "\",op=\"" + k[1] + "\"})";
            FlinkTestJobs.awaitTrue(() -> "Prometheus answers " + x.getValue() + " for " + q, Duration.ofSeconds(30),
                    () -> {
                        try {
                            return max(query(api, q)) == x.getValue();
                        } catch (IOException notYet) {
                            return false;
                        } catch (InterruptedException i) {
                            Thread.currentThread().interrupt();
                            return false;
                        }
                    });
        }
        return exposition;
    }

    /**
     * The commit-to-visible histogram has its quantiles, each above 0 (a commit becomes visible after the checkpoint
     * that follows it, not at once) and below the minutes the workload ran, p50 at most p99.
     */
    private static void commitToVisibleQuantilesArePlausible(String api, String exposition) throws Exception {
        String h = metricName(exposition, "clickhouse_sink_commit_to_visible_ms");
        double count = max(query(api, "sum(" + h + "_count)"));
        assertTrue(count > 0, "latencies recorded: " + count);
        double p50 = max(query(api, "max(" + h + "{quantile=\"0.5\"})"));
        double p99 = max(query(api, "max(" + h + "{quantile=\"0.99\"})"));
        assertTrue(p50 > 0 && p99 >= p50 && p99 < 120_000, "commit -> visible p50 " + p50 + " ms, p99 " + p99 + " ms");
        System.out.println("commit -> visible: p50 " + p50 + " ms, p99 " + p99 + " ms over " + count + " sampled commits");
    }

    /** "copy k of N chunks, r rows, ETA ..." of the console's status line. */
    private static final Pattern COPY = Pattern.compile(".* \\| copy (\\d+) of (\\d+) chunks, (\\d+) rows, ETA (.+)");
    /** "WAL lag n bytes ... | r rows/s | visible up to X/Y, committed ..." of the console's status line. */
    private static final Pattern STREAM = Pattern.compile(
            "WAL lag (\\d+) bytes.* \\| ([0-9.]+) rows/s \\| visible up to ([0-9A-F]+/[0-9A-F]+), committed .+ ago");

    /**
     * While a chunk is held, the console's status line shows the copy: its chunks and rows are what the snapshot
     * coordinator's metrics say (read before and after the line), with an ETA from the chunks done.
     */
    private static void copyLineIsTheSnapshotsProgress(CapturedLog console) throws Exception {
        String[] last = {"none"};
        FlinkTestJobs.awaitTrue(() -> "a status line with the copy's progress, as the snapshot metrics say it (chunks "
                + TestMetricReporter.value("chunks_done") + " of " + TestMetricReporter.value("chunks_total") + ", rows "
                + TestMetricReporter.value("rows_done") + "); last line: " + last[0], Duration.ofSeconds(60), () -> {
                    String before = copyMetrics();
                    String line = next(console);
                    if (line == null) {
                        return false;
                    }
                    last[0] = line;
                    Matcher m = COPY.matcher(line);
                    return m.matches() && before.equals(copyMetrics()) && !before.startsWith("0 ")
                            && (m.group(1) + " " + m.group(2) + " " + m.group(3)).equals(before)
                            && m.group(4).matches("[0-9.]+ (ms|s)|\\d+ min \\d+ s");
                });
    }

    /** chunks_done chunks_total rows_done of the snapshot coordinator. */
    private static String copyMetrics() {
        return TestMetricReporter.value("chunks_done") + " " + TestMetricReporter.value("chunks_total") + " "
                + TestMetricReporter.value("rows_done");
    }

    /**
     * Caught up, the console's status line says the WAL lag the source's gauge says (read before and after the line)
     * and the watermark ClickHouse's {@code _walshadow_committed} holds.
     */
    private static void lineIsTheJobsLagAndWatermark(E2e e, CapturedLog console) throws Exception {
        String[] last = {"none"};
        FlinkTestJobs.awaitTrue(() -> "a status line with the lag gauge's value (" + TestMetricReporter.value("lag_bytes")
                + ") and the newest commit visible in ClickHouse (" + Lsn.format(visibleLsn(e)) + "); last line: "
                + last[0], Duration.ofSeconds(60), () -> {
                    long lag = TestMetricReporter.value("lag_bytes");
                    String watermark = Lsn.format(visibleLsn(e));
                    String line = next(console);
                    if (line == null) {
                        return false;
                    }
                    last[0] = line;
                    Matcher m = STREAM.matcher(line);
                    return m.matches() && lag == TestMetricReporter.value("lag_bytes") && Long.parseLong(m.group(1)) == lag
                            && watermark.equals(Lsn.format(visibleLsn(e))) && m.group(3).equals(watermark);
                });
    }

    /** {@code _walshadow_visible}'s mark for the job's sink: with rows written at commit, ahead of the watermark. */
    private static long visibleLsn(E2e e) {
        return Long.parseLong(e.ch.queryString("SELECT max(commit_lsn) FROM `" + e.chDatabase
                + "`.`_walshadow_visible` WHERE sink = '" + e.slot + "'"));
    }

    /**
     * The lag is 0 once the job was handed all the WAL the server has: at a moment when the server's position
     * ({@code pg_current_wal_lsn()}, the same before and after) is the one the source polled and has received, the
     * gauge reads 0, not the length of the last record handed on (which it read while it measured from the record's
     * start).
     */
    private static void lagIsZeroOnceEverythingIsHandedOn(E2e e) throws Exception {
        List<Long> seen = new ArrayList<>();
        FlinkTestJobs.awaitTrue(() -> "a lag of 0 while the source has received the server's position (lags seen"
                + " then: " + seen + ")", Duration.ofSeconds(60), () -> {
                    try {
                        long server = serverLsn(e);
                        long polled = TestMetricReporter.value("server_lsn");
                        long received = TestMetricReporter.value("received_lsn");
                        long lag = TestMetricReporter.value("lag_bytes");
                        if (server != polled || received < polled || serverLsn(e) != server) {
                            Thread.sleep(100);
                            return false;
                        }
                        seen.add(lag);
                        return lag == 0;
                    } catch (java.sql.SQLException x) {
                        throw new IllegalStateException(x);
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                });
    }

    /** {@code pg_current_wal_lsn()}: the position the source polls (the write position, not the insert one). */
    private static long serverLsn(E2e e) throws java.sql.SQLException {
        return Lsn.parse(LocalPg.queryString(e.pg, "SELECT pg_current_wal_lsn()"));
    }

    /** The console's next status line (up to 5 s). */
    private static String next(CapturedLog console) {
        try {
            return console.next(console.lines().size(), 5000);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** deploy/local/status.sh's output for this test's job (its slot, ports and ClickHouse database). */
    private static String status(E2e e, int webPort, int metricsPort) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", repo().resolve("deploy/local/status.sh").toString())
                .redirectErrorStream(true);
        pb.environment().put("WALSHADOW_WEB_PORT", String.valueOf(webPort));
        pb.environment().put("WALSHADOW_METRICS_PORT", String.valueOf(metricsPort));
        pb.environment().put("WALSHADOW_DEMO_SLOT", e.slot);
        pb.environment().put("WALSHADOW_DEMO_CH_DATABASE", e.chDatabase);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "status.sh ends");
        assertTrue(p.exitValue() == 0, "status.sh exits 0 for a running job:\n" + out);
        return out;
    }

    /**
     * Every query of the shipped Grafana dashboard is valid PromQL that Prometheus answers with a series, and names
     * only metrics the job exports.
     */
    private static void dashboardQueriesNameExportedMetrics(String api, String exposition) throws Exception {
        String dashboard = Files.readString(repo().resolve("deploy/observability/grafana-dashboard.json"));
        java.util.Set<String> exported = new java.util.TreeSet<>();
        Matcher names = Pattern.compile("(?m)^(flink_[A-Za-z0-9_]+)[{ ]").matcher(exposition);
        while (names.find()) {
            exported.add(names.group(1));
        }
        Matcher exprs = Pattern.compile("\"expr\": \"((?:[^\"\\\\]|\\\\.)*)\"").matcher(dashboard);
        int queries = 0;
        List<String> wrong = new ArrayList<>();
        while (exprs.find()) {
            String expr = exprs.group(1).replace("\\\"", "\"");
            queries++;
            Matcher used = Pattern.compile("flink_[A-Za-z0-9_]+").matcher(expr);
            while (used.find()) {
                if (!exported.contains(used.group())) {
                    wrong.add(used.group() + " (in " + expr + ")");
                }
            }
            if (wrong.isEmpty() && query(api, expr).isEmpty()) {
                wrong.add("no series for " + expr);
            }
        }
        assertTrue(queries >= 10, "the dashboard's queries found: " + queries);
        assertTrue(wrong.isEmpty(), "dashboard queries naming what the job does not export: " + wrong
                + "\nexported: " + exported);
    }

    /**
     * The job's own metrics (not Flink's) are snake_case, and those measuring a time or an amount of WAL say their
     * unit: a lag, an age, a duration or a wait ends in {@code _ms} or {@code _bytes}, a position in {@code _lsn}.
     */
    private static void metricNamesCarryTheirUnits(String exposition) {
        Matcher names = Pattern.compile("(?m)^flink_[a-z_]+?_(?:operator|coordinator_enumerator)_((?:wal|decoder|xact_buffer"
                + "|toast|clickhouse_sink|snapshot)_[A-Za-z0-9_]+)[{ ]").matcher(exposition);
        java.util.Set<String> ours = new java.util.TreeSet<>();
        List<String> wrong = new ArrayList<>();
        while (names.find()) {
            String name = names.group(1);
            ours.add(name);
            boolean timeOrWal = name.matches(".*_(lag|age|duration|wait|waiting|latency)(_.*)?");
            if (!name.matches("[a-z0-9_]+") || (timeOrWal && !name.matches(".*_(ms|bytes)"))
                    || (name.contains("lsn") && !name.endsWith("_lsn"))) {
                wrong.add(name);
            }
        }
        assertTrue(ours.size() > 50 && ours.contains("wal_lag_bytes"), "the job's metrics found: " + ours);
        assertTrue(wrong.isEmpty(), "metric names without their unit: " + wrong);
    }

    /** The repository's root (the tests run in the job module). */
    private static Path repo() {
        Path here = Path.of("").toAbsolutePath();
        return Files.exists(here.resolve("deploy")) ? here : here.getParent();
    }

    /** Runs headless Chromium on a page; its standard output (the DOM for --dump-dom), "" if it did not end in time. */
    private static String chromium(Path chromium, Path profile, int budgetMs, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                "--virtual-time-budget=" + budgetMs));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(profile.getParent(), "chromium", ".out");
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD)
                .redirectOutput(out.toFile()).start();
        if (!p.waitFor(budgetMs + 60_000L, TimeUnit.MILLISECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            System.out.println("chromium did not end within " + (budgetMs + 60_000) + " ms: " + cmd);
        }
        String dom = Files.readString(out);
        Files.delete(out);
        return dom;
    }

    /** The exported name of the metric whose name ends with {@code suffix} (the reporter prefixes its scope). */
    private static String metricName(String exposition, String suffix) {
        Matcher m = Pattern.compile("(?m)^(flink_[A-Za-z0-9_]*" + Pattern.quote(suffix) + ")[{ ]").matcher(exposition);
        assertTrue(m.find(), "the endpoint exports a metric ending in " + suffix);
        return m.group(1);
    }

    /** The values of an instant PromQL query (empty when it has no series). */
    private static List<Double> query(String api, String promql) throws IOException, InterruptedException {
        String body = get(api + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        assertTrue(body.contains("\"status\":\"success\""), "query " + promql + ": " + body);
        List<Double> out = new ArrayList<>();
        Matcher m = Pattern.compile("\"value\":\\[[0-9.]+,\"([^\"]+)\"\\]").matcher(body);
        while (m.find()) {
            out.add(Double.parseDouble(m.group(1)));
        }
        return out;
    }

    private static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }

    private static String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(r.statusCode() == 200, url + " answers 200, not " + r.statusCode());
        return r.body();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String tail(String s) {
        return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
    }
}
