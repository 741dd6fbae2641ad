package io.walshadow.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.testing.LocalClickHouse;
import org.junit.jupiter.api.Test;

class ServerCapabilitiesIT {

    @Test
    void localServerIs1816WithAllFlagsOff() {
        try (ClickHouseConnection ch = LocalClickHouse.connect()) {
            assertTrue(ch.ping());
            ServerCapabilities caps = ServerCapabilities.probe(ch);
            assertEquals(18, caps.major(), caps.version());
            assertEquals(16, caps.minor(), caps.version());
            assertFalse(caps.replacingWithIsDeleted());
            assertFalse(caps.dateTime64());
            assertFalse(caps.insertDeduplicationToken());
            assertFalse(caps.addColumnIfNotExists());
            assertFalse(caps.renameColumn());
            assertFalse(caps.nonReplicatedDeduplicationWindow());
            assertFalse(caps.bloomFilterIndex());
            assertFalse(caps.mapType());
        }
    }

    @Test
    void addColumnIfNotExistsReallyFailsOn1816() {
        try (ClickHouseConnection ch = LocalClickHouse.connect()) {
            String t = "`" + ch.database() + "`.`caps_probe_" + System.nanoTime() + "`";
            ch.execute("CREATE TABLE " + t + " (a UInt8) ENGINE = MergeTree ORDER BY a");
            try {
                ClickHouseException e = assertThrows(ClickHouseException.class,
                        () -> ch.execute("ALTER TABLE " + t + " ADD COLUMN IF NOT EXISTS b UInt8"));
                assertTrue(e.sqlFirstLine().startsWith("ALTER TABLE"), e.sqlFirstLine());
                assertFalse(e.getMessage().contains(LocalClickHouse.password()), "no password in messages");
            } finally {
                ch.execute("DROP TABLE IF EXISTS " + t);
            }
        }
    }

    @Test
    void parsesVersions() {
        ServerCapabilities modern = ServerCapabilities.of("23.8.2.7");
        assertEquals(23, modern.major());
        assertEquals(8, modern.minor());
        assertTrue(modern.replacingWithIsDeleted());
        assertTrue(modern.dateTime64());
        assertTrue(modern.insertDeduplicationToken());
        assertTrue(modern.addColumnIfNotExists());
        assertTrue(modern.renameColumn());
        assertTrue(modern.nonReplicatedDeduplicationWindow());

        ServerCapabilities old = ServerCapabilities.of("18.16.1");
        assertFalse(old.replacingWithIsDeleted() || old.dateTime64() || old.insertDeduplicationToken()
                || old.addColumnIfNotExists() || old.renameColumn() || old.nonReplicatedDeduplicationWindow());

        ServerCapabilities v231 = ServerCapabilities.of("23.1.3.5");
        assertFalse(v231.replacingWithIsDeleted());
        assertTrue(v231.insertDeduplicationToken());
        assertTrue(ServerCapabilities.of("23.2.1").replacingWithIsDeleted());
        assertFalse(ServerCapabilities.of("19.17.6.36").dateTime64());
        assertTrue(ServerCapabilities.of("20.1.2.4").dateTime64());
        assertFalse(ServerCapabilities.of("22.1.3.7").insertDeduplicationToken());
        assertTrue(ServerCapabilities.of("22.2.2.1").insertDeduplicationToken());
        assertTrue(ServerCapabilities.of("19.1.6").addColumnIfNotExists());
        assertFalse(ServerCapabilities.of("20.3.21.2").renameColumn());
        assertTrue(ServerCapabilities.of("20.4.2.9").renameColumn());
        assertFalse(ServerCapabilities.of("21.4.7.3").nonReplicatedDeduplicationWindow());
        assertTrue(ServerCapabilities.of("21.5.5.12").nonReplicatedDeduplicationWindow());
        // the token needs the window on a non-replicated table: the token release has both
        ServerCapabilities v222 = ServerCapabilities.of("22.2.1.2139");
        assertTrue(v222.insertDeduplicationToken() && v222.nonReplicatedDeduplicationWindow() && v222.renameColumn());
        assertTrue(ServerCapabilities.of("26.1.1.1").replacingWithIsDeleted());
        assertFalse(ServerCapabilities.of("21.7.18").mapType()); // Map still needed allow_experimental_map_type
        assertTrue(ServerCapabilities.of("22.3.8.39").mapType());
        assertFalse(ServerCapabilities.baseline().dateTime64());
        assertThrows(IllegalArgumentException.class, () -> ServerCapabilities.of("garbage"));
    }

    @Test
    void unescapesTabSeparated() {
        assertEquals(null, ClickHouseConnection.unescape("\\N"));
        assertEquals("a\tb\nc\\d'e", ClickHouseConnection.unescape("a\\tb\\nc\\\\d\\'e"));
        assertEquals(2, ClickHouseConnection.parseTsv("x\t\\N\ny\tz\n").size());
    }
}
