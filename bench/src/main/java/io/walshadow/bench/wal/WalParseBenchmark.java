package io.walshadow.bench.wal;

import io.walshadow.testing.LocalPg;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.WalSegmentReader;
import io.walshadow.wal.XLogRecord;
import io.walshadow.wal.XLogStreamReader;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * WAL parsing throughput: our {@link WalSegmentReader} against PostgreSQL's own WAL reader over the same LSN range
 * of the same segment files. A program that prints figures, not a test.
 *
 * <p>The references: {@code pg_waldump --stats}, when the WAL is of the major of the pg_waldump at hand (Debian's 15:
 * PostgreSQL 15's WAL only), and the server's {@code pg_get_wal_stats} ({@code pg_walinspect}, any major from 15 on)
 * when the WAL was generated here: the same xlogreader and {@code XLogRecStoreStats} running in a backend, timed by
 * its wall-clock time from here and the backend's CPU time from {@code /proc} (the server runs on this host). On
 * PostgreSQL 15 both run, so the two references can be set side by side; on 16..18 {@code pg_walinspect} is the
 * only one.
 *
 * <p>Our side does the work {@code pg_waldump --stats} does: read the segment files, validate page headers, assemble
 * records across pages, check each record's CRC-32C and prev-link, decode its block references
 * ({@code DecodeXLogRecord}), and add its length and full-page-image length to per-rmgr and per-record-type
 * counters ({@code XLogRecStoreStats}). Its totals are compared with pg_waldump's; a mismatch aborts the run.
 *
 * <pre>
 * Options (all optional):
 *   --wal-dir DIR --start LSN --end LSN [--timeline N]
 *                     use existing WAL; --start must be a record boundary or a segment start after an
 *                     XLOG_SWITCH (the benchmark does not search for the first record as pg_waldump does)
 *   --scale N         pgbench -i scale when generating (default 15)
 *   --transactions N  pgbench transactions per client when generating (default 50000)
 *   --clients N       pgbench clients (default 2)
 *   --rounds N        measured rounds, each running the references and ours, in turn (default 5)
 *   --round-seconds S a round reads the range as many times as fit in about S seconds of the slowest (default 1)
 *   --keep            keep the generated database (walshadow_bench) after the run
 * </pre>
 *
 * <p>Without {@code --wal-dir}, WAL is generated on the local PostgreSQL ({@code deploy/local/stack.sh}): a
 * physical replication slot reserving WAL is created first so the range stays in pg_wal, then a pgbench
 * initialisation and a pgbench TPC-B run in a scratch database; the slot (and database) are dropped at the end.
 */
public final class WalParseBenchmark {
    private static final String SLOT = "walshadow_bench_wal_parse";
    private static final String BENCH_DB = "walshadow_bench";
    private static final Pattern TOTAL = Pattern.compile(
            "(?m)^Total\\s+(\\d+)\\s+(\\d+)\\s+\\[[^]]*]\\s+(\\d+)\\s+\\[[^]]*]\\s+(\\d+)");

    private WalParseBenchmark() {}

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        Connection admin = null;
        Thread cleanupHook = null;
        boolean slotCreated = false;
        boolean dbCreated = false;
        Connection inspect = null;
        try {
            Path walDir;
            long start;
            long end;
            int timeline;
            if (o.walDir != null) {
                walDir = o.walDir;
                start = o.start;
                end = o.end;
                timeline = o.timeline > 0 ? o.timeline : detectTimeline(walDir, start);
            } else {
                admin = LocalPg.connect();
                walDir = LocalPg.walDir();
                timeline = LocalPg.timeline(admin);
                dropStaleSlot(admin);
                LocalPg.exec(admin, "SELECT pg_create_physical_replication_slot('" + SLOT + "', true)");
                slotCreated = true;
                // If the run is interrupted, do not leave a slot behind that would keep WAL forever.
                cleanupHook = new Thread(WalParseBenchmark::dropSlotQuietly, "drop-bench-slot");
                Runtime.getRuntime().addShutdownHook(cleanupHook);
                // A fresh segment: its first record follows the long page header, no continuation to skip.
                long sw = Lsn.parse(LocalPg.queryString(admin, "SELECT pg_switch_wal()"));
                int segSize = LocalPg.segmentSize(admin);
                start = (sw + segSize - 1) & -(long) segSize;
                dbCreated = generate(admin, o);
                end = LocalPg.flushLsn(admin);
                // A record past the end, flushed: 15's pg_walinspect reads the record at end_lsn before it stops,
                // and waits for it when it is not flushed yet.
                LocalPg.exec(admin, "SELECT pg_switch_wal()");
                inspect = walinspectSession(admin);
            }
            run(o, walDir, timeline, start, end, inspect);
        } finally {
            if (inspect != null) {
                inspect.close();
            }
            if (admin != null) {
                if (slotCreated) {
                    LocalPg.exec(admin, DROP_SLOT);
                    Runtime.getRuntime().removeShutdownHook(cleanupHook);
                }
                if (dbCreated && !o.keep) {
                    LocalPg.exec(admin, "DROP DATABASE IF EXISTS " + BENCH_DB);
                }
                admin.close();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Workload
    // ------------------------------------------------------------------------------------------------

    private static final String DROP_SLOT = "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
            + " WHERE slot_name = '" + SLOT + "' AND NOT active";

    private static void dropSlotQuietly() {
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, DROP_SLOT);
        } catch (SQLException e) {
            System.err.println("[bench] could not drop slot " + SLOT + ": " + e.getMessage());
        }
    }

    private static void dropStaleSlot(Connection c) throws SQLException {
        String active = LocalPg.queryString(c, "SELECT active::text FROM pg_replication_slots WHERE slot_name = '" + SLOT + "'");
        if ("false".equals(active)) {
            log("dropping slot " + SLOT + " left over by an earlier run");
            LocalPg.exec(c, "SELECT pg_drop_replication_slot('" + SLOT + "')");
        } else if ("true".equals(active)) {
            throw new IllegalStateException("slot " + SLOT + " is in use: is another benchmark running?");
        }
    }

    /** pgbench -i and a pgbench run in a scratch database; true if the database was created here. */
    private static boolean generate(Connection admin, Options o) throws Exception {
        boolean created = LocalPg.queryString(admin, "SELECT 1 FROM pg_database WHERE datname = '" + BENCH_DB + "'") == null;
        if (created) {
            LocalPg.exec(admin, "CREATE DATABASE " + BENCH_DB);
        }
        long before = LocalPg.currentLsn(admin);
        long t0 = System.nanoTime();
        pgbench("-i", "-q", "-s", String.valueOf(o.scale));
        long afterInit = LocalPg.currentLsn(admin);
        pgbench("-n", "-c", String.valueOf(o.clients), "-j", String.valueOf(o.clients),
                "-t", String.valueOf(o.transactions));
        long after = LocalPg.currentLsn(admin);
        log(String.format(Locale.ROOT, "generated %.1f MB of WAL in %.1f s (pgbench -i -s %d: %.1f MB; %d clients x %d transactions: %.1f MB)",
                mb(after - before), (System.nanoTime() - t0) / 1e9, o.scale, mb(afterInit - before), o.clients,
                o.transactions, mb(after - afterInit)));
        return created;
    }

    private static void pgbench(String... args) throws IOException, InterruptedException {
        BenchSupport.pgbench(BENCH_DB, args);
    }

    /** A session on the scratch database with pg_walinspect created, or null when the server has none. */
    private static Connection walinspectSession(Connection admin) throws SQLException {
        if (!LocalPg.extensionAvailable(admin, "pg_walinspect")) {
            log("no pg_walinspect on this server: it is not a reference here");
            return null;
        }
        Properties p = new Properties();
        p.setProperty("user", LocalPg.user());
        p.setProperty("password", LocalPg.password());
        Connection c = DriverManager.getConnection("jdbc:postgresql://" + LocalPg.host() + ":" + LocalPg.port() + "/"
                + BENCH_DB, p);
        LocalPg.createExtension(c, "pg_walinspect");
        return c;
    }

    // ------------------------------------------------------------------------------------------------
    // Measurement
    // ------------------------------------------------------------------------------------------------

    /** Per-record-type counters, as pg_waldump's XLogRecStoreStats keeps them. */
    static final class Stats {
        final long[] count = new long[256 * 16];
        final long[] recLen = new long[256 * 16];
        final long[] fpiLen = new long[256 * 16];
        final long[] rmgrCount = new long[256];
        final long[] rmgrRecLen = new long[256];
        final long[] rmgrFpiLen = new long[256];
        long records;
        long lastEnd;

        void add(XLogRecord r) {
            int rmid = r.rmid();
            int recid = r.info() >>> 4;
            if (rmid == 1) { // RM_XACT_ID: the top bit is a flag, the opcode is the low three
                recid &= 0x07;
            }
            int fpi = r.fpiLength();
            int rec = r.totalLength() - fpi;
            records++;
            rmgrCount[rmid]++;
            rmgrRecLen[rmid] += rec;
            rmgrFpiLen[rmid] += fpi;
            int i = rmid << 4 | recid;
            count[i]++;
            recLen[i] += rec;
            fpiLen[i] += fpi;
            lastEnd = r.endLsn();
        }

        long totalRecLen() {
            return Arrays.stream(rmgrRecLen).sum();
        }

        long totalFpiLen() {
            return Arrays.stream(rmgrFpiLen).sum();
        }
    }

    record Totals(long records, long recLen, long fpiLen) {
        long combined() {
            return recLen + fpiLen;
        }
    }

    private static Totals runOurs(Path dir, WalFormat format, int segSize, int tli, long start, long end) throws IOException {
        Stats s = new Stats();
        try (WalSegmentReader r = new WalSegmentReader(dir, format, segSize, tli, start, end)) {
            for (XLogRecord rec; (rec = r.next()) != null; ) {
                s.add(rec);
            }
        }
        if (Long.compareUnsigned(s.lastEnd, end) < 0 && end - s.lastEnd > XLogStreamReader.BLCKSZ) {
            throw new IllegalStateException("our reader stopped at " + Lsn.format(s.lastEnd) + ", before " + Lsn.format(end));
        }
        return new Totals(s.records, s.totalRecLen(), s.totalFpiLen());
    }

    /** One timed run: wall-clock and CPU (user + system) nanoseconds. */
    record Timing(long wallNanos, long cpuNanos) {}

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** A reader timed next to ours: its totals over the range, its wall-clock and CPU times into {@code timing}. */
    interface Reference {
        String name();

        Totals run(long[] timing) throws Exception;
    }

    /** {@code pg_waldump --stats}, when its major is the WAL's; else null. */
    private static Reference waldump(WalFormat format, Path dir, int tli, long start, long end)
            throws IOException, InterruptedException {
        String version = LocalPg.runTool(List.of(LocalPg.bin("pg_waldump").toString(), "--version")).trim();
        Matcher m = Pattern.compile("\\(PostgreSQL\\) (\\d+)").matcher(version);
        if (!m.find() || Integer.parseInt(m.group(1)) != format.major) {
            log("pg_waldump at hand is '" + version + "', the WAL is PostgreSQL " + format.major
                    + "'s: it is not a reference here");
            return null;
        }
        return new Reference() {
            @Override
            public String name() {
                return "pg_waldump";
            }

            @Override
            public Totals run(long[] timing) throws Exception {
                return runWaldump(dir, tli, start, end, timing);
            }
        };
    }

    /**
     * {@code pg_get_wal_stats} in a backend of the server: the server's xlogreader and XLogRecStoreStats, as
     * pg_waldump's. Wall time from here (one round trip more); CPU time the backend's own, from /proc.
     */
    private static Reference walinspect(Connection c, long start, long end) throws SQLException {
        int pid = Integer.parseInt(LocalPg.queryString(c, "SELECT pg_backend_pid()"));
        String sql = "SELECT coalesce(sum(count), 0), coalesce(sum(record_size), 0), coalesce(sum(fpi_size), 0)"
                + " FROM pg_get_wal_stats('" + Lsn.format(start) + "', '" + Lsn.format(end) + "', false)";
        return new Reference() {
            @Override
            public String name() {
                return "pg_walinspect";
            }

            @Override
            public Totals run(long[] timing) throws Exception {
                long c0 = processCpuNanos(pid);
                long t0 = System.nanoTime();
                Totals t;
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                    rs.next();
                    t = new Totals(rs.getLong(1), rs.getLong(2), rs.getLong(3));
                }
                timing[0] = System.nanoTime() - t0;
                timing[1] = processCpuNanos(pid) - c0;
                return t;
            }
        };
    }

    /** utime + stime of a process of this host (/proc/PID/stat, fields 14 and 15, in clock ticks of 10 ms). */
    private static long processCpuNanos(int pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // f[0] is field 3 (state): utime is field 14, stime field 15
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
    }

    private static Totals runWaldump(Path dir, int tli, long start, long end, long[] timing)
            throws IOException, InterruptedException {
        // bash's `time` reports pg_waldump's own real/user/sys times (without the cost of starting bash).
        String cmd = "TIMEFORMAT='%3R %3U %3S'; time " + LocalPg.bin("pg_waldump") + " --stats -p '" + dir + "' -t " + tli
                + " -s " + Lsn.format(start) + " -e " + Lsn.format(end);
        Process p = new ProcessBuilder("bash", "-c", cmd).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException("pg_waldump failed: " + cmd + "\n" + out + err);
        }
        Matcher m = TOTAL.matcher(out);
        if (!m.find()) {
            throw new IOException("no Total line in pg_waldump output:\n" + out + err);
        }
        String[] t = err.substring(err.lastIndexOf('\n') + 1).trim().split(" ");
        timing[0] = Math.round(Double.parseDouble(t[0]) * 1e9);
        timing[1] = Math.round((Double.parseDouble(t[1]) + Double.parseDouble(t[2])) * 1e9);
        return new Totals(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)));
    }

    private static void run(Options o, Path dir, int tli, long start, long end, Connection inspect) throws Exception {
        int segSize = segmentSize(dir);
        String firstSeg = WalSegmentReader.segmentFileName(tli, start, segSize);
        WalFormat format;
        try (FileChannel ch = FileChannel.open(dir.resolve(firstSeg), StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(2);
            ch.read(b, 0);
            format = WalFormat.forPageMagic((b.array()[0] & 0xFF) | (b.array()[1] & 0xFF) << 8, start);
        }
        long first = firstRecord(dir, tli, segSize, start);
        if (first != start) {
            log("first record at or after " + Lsn.format(start) + " is at " + Lsn.format(first));
        }
        start = first;
        double rangeMb = mb(end - start);
        log(String.format(Locale.ROOT, "PostgreSQL %d WAL, range %s .. %s on timeline %d: %.1f MB, %d segments of %d MB,"
                        + " in %s (first %s)", format.major, Lsn.format(start), Lsn.format(end), tli, rangeMb,
                (end - start + segSize - 1) / segSize, segSize >> 20, dir, firstSeg));
        double loadBefore = OS.getSystemLoadAverage();
        log(String.format(Locale.ROOT, "JVM %s %s, %d CPUs, load average %.1f", System.getProperty("java.vm.name"),
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), loadBefore));

        List<Reference> refs = new ArrayList<>();
        Reference w = waldump(format, dir, tli, start, end);
        if (w != null) {
            refs.add(w);
        }
        if (inspect != null) {
            refs.add(walinspect(inspect, start, end));
        }
        if (refs.isEmpty()) {
            log("no reference for PostgreSQL " + format.major + "'s WAL here: ours alone, totals unchecked");
        }

        // Warm-up: the page cache for all, the JIT for ours. Also the cross-check of totals. A round's length is
        // set by the slowest reader's warm pass (each reference's second: the first of pg_walinspect loads the
        // library and reads cold; ours: its last), not by a cold first pass.
        long slowest = 0;
        Totals expect = null;
        for (Reference ref : refs) {
            long[] warm = new long[2];
            ref.run(warm);
            Totals t = ref.run(warm);
            slowest = Math.max(slowest, warm[0]);
            log(String.format(Locale.ROOT, "%-13s totals: %d records, record size %d, FPI size %d", ref.name(), t.records,
                    t.recLen, t.fpiLen));
            if (expect != null && !t.equals(expect)) {
                throw new IllegalStateException("totals differ: " + ref.name() + " " + t + ", " + refs.get(0).name() + " "
                        + expect);
            }
            expect = t;
        }
        // The JIT needs a few passes (C2 compiles in the background, on the CPU time we measure): at least 5, and
        // at least 3 seconds.
        Totals ours = null;
        long warmStart = System.nanoTime();
        long lastPass = 0;
        for (int i = 0; i < 5 || (System.nanoTime() - warmStart < 3_000_000_000L && i < 50); i++) {
            long t0 = System.nanoTime();
            ours = runOurs(dir, format, segSize, tli, start, end);
            lastPass = System.nanoTime() - t0;
        }
        log(String.format(Locale.ROOT, "%-13s totals: %d records, record size %d, FPI size %d", "ours", ours.records,
                ours.recLen, ours.fpiLen));
        if (expect != null && !ours.equals(expect)) {
            throw new IllegalStateException("totals differ: ours " + ours + ", " + refs.get(0).name() + " " + expect);
        }
        expect = ours;
        slowest = Math.max(slowest, lastPass);

        // Short ranges are read several times per round, so that a round lasts about --round-seconds: CPU times
        // are counted in clock ticks, and longer rounds average out the scheduler's noise.
        int passes = (int) Math.max(1, Math.ceil(o.roundSeconds * 1e9 / Math.max(1, slowest)));
        log(String.format(Locale.ROOT, "slowest warm pass %.3f s: each round reads the range %d times per reader;"
                + " figures are per pass", slowest / 1e9, passes));
        int readers = refs.size() + 1; // the references, then ours (index refs.size())
        Timing[][] t = new Timing[readers][o.rounds];
        for (int r = 0; r < o.rounds; r++) {
            // Rotate which one goes first, so none always follows another's cache/CPU state.
            StringBuilder line = new StringBuilder("round " + (r + 1) + ":");
            for (int k = 0; k < readers; k++) {
                int i = (k + r) % readers;
                t[i][r] = i < refs.size() ? timeReference(refs.get(i), expect, passes)
                        : timeOurs(dir, format, segSize, tli, start, end, expect, passes);
            }
            for (int i = 0; i < readers; i++) {
                line.append(String.format(Locale.ROOT, " %s %.3f s (cpu %.3f s)%s", i < refs.size() ? refs.get(i).name()
                        : "ours", t[i][r].wallNanos / 1e9, t[i][r].cpuNanos / 1e9, i < readers - 1 ? "," : ""));
            }
            log(line.toString());
        }
        double loadAfter = OS.getSystemLoadAverage();
        double walMb = mb(expect.combined());
        long n = expect.records;
        System.out.println();
        System.out.printf(Locale.ROOT, "WAL parse benchmark: PostgreSQL %d, %d records, %.1f MB of records (%.1f MB LSN range),"
                + " medians of %d rounds, load average %.1f -> %.1f%n", format.major, n, walMb, rangeMb, o.rounds,
                loadBefore, loadAfter);
        System.out.printf(Locale.ROOT, "%-13s %8s %8s %11s %8s | %8s %11s %8s%n", "", "records", "wall s", "records/s",
                "MB/s", "cpu s", "records/s", "MB/s");
        double wO = median(t[readers - 1], true) / 1e9;
        double cO = median(t[readers - 1], false) / 1e9;
        for (int i = 0; i < readers; i++) {
            double wl = median(t[i], true) / 1e9;
            double cp = median(t[i], false) / 1e9;
            System.out.printf(Locale.ROOT, "%-13s %8d %8.3f %11.0f %8.1f | %8.3f %11.0f %8.1f%n",
                    i < refs.size() ? refs.get(i).name() : "ours", n, wl, n / wl, walMb / wl, cp, n / cp, walMb / cp);
        }
        for (Reference ref : refs) {
            int i = refs.indexOf(ref);
            System.out.printf(Locale.ROOT, "ratio ours/%s (records/s): %.2fx wall-clock, %.2fx CPU time%n", ref.name(),
                    median(t[i], true) / 1e9 / wO, median(t[i], false) / 1e9 / cO);
        }
        System.out.println("(MB: the records' bytes, xl_tot_len summed. pg_waldump: its own real and user+sys times from"
                + " bash's `time`; pg_walinspect: the query's wall time here and its backend's user+sys time;"
                + " ours: wall time of the read loop and the JVM's CPU time over it, GC and JIT included.)");
    }

    private static Timing timeReference(Reference ref, Totals expect, int passes) throws Exception {
        long wall = 0;
        long cpu = 0;
        for (int i = 0; i < passes; i++) {
            long[] timing = new long[2];
            Totals t = ref.run(timing);
            if (!t.equals(expect)) {
                throw new IllegalStateException(ref.name() + " totals changed: " + t);
            }
            wall += timing[0];
            cpu += timing[1];
        }
        return new Timing(wall / passes, cpu / passes);
    }

    private static Timing timeOurs(Path dir, WalFormat format, int segSize, int tli, long start, long end, Totals expect,
                                   int passes) throws IOException {
        long c0 = OS.getProcessCpuTime();
        long t0 = System.nanoTime();
        for (int i = 0; i < passes; i++) {
            Totals t = runOurs(dir, format, segSize, tli, start, end);
            if (!t.equals(expect)) {
                throw new IllegalStateException("our totals differ from pg_waldump's: " + t + " vs " + expect);
            }
        }
        long dt = System.nanoTime() - t0;
        long dc = OS.getProcessCpuTime() - c0;
        return new Timing(dt / passes, dc / passes);
    }

    // ------------------------------------------------------------------------------------------------

    /**
     * Where the first record at or after {@code lsn} starts, as pg_waldump's XLogFindNextRecord finds it, for the
     * case of a page boundary: a record continued from the previous page is stepped over using xlp_rem_len.
     * Any other LSN is taken to be a record start.
     */
    private static long firstRecord(Path dir, int tli, int segSize, long lsn) throws IOException {
        long page = lsn;
        if ((page & (XLogStreamReader.BLCKSZ - 1)) != 0) {
            return lsn;
        }
        while (true) {
            byte[] hdr = new byte[40];
            try (FileChannel ch = FileChannel.open(dir.resolve(WalSegmentReader.segmentFileName(tli, page, segSize)),
                    StandardOpenOption.READ)) {
                ch.read(ByteBuffer.wrap(hdr), page & (segSize - 1));
            }
            int info = (hdr[2] & 0xFF) | (hdr[3] & 0xFF) << 8;
            int hdrSize = (info & 0x0002) != 0 ? 40 : 24;
            long remLen = Integer.toUnsignedLong((hdr[16] & 0xFF) | (hdr[17] & 0xFF) << 8 | (hdr[18] & 0xFF) << 16
                    | (hdr[19] & 0xFF) << 24);
            if ((info & 0x0001) == 0 || remLen == 0) {
                return page;
            }
            long next = page + hdrSize + ((remLen + 7) & ~7L);
            if (next < page + XLogStreamReader.BLCKSZ) {
                return next;
            }
            page += XLogStreamReader.BLCKSZ;
        }
    }

    /** xlp_seg_size from the first segment file in the directory. */
    private static int segmentSize(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            Path any = files.filter(f -> f.getFileName().toString().matches("[0-9A-F]{24}")).sorted().findFirst()
                    .orElseThrow(() -> new IOException("no WAL segments in " + dir));
            return WalSegmentReader.readSegmentSize(any);
        }
    }

    /** The highest timeline that has the segment holding {@code start}. */
    private static int detectTimeline(Path dir, long start) throws IOException {
        String seg = WalSegmentReader.segmentFileName(1, start, segmentSize(dir)).substring(8);
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.matches("[0-9A-F]{24}") && n.endsWith(seg))
                    .mapToInt(n -> Integer.parseUnsignedInt(n.substring(0, 8), 16))
                    .max().orElseThrow(() -> new IOException("no segment *" + seg + " in " + dir));
        }
    }

    private static double median(Timing[] v, boolean wall) {
        long[] s = Arrays.stream(v).mapToLong(t -> wall ? t.wallNanos : t.cpuNanos).sorted().toArray();
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }

    private static double mb(long bytes) {
        return bytes / 1048576.0;
    }

    private static void log(String s) {
        BenchSupport.log(s);
    }

    private static final class Options {
        Path walDir;
        long start;
        long end;
        int timeline;
        int scale = 15;
        int transactions = 50000;
        int clients = 2;
        int rounds = 5;
        double roundSeconds = 1.0;
        boolean keep;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--wal-dir" -> o.walDir = Path.of(args[++i]);
                    case "--start" -> o.start = Lsn.parse(args[++i]);
                    case "--end" -> o.end = Lsn.parse(args[++i]);
                    case "--timeline" -> o.timeline = Integer.parseInt(args[++i]);
                    case "--scale" -> o.scale = Integer.parseInt(args[++i]);
                    case "--transactions" -> o.transactions = Integer.parseInt(args[++i]);
                    case "--clients" -> o.clients = Integer.parseInt(args[++i]);
                    case "--rounds" -> o.rounds = Integer.parseInt(args[++i]);
                    case "--round-seconds" -> o.roundSeconds = Double.parseDouble(args[++i]);
                    case "--keep" -> o.keep = true;
                    default -> throw new IllegalArgumentException("unknown option " + a + " (see the class comment)");
                }
            }
            if (o.walDir != null && (o.start == 0 || o.end == 0)) {
                throw new IllegalArgumentException("--wal-dir needs --start and --end");
            }
            return o;
        }
    }
}
