package io.walshadow.pg;

import java.io.Serializable;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;
import org.postgresql.PGProperty;

/**
 * How to reach the source PostgreSQL. The password travels inside the job graph (as any Flink connector's does),
 * but never into logs: {@link #toString()} masks it.
 */
public final class PgConnectionConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String host;
    private final int port;
    private final String database;
    private final String user;
    private final String password;
    private final String sslMode;
    private final String sslRootCert;

    public PgConnectionConfig(String host, int port, String database, String user, String password,
                              String sslMode, String sslRootCert) {
        this.host = Objects.requireNonNull(host, "host");
        this.port = port;
        this.database = Objects.requireNonNull(database, "database");
        this.user = Objects.requireNonNull(user, "user");
        this.password = password;
        this.sslMode = sslMode == null || sslMode.isEmpty() ? "prefer" : sslMode;
        this.sslRootCert = sslRootCert;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String database() {
        return database;
    }

    public String user() {
        return user;
    }

    /** The password (never logged: {@link #toString()} masks it). */
    public String password() {
        return password;
    }

    /** Longer than any handshake a live server takes; see {@link #openReplication}. */
    static final int REPLICATION_SOCKET_TIMEOUT_SECONDS = 60;

    public String jdbcUrl() {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    private Properties baseProperties() {
        Properties p = new Properties();
        PGProperty.USER.set(p, user);
        if (password != null) {
            PGProperty.PASSWORD.set(p, password);
        }
        PGProperty.SSL_MODE.set(p, sslMode);
        if (sslRootCert != null && !sslRootCert.isEmpty()) {
            PGProperty.SSL_ROOT_CERT.set(p, sslRootCert);
        }
        PGProperty.APPLICATION_NAME.set(p, "walshadow");
        return p;
    }

    /** An ordinary SQL connection (catalog queries, slot management). */
    public Connection openSql() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), baseProperties());
    }

    /**
     * A physical replication connection (walsender): replication commands only, simple query protocol. Its socket
     * has a read timeout: the stream itself is read without blocking, so only the handshake and the goodbye block,
     * and a server that crashed or hangs must fail them (and so restart the source) instead of holding the task.
     */
    public Connection openReplication() throws SQLException {
        Properties p = baseProperties();
        PGProperty.SOCKET_TIMEOUT.set(p, REPLICATION_SOCKET_TIMEOUT_SECONDS);
        PGProperty.TCP_KEEP_ALIVE.set(p, true);
        PGProperty.REPLICATION.set(p, "true");
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "10");
        PGProperty.PREFER_QUERY_MODE.set(p, "simple");
        return DriverManager.getConnection(jdbcUrl(), p);
    }

    @Override
    public String toString() {
        return "PgConnectionConfig{" + user + "@" + host + ":" + port + "/" + database + ", sslmode=" + sslMode
                + ", password=" + (password == null ? "<none>" : "******") + "}";
    }
}
