package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import io.walshadow.buffer.TestMetricReporter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;

/**
 * {@code clickhouse.visibility commit}: with checkpoints 30 s apart, one-row commits appear in ClickHouse within a
 * few hundred ms, before any checkpoint covers them ({@code _walshadow_committed} behind, {@code _walshadow_visible}
 * at them); DDL between rows (a column added, one dropped, one renamed, a TRUNCATE) waits for the checkpoint with the
 * rows after it, and direct writes resume once the committer has applied it; the end state equals PostgreSQL.
 */
class VisibleAtCommitEndToEndIT {
    @Test
    void rowsAppearBeforeTheirCheckpointAndStepsKeepTheirOrder() throws Exception {
        try (E2e e = new E2e("e2e_vis")) {
            String s = e.schema;
            JobClient job = startVisibleAtCommit(e, "v text, w int", Duration.ofSeconds(30));
            Thread.sleep(3000); // the job's start; its first checkpoint is 30 s away

            List<Long> ms = new ArrayList<>();
            int ahead = oneRowCommits(e, 1, 20, ms);
            Collections.sort(ms);
            System.out.println("visible after commit, ms: median " + ms.get(ms.size() / 2) + ", max "
                    + ms.get(ms.size() - 1) + "; " + ahead + " of 20 ahead of the checkpointed watermark");
            assertTrue(ahead >= 15, ahead + " of 20 rows were visible before a checkpoint covered them");
            assertTrue(ms.get(ms.size() / 2) < 2000, "median commit -> visible " + ms);
            // the mark follows the rows it covers (written after them): it reaches the last commit written
            long newest = Long.parseLong(e.ch.queryString("SELECT max(_commit_lsn) FROM `" + e.chDatabase + "`.`" + s
                    + "__t`"));
            String visible = "SELECT max(commit_lsn) FROM `" + e.chDatabase + "`.`_walshadow_visible` WHERE sink = '"
                    + e.slot + "'";
            FlinkTestJobs.awaitTrue(() -> "_walshadow_visible reaches the last commit written, " + newest + " (now "
                    + e.ch.queryString(visible) + ")", Duration.ofSeconds(10),
                    () -> Long.parseLong(e.ch.queryString(visible)) >= newest);
            long direct = TestMetricReporter.value("direct_writes");
            assertTrue(direct >= 1, "direct writes " + direct);

            // DDL among the rows, in one transaction and in several: applied in order after the checkpoint
            try (Connection c = e.connectPg(); Statement st = c.createStatement()) {
                st.execute("INSERT INTO " + s + ".t VALUES (100, 'before add', 1)");
                st.execute("ALTER TABLE " + s + ".t ADD COLUMN x numeric DEFAULT 7");
                st.execute("INSERT INTO " + s + ".t VALUES (101, 'after add', 2, 3.5)");
                c.setAutoCommit(false);
                st.execute("UPDATE " + s + ".t SET w = w + 100 WHERE id <= 10");
                st.execute("ALTER TABLE " + s + ".t DROP COLUMN v");
                st.execute("INSERT INTO " + s + ".t VALUES (102, 3, 4.5)");
                c.commit();
                st.execute("ALTER TABLE " + s + ".t RENAME COLUMN w TO ww");
                st.execute("DELETE FROM " + s + ".t WHERE id = 5");
                c.commit();
                c.setAutoCommit(true);
                st.execute("CREATE TABLE " + s + ".u (id int PRIMARY KEY, v text)");
                st.execute("INSERT INTO " + s + ".u VALUES (1, 'u')");
                st.execute("TRUNCATE " + s + ".u");
                st.execute("INSERT INTO " + s + ".u VALUES (2, 'after truncate')");
            }
            e.awaitCaughtUp(Duration.ofSeconds(180));
            e.assertAllTablesEqual();

            // the committer has applied the steps: later commits are written directly again
            long before = TestMetricReporter.value("direct_writes");
            List<Long> after = new ArrayList<>();
            int aheadAfter = oneRowCommits(e, 200, 10, after);
            assertTrue(aheadAfter >= 7 && TestMetricReporter.value("direct_writes") > before, aheadAfter
                    + " of 10 rows after the DDL were visible ahead of the checkpoint; direct writes " + before
                    + " -> " + TestMetricReporter.value("direct_writes"));
            e.awaitCaughtUp(Duration.ofSeconds(120));
            e.assertAllTablesEqual();
            e.assertEachCommitOnce();

            // restored with nothing written since: the writer's gauges show the mark ClickHouse has, not 0
            Path savepoint = E2e.stopWithSavepoint(job);
            long mark = Long.parseLong(e.ch.queryString(visible));
            TestMetricReporter.METRICS.clear();
            e.start(e.config("--clickhouse.visibility", "commit", "--snapshot.mode", "never"), savepoint, 0);
            FlinkTestJobs.awaitTrue(() -> "direct_visible_lsn after the restore to be " + mark + ", is "
                    + (TestMetricReporter.METRICS.containsKey("direct_visible_lsn")
                            ? TestMetricReporter.value("direct_visible_lsn") : "not registered"), Duration.ofSeconds(60),
                    () -> TestMetricReporter.METRICS.containsKey("direct_visible_lsn")
                            && TestMetricReporter.value("direct_visible_lsn") == mark);
        }
    }

