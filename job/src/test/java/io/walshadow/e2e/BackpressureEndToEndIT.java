package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.buffer.TestMetricReporter;
import io.walshadow.testing.LocalPg;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The sink stalls for five times the server's {@code wal_sender_timeout} while the source writes: the fetcher waits
 * behind a full queue, and status messages from the keepalive timer keep the walsender alive, so the job neither
 * fails nor restarts, and catches up once the sink moves again.
 */
@org.junit.jupiter.api.Tag("faults")
class BackpressureEndToEndIT {
    @Test
    void aSinkStalledLongerThanWalSenderTimeoutDoesNotEndTheStream() throws Exception {
        try (E2e e = new E2e("e2e_backpressure")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".t (id int PRIMARY KEY, v text)");
            LocalPg.exec(e.pg, "ALTER SYSTEM SET wal_sender_timeout = '3s'", "SELECT pg_reload_conf()");
            try {
                TestMetricReporter.METRICS.clear();
                e.start(e.config("--checkpoint.interval", "1s", "--status.interval.ms", "1000"), null, 0);
                e.awaitCaughtUp(Duration.ofMinutes(2));
                long keepalives;
                try (AutoCloseable stall = E2e.stallSink()) {
                    for (int i = 0; i < 4; i++) {
                        LocalPg.exec(e.pg, "INSERT INTO " + s + ".t SELECT g, repeat('v', 100) FROM generate_series("
                                + (i * 50_000 + 1) + ", " + ((i + 1) * 50_000) + ") g");
                    }
                    Thread.sleep(15_000); // the stall: five timeouts long
                    e.failFastIfAJobFailed();
                    keepalives = TestMetricReporter.value("keepalives_while_backpressured");
                }
                e.awaitCaughtUp(Duration.ofMinutes(3));
                assertEquals(200_000, e.assertAllTablesEqual().get("t"));
                assertTrue(keepalives > 0, "the fetcher was held back by the stall: " + keepalives + " keepalives");
                System.out.printf("backpressure e2e: %d keepalives sent during a 15 s sink stall%n", keepalives);
            } finally {
                LocalPg.exec(e.pg, "ALTER SYSTEM RESET wal_sender_timeout", "SELECT pg_reload_conf()");
            }
        }
    }
}
