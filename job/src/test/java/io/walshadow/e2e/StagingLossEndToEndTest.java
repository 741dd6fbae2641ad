package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.clickhouse.Faults;
import io.walshadow.clickhouse.SinkTables;
import io.walshadow.testing.LocalPg;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A staging partition emptied between the checkpoint and its commit (by hand, or a server that lost it): the
 * commit fails closed, naming the table and the counts, instead of inserting what is left after the slot already
 * released the WAL the rows came from.
 */
class StagingLossEndToEndTest {
    @Test
    void aStagedPartitionThatLostRowsBeforeItsCommitFailsTheCommit() throws Exception {
        try (E2e e = new E2e("e2e_stageloss")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, v text)");
            e.start(e.config("--checkpoint.interval", "1s"), null, 0);
            e.awaitCaughtUp(Duration.ofMinutes(2));
            AtomicBoolean armed = new AtomicBoolean(true);
            Faults.install(point -> {
                if (point.equals("commit.begin") && armed.get()) {
                    // t's staging table: the one with t's column v; emptied once it holds the batch's rows
                    for (String[] r : e.ch.queryTsv("SELECT table FROM system.columns WHERE database = '"
                            + e.chDatabase + "' AND table LIKE '" + SinkTables.STAGE_PREFIX + "%' AND name = 'v'")) {
                        String stage = "`" + e.chDatabase + "`.`" + r[0] + "`";
                        if (!"0".equals(e.ch.queryString("SELECT count() FROM " + stage))) {
                            e.ch.execute("TRUNCATE TABLE " + stage);
                            armed.set(false);
                        }
                    }
                }
            });
            try {
                LocalPg.exec(e.pg, "INSERT INTO " + s + ".t SELECT g, 'v' FROM generate_series(1, 1000) g");
                String failure = e.awaitJobFailure(Duration.ofMinutes(2));
                assertTrue(failure.contains("holds 0 rows of segment") && failure.contains("but 1000"
                        + " were staged"), failure);
                assertEquals("0", e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`" + s + "__t`"),
                        "nothing of the batch was inserted");
            } finally {
                Faults.install(null);
            }
        }
    }
}
