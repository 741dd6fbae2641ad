package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.testing.LocalPg;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Names PostgreSQL allows that collide with the job's own in ClickHouse: the job stops with an error naming them
 * instead of dropping one table's data for another's view, or merging a column with its own.
 */
class NameCollisionEndToEndIT {
    @Test
    void aTableNamedLikeAnotherTablesLiveViewStopsTheJobAndIsNotDropped() throws Exception {
        try (E2e e = new E2e("e2e_livecoll")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".a__live (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + s + ".a__live SELECT g, 'x' FROM generate_series(1, 10) g");
            e.start(e.config("--checkpoint.interval", "1s"), null, 0);
            e.awaitCaughtUp(Duration.ofMinutes(2));
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".a (id int PRIMARY KEY)", "INSERT INTO " + s + ".a VALUES (1)");
            String failure = e.awaitJobFailure(Duration.ofMinutes(2));
            assertTrue(failure.contains("is where table " + s + "__a's live view goes; it is not a view"),
                    failure);
            assertEquals("10", e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`" + s + "__a__live`"),
                    "the other table's rows are kept");
        }
    }

    @Test
    void aColumnNamedLikeAReplicationColumnStopsTheJobWithItsName() throws Exception {
        try (E2e e = new E2e("e2e_colcoll")) {
            LocalPg.exec(e.pg, "CREATE TABLE " + e.schema + ".t (id int PRIMARY KEY, _lsn bigint)");
            e.start(e.config(), null, 0);
            String failure = e.awaitJobFailure(Duration.ofMinutes(2));
            assertTrue(failure.contains("column _lsn of " + e.schema + "__t has the name of one of the job's own"
                    + " columns"), failure);
        }
    }
}