    /**
     * A steady stream of one-row transactions while ALTERs come in pairs every 700 ms, with 1 s checkpoints: each ALTER stages
     * the rest of its batch, the next batch begins before the committer applied it, so its rows wait (parked) and are
     * then written directly or, when another ALTER or the barrier comes first, staged after all. Whatever the
     * interleaving, the end state equals PostgreSQL's.
     */
    @Test
    void rowsWaitingForAStepKeepTheirOrder() throws Exception {
        try (E2e e = new E2e("e2e_vispark")) {
            String s = e.schema;
            startVisibleAtCommit(e, "n int NOT NULL", Duration.ofSeconds(1));
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicReference<Throwable> error = new java.util.concurrent.atomic.AtomicReference<>();
            Thread writer = new Thread(() -> {
                try (Connection c = e.connectPg(); Statement st = c.createStatement()) {
                    for (int i = 1; !stop.get(); i++) {
                        st.execute("INSERT INTO " + s + ".t (id, n) VALUES (" + i + ", " + i + ")");
                        st.execute("UPDATE " + s + ".t SET n = n + 1 WHERE id = " + (1 + i / 2));
                        Thread.sleep(3);
                    }
                } catch (Throwable t) {
                    error.set(t);
                }
            }, "row-writer");
            writer.start();
            try (Connection c = e.connectPg(); Statement st = c.createStatement()) {
                for (int k = 1; k <= 18; k++) {
                    Thread.sleep(k % 2 == 0 ? 700 : 40); // pairs: the second may come while rows wait
                    st.execute(k % 3 == 0 ? "ALTER TABLE " + s + ".t DROP COLUMN c" + (k - 1)
                            : "ALTER TABLE " + s + ".t ADD COLUMN c" + k + " int DEFAULT " + k);
                }
            } finally {
                stop.set(true);
                writer.join();
            }
            if (error.get() != null) {
                throw new AssertionError("the row writer failed", error.get());
            }
            e.awaitCaughtUp(Duration.ofSeconds(180));
            e.assertAllTablesEqual();
            e.assertEachCommitOnce();
            long direct = TestMetricReporter.value("rows_parked_written_directly");
            long staged = TestMetricReporter.value("rows_parked_staged");
            System.out.println("rows parked, then written directly " + direct + ", then staged " + staged
                    + "; batches staged for order " + TestMetricReporter.value("batches_staged_for_order"));
            assertTrue(direct + staged > 0, "no row waited for the committer: the test missed what it is for");
        }
    }

    /** Table {@code t (id int PRIMARY KEY, <columns>)}, and the job on it with rows visible at commit. */
    private static JobClient startVisibleAtCommit(E2e e, String columns, Duration checkpoints) throws Exception {
        LocalPg.exec(e.pg, "CREATE TABLE " + e.schema + ".t (id int PRIMARY KEY, " + columns + ")");
        e.flink.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpoints);
        return e.start(e.config("--clickhouse.visibility", "commit", "--snapshot.mode", "never"), null, 0);
    }

    /**
     * Commits {@code n} one-row inserts from {@code first} on, waiting for each to appear; adds each one's commit ->
     * visible time to {@code ms}; returns how many appeared while the checkpointed watermark was still below them.
     */
    private static int oneRowCommits(E2e e, int first, int n, List<Long> ms) throws Exception {
        String table = "`" + e.chDatabase + "`.`" + e.schema + "__t`";
        int ahead = 0;
        for (int id = first; id < first + n; id++) {
            LocalPg.exec(e.pg, "INSERT INTO " + e.schema + ".t (id, " + (first == 1 ? "v, w" : "ww") + ") VALUES ("
                    + id + ", " + (first == 1 ? "'v" + id + "', " : "") + id + ")");
            long committed = System.nanoTime();
            int row = id;
            FlinkTestJobs.awaitTrue("row " + row + " visible", Duration.ofSeconds(60), () -> {
                e.failFastIfAJobFailed();
                try {
                    return !"0".equals(e.ch.queryString("SELECT count() FROM " + table + " WHERE id = " + row));
                } catch (RuntimeException notYet) {
                    return false; // the table is created with the first row
                }
            });
            ms.add((System.nanoTime() - committed) / 1_000_000);
            long rowLsn = Long.parseLong(e.ch.queryString("SELECT max(_commit_lsn) FROM " + table + " WHERE id = "
                    + row));
            if (e.committedLsn() < rowLsn) {
                ahead++;
            }
        }
        return ahead;
    }
}
