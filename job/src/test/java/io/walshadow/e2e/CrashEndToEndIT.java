package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.walshadow.buffer.TestMetricReporter;
import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PostgreSQL crashes ({@code pg_ctl stop -m immediate}) while transactions are open: they end without an abort
 * record. The first RUNNING_XACTS after the restart says they ended, and the buffer discards what it held of them
 * (before, they stayed buffered under their xid for good, and the transaction that reuses the xid 2^32 later would
 * have drained their rows with its own); a prepared transaction survives the crash, in PostgreSQL and in the
 * buffer, and drains at its COMMIT PREPARED.
 */
@org.junit.jupiter.api.Tag("faults")
@ExpectedFaults("the job killed mid-stream and restored from its checkpoint")
class CrashEndToEndIT {
    /** At buffer parallelism 2 the horizon reaches both subtasks, whichever holds the cut-off family. */
    @ParameterizedTest(name = "buffer parallelism {0}")
    @ValueSource(ints = {1, 2})
    void transactionsCutOffByAPostgresCrashAreDiscardedAndAPreparedOneSurvives(int buffers) throws Exception {
        try (E2e e = new E2e("e2e_crash")) {
            String s = e.schema;
            String gid = "crash_" + e.name;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, v text)");
            TestMetricReporter.clear();
            e.start(e.config("--checkpoint.interval", "1s", "--xact.buffer.parallelism", String.valueOf(buffers)), null,
                    100);
            e.awaitCaughtUp(Duration.ofMinutes(2));
            LocalPg.exec(e.pg, "INSERT INTO " + s + ".t SELECT g, 'before' FROM generate_series(1, 100) g");
            Connection open = LocalPg.connect();
            Connection prepared = LocalPg.connect();
            // TOAST-sized values in the cut-off transaction: its chunks must go with it
            LocalPg.exec(open, "BEGIN", "INSERT INTO " + s + ".t SELECT g, (SELECT string_agg(md5(g::text || i), '')"
                    + " FROM generate_series(1, 200) i) FROM generate_series(1000, 1299) g");
            LocalPg.exec(prepared, "BEGIN", "INSERT INTO " + s + ".t SELECT g, 'prepared' FROM generate_series(2000,"
                    + " 2049) g", "PREPARE TRANSACTION '" + gid + "'");
            FlinkTestJobs.awaitTrue(() -> "the open transaction is buffered", Duration.ofMinutes(1), () -> {
                e.failFastIfAJobFailed();
                return TestMetricReporter.sum("buffered_changes") >= 300;
            });
            Thread.sleep(2_000); // a checkpoint holds the open family: the restarted job restores it
            E2e.stack("pg-crash");
            open.close(); // broken by the crash: nothing to roll back
            prepared.close();
            e.reconnectPg();
            LocalPg.exec(e.pg, "INSERT INTO " + s + ".t SELECT g, 'after' FROM generate_series(101, 200) g",
                    "CHECKPOINT"); // logs RUNNING_XACTS
            FlinkTestJobs.awaitTrue(() -> "the cut-off transaction is discarded", Duration.ofMinutes(3), () -> {
                e.failFastIfAJobFailed();
                return TestMetricReporter.sum("cut_off_transactions_discarded") >= 1;
            });
            LocalPg.exec(e.pg, "COMMIT PREPARED '" + gid + "'");
            e.awaitCaughtUp(Duration.ofMinutes(3));
            Map<String, Integer> compared = e.assertAllTablesEqual();
            assertEquals(250, compared.get("t"), "before, after and the prepared rows; none of the cut-off ones");
            assertEquals(0, TestMetricReporter.sum("in_flight_transactions"), "nothing left in the buffer "
                    + TestMetricReporter.bySubtask("in_flight_transactions"));
        }
    }
}
