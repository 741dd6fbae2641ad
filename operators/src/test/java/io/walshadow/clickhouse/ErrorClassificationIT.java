package io.walshadow.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.testing.LocalClickHouse;
import org.junit.jupiter.api.Test;

/**
 * Which ClickHouse errors a retry can get past, against the local server (18.16, which sends no
 * {@code X-ClickHouse-Exception-Code} header: the code comes from the body). A wrong password or an unknown table
 * must fail at once, not be retried for minutes.
 */
class ErrorClassificationIT {
    @Test
    void anUnknownTableIsNotRetried() {
        try (ClickHouseConnection c = LocalClickHouse.connect()) {
            ClickHouseException e = assertThrows(ClickHouseException.class,
                    () -> c.execute("SELECT * FROM no_such_table_ws_errclass"));
            assertEquals(60, e.serverCode(), e.getMessage()); // UNKNOWN_TABLE
            assertFalse(e.retryable());
        }
    }

    @Test
    void aWrongPasswordIsNotRetried() {
        try (ClickHouseConnection c = new ClickHouseConnection(LocalClickHouse.url(), LocalClickHouse.user(),
                "wrong-" + LocalClickHouse.password(), "default")) {
            ClickHouseException e = assertThrows(ClickHouseException.class, () -> c.execute("SELECT 1"));
            assertTrue(e.serverCode() == 193 || e.serverCode() == 516, e.getMessage()); // WRONG_PASSWORD / AUTH
            assertFalse(e.retryable());
            assertFalse(e.getMessage().contains("wrong-"), "no credentials in the message");
        }
    }

    @Test
    void noAnswerAtAllIsRetried() {
        try (ClickHouseConnection c = new ClickHouseConnection("http://127.0.0.1:1", "default", "", "default")) {
            ClickHouseException e = assertThrows(ClickHouseException.class, () -> c.execute("SELECT 1"));
            assertEquals(0, e.serverCode());
            assertTrue(e.retryable());
        }
    }
}
