package io.walshadow.bench.e2e;

import io.walshadow.testing.LocalPg;
import io.walshadow.wal.Lsn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The workload: pgbench's builtin TPC-B-like script in a scratch database of its own on the local PostgreSQL
 * ({@code deploy/local/stack.sh}). Each committed transaction writes exactly {@value #CHANGES_PER_TRANSACTION} row
 * changes (UPDATE pgbench_accounts, UPDATE pgbench_tellers, UPDATE pgbench_branches, INSERT pgbench_history; its
 * SELECT writes nothing), so the changes a contender must capture are 4 x the rows the run added to
 * pgbench_history, counted in the database after the run (an aborted transaction adds none and writes no change).
 *
 * <p>{@code pgbench -i} (DROP/CREATE TABLE, COPY) runs before any contender's slot exists: it is set-up, not
 * captured (a publication lists tables, which {@code pgbench -i} would drop and re-create). The run uses {@code -n}:
 * pgbench's default pre-run VACUUM would also TRUNCATE pgbench_history, a change in the captured range.
 */
final class PgbenchWorkload {
    static final String DB = "walshadow_bench_e2e";
    static final int CHANGES_PER_TRANSACTION = 4;
    static final List<String> TABLES = List.of("public.pgbench_accounts", "public.pgbench_branches",
            "public.pgbench_tellers", "public.pgbench_history");

    /** One pgbench run: committed transactions, the row changes they wrote, the WAL they took, its wall time. */
    record Run(long transactions, long changes, long walBytes, double seconds) {}

    private final Source source;
    private final Connection db;

    private PgbenchWorkload(Source source, Connection db) {
        this.source = source;
        this.db = db;
    }

    /**
     * (Re)creates the scratch database and loads it with {@code pgbench -i -s scale}. Leftover slots of an
     * interrupted run are dropped first (a logical slot on the old database would keep DROP DATABASE from working).
     */
    static PgbenchWorkload create(int scale) throws Exception {
        Source.freshDatabase(DB, "slot_name LIKE '" + Source.SLOT_PREFIX.replace("_", "\\_") + "%'");
        Source source = new Source(LocalPg.host(), LocalPg.port(), LocalPg.user(), LocalPg.password(), DB, TABLES);
        PgbenchWorkload w = new PgbenchWorkload(source, source.connect());
        long t0 = System.nanoTime();
        w.pgbench(List.of("-i", "-q", "-s", String.valueOf(scale)));
        E2eBenchmark.log(String.format(Locale.ROOT, "pgbench -i -s %d: %d accounts in %.1f s", scale, 100_000L * scale,
                (System.nanoTime() - t0) / 1e9));
        return w;
    }

    Source source() {
        return source;
    }

    /**
     * Runs {@code transactions} TPC-B-like transactions (rounded up to a multiple of {@code clients}) over
     * {@code clients} connections; at {@code rate} transactions per second in all ({@code pgbench -R}) when
     * positive, as fast as possible otherwise.
     */
    Run run(long transactions, int clients, double rate) throws Exception {
        long perClient = (transactions + clients - 1) / clients;
        List<String> args = new ArrayList<>(List.of("-n", "-c", String.valueOf(clients), "-j", String.valueOf(clients),
                "-t", String.valueOf(perClient)));
        if (rate > 0) {
            args.addAll(List.of("-R", String.format(Locale.ROOT, "%.3f", rate)));
        }
        long before = historyRows();
        long lsn0 = LocalPg.currentLsn(db);
        long t0 = System.nanoTime();
        pgbench(args);
        double seconds = (System.nanoTime() - t0) / 1e9;
        long lsn1 = LocalPg.currentLsn(db);
        long committed = historyRows() - before;
        if (committed != perClient * clients) {
            E2eBenchmark.log("note: " + committed + " of " + perClient * clients + " transactions committed");
        }
        Run r = new Run(committed, committed * CHANGES_PER_TRANSACTION, lsn1 - lsn0, seconds);
        E2eBenchmark.log(String.format(Locale.ROOT, "workload: %d transactions, %d row changes, %.1f MB of WAL (%s..%s)"
                + " in %.1f s", r.transactions, r.changes, r.walBytes / 1048576.0, Lsn.format(lsn0), Lsn.format(lsn1),
                seconds));
        return r;
    }

    /**
     * One transaction of one row change (a no-op UPDATE of a branch), so that a live contender can show it is
     * streaming before the measured run starts. Returns the changes it wrote.
     */
    int probe() throws SQLException {
        try (Statement st = db.createStatement()) {
            st.executeUpdate("UPDATE pgbench_branches SET bbalance = bbalance WHERE bid = 1");
        }
        return 1;
    }

    private long historyRows() throws SQLException {
        return Long.parseLong(LocalPg.queryString(db, "SELECT count(*) FROM pgbench_history"));
    }

    /** Drops the scratch database (after every slot on it is gone). */
    void drop() throws SQLException {
        db.close();
        try (Connection admin = LocalPg.connect()) {
            LocalPg.exec(admin, "DROP DATABASE IF EXISTS " + DB);
        }
    }

    void close() throws SQLException {
        db.close();
    }

    private void pgbench(List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(LocalPg.bin("pgbench").toString(), "-h", source.host(),
                "-p", String.valueOf(source.port()), "-U", source.user()));
        cmd.addAll(args);
        cmd.add(DB);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PGPASSWORD", source.password());
        E2eBenchmark.log("$ " + String.join(" ", cmd));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("pgbench failed:\n" + out);
        }
        for (String line : out.split("\n")) {
            if (line.startsWith("tps") || line.startsWith("number of transactions actually")
                    || line.startsWith("latency average") || line.startsWith("rate limit schedule lag")) {
                E2eBenchmark.log("  " + line.trim());
            }
        }
    }
}
