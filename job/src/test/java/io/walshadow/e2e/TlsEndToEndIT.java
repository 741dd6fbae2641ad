package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.testing.LocalPg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The job over TLS to both servers, verifying their certificates against the local stack's CA: PostgreSQL with
 * {@code sslmode=verify-full} (the walsender and the catalog connections), ClickHouse through its HTTPS port.
 */
class TlsEndToEndIT {
    @Test
    void replicatesOverVerifiedTls() throws Exception {
        String ca = System.getenv().getOrDefault("WALSHADOW_TLS_CA", LocalPg.stateDir() + "/tls/ca.pem");
        String https = System.getenv().getOrDefault("WALSHADOW_CH_HTTPS_URL", "https://localhost:18443");
        assertTrue(Files.isReadable(Path.of(ca)), "the stack's CA certificate " + ca);
        try (E2e e = new E2e("e2e_tls")) {
            LocalPg.exec(e.pg, "CREATE TABLE " + e.schema + ".t (id int PRIMARY KEY, v text)");
            e.start(e.config("--pg.sslmode", "verify-full", "--pg.sslrootcert", ca, "--clickhouse.url", https,
                    "--clickhouse.sslrootcert", ca), null, 0);
            e.awaitCaughtUp(Duration.ofSeconds(120));
            LocalPg.exec(e.pg, "INSERT INTO " + e.schema + ".t SELECT g, 'tls ' || g FROM generate_series(1, 100) g",
                    "DELETE FROM " + e.schema + ".t WHERE id > 90");
            e.awaitCaughtUp(Duration.ofSeconds(120));
            assertEquals(Map.of("t", 90), e.assertAllTablesEqual());
            // the slot's walsender reads over TLS
            assertEquals("t", LocalPg.queryString(e.pg, "SELECT s.ssl FROM pg_replication_slots r JOIN pg_stat_ssl s"
                    + " ON s.pid = r.active_pid WHERE r.slot_name = '" + e.slot + "'"));
        }
    }
}
