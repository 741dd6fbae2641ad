package io.walshadow.bench.wal;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.CatalogHistorySerializer;
import io.walshadow.catalog.shadow.ShadowCatalog;
import io.walshadow.catalog.shadow.ShadowCatalogSerializer;
import io.walshadow.catalog.shadow.ShadowCatalogSource;
import io.walshadow.catalog.CatalogSnapshot;
import io.walshadow.catalog.CatalogSource;
import io.walshadow.catalog.CatalogTracker;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.ChangeEvent;
import io.walshadow.change.DeferredRecord;
import io.walshadow.change.RowChange;
import io.walshadow.change.RowDecoder;
import io.walshadow.change.TruncateChange;
import io.walshadow.change.WalChangeDecoder;
import io.walshadow.change.XactEvent;
import io.walshadow.pg.CatalogBootstrap;
import io.walshadow.pg.JdbcCatalogSource;
import io.walshadow.pg.TypeCatalogLoader;
import io.walshadow.testing.LocalPg;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.WalSegmentReader;
import io.walshadow.wal.XLogRecord;
import io.walshadow.wal.XLogStreamReader;
import io.walshadow.xact.XactAbort;
import io.walshadow.xact.XactCommit;
import io.walshadow.xact.XidList;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * Change decoding throughput: rows decoded per second by {@link WalChangeDecoder} for the pgbench tables, next to
 * the record parse rate of {@link WalSegmentReader} over the same WAL. A program that prints figures, not a test.
 *
 * <p>Two passes over the same LSN range of the same segment files, timed in alternating order each round:
 * <ul>
 *   <li><b>parse</b>: read the segment files, validate pages, assemble records, check CRCs and prev-links, decode
 *       block references (what {@code WalParseBenchmark} measures), and count records and bytes;
 *   <li><b>parse+decode</b>: the same, and every record fed to {@link WalChangeDecoder#decode} as the job does:
 *       heap records of the pgbench tables become {@link RowChange}s with typed values (descriptor lookup in the
 *       {@link io.walshadow.catalog.DescriptorHistory} at the record's LSN, tuple deforming, {@link ValueDecoder});
 *       other relations and databases are skipped; commits and XLOG_RUNNING_XACTS go to the {@link CatalogTracker}
 *       (which reads the live catalog over SQL only at commits that carry invalidations: the DDL of
 *       {@code pgbench -i}, ANALYZE). Records the decoder defers to their commit (the COPY into the relfilenodes
 *       {@code pgbench -i}'s TRUNCATE created) are buffered per transaction and decoded at the commit with
 *       {@link WalChangeDecoder#decodeDeferred}, dropped at an abort. Rows are consumed by counting their non-null
 *       values.
 * </ul>
 * A third side, <b>parse+decode with the catalog from the WAL</b>, decodes the same range as the job does: the
 * {@link ShadowCatalog} bootstrapped once before the workload and fed every record from its redo point on, the
 * history seeded from it and refreshed from it at every boundary; no SQL inside the pass. Its figures are printed
 * after the table, with the ratio to the live-catalog decode.
 *
 * <p>Every decode pass starts from the same catalog state: the {@link CatalogTracker} seeded before the workload,
 * kept as {@link CatalogHistorySerializer} bytes and restored (outside the timed region). The first decode pass
 * also checks the decoded rows against the database: row counts per table and operation, and sums of values
 * (pgbench_history.delta, the final bbalance / tbalance of every branch / teller); a mismatch aborts the run.
 *
 * <pre>
 * Options (all optional):
 *   --scale N         pgbench -i scale (default 15: 1.5 M pgbench_accounts rows loaded by COPY)
 *   --transactions N  pgbench transactions per client, pgbench -t (default 50000)
 *   --seconds S       run pgbench for S seconds (pgbench -T) instead of --transactions
 *   --clients N       pgbench clients (default 2)
 *   --rounds N        measured rounds, each timing parse and parse+decode, alternating (default 5)
 *   --warmup N        untimed passes of each before the rounds, at least (default 2; the first decode pass verifies)
 *   --warmup-seconds S and more until the warm-up took S seconds (default 20)
 *   --round-seconds S a round reads the range as many times as fit in about S seconds of parsing (default 1)
 *   --jfr FILE        after the rounds, record decode passes (about 20 s) with JFR's "profile" settings into FILE
 *   --keep            keep the generated database (walshadow_bench_decode) after the run
 * </pre>
 *
 * <p>WAL is always generated (the catalog must be seeded before it is written): on the local PostgreSQL
 * ({@code deploy/local/stack.sh}) a scratch database {@value #BENCH_DB} is (re)created, a temporary physical
 * replication slot reserving WAL is created on a dedicated session (it goes away with the session, even if the
 * JVM dies), then {@code pg_current_snapshot()} and {@code pg_current_wal_insert_lsn()} are read as the start
 * (in that order: every xid the snapshot shows complete committed before the start) and a {@link CatalogTracker}
 * is seeded there with the filter {@code public.pgbench_*}. Then {@code pgbench -i -s N} (CREATE TABLE, TRUNCATE
 * + INSERT + COPY FREEZE in one transaction, VACUUM, primary keys) and a pgbench TPC-B-like run (UPDATE of
 * accounts, tellers, branches, SELECT, INSERT into history), and the WAL is flushed. The decode passes therefore
 * read the live catalog as it is after the whole workload ("catalog ahead", as a job catching up would).
 *
 * <p>Printed (medians over the rounds): records, rows decoded, MB of records, records/s, rows/s, MB/s by wall clock
 * and by the JVM's CPU time for both passes, the ratio parse+decode/parse in records/s, the peak heap in use (from
 * GC notifications, in one extra untimed pass of each that starts from a collected heap: the timed passes get no
 * System.gc(), which lets the JVM shrink the heap and slowed the next pass several times over); then
 * the same split at the end of {@code pgbench -i} (its COPY: few large MULTI_INSERT records of 61 rows; the run: many
 * small records, one commit per 4 rows), the catalog loads and GC time per decode pass, and the most record bytes
 * held for deferred decoding.
 *
 * <p>The benchmark decodes in catch-up mode (the live catalog is already past the WAL it reads): pgbench -i's
 * tables are ambiguous until its own commits, so their rows and its TRUNCATE are deferred to those commits.
 */
public final class DecodeBenchmark {
    static final String SLOT = "walshadow_bench_decode";
    static final String BENCH_DB = "walshadow_bench_decode";
    private static final String FILTER = "public.pgbench_*";

    private DecodeBenchmark() {}

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        HeapWatch heap = HeapWatch.install();
        Connection admin = LocalPg.connect();
        Connection slotConn = null;
        Connection db = null;
        Connection loaderConn = null;
        boolean dbCreated = false;
        try {
            if (LocalPg.queryString(admin, "SELECT 1 FROM pg_database WHERE datname = '" + BENCH_DB + "'") != null) {
                log("dropping database " + BENCH_DB + " left over by an earlier run");
                LocalPg.exec(admin, "DROP DATABASE " + BENCH_DB);
            }
            LocalPg.exec(admin, "CREATE DATABASE " + BENCH_DB);
            dbCreated = true;
            db = connectBench();
            loaderConn = connectBench();
            String encoding = LocalPg.queryString(db, "SHOW server_encoding");
            if (!"UTF8".equals(encoding) && !"SQL_ASCII".equals(encoding)) {
                throw new IllegalStateException(BENCH_DB + " has encoding " + encoding
                        + "; the benchmark decodes text as UTF-8");
            }

            // A temporary slot: it lives as long as this session, so WAL from here on stays in pg_wal.
            slotConn = LocalPg.connect();
            String stale = LocalPg.queryString(admin,
                    "SELECT active::text FROM pg_replication_slots WHERE slot_name = '" + SLOT + "'");
            if (stale != null) {
                throw new IllegalStateException("slot " + SLOT + " exists (active=" + stale
                        + "): is another benchmark running?");
            }
            LocalPg.exec(slotConn, "SELECT pg_create_physical_replication_slot('" + SLOT + "', true, true)");

            // Snapshot first, then the insert position: every xid the snapshot shows complete committed before start.
            String startSnapshot = LocalPg.queryString(db, "SELECT pg_current_snapshot()::text");
            long start = LocalPg.currentLsn(db);
            CatalogFilter filter = CatalogFilter.parse(FILTER, null);
            TimedSource source = new TimedSource(new JdbcCatalogSource(loaderConn, filter));
            CatalogTracker seeded = CatalogTracker.seed(filter, source, start, CatalogSnapshot.Xids.parse(startSnapshot));
            byte[] seedState = CatalogHistorySerializer.toBytes(seeded.history());
            log(String.format(Locale.ROOT, "catalog seeded at %s (snapshot %s, filter %s, database oid %d): %d relations",
                    Lsn.format(start), startSnapshot, FILTER, Integer.toUnsignedLong(seeded.history().dbOid()),
                    seeded.history().trackedRelations().size()));

            // The same catalog followed from the WAL: one bootstrap read, then the shadow from its redo point on.
            CatalogBootstrap.Result boot = new CatalogBootstrap(loaderConn, DecodeBenchmark::log).take(SLOT);
            byte[] shadowBoot = ShadowCatalogSerializer.toCompressed(boot.shadow());

            long initEnd = generate(db, o);
            long end = LocalPg.flushLsn(admin);
            Expected expected = Expected.query(db, o.scale);
            ValueDecoder values = new ValueDecoder(TypeCatalogLoader.load(db), StandardCharsets.UTF_8);

            Setup s = new Setup(LocalPg.walDir(), WalFormat.forServerVersionNum(LocalPg.serverVersionNum(admin)),
                    LocalPg.segmentSize(admin), LocalPg.timeline(admin), start, initEnd, end, filter, source, seedState,
                    values, boot.shadow().redoLsn(), shadowBoot);
            run(o, s, expected, heap);
        } finally {
            closeQuietly(loaderConn);
            closeQuietly(db);
            closeQuietly(slotConn); // drops the temporary slot
            if (dbCreated && !o.keep) {
                LocalPg.exec(admin, "DROP DATABASE IF EXISTS " + BENCH_DB);
            }
            admin.close();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Workload
    // ------------------------------------------------------------------------------------------------

    private static Connection connectBench() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", LocalPg.user());
        p.setProperty("password", LocalPg.password());
        return DriverManager.getConnection("jdbc:postgresql://" + LocalPg.host() + ":" + LocalPg.port() + "/" + BENCH_DB, p);
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                System.err.println("[bench] closing a connection: " + e.getMessage());
            }
        }
    }

    /** pgbench -i and a pgbench run; returns the insert position between the two. */
    private static long generate(Connection db, Options o) throws Exception {
        long before = LocalPg.currentLsn(db);
        long t0 = System.nanoTime();
        pgbench("-i", "-q", "-s", String.valueOf(o.scale));
        long afterInit = LocalPg.currentLsn(db);
        List<String> run = new ArrayList<>(List.of("-n", "-c", String.valueOf(o.clients), "-j", String.valueOf(o.clients)));
        if (o.seconds > 0) {
            run.addAll(List.of("-T", String.valueOf(o.seconds)));
        } else {
            run.addAll(List.of("-t", String.valueOf(o.transactions)));
        }
        pgbench(run.toArray(String[]::new));
        long after = LocalPg.currentLsn(db);
        log(String.format(Locale.ROOT,
                "generated %.1f MB of WAL in %.1f s (pgbench -i -s %d: %.1f MB; %d clients x %s: %.1f MB)",
                mb(after - before), (System.nanoTime() - t0) / 1e9, o.scale, mb(afterInit - before), o.clients,
                o.seconds > 0 ? o.seconds + " s" : o.transactions + " transactions", mb(after - afterInit)));
        return afterInit;
    }

    private static void pgbench(String... args) throws IOException, InterruptedException {
        BenchSupport.pgbench(BENCH_DB, args);
    }

    /** What the database says the decoded rows must add up to. */
    record Expected(Map<String, Long> counts, long historyDeltaSum, long branchBalanceSum, long tellerBalanceSum) {
        static Expected query(Connection db, int scale) throws SQLException {
            long h = Long.parseLong(LocalPg.queryString(db, "SELECT count(*) FROM pgbench_history"));
            Map<String, Long> c = new TreeMap<>();
            c.put("public.pgbench_accounts INSERT", 100000L * scale);
            c.put("public.pgbench_accounts UPDATE", h);
            c.put("public.pgbench_branches INSERT", (long) scale);
            c.put("public.pgbench_branches UPDATE", h);
            c.put("public.pgbench_history INSERT", h);
            c.put("public.pgbench_tellers INSERT", 10L * scale);
            c.put("public.pgbench_tellers UPDATE", h);
            return new Expected(c,
                    Long.parseLong(LocalPg.queryString(db, "SELECT coalesce(sum(delta), 0) FROM pgbench_history")),
                    Long.parseLong(LocalPg.queryString(db, "SELECT sum(bbalance) FROM pgbench_branches")),
                    Long.parseLong(LocalPg.queryString(db, "SELECT sum(tbalance) FROM pgbench_tellers")));
        }

        long rows() {
            return counts.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Measurement
    // ------------------------------------------------------------------------------------------------

    record Setup(Path dir, WalFormat format, int segSize, int tli, long start, long initEnd, long end,
                 CatalogFilter filter, TimedSource source, byte[] seedState, ValueDecoder values, long redo,
                 byte[] shadowBoot) {
        WalSegmentReader reader() {
            return new WalSegmentReader(dir, format, segSize, tli, start, end);
        }

        /** From the shadow's redo point: it learns the catalog pages the stream touches from there. */
        WalSegmentReader readerFromRedo() {
            return new WalSegmentReader(dir, format, segSize, tli, Long.compareUnsigned(redo, start) < 0 ? redo : start,
                    end);
        }
    }

    /** A catalog source that counts its loads and their time (SQL round trips inside the decode pass). */
    static final class TimedSource implements CatalogSource {
        private final CatalogSource inner;
        long loads;
        long nanos;

        TimedSource(CatalogSource inner) {
            this.inner = inner;
        }

        @Override
        public CatalogSnapshot load(Set<Integer> relOids, boolean allIncluded)
                throws io.walshadow.catalog.CatalogReadException {
            long t0 = System.nanoTime();
            try {
                return inner.load(relOids, allIncluded);
            } finally {
                nanos += System.nanoTime() - t0;
                loads++;
            }
        }

        @Override
        public CatalogSource withFilter(io.walshadow.catalog.CatalogFilter filter) {
            return new TimedSource(inner.withFilter(filter));
        }
    }

    /**
     * One pass over the range. {@code rows}/{@code values}: row changes and non-null values decoded (0 for parse);
     * {@code init*}: the part before the end of {@code pgbench -i}; {@code catalog*}: loads of the live catalog.
     */
    record Pass(long records, long bytes, long fpiBytes, long rows, long values, long wallNanos, long cpuNanos,
                long initRecords, long initRows, long initWallNanos, long initCpuNanos, long catalogLoads,
                long catalogNanos, long gcNanos, long maxDeferredRecords, long maxDeferredBytes,
                long lastEnd) {
    }

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private static Pass parsePass(Setup s) throws IOException {
        long records = 0;
        long bytes = 0;
        long fpi = 0;
        long lastEnd = 0;
        long initRecords = -1;
        long initWall = 0;
        long initCpu = 0;
        long gc0 = gcNanos();
        long c0 = OS.getProcessCpuTime();
        long t0 = System.nanoTime();
        try (WalSegmentReader r = s.reader()) {
            for (XLogRecord rec; (rec = r.next()) != null; ) {
                if (initRecords < 0 && Long.compareUnsigned(rec.lsn(), s.initEnd) >= 0) {
                    initRecords = records;
                    initWall = System.nanoTime() - t0;
                    initCpu = OS.getProcessCpuTime() - c0;
                }
                records++;
                bytes += rec.totalLength();
                fpi += rec.fpiLength();
                lastEnd = rec.endLsn();
            }
        }
        long dt = System.nanoTime() - t0;
        long dc = OS.getProcessCpuTime() - c0;
        return new Pass(records, bytes, fpi, 0, 0, dt, dc, initRecords, 0, initWall, initCpu, 0, 0, gcNanos() - gc0,
                0, 0, lastEnd);
    }

    /** A tracker in the seeded catalog state (built outside the timed region). */
    private static CatalogTracker freshTracker(Setup s) throws IOException {
        return CatalogTracker.restore(s.filter, s.source, CatalogHistorySerializer.fromBytes(s.seedState));
    }

    private static WalChangeDecoder freshDecoder(Setup s) throws IOException {
        return new WalChangeDecoder(freshTracker(s), new RowDecoder(s.values));
    }

    /** A decoder following the catalog from the WAL, from the bootstrap (built outside the timed region). */
    private static WalChangeDecoder freshShadowDecoder(Setup s) throws IOException {
        ShadowCatalog shadow = ShadowCatalogSerializer.fromCompressed(s.shadowBoot);
        return new WalChangeDecoder(CatalogTracker.seedAt(s.filter, new ShadowCatalogSource(shadow, s.filter),
                shadow.dbOid(), shadow.startLsn()), new RowDecoder(s.values), shadow);
    }

    private static Pass decodePass(Setup s, WalChangeDecoder dec, Verifier verify) throws Exception {
        Map<Integer, List<DeferredRecord>> deferred = new HashMap<>();
        long records = 0;
        long bytes = 0;
        long rows = 0;
        long values = 0;
        long lastEnd = 0;
        long initRecords = -1;
        long initRows = 0;
        long initWall = 0;
        long initCpu = 0;
        long deferredRecords = 0;
        long deferredBytes = 0;
        long maxDeferred = 0;
        long maxDeferredBytes = 0;
        long loads0 = s.source.loads;
        long sql0 = s.source.nanos;
        long gc0 = gcNanos();
        long c0 = OS.getProcessCpuTime();
        long t0 = System.nanoTime();
        try (WalSegmentReader r = dec.shadow() != null ? s.readerFromRedo() : s.reader()) {
            for (XLogRecord rec; (rec = r.next()) != null; ) {
                if (Long.compareUnsigned(rec.lsn(), s.start) < 0) {
                    dec.decode(rec); // the shadow's way from its redo point to the range (not counted)
                    continue;
                }
                if (initRecords < 0 && Long.compareUnsigned(rec.lsn(), s.initEnd) >= 0) {
                    initRecords = records;
                    initRows = rows;
                    initWall = System.nanoTime() - t0;
                    initCpu = OS.getProcessCpuTime() - c0;
                }
                records++;
                bytes += rec.totalLength();
                lastEnd = rec.endLsn();
                List<ChangeEvent> events = dec.decode(rec);
                for (int i = 0, n = events.size(); i < n; i++) {
                    ChangeEvent e = events.get(i);
                    if (e instanceof RowChange c) {
                        rows++;
                        values += consume(c, verify);
                    } else if (e instanceof DeferredRecord d) {
                        deferred.computeIfAbsent(d.xid(), k -> new ArrayList<>()).add(d);
                        deferredRecords++;
                        deferredBytes += d.record().totalLength();
                        if (deferredBytes > maxDeferredBytes) {
                            maxDeferredBytes = deferredBytes;
                            maxDeferred = Math.max(maxDeferred, deferredRecords);
                        }
                    } else if (e instanceof XactEvent x && !deferred.isEmpty()) {
                        List<DeferredRecord> done = List.of();
                        if (x.xact() instanceof XactCommit c) {
                            done = takeDeferred(deferred, c.allXids());
                            for (DeferredRecord d : done) {
                                for (ChangeEvent ce : dec.decodeDeferred(d, c.lsn())) {
                                    if (!(ce instanceof RowChange rc)) {
                                        continue;
                                    }
                                    rows++;
                                    values += consume(rc, verify);
                                }
                            }
                        } else if (x.xact() instanceof XactAbort a) {
                            done = takeDeferred(deferred, a.allXids());
                        }
                        for (DeferredRecord d : done) {
                            deferredRecords--;
                            deferredBytes -= d.record().totalLength();
                        }
                    } else if (e instanceof TruncateChange t && verify != null) {
                        verify.truncates++;
                    }
                }
            }
        }
        long dt = System.nanoTime() - t0;
        long dc = OS.getProcessCpuTime() - c0;
        if (!deferred.isEmpty()) {
            log("warning: " + deferred.size() + " transactions with deferred records did not end in the range");
        }
        return new Pass(records, bytes, 0, rows, values, dt, dc, initRecords, initRows, initWall, initCpu,
                s.source.loads - loads0, s.source.nanos - sql0, gcNanos() - gc0, maxDeferred,
                maxDeferredBytes, lastEnd);
    }

    /** The deferred records of these xids (a transaction and its subtransactions), in WAL order. */
    private static List<DeferredRecord> takeDeferred(Map<Integer, List<DeferredRecord>> deferred, XidList xids) {
        List<DeferredRecord> out = null;
        int lists = 0;
        for (int i = 0; i < xids.size(); i++) {
            List<DeferredRecord> l = deferred.remove(xids.getInt(i));
            if (l != null) {
                lists++;
                if (out == null) {
                    out = l;
                } else {
                    out.addAll(l);
                }
            }
        }
        if (out == null) {
            return List.of();
        }
        if (lists > 1) {
            out.sort((a, b) -> Long.compareUnsigned(a.lsn(), b.lsn()));
        }
        return out;
    }

    /** Uses the row's values (so that nothing is optimised away): counts the non-null ones. */
    private static int consume(RowChange c, Verifier verify) {
        int n = nonNull(c.newValues()) + nonNull(c.oldValues());
        if (verify != null) {
            verify.row(c);
        }
        return n;
    }

    private static int nonNull(Object[] v) {
        if (v == null) {
            return 0;
        }
        int n = 0;
        for (Object o : v) {
            if (o != null) {
                n++;
            }
        }
        return n;
    }

    /** Checks the first decode pass against the database. */
    static final class Verifier {
        final Map<String, Long> counts = new TreeMap<>();
        final Map<Integer, Long> branchBalance = new HashMap<>();
        final Map<Integer, Long> tellerBalance = new HashMap<>();
        long historyDelta;
        long truncates;

        void row(RowChange c) {
            RelationDescriptor d = c.descriptor();
            counts.merge(d.qualifiedName() + " " + c.op(), 1L, Long::sum);
            Object[] v = c.newValues();
            switch (d.name()) {
                case "pgbench_branches" -> branchBalance.put(intValue(d, v, "bid"), (long) intValue(d, v, "bbalance"));
                case "pgbench_tellers" -> tellerBalance.put(intValue(d, v, "tid"), (long) intValue(d, v, "tbalance"));
                case "pgbench_history" -> historyDelta += intValue(d, v, "delta");
                default -> { }
            }
        }

        private static int intValue(RelationDescriptor d, Object[] v, String column) {
            for (Column col : d.columns()) {
                if (col.name().equals(column)) {
                    return ((Number) v[col.attnum() - 1]).intValue();
                }
            }
            throw new IllegalStateException(d.qualifiedName() + " has no column " + column);
        }

        void check(Expected e, Pass p, WalChangeDecoder dec) {
            List<String> problems = new ArrayList<>();
            if (!counts.equals(e.counts)) {
                problems.add("row changes per table and operation: decoded " + counts + ", expected " + e.counts);
            }
            long bSum = branchBalance.values().stream().mapToLong(Long::longValue).sum();
            long tSum = tellerBalance.values().stream().mapToLong(Long::longValue).sum();
            if (historyDelta != e.historyDeltaSum) {
                problems.add("sum(pgbench_history.delta): decoded " + historyDelta + ", database " + e.historyDeltaSum);
            }
            if (bSum != e.branchBalanceSum) {
                problems.add("sum of the last bbalance per branch: decoded " + bSum + ", database " + e.branchBalanceSum);
            }
            if (tSum != e.tellerBalanceSum) {
                problems.add("sum of the last tbalance per teller: decoded " + tSum + ", database " + e.tellerBalanceSum);
            }
            if (dec.counters().rowChanges != p.rows()) {
                problems.add("decoder counted " + dec.counters().rowChanges + " row changes, the benchmark " + p.rows());
            }
            if (!problems.isEmpty()) {
                throw new IllegalStateException("decoded rows do not match the database:\n  "
                        + String.join("\n  ", problems));
            }
            log(String.format(Locale.ROOT, "verified: %d row changes %s; sum(delta) %d, sum(bbalance) %d, sum(tbalance) %d;"
                    + " %d TRUNCATE events", p.rows(), counts, historyDelta, bSum, tSum, truncates));
        }
    }

    /** Median per-pass figures of one side over the rounds; heap figures from one more, untimed pass. */
    record Summary(Pass median, long peakHeap, long maxAfterGc) {}

    private static void run(Options o, Setup s, Expected expected, HeapWatch heap) throws Exception {
        double rangeMb = mb(s.end - s.start);
        loadAtStart = OS.getSystemLoadAverage();
        log(String.format(Locale.ROOT, "PostgreSQL %d WAL, range %s .. %s on timeline %d: %.1f MB (pgbench -i up to %s),"
                        + " in %s", s.format.major, Lsn.format(s.start), Lsn.format(s.end), s.tli, rangeMb, Lsn.format(s.initEnd), s.dir));
        log(String.format(Locale.ROOT, "JVM %s %s, %d CPUs, max heap %.0f MB, load average %.1f",
                System.getProperty("java.vm.name"), System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), mb(Runtime.getRuntime().maxMemory()),
                OS.getSystemLoadAverage()));

        // Warm-up: the page cache for both, the JIT for both. The first decode pass is checked against the database.
        Pass parse = null;
        Pass decode = null;
        // At least --warmup passes of each and --warmup-seconds in all: the decode path has many methods to compile,
        // and the heap grows to its working size.
        long warmStart = System.nanoTime();
        for (int i = 0; i < Math.max(1, o.warmup)
                || (System.nanoTime() - warmStart < o.warmupSeconds * 1e9 && i < 100); i++) {
            parse = parsePass(s);
            CatalogTracker tracker = freshTracker(s);
            WalChangeDecoder dec = new WalChangeDecoder(tracker, new RowDecoder(s.values));
            Verifier v = i == 0 ? new Verifier() : null;
            decode = decodePass(s, dec, v);
            if (v != null) {
                if (decode.records != parse.records || decode.bytes != parse.bytes) {
                    throw new IllegalStateException("the passes read different records: " + parse + " vs " + decode);
                }
                if (Long.compareUnsigned(parse.lastEnd, s.end) < 0 && s.end - parse.lastEnd > XLogStreamReader.BLCKSZ) {
                    throw new IllegalStateException("the reader stopped at " + Lsn.format(parse.lastEnd) + ", before "
                            + Lsn.format(s.end));
                }
                v.check(expected, decode, dec);
                log("decoder counters: " + dec.counters().asMap() + "; relfilenodes pending as created at the end: "
                        + dec.pendingCreated().size());
                log("catalog counters: " + tracker.counters() + "; " + dec.history().versionCount()
                        + " descriptor versions");
            }
            WalChangeDecoder wdec = freshShadowDecoder(s);
            Verifier wv = i == 0 ? new Verifier() : null;
            Pass wal = decodePass(s, wdec, wv);
            if (wv != null) {
                wv.check(expected, wal, wdec);
                log("catalog from the WAL: shadow counters " + wdec.shadow().counters() + ", "
                        + wdec.shadow().tuplesHeld() + " catalog tuples; " + wdec.history().versionCount()
                        + " descriptor versions");
            }
            log(String.format(Locale.ROOT, "warm-up %d: parse %.3f s, parse+decode %.3f s (%d catalog loads, %.3f s),"
                    + " parse+decode with the catalog from the WAL %.3f s", i + 1, parse.wallNanos / 1e9,
                    decode.wallNanos / 1e9, decode.catalogLoads, decode.catalogNanos / 1e9, wal.wallNanos / 1e9));
        }
        long n = parse.records;

        int passes = (int) Math.max(1, Math.ceil(o.roundSeconds * 1e9 / Math.max(1, parse.wallNanos)));
        if (passes > 1) {
            log("each round reads the range " + passes + " times per side; figures are per pass");
        }
        List<Pass> tP = new ArrayList<>();
        List<Pass> tD = new ArrayList<>();
        List<Pass> tW = new ArrayList<>();
        for (int r = 0; r < o.rounds; r++) {
            // Rotate which one goes first, so none always follows another's cache/CPU/GC state.
            Pass p = null;
            Pass d = null;
            Pass w = null;
            for (int k = 0; k < 3; k++) {
                switch ((r + k) % 3) {
                    case 0 -> p = timeParse(s, passes);
                    case 1 -> d = timeDecode(s, passes, false);
                    default -> w = timeDecode(s, passes, true);
                }
            }
            if (p.records != n || d.records != n || d.rows != expected.rows() || w.records != n
                    || w.rows != expected.rows()) {
                throw new IllegalStateException("round " + (r + 1) + " read different figures: " + p + " / " + d
                        + " / " + w);
            }
            tP.add(p);
            tD.add(d);
            tW.add(w);
            log(String.format(Locale.ROOT, "round %d: parse %.3f s (cpu %.3f s), parse+decode %.3f s (cpu %.3f s,"
                            + " gc %.3f s, %d catalog loads %.3f s), catalog from the WAL %.3f s (cpu %.3f s)", r + 1,
                    p.wallNanos / 1e9, p.cpuNanos / 1e9, d.wallNanos / 1e9, d.cpuNanos / 1e9, d.gcNanos / 1e9,
                    d.catalogLoads, d.catalogNanos / 1e9, w.wallNanos / 1e9, w.cpuNanos / 1e9));
        }
        // Heap: one more pass of each, untimed, each from a collected heap. Not in the timed passes: a System.gc()
        // lets the JVM shrink the heap, and re-committing it made the following pass several times slower.
        long[] heapP = new long[2];
        long[] heapD = new long[2];
        heap.begin();
        parsePass(s);
        heap.end(heapP);
        WalChangeDecoder forHeap = freshDecoder(s);
        heap.begin();
        decodePass(s, forHeap, null);
        heap.end(heapD);
        long[] heapW = new long[2];
        WalChangeDecoder forHeapW = freshShadowDecoder(s);
        heap.begin();
        decodePass(s, forHeapW, null);
        heap.end(heapW);
        Summary sp = new Summary(median(tP), heapP[0], heapP[1]);
        Summary sd = new Summary(median(tD), heapD[0], heapD[1]);
        Summary sw = new Summary(median(tW), heapW[0], heapW[1]);
        report(o, s, n, sp, sd, rangeMb);
        Pass d = sd.median;
        Pass w = sw.median;
        double walMb = mb(sp.median.bytes);
        System.out.printf(Locale.ROOT, "%-13s %8d %8d %8.3f %11.0f %10.0f %7.1f | %7.3f %11.0f %10.0f %7.1f | %6.0f MB %6.0f MB"
                        + "  (catalog from the WAL)%n", "parse+decode", n, w.rows, w.wallNanos / 1e9,
                n / (w.wallNanos / 1e9), w.rows / (w.wallNanos / 1e9), walMb / (w.wallNanos / 1e9), w.cpuNanos / 1e9,
                n / (w.cpuNanos / 1e9), w.rows / (w.cpuNanos / 1e9), walMb / (w.cpuNanos / 1e9), mb(sw.peakHeap),
                mb(sw.maxAfterGc));
        System.out.printf(Locale.ROOT, "ratio catalog from the WAL / live catalog (rows/s): %.3fx wall-clock, %.3fx CPU"
                + " time (catalog shadow: %d tuples after the run)%n", (double) d.wallNanos / w.wallNanos,
                (double) d.cpuNanos / w.cpuNanos, forHeapW.shadow().tuplesHeld());

        if (o.jfr != null) {
            profile(o.jfr, s, passes);
        }
    }

    private static Pass timeParse(Setup s, int passes) throws Exception {
        List<Pass> ps = new ArrayList<>();
        for (int i = 0; i < passes; i++) {
            ps.add(parsePass(s));
        }
        return average(ps);
    }

    private static Pass timeDecode(Setup s, int passes, boolean catalogFromWal) throws Exception {
        WalChangeDecoder[] decs = new WalChangeDecoder[passes];
        for (int i = 0; i < passes; i++) {
            decs[i] = catalogFromWal ? freshShadowDecoder(s) : freshDecoder(s);
        }
        List<Pass> ps = new ArrayList<>();
        for (int i = 0; i < passes; i++) {
            ps.add(decodePass(s, decs[i], null));
            decs[i] = null;
        }
        return average(ps);
    }

    /** The system load average when the measured passes began (the machine may be shared: figures come with it). */
    private static double loadAtStart;

    private static void report(Options o, Setup s, long n, Summary sp, Summary sd, double rangeMb) {
        Pass p = sp.median;
        Pass d = sd.median;
        double walMb = mb(p.bytes);
        double wP = p.wallNanos / 1e9;
        double cP = p.cpuNanos / 1e9;
        double wD = d.wallNanos / 1e9;
        double cD = d.cpuNanos / 1e9;
        System.out.println();
        System.out.printf(Locale.ROOT, "Decode benchmark: PostgreSQL %d, %d records, %.1f MB of records (%.1f MB of them"
                + " full-page images; %.1f MB LSN range), %d row changes of the pgbench tables (%d values), medians of %d"
                + " rounds, load average %.1f -> %.1f%n", s.format.major, n, walMb, mb(p.fpiBytes), rangeMb, d.rows,
                d.values, o.rounds, loadAtStart, OS.getSystemLoadAverage());
        System.out.printf(Locale.ROOT, "%-13s %8s %8s %8s %11s %10s %7s | %7s %11s %10s %7s | %9s %9s%n", "", "records",
                "rows", "wall s", "records/s", "rows/s", "MB/s", "cpu s", "records/s", "rows/s", "MB/s", "peak heap",
                "after GC");
        System.out.printf(Locale.ROOT, "%-13s %8d %8s %8.3f %11.0f %10s %7.1f | %7.3f %11.0f %10s %7.1f | %6.0f MB %6.0f MB%n",
                "parse", n, "-", wP, n / wP, "-", walMb / wP, cP, n / cP, "-", walMb / cP, mb(sp.peakHeap),
                mb(sp.maxAfterGc));
        System.out.printf(Locale.ROOT, "%-13s %8d %8d %8.3f %11.0f %10.0f %7.1f | %7.3f %11.0f %10.0f %7.1f | %6.0f MB %6.0f MB%n",
                "parse+decode", n, d.rows, wD, n / wD, d.rows / wD, walMb / wD, cD, n / cD, d.rows / cD, walMb / cD,
                mb(sd.peakHeap), mb(sd.maxAfterGc));
        System.out.printf(Locale.ROOT, "ratio parse+decode/parse (records/s): %.2fx wall-clock, %.2fx CPU time%n",
                wP / wD, cP / cD);

        // By phase: the COPY of pgbench -i (few, large MULTI_INSERT records) and the TPC-B run (many small records).
        // Each phase's time is its own median over the rounds (the run's: the pass's median minus the COPY's).
        System.out.printf(Locale.ROOT, "%-13s %8s %8s %11s %11s %10s %7s | %11s %11s %10s %7s%n", "by phase", "records", "rows",
                "parse r/s", "decode r/s", "rows/s", "ratio", "parse r/s", "decode r/s", "rows/s", "ratio");
        phase("pgbench -i", p.initRecords, d.initRows, p.initWallNanos, d.initWallNanos, p.initCpuNanos, d.initCpuNanos);
        phase("pgbench run", n - p.initRecords, d.rows - d.initRows, p.wallNanos - p.initWallNanos,
                d.wallNanos - d.initWallNanos, p.cpuNanos - p.initCpuNanos, d.cpuNanos - d.initCpuNanos);
        System.out.printf(Locale.ROOT, "parse+decode per pass: %d catalog loads taking %.3f s (SQL, in the wall time), GC %.3f s;"
                        + " parse: GC %.3f s%n", d.catalogLoads, d.catalogNanos / 1e9, d.gcNanos / 1e9, p.gcNanos / 1e9);
        System.out.printf(Locale.ROOT, "deferred to their commit: %d records, %.1f MB of records at most (held until the"
                + " commit: pgbench -i's COPY into the relfilenodes its TRUNCATE created)%n", d.maxDeferredRecords,
                mb(d.maxDeferredBytes));
        System.out.println("(MB: the records' bytes, xl_tot_len summed. Rows: row changes (INSERT, UPDATE, ...) decoded into"
                + " typed values. cpu: the JVM's CPU time over the pass, GC and JIT included. Peak heap: the most heap in use"
                + " (before any GC, and at the end) during one more, untimed pass that starts after a System.gc(); after GC: the"
                + " most heap in use right after a collection in that pass (live data plus old-generation garbage not yet"
                + " collected). By phase: wall-clock | CPU time, split at the end of pgbench -i.)");
    }

    private static void phase(String name, long records, long rows, long wallP, long wallD, long cpuP, long cpuD) {
        System.out.printf(Locale.ROOT, "%-13s %8d %8d %11.0f %11.0f %10.0f %6.2fx | %11.0f %11.0f %10.0f %6.2fx%n", name,
                records, rows, records / (wallP / 1e9), records / (wallD / 1e9), rows / (wallD / 1e9), (double) wallP / wallD,
                records / (cpuP / 1e9), records / (cpuD / 1e9), rows / (cpuD / 1e9), (double) cpuP / cpuD);
    }

    /** Decode passes under a JFR recording ("profile" settings), for about 20 seconds. */
    private static void profile(Path file, Setup s, int passes) throws Exception {
        log("profiling decode passes with JFR into " + file);
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        try (Recording rec = new Recording(Configuration.getConfiguration("profile"))) {
            rec.setName("decode-benchmark");
            rec.start();
            long t0 = System.nanoTime();
            int n = 0;
            do {
                decodePass(s, freshDecoder(s), null);
                n++;
            } while (System.nanoTime() - t0 < 20e9 || n < 2);
            rec.stop();
            rec.dump(file);
            log(n + " decode passes recorded; e.g. jfr print --events jdk.ExecutionSample " + file
                    + ", or jfr summary " + file);
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Heap and GC
    // ------------------------------------------------------------------------------------------------

    private static long gcNanos() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms * 1_000_000;
    }

    /**
     * Peak heap use from the GC pools: every collection reports the pools' use before and after it (the peak is
     * reached just before a collection), and the use at the end of a measurement counts too.
     */
    static final class HeapWatch implements NotificationListener {
        private final Set<String> heapPools = new HashSet<>();
        private final AtomicLong peakBefore = new AtomicLong();
        private final AtomicLong maxAfter = new AtomicLong();
        private final AtomicLong notifications = new AtomicLong();

        static HeapWatch install() {
            HeapWatch w = new HeapWatch();
            for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                if (p.getType() == MemoryType.HEAP) {
                    w.heapPools.add(p.getName());
                }
            }
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (gc instanceof NotificationEmitter e) {
                    e.addNotificationListener(w, null, null);
                }
            }
            return w;
        }

        @Override
        public void handleNotification(Notification n, Object handback) {
            if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                return;
            }
            GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            peakBefore.accumulateAndGet(used(info.getGcInfo().getMemoryUsageBeforeGc()), Math::max);
            maxAfter.accumulateAndGet(used(info.getGcInfo().getMemoryUsageAfterGc()), Math::max);
            notifications.incrementAndGet();
        }

        private long used(Map<String, MemoryUsage> pools) {
            long sum = 0;
            for (Map.Entry<String, MemoryUsage> e : pools.entrySet()) {
                if (heapPools.contains(e.getKey())) {
                    sum += e.getValue().getUsed();
                }
            }
            return sum;
        }

        /** A full GC, then waits for its notification, then starts from the heap in use. */
        void begin() throws InterruptedException {
            long seen = notifications.get();
            System.gc();
            for (int i = 0; i < 100 && notifications.get() == seen; i++) {
                Thread.sleep(10);
            }
            Thread.sleep(20);
            long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            peakBefore.set(now);
            maxAfter.set(now);
        }

        /** Folds this measurement's peak and after-GC maximum into {@code max} ({peak, after GC}). */
        void end(long[] max) throws InterruptedException {
            long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            Thread.sleep(20); // late notifications of collections during the passes
            max[0] = Math.max(max[0], Math.max(peakBefore.get(), now));
            max[1] = Math.max(max[1], maxAfter.get());
        }
    }

    // ------------------------------------------------------------------------------------------------

    private static Pass average(List<Pass> ps) {
        if (ps.size() == 1) {
            return ps.get(0);
        }
        int k = ps.size();
        Pass f = ps.get(0);
        return new Pass(f.records, f.bytes, f.fpiBytes, f.rows, f.values, sum(ps, Pass::wallNanos) / k,
                sum(ps, Pass::cpuNanos) / k,
                f.initRecords, f.initRows, sum(ps, Pass::initWallNanos) / k, sum(ps, Pass::initCpuNanos) / k,
                sum(ps, Pass::catalogLoads) / k,
                sum(ps, Pass::catalogNanos) / k, sum(ps, Pass::gcNanos) / k,
                f.maxDeferredRecords, f.maxDeferredBytes, f.lastEnd);
    }

    private static long sum(List<Pass> ps, ToLongFunction<Pass> f) {
        return ps.stream().mapToLong(f).sum();
    }

    /** Each timing the median of its own (so wall and CPU medians may come from different rounds). */
    private static Pass median(List<Pass> ps) {
        Pass f = ps.get(0);
        return new Pass(f.records, f.bytes, f.fpiBytes, f.rows, f.values, median(ps, Pass::wallNanos),
                median(ps, Pass::cpuNanos),
                f.initRecords, f.initRows, median(ps, Pass::initWallNanos), median(ps, Pass::initCpuNanos),
                median(ps, Pass::catalogLoads),
                median(ps, Pass::catalogNanos), median(ps, Pass::gcNanos),
                f.maxDeferredRecords, f.maxDeferredBytes, f.lastEnd);
    }

    private static long median(List<Pass> ps, ToLongFunction<Pass> f) {
        long[] v = ps.stream().mapToLong(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static double mb(long bytes) {
        return bytes / 1048576.0;
    }

    private static void log(String s) {
        BenchSupport.log(s);
    }

    private static final class Options {
        int scale = 15;
        int transactions = 50000;
        int seconds;
        int clients = 2;
        int rounds = 5;
        int warmup = 2;
        double warmupSeconds = 20;
        double roundSeconds = 1.0;
        Path jfr;
        boolean keep;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--scale" -> o.scale = Integer.parseInt(args[++i]);
                    case "--transactions" -> o.transactions = Integer.parseInt(args[++i]);
                    case "--seconds" -> o.seconds = Integer.parseInt(args[++i]);
                    case "--clients" -> o.clients = Integer.parseInt(args[++i]);
                    case "--rounds" -> o.rounds = Integer.parseInt(args[++i]);
                    case "--warmup" -> o.warmup = Integer.parseInt(args[++i]);
                    case "--warmup-seconds" -> o.warmupSeconds = Double.parseDouble(args[++i]);
                    case "--round-seconds" -> o.roundSeconds = Double.parseDouble(args[++i]);
                    case "--jfr" -> o.jfr = Path.of(args[++i]).toAbsolutePath();
                    case "--keep" -> o.keep = true;
                    default -> throw new IllegalArgumentException("unknown option " + a + " (see the class comment)");
                }
            }
            if (o.rounds < 1 || o.scale < 1 || o.clients < 1) {
                throw new IllegalArgumentException("--rounds, --scale and --clients must be at least 1");
            }
            return o;
        }
    }
}
