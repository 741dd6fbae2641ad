package io.walshadow.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code clickhouse.statement.timeout} ends a statement the server takes but never answers (a frozen or overloaded
 * server), as a retryable error: without it the sink's thread waits for as long as the server is stuck, and the
 * retry that replaces the abandoned attempt is never sent.
 */
class StatementTimeoutTest {
    @Test
    @org.junit.jupiter.api.Timeout(30)
    void aStatementWithoutAnswerFailsRetryablyAfterTheTimeout() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept()); // read nothing, answer nothing
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            try (ClickHouseConnection c = new ClickHouseConnection("http://127.0.0.1:" + silent.getLocalPort(),
                    "default", "", "default", null, Duration.ofSeconds(2))) {
                long t0 = System.nanoTime();
                ClickHouseException e = assertThrows(ClickHouseException.class, () -> c.execute("SELECT 1"));
                double seconds = (System.nanoTime() - t0) / 1e9;
                assertTrue(e.retryable(), e.getMessage());
                assertTrue(e.timedOut(), "a timeout, not a refusal: " + e);
                assertEquals(0, e.serverCode(), e.getMessage());
                assertTrue(seconds >= 1.9 && seconds < 15, "gave up after " + seconds + " s");
            }
        }
    }

    @Test
    void aRefusedConnectionIsNotATimeout() {
        try (ClickHouseConnection c = new ClickHouseConnection("http://127.0.0.1:1", "default", "", "default")) {
            ClickHouseException e = assertThrows(ClickHouseException.class, () -> c.execute("SELECT 1"));
            assertTrue(e.retryable() && !e.timedOut(), e.toString());
        }
    }
}
