package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.testing.LocalClickHouse;
import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A transaction that writes several tables becomes visible in ClickHouse all at once for a reader that reads a
 * consistent cut: every transaction inserts row i into {@code a} and into {@code b} and increments {@code counter};
 * a reader polling while the job runs must never see the three disagree.
 * <ul>
 *   <li>Staged visibility ({@code clickhouse.visibility checkpoint}), read at the committed watermark with FINAL
 *       (docs/clickhouse.md, "A consistent cut").
 *   <li>Rows visible at commit (the default), where the tables run ahead of any watermark table by table: read
 *       through the {@code __consistent} views, which cut at {@code _walshadow_visible}.
 * </ul>
 */
class AtomicVisibilityIT {
    /** One read of the three tables: {cut, a, b, counter}, or null when the cut moved during the read. */
    private interface Read {
        String[] read(ClickHouseConnection ch) throws Exception;
    }

    @Test
    void multiTableTransactionsAppearAtomically() throws Exception {
        try (E2e e = new E2e("e2e_atomic")) {
            String s = e.schema;
            String db = "`" + e.chDatabase + "`.";
            String wm = "SELECT committed_batch, commit_seq, commit_in_progress FROM " + db
                    + "`_walshadow_committed` WHERE sink = '" + e.slot + "'";
            run(e, "--clickhouse.visibility", "checkpoint", false, ch -> {
                String[] before = ch.queryTsv(wm).get(0);
                String a = ch.queryString("SELECT count() FROM " + db + "`" + s + "__a` FINAL WHERE _is_deleted = 0");
                String b = ch.queryString("SELECT count() FROM " + db + "`" + s + "__b` FINAL WHERE _is_deleted = 0");
                String n = ch.queryString("SELECT n FROM " + db + "`" + s + "__counter` FINAL WHERE _is_deleted = 0");
                String[] after = ch.queryTsv(wm).get(0);
                if (!String.join(",", before).equals(String.join(",", after)) || "1".equals(after[2])) {
                    return null; // a commit ran during the read: read again
                }
                return new String[] {after[1], a, b, n};
            });
        }
    }

    @Test
    void consistentViewsAtTheDefault() throws Exception {
        try (E2e e = new E2e("e2e_atomic_views")) {
            String s = e.schema;
            String db = "`" + e.chDatabase + "`.";
            String mark = "SELECT max(commit_lsn) FROM " + db + "`_walshadow_visible` WHERE sink = '" + e.slot + "'";
            run(e, null, null, true, ch -> {
                String before = ch.queryString(mark);
                String a = ch.queryString("SELECT count() FROM " + db + "`" + s + "__a__consistent`");
                String b = ch.queryString("SELECT count() FROM " + db + "`" + s + "__b__consistent`");
                String n = ch.queryString("SELECT n FROM " + db + "`" + s + "__counter__consistent`");
                // each view reads the mark as its query starts: the same mark before and after, the same cut
                if (n == null && !"0".equals(ch.queryString("SELECT count() FROM " + db + "`" + s + "__counter`"
                        + " WHERE _commit_lsn <= " + before))) {
                    n = "missing, though the table holds a version at or below the cut"; // not a merge's doing
                }
                return before.equals(ch.queryString(mark)) ? new String[] {before, a, b, n} : null;
            });
            // caught up: the views show what PostgreSQL has
            assertEquals(LocalPg.queryString(e.pg, "SELECT count(*) || '/' || sum(length(v)) FROM " + s + ".a"),
                    e.ch.queryString("SELECT toString(count()) || '/' || toString(sum(length(v))) FROM " + db + "`"
                            + s + "__a__consistent`"));
        }
    }

    /**
     * Starts the job, writes for 15 s while reading, and checks every read saw whole transactions.
     *
     * @param hotKeyMayFold the reader cuts below the newest versions: a merge may have folded the counter's version
     *     at the cut into a newer one, so the counter may be missing (docs/clickhouse.md), never wrong
     */
    private static void run(E2e e, String option, String value, boolean hotKeyMayFold, Read read)
            throws Exception {
        String s = e.schema;
        LocalPg.exec(e.pg, "CREATE TABLE " + s + ".a (id int PRIMARY KEY, v text)",
                "CREATE TABLE " + s + ".b (id int PRIMARY KEY, v text)",
                "CREATE TABLE " + s + ".counter (k int PRIMARY KEY, n bigint NOT NULL)",
                "INSERT INTO " + s + ".counter VALUES (1, 0)");
        if (option == null) {
            e.start();
        } else {
            e.start(option, value);
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<String> violations = new ArrayList<>();
        Set<String> cuts = new HashSet<>();
        int[] discarded = {0};
        int[] folded = {0};
        Thread reader = new Thread(() -> {
            try (ClickHouseConnection ch = new ClickHouseConnection(LocalClickHouse.url(), LocalClickHouse.user(),
                    LocalClickHouse.password(), e.chDatabase)) {
                String tables = "SELECT count() FROM system.tables WHERE database = '" + e.chDatabase
                        + "' AND name IN ('" + s + "__a', '" + s + "__b', '" + s + "__counter')";
                while (!stop.get()) {
                    if (!"3".equals(ch.queryString(tables))) {
                        Thread.sleep(20); // the sink creates a table with its first row
                        continue;
                    }
                    String[] r = read.read(ch);
                    if (r == null) {
                        discarded[0]++;
                        continue;
                    }
                    cuts.add(r[0]);
                    if (r[3] == null && hotKeyMayFold && !r[1].equals("0")) {
                        folded[0]++;
                        r[3] = r[1];
                    }
                    if (!r[1].equals(r[2]) || !r[1].equals(r[3] == null ? "0" : r[3])) {
                        violations.add("at " + r[0] + ": a=" + r[1] + " b=" + r[2] + " counter=" + r[3]);
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "consistent-reader");
        reader.start();
        int transactions = 0;
        try (Connection c = LocalPg.connect(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            long end = System.currentTimeMillis() + 15_000;
            for (int i = 1; System.currentTimeMillis() < end; i++, transactions++) {
                st.execute("INSERT INTO " + s + ".a VALUES (" + i + ", 'a')");
                st.execute("UPDATE " + s + ".counter SET n = n + 1");
                st.execute("INSERT INTO " + s + ".b VALUES (" + i + ", 'b')");
                c.commit();
            }
        }
        e.awaitCaughtUp(Duration.ofSeconds(120));
        stop.set(true);
        reader.join();
        if (failure.get() != null) {
            throw new AssertionError("reader failed", failure.get());
        }
        assertEquals(List.of(), violations, "partially visible transactions");
        assertTrue(cuts.size() >= 3, "consistent reads at " + cuts.size() + " distinct cuts (" + discarded[0]
                + " reads retried)");
        e.assertAllTablesEqual();
        System.out.println("atomic visibility: " + transactions + " transactions in 15 s; consistent reads at "
                + cuts.size() + " cuts, " + discarded[0]
                + " retried because the cut moved meanwhile, " + folded[0]
                + " without the counter (folded by a merge)");
    }
}
