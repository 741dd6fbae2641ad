package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.clickhouse.SinkTables;
import io.walshadow.job.WalshadowJob;
import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalClickHouse;
import io.walshadow.testing.LocalPg;
import java.time.Duration;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * Misconfigurations fail at once, with one message saying what to change, before anything is created: no
 * replication slot in PostgreSQL, no table in ClickHouse.
 */
@org.junit.jupiter.api.Tag("faults")
@ExpectedFaults("misconfigured servers and settings, each start refused with an error")
class PreflightEndToEndIT {
    @Test
    void anIncludePatternMatchingNoTableIsRefusedUnlessAllowed() throws Exception {
        try (E2e e = new E2e("e2e_pre_inc")) {
            String[] opts = {"--tables.include", e.schema + ".ordrs"};
            IllegalStateException x = assertThrows(IllegalStateException.class, () -> build(e, opts));
            assertEquals("--tables.include pattern '" + e.schema + ".ordrs' matches no table in database "
                    + LocalPg.database() + " (names are case-sensitive, as PostgreSQL stores them); pass"
                    + " --tables.allow.unmatched true to start before such tables exist", x.getMessage());
            assertNothingCreated(e);
            // allowed: the job starts, and a table created later under that name is replicated
            e.start(e.config("--tables.include", e.schema + ".ordrs", "--tables.allow.unmatched", "true"), null, 0);
            e.awaitCaughtUp(Duration.ofMinutes(2));
            LocalPg.exec(e.pg, "CREATE TABLE " + e.schema + ".ordrs (id int PRIMARY KEY)",
                    "INSERT INTO " + e.schema + ".ordrs SELECT generate_series(1, 10)");
            e.awaitCaughtUp(Duration.ofMinutes(2));
            assertEquals(10, e.assertAllTablesEqual().get("ordrs"));
        }
    }

    @Test
    void anUnreachableClickHouseOrAWrongPasswordIsRefusedBeforeTheSlotIsCreated() throws Exception {
        try (E2e e = new E2e("e2e_pre_ch")) {
            long t0 = System.nanoTime();
            IllegalStateException x = assertThrows(IllegalStateException.class,
                    () -> build(e, "--clickhouse.url", "http://127.0.0.1:1"));
            assertTrue(x.getMessage().startsWith("cannot use ClickHouse at http://127.0.0.1:1 as user "
                    + LocalClickHouse.user() + ": "), x.getMessage());
            assertTrue(System.nanoTime() - t0 < 60_000_000_000L, "refused at once, not after minutes of retries");
            assertNothingCreated(e);

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            x = assertThrows(IllegalStateException.class, () -> WalshadowJob.build(env,
                    io.walshadow.job.JobConfig.from(e.args(), java.util.Map.of(
                            io.walshadow.job.JobConfig.PG_PASSWORD_ENV, LocalPg.password(),
                            io.walshadow.job.JobConfig.CH_PASSWORD_ENV, "not-" + LocalClickHouse.password()))));
            assertTrue(x.getMessage().startsWith("cannot use ClickHouse at " + LocalClickHouse.url() + " as user "
                    + LocalClickHouse.user() + ": "), x.getMessage());
            assertTrue(x.getMessage().contains("Code: 193") || x.getMessage().contains("Code: 516"), x.getMessage());
            assertTrue(!x.getMessage().contains("not-" + LocalClickHouse.password()), "no password in the message");
            assertNothingCreated(e);
        }
    }

    @Test
    void aFreshStartIntoADatabaseWithTheSinkIdsEarlierCommitsIsRefusedAndARestoreIsNot() throws Exception {
        try (E2e e = new E2e("e2e_pre_reuse")) {
            LocalPg.exec(e.pg, "CREATE TABLE " + e.schema + ".t (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + e.schema + ".t SELECT g, 'v' FROM generate_series(1, 100) g");
            io.walshadow.buffer.TestMetricReporter.METRICS.clear(); // this job's snapshot metrics, no earlier test's
            e.start(e.config("--checkpoint.interval", "1s"), null, 0);
            e.awaitSnapshotComplete(Duration.ofMinutes(2));
            e.awaitCaughtUp(Duration.ofMinutes(2));
            Thread.sleep(2_000); // a checkpoint after the copy and the catch-up
            e.cancelJobs();
            LocalPg.exec(e.pg, "DELETE FROM " + e.schema + ".t WHERE id <= 50");
            IllegalStateException x = assertThrows(IllegalStateException.class, () -> build(e));
            assertTrue(x.getMessage().startsWith("ClickHouse database " + e.chDatabase + " already holds the commits"
                    + " of sink id " + e.slot + " (up to commit "), x.getMessage());
            assertTrue(x.getMessage().contains("Restore the job from its latest checkpoint"), x.getMessage());
            // restored, it goes on where it stopped, and the deleted rows go
            e.start(e.config(), FlinkTestJobs.latestCheckpoint(e.checkpoints), 0);
            e.awaitCaughtUp(Duration.ofMinutes(2));
            assertEquals(50, e.assertAllTablesEqual().get("t"));
            e.cancelJobs();
            // or asked for: a reset drops the database's tables and copies anew (with its own slot)
            LocalPg.exec(e.pg, "DELETE FROM " + e.schema + ".t WHERE id <= 60");
            // the watermark follows the WAL, not the copy: wait for the new snapshot before comparing
            io.walshadow.buffer.TestMetricReporter.METRICS.clear();
            e.start(e.config("--clickhouse.reset", "true", "--slot", e.slot + "_2", "--clickhouse.sink.id", e.slot),
                    null, 0);
            e.awaitSnapshotComplete(Duration.ofMinutes(2));
            e.awaitCaughtUp(Duration.ofMinutes(2));
            assertEquals(40, e.assertAllTablesEqual().get("t"));
            e.cancelJobs();
            FlinkTestJobs.dropSlot(e.pg, e.slot + "_2"); // E2e drops only its own slot
        }
    }

    @Test
    void walLevelReplicaIsRefusedWithWhatToSet() throws Exception {
        try (E2e e = new E2e("e2e_pre_wal")) {
            LocalPg.exec(e.pg, "ALTER SYSTEM SET wal_level = replica");
            E2e.stack("pg-restart");
            try {
                e.reconnectPg();
                IllegalStateException x = assertThrows(IllegalStateException.class, () -> build(e));
                assertEquals("PostgreSQL at " + LocalPg.host() + ":" + LocalPg.port() + "/" + LocalPg.database()
                        + " (user " + LocalPg.user() + ") has wal_level = replica; the job needs wal_level = logical"
                        + " (its WAL then carries whole row images and catalog changes it decodes): ALTER SYSTEM SET"
                        + " wal_level = logical, then restart the server", x.getMessage());
                assertNothingCreated(e);
            } finally {
                e.reconnectPg();
                LocalPg.exec(e.pg, "ALTER SYSTEM RESET wal_level");
                E2e.stack("pg-restart");
                e.reconnectPg();
            }
        }
    }

    private static void build(E2e e, String... opts) throws Exception {
        WalshadowJob.build(StreamExecutionEnvironment.getExecutionEnvironment(), e.config(opts));
    }

    private static void assertNothingCreated(E2e e) throws Exception {
        assertEquals(List.of(), LocalPg.queryColumn(e.pg, "SELECT slot_name FROM pg_replication_slots WHERE"
                + " slot_name = '" + e.slot + "'"), "no slot");
        assertEquals("0", e.ch.queryString("SELECT count() FROM system.tables WHERE database = '" + e.chDatabase
                + "' AND name = '" + SinkTables.WATERMARK + "'"), "no ClickHouse table");
    }
}
