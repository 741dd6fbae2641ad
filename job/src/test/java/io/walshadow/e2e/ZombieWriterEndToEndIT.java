package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.clickhouse.Faults;
import io.walshadow.clickhouse.SinkTables;
import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.LocalPg;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A writer cut off from the job (a TaskManager partitioned away while the job restarted elsewhere) can go on
 * staging rows into the batch partition the restored attempt reuses. Each attempt stamps its rows with its own
 * {@code _attempt} and commits only those: the zombie's rows, which here disagree with PostgreSQL, never reach the
 * destination, and the commit goes on instead of failing. Staged visibility ({@code clickhouse.visibility
 * checkpoint}), where rows go through staging.
 */
@org.junit.jupiter.api.Tag("faults")
@ExpectedFaults("a stalled writer of an earlier attempt, fenced off after the job restarted")
class ZombieWriterEndToEndIT {
    private static final long ZOMBIE = 4242;

    @Test
    void rowsAnotherWriterAttemptStagedInTheSamePartitionAreNotCommitted() throws Exception {
        try (E2e e = new E2e("e2e_zombie")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, v text)");
            e.start(e.config("--checkpoint.interval", "1s", "--clickhouse.visibility", "checkpoint"), null, 0);
            e.awaitCaughtUp(Duration.ofMinutes(2));
            AtomicReference<String> forged = new AtomicReference<>(); // the zombie rows staged
            Faults.install(point -> {
                if (point.equals("commit.begin") && forged.get() == null) {
                    for (String[] r : e.ch.queryTsv("SELECT table FROM system.columns WHERE database = '"
                            + e.chDatabase + "' AND table LIKE '" + SinkTables.STAGE_PREFIX + "%' AND name = 'v'")) {
                        String stage = "`" + e.chDatabase + "`.`" + r[0] + "`";
                        if (!"0".equals(e.ch.queryString("SELECT count() FROM " + stage))) {
                            forge(e, r[0], stage);
                            forged.set(e.ch.queryString("SELECT count() FROM " + stage + " WHERE "
                                    + SinkTables.ATTEMPT + " = " + ZOMBIE));
                        }
                    }
                }
            });
            try {
                LocalPg.exec(e.pg, "INSERT INTO " + s + ".t SELECT g, 'v' || g FROM generate_series(1, 1000) g");
                LocalPg.exec(e.pg, "UPDATE " + s + ".t SET v = 'w' || id WHERE id % 3 = 0");
                e.awaitCaughtUp(Duration.ofMinutes(2));
                assertTrue(forged.get() != null, "the fault hook found a staged partition");
                assertTrue(Long.parseLong(forged.get()) >= 1000, "the zombie's rows were in the partition when its"
                        + " batch committed: " + forged.get());
                Map<String, Integer> rows = e.assertAllTablesEqual();
                assertEquals(1000, rows.get("t"));
                assertEquals("0", e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`" + s
                        + "__t` WHERE v LIKE 'zombie%'"), "no row of the zombie reached the destination");
                e.assertEachCommitOnce();
            } finally {
                Faults.install(null);
            }
        }
    }

    /** Copies the partition's rows as another attempt would stage them: same batch and segment, other values. */
    private static void forge(E2e e, String table, String stage) {
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (String[] c : e.ch.queryTsv("SELECT name FROM system.columns WHERE database = '" + e.chDatabase
                + "' AND table = '" + table + "'")) {
            columns.add("`" + c[0] + "`");
            values.add(switch (c[0]) {
                case "v" -> "concat('zombie', toString(id))";
                case SinkTables.ATTEMPT -> "toUInt64(" + ZOMBIE + ")";
                default -> "`" + c[0] + "`";
            });
        }
        e.ch.execute("INSERT INTO " + stage + " (" + String.join(", ", columns) + ") SELECT "
                + String.join(", ", values) + " FROM " + stage);
    }
}
