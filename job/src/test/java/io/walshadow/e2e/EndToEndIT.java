package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.buffer.TestMetricReporter;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** PostgreSQL to ClickHouse through the whole job: DML of every kind, then the tables compared value by value. */
class EndToEndIT {
    @Test
    void mixedWorkloadArrivesExactly() throws Exception {
        TestMetricReporter.METRICS.clear();
        try (E2e e = new E2e("e2e_mixed")) {
            String s = e.schema;
            LocalPg.exec(e.pg,
                    "CREATE TABLE " + s + ".orders (id bigint PRIMARY KEY, customer text NOT NULL, amount numeric(12,2),"
                            + " placed timestamptz, day date, tags text[], score float8, flag bool, payload bytea,"
                            + " doc jsonb, ref uuid)",
                    "CREATE TABLE " + s + ".nokey (a int, b text)");
            e.start();
            LocalPg.exec(e.pg,
                    "INSERT INTO " + s + ".orders SELECT g, 'c' || g, g * 1.25, timestamptz '2024-01-02 03:04:05.678+00'"
                            + " + g * interval '1 hour', date '2024-02-29' + g, ARRAY['x', NULL, 'y' || g], g / 3.0,"
                            + " g % 2 = 0, decode('00ff' || lpad(to_hex(g), 4, '0'), 'hex'), jsonb_build_object('g', g),"
                            + " md5(g::text)::uuid FROM generate_series(1, 500) g",
                    "UPDATE " + s + ".orders SET amount = amount + 1, tags = NULL WHERE id % 5 = 0",
                    "DELETE FROM " + s + ".orders WHERE id % 7 = 0",
                    "UPDATE " + s + ".orders SET id = id + 1000 WHERE id BETWEEN 10 AND 19", // key changes
                    "INSERT INTO " + s + ".nokey SELECT g % 10, 'v' || g FROM generate_series(1, 100) g",
                    "UPDATE " + s + ".nokey SET b = b || '!' WHERE a = 3",
                    "DELETE FROM " + s + ".nokey WHERE a = 4");
            // a multi-statement transaction with a savepoint rolled back
            LocalPg.exec(e.pg, "BEGIN", "INSERT INTO " + s + ".orders (id, customer) VALUES (5000, 'tx')",
                    "SAVEPOINT p", "INSERT INTO " + s + ".orders (id, customer) VALUES (5001, 'rolled back')",
                    "ROLLBACK TO SAVEPOINT p", "UPDATE " + s + ".nokey SET b = 'tx' WHERE a = 5", "COMMIT");
            e.awaitCaughtUp(Duration.ofSeconds(120));
            // replication lag metrics: the server's position polled, the pipeline close behind it once caught up
            // (polled about once a second, so the value read right after catching up may predate the last commit)
            long committed = e.committedLsn();
            FlinkTestJobs.awaitTrue(() -> "server_lsn " + TestMetricReporter.value("server_lsn") + " reaches committed "
                    + committed, Duration.ofSeconds(15), () -> TestMetricReporter.value("server_lsn") >= committed);
            long serverLsn = TestMetricReporter.value("server_lsn");
            assertTrue(serverLsn >= committed && serverLsn <= LocalPg.currentLsn(e.pg),
                    "server_lsn " + serverLsn + ", committed " + committed);
            long lag = TestMetricReporter.value("lag_bytes");
            assertTrue(lag >= 0 && lag < (16 << 20), "lag_bytes " + lag);
            long commitLag = TestMetricReporter.value("commit_lag_ms");
            assertTrue(commitLag >= 0 && commitLag < 120_000, "commit_lag_ms " + commitLag);
            // rates by stage count what went through: at least the workload's changes (tombstones add rows)
            assertTrue(TestMetricReporter.value("changes_per_second") >= 500 + 100 + 71 + 100 + 20,
                    "decoder changes " + TestMetricReporter.value("changes_per_second"));
            assertTrue(TestMetricReporter.value("rows_staged_per_second") >= 500 + 100 + 71 + 100 + 20,
                    "sink rows " + TestMetricReporter.value("rows_staged_per_second"));
            assertTrue(TestMetricReporter.value("records_per_second") > TestMetricReporter.value("changes_per_second"));
            Map<String, Integer> rows = e.assertAllTablesEqual();
            assertEquals(Map.of("orders", 500 - 71 + 1, "nokey", 90), rows);
            String log = e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`_walshadow_commit_log` FINAL WHERE sink = '"
                    + e.slot + "' AND has(tables, '" + s + ".nokey') AND has(tables, '" + s + ".orders')");
            assertTrue(Long.parseLong(log) >= 1, "the two-table commit is in the commit log");
        }
    }
}
