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
 * A transaction that writes several tables becomes visible in ClickHouse all at once for a reader that reads at
 * the committed watermark (docs/clickhouse.md, "A consistent cut"): every transaction inserts row i into {@code a}
 * and into {@code b} and increments {@code counter}; a reader polling while the job runs must never see the three
 * disagree. Staged visibility ({@code clickhouse.visibility checkpoint}): with rows visible at commit, the tables
 * run ahead of the watermark by design, table by table.
 */
class AtomicVisibilityIT {
    @Test
    void multiTableTransactionsAppearAtomically() throws Exception {
        try (E2e e = new E2e("e2e_atomic")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".a (id int PRIMARY KEY, v text)",
                    "CREATE TABLE " + s + ".b (id int PRIMARY KEY, v text)",
                    "CREATE TABLE " + s + ".counter (k int PRIMARY KEY, n bigint NOT NULL)",
                    "INSERT INTO " + s + ".counter VALUES (1, 0)");
            e.start("--clickhouse.visibility", "checkpoint");
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<String> violations = new ArrayList<>();
            Set<String> cuts = new HashSet<>();
            int[] discarded = {0};
            Thread reader = new Thread(() -> {
                try (ClickHouseConnection ch = new ClickHouseConnection(LocalClickHouse.url(), LocalClickHouse.user(),
                        LocalClickHouse.password(), e.chDatabase)) {
                    String db = "`" + e.chDatabase + "`.";
                    String wm = "SELECT committed_batch, commit_seq, commit_in_progress FROM " + db
                            + "`_walshadow_committed` WHERE sink = '" + e.slot + "'";
                    String tables = "SELECT count() FROM system.tables WHERE database = '" + e.chDatabase
                            + "' AND name IN ('" + s + "__a', '" + s + "__b', '" + s + "__counter')";
                    while (!stop.get()) {
                        if (!"3".equals(ch.queryString(tables))) {
                            Thread.sleep(20); // the sink creates a table with its first row
                            continue;
                        }
                        String[] before = ch.queryTsv(wm).get(0);
                        long a = Long.parseLong(ch.queryString("SELECT count() FROM " + db + "`" + s + "__a` FINAL WHERE _is_deleted = 0"));
                        long b = Long.parseLong(ch.queryString("SELECT count() FROM " + db + "`" + s + "__b` FINAL WHERE _is_deleted = 0"));
                        long n = Long.parseLong(ch.queryString("SELECT n FROM " + db + "`" + s + "__counter` FINAL WHERE _is_deleted = 0"));
                        String[] after = ch.queryTsv(wm).get(0);
                        if (!String.join(",", before).equals(String.join(",", after)) || "1".equals(after[2])) {
                            discarded[0]++; // a commit ran during the read: read again
                            continue;
                        }
                        cuts.add(after[1]);
                        if (a != b || a != n) {
                            violations.add("at commit seq " + after[1] + ": a=" + a + " b=" + b + " counter=" + n);
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "consistent-reader");
            reader.start();
            try (Connection c = LocalPg.connect(); Statement st = c.createStatement()) {
                c.setAutoCommit(false);
                long end = System.currentTimeMillis() + 15_000;
                for (int i = 1; System.currentTimeMillis() < end; i++) {
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
            assertTrue(cuts.size() >= 3, "consistent reads at " + cuts.size() + " distinct watermarks ("
                    + discarded[0] + " reads retried)");
            e.assertAllTablesEqual();
            System.out.println("atomic visibility: consistent reads at " + cuts.size() + " watermarks, " + discarded[0]
                    + " retried because a commit ran meanwhile");
        }
    }
}
