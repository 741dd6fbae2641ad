package io.walshadow.testing;

import io.walshadow.clickhouse.ClickHouseConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The local ClickHouse 18.16 started by {@code deploy/local/stack.sh}. Settings come from the variables that
 * {@code stack.sh env} prints; without them (an IDE) the same defaults and the password file in the stack's state
 * directory are used, as {@link LocalPg} does for PostgreSQL.
 */
public final class LocalClickHouse {
    private LocalClickHouse() {}

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? dflt : v;
    }

    public static String url() {
        return env("WALSHADOW_CH_URL", "http://127.0.0.1:" + env("WALSHADOW_CH_HTTP_PORT", "18123"));
    }

    public static String user() {
        return env("WALSHADOW_CH_USER", "walshadow");
    }

    public static String database() {
        return env("WALSHADOW_CH_DATABASE", "walshadow");
    }

    public static String password() {
        String v = System.getenv("WALSHADOW_CH_PASSWORD");
        if (v != null && !v.isEmpty()) {
            return v;
        }
        try {
            return Files.readString(Path.of(LocalPg.stateDir(), "secrets", "ch_password"), StandardCharsets.UTF_8)
                    .trim();
        } catch (IOException e) {
            throw new IllegalStateException("no WALSHADOW_CH_PASSWORD and no password file: start the stack with "
                    + "deploy/local/stack.sh start and export its env", e);
        }
    }

    public static ClickHouseConnection connect() {
        return new ClickHouseConnection(url(), user(), password(), database());
    }
}
