package io.walshadow.testing;

import io.walshadow.wal.Lsn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;

/**
 * The local PostgreSQL 15 started by {@code deploy/local/stack.sh}. Settings come from the variables that
 * {@code stack.sh env} prints (the test command exports them); when a test runs without them (an IDE), the same
 * defaults and the password file in the stack's state directory are used.
 */
public final class LocalPg {
    private LocalPg() {}

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? dflt : v;
    }

    public static String stateDir() {
        return env("WALSHADOW_STATE_DIR", "/var/lib/walshadow-dev");
    }

    public static String host() {
        return env("WALSHADOW_PG_HOST", "127.0.0.1");
    }

    public static int port() {
        return Integer.parseInt(env("WALSHADOW_PG_PORT", "55432"));
    }

    /** The second cluster of {@code stack.sh pg-wrap-start} (xid counter moved near wraparound). */
    public static int wrapPort() {
        return Integer.parseInt(env("WALSHADOW_PG_WRAP_PORT", "55433"));
    }

    public static String database() {
        return env("WALSHADOW_PG_DATABASE", "walshadow");
    }

    public static String user() {
        return env("WALSHADOW_PG_USER", "walshadow");
    }

    public static String password() {
        String v = System.getenv("WALSHADOW_PG_PASSWORD");
        if (v != null && !v.isEmpty()) {
            return v;
        }
        try {
            return Files.readString(Path.of(stateDir(), "secrets", "pg_password"), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new IllegalStateException("no WALSHADOW_PG_PASSWORD and no password file: start the stack with "
                    + "deploy/local/stack.sh start and export its env", e);
        }
    }

    public static Path bin(String tool) {
        return Path.of(env("WALSHADOW_PG_BIN", "/usr/lib/postgresql/15/bin"), tool);
    }

    public static Path dataDir() {
        return Path.of(env("WALSHADOW_PG_DATA", stateDir() + "/pg/data"));
    }

    public static Path walDir() {
        return dataDir().resolve("pg_wal");
    }

    public static String jdbcUrl() {
        return jdbcUrl(port());
    }

    /** The stack's database on another cluster of the same host (same role and password): {@link #wrapPort()}. */
    public static String jdbcUrl(int port) {
        return "jdbc:postgresql://" + host() + ":" + port + "/" + database();
    }

    public static Connection connect() throws SQLException {
        return connect(port());
    }

    /** As {@link #connect()}, to the cluster listening on {@code port}. */
    public static Connection connect(int port) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user());
        p.setProperty("password", password());
        p.setProperty("socketTimeout", "300"); // a test's statement never waits on a dead server for ever
        return DriverManager.getConnection(jdbcUrl(port), p);
    }

    /** Runs each statement in autocommit mode. */
    public static void exec(Connection c, String... sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            for (String s : sql) {
                st.execute(s);
            }
        }
    }

    /**
     * {@code CREATE EXTENSION IF NOT EXISTS}, tried twice: two sessions creating the same extension at once can both
     * pass the check, and the loser fails on the catalog's unique index although the extension is then there.
     */
    public static void createExtension(Connection c, String name) throws SQLException {
        try {
            exec(c, "CREATE EXTENSION IF NOT EXISTS " + name);
        } catch (SQLException e) {
            exec(c, "CREATE EXTENSION IF NOT EXISTS " + name);
        }
    }

    public static String queryString(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    public static List<String> queryColumn(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    public static long currentLsn(Connection c) throws SQLException {
        return Lsn.parse(queryString(c, "SELECT pg_current_wal_insert_lsn()"));
    }

    /** Flushes WAL up to now and returns the flush LSN: everything before it is readable from pg_wal. */
    public static long flushLsn(Connection c) throws SQLException {
        exec(c, "SELECT pg_switch_wal()"); // forces a flush; cheap with fsync=off
        return Lsn.parse(queryString(c, "SELECT pg_current_wal_flush_lsn()"));
    }

    public static int segmentSize(Connection c) throws SQLException {
        return Integer.parseInt(queryString(c,
                "SELECT setting::int * (CASE unit WHEN 'B' THEN 1 WHEN 'kB' THEN 1024 WHEN 'MB' THEN 1048576 END)"
                        + " FROM pg_settings WHERE name = 'wal_segment_size'"));
    }

    public static int serverVersionNum(Connection c) throws SQLException {
        return Integer.parseInt(queryString(c, "SHOW server_version_num"));
    }

    /** The server's major version (14..18). */
    public static int major(Connection c) throws SQLException {
        return serverVersionNum(c) / 10000;
    }

    /**
     * Whether the server was built with lz4: only then does it offer it for TOAST compression (a build without it,
     * such as the npm package's servers of another major, leaves it out of default_toast_compression's values).
     */
    public static boolean offersLz4(Connection c) throws SQLException {
        return "t".equals(queryString(c, "SELECT 'lz4' = ANY(enumvals) FROM pg_settings"
                + " WHERE name = 'default_toast_compression'"));
    }

    /** Whether the extension can be created on this server (its control file is installed). */
    public static boolean extensionAvailable(Connection c, String name) throws SQLException {
        return queryString(c, "SELECT 1 FROM pg_available_extensions WHERE name = '" + name.replace("'", "''")
                + "'") != null;
    }

    /**
     * Skips the calling test, saying why on stdout and in the skip, when the server cannot create the extension (the
     * npm package's servers of another major ship the contrib modules but not PostGIS).
     */
    public static void assumeExtension(Connection c, String name) throws SQLException {
        boolean available = extensionAvailable(c, name);
        String why = "PostgreSQL " + major(c) + " on port " + port() + " has no extension " + name + " installed";
        if (!available) {
            System.out.println("[skip] " + why);
        }
        Assumptions.assumeTrue(available, why);
    }

    /**
     * {@code lz4} when the server offers it, else {@code pglz}, printing the substitution: for workloads that want
     * a second compression method but test the same paths with either.
     */
    public static String lz4OrPglz(Connection c) throws SQLException {
        if (offersLz4(c)) {
            return "lz4";
        }
        System.out.println("[capability] PostgreSQL " + major(c) + " on port " + port() + " was built without lz4:"
                + " its lz4 columns are pglz here");
        return "pglz";
    }

    public static int timeline(Connection c) throws SQLException {
        return Integer.parseInt(queryString(c, "SELECT timeline_id FROM pg_control_checkpoint()"));
    }

    /** Runs a PostgreSQL tool ({@code pg_waldump}, ...) and returns its stdout; fails on a nonzero exit. */
    public static String runTool(List<String> command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(false);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        int rc = p.waitFor();
        if (rc != 0) {
            throw new IOException(command.get(0) + " exited " + rc + ": " + new String(err, StandardCharsets.UTF_8));
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
