package io.walshadow.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.walshadow.testing.LocalClickHouse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A statement re-sent while the server still runs an earlier attempt (the client gave up waiting) replaces that
 * attempt instead of running beside it: against the local server, a slow INSERT … SELECT sent twice writes its rows
 * once, and the first attempt ends cancelled rather than finishing after the second.
 */
@org.junit.jupiter.api.Tag("faults")
class StatementFencingIT {
    @Test
    void aRetriedStatementReplacesTheAttemptStillRunning() throws Exception {
        String table = "fence_" + Long.toString(System.nanoTime(), 36);
        try (ClickHouseConnection c = LocalClickHouse.connect()) {
            c.execute("CREATE TABLE " + table + " (n UInt64) ENGINE = MergeTree ORDER BY n");
            try {
                // ten one-row blocks, half a second each: five seconds on the server
                String slow = "INSERT INTO " + table + " SELECT number FROM numbers(10) WHERE sleep(0.5) = 0"
                        + " SETTINGS max_block_size = 1";
                CompletableFuture<Throwable> first = CompletableFuture.supplyAsync(() -> {
                    try {
                        c.execute(slow);
                        return null;
                    } catch (Throwable t) {
                        return t;
                    }
                });
                Thread.sleep(1_500);
                c.execute(slow); // the retry
                Throwable t = first.get(30, TimeUnit.SECONDS);
                assertNotNull(t, "the first attempt was cancelled, not completed");
                assertEquals(394, ((ClickHouseException) t).serverCode(), t.getMessage()); // QUERY_WAS_CANCELLED
                Thread.sleep(1_000);
                assertEquals("10", c.queryString("SELECT count() FROM " + table), "the rows once");
            } finally {
                c.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }
}
