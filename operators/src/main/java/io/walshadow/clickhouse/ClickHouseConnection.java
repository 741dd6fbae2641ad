package io.walshadow.clickhouse;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.command.CommandResponse;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.data.ClickHouseFormat;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thin wrapper over client-v2 0.10.0 for the HTTP interface, shaped by what ClickHouse 18.16 accepts: server
 * response compression is off (18.16 answers {@code compress=1} with an empty body), and reads never use the
 * client's default RowBinaryWithNamesAndTypes path (18.16 lacks it): {@link #queryTsv} appends
 * {@code FORMAT TabSeparated} to the SQL (the {@code X-ClickHouse-Format} header is ignored by 18.16) and parses
 * the raw stream. The password is never logged nor put in {@link #toString()} or exception messages.
 */
public final class ClickHouseConnection implements ClickHouseSql, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseConnection.class);
    /** How long a statement is waited for by default ({@code clickhouse.statement.timeout}). */
    public static final java.time.Duration DEFAULT_TIMEOUT = java.time.Duration.ofSeconds(60);
    /** The shortest statement timeout: the server's must stay a whole second shorter. */
    public static final java.time.Duration MIN_TIMEOUT = java.time.Duration.ofSeconds(2);

    /** Refuses a statement timeout below {@link #MIN_TIMEOUT}, naming the option. */
    public static void checkTimeout(java.time.Duration timeout) {
        if (timeout.compareTo(MIN_TIMEOUT) < 0) {
            throw new IllegalArgumentException("clickhouse.statement.timeout must be at least "
                    + MIN_TIMEOUT.toSeconds() + "s, got " + timeout.toMillis() + " ms");
        }
    }

    /** Per connection: query ids are this plus a digest of the statement (see {@link #queryId}). */
    private final String idPrefix = "walshadow-" + Long.toHexString(new java.security.SecureRandom().nextLong()) + "-";

    private final String endpoint;
    private final String user;
    private final String database;
    private final Client client;
    /** How long the client waits for an answer to one statement. */
    private final long timeoutSeconds;
    /**
     * The server gives up on a statement before the client does ({@code max_execution_time}): a statement the client
     * abandoned does not run on for long behind the retry (which replaces it if it still runs).
     */
    private final long serverTimeoutSeconds;

    public ClickHouseConnection(String endpoint, String user, String password, String database) {
        this(endpoint, user, password, database, null);
    }

    public ClickHouseConnection(String endpoint, String user, String password, String database,
                                String rootCertificate) {
        this(endpoint, user, password, database, rootCertificate, DEFAULT_TIMEOUT);
    }

    /**
     * @param rootCertificate PEM file of the CA that signed the server's certificate, for an {@code https://}
     *     endpoint whose CA the JVM does not trust; null for the JVM's trust store (or plain http)
     * @param timeout how long one statement is waited for, at least {@link #MIN_TIMEOUT}; the server is told to give
     *     up a sixth sooner (one to ten seconds)
     */
    public ClickHouseConnection(String endpoint, String user, String password, String database,
                                String rootCertificate, java.time.Duration timeout) {
        checkTimeout(timeout);
        this.timeoutSeconds = timeout.toSeconds();
        this.serverTimeoutSeconds = timeoutSeconds - Math.max(1, Math.min(10, timeoutSeconds / 6));
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.user = Objects.requireNonNull(user, "user");
        this.database = Objects.requireNonNull(database, "database");
        Client.Builder b = new Client.Builder()
                .addEndpoint(endpoint)
                .setUsername(user)
                .setPassword(Objects.requireNonNull(password, "password"))
                .setDefaultDatabase(database)
                // requests run on the calling thread (no async mode), so the futures' get(timeout) below never
                // fires: the socket's read timeout is what ends a statement the server does not answer
                .setSocketTimeout(timeoutSeconds, java.time.temporal.ChronoUnit.SECONDS)
                .compressServerResponse(false);
        if (rootCertificate != null && !rootCertificate.isBlank()) {
            b.setRootCertificate(rootCertificate);
        }
        this.client = b.build();
    }

    public String endpoint() {
        return endpoint;
    }

    public String user() {
        return user;
    }

    @Override
    public String database() {
        return database;
    }

    /** True when the server answers {@code /ping}. */
    public boolean ping() {
        return client.ping();
    }

    /**
     * The query id of a statement on this connection: the same for every attempt of it, so that a retry sent while
     * the server still runs an earlier attempt (the client timed out) replaces it ({@code replace_running_query})
     * instead of running beside it, and the earlier one cannot finish after later statements.
     */
    String queryId(String statement) {
        return idPrefix + java.util.UUID.nameUUIDFromBytes(statement.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void execute(String sql) {
        long start = System.nanoTime();
        com.clickhouse.client.api.command.CommandSettings settings = new com.clickhouse.client.api.command.CommandSettings();
        settings.setQueryId(queryId(sql));
        settings.serverSetting("replace_running_query", "1");
        settings.serverSetting("max_execution_time", Long.toString(serverTimeoutSeconds));
        try (CommandResponse r = client.execute(sql, settings).get(timeoutSeconds, TimeUnit.SECONDS)) {
            // nothing to read
        } catch (Exception e) {
            throw wrap(sql, e);
        }
        trace(start, sql);
    }

    private static void trace(long startNanos, String what) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} ms: {}", (System.nanoTime() - startNanos) / 1_000_000, ClickHouseException.firstLine(what));
        }
    }

    /** One HTTP request; returns the rows the server reports written. */
    @Override
    public long insertRowBinary(String table, RowBinaryBuffer rows) {
        String what = "INSERT INTO " + table + " FORMAT RowBinary (" + rows.rows() + " rows, " + rows.size() + " bytes)";
        long start = System.nanoTime();
        InsertSettings settings = new InsertSettings();
        // one buffer is one insert, however often it is retried
        settings.setQueryId(queryId(what + "#" + System.identityHashCode(rows)));
        settings.serverSetting("replace_running_query", "1");
        settings.serverSetting("max_execution_time", Long.toString(serverTimeoutSeconds));
        // one block, so one part: the insert lands whole or not at all (a retry can tell which)
        settings.serverSetting("max_insert_block_size", Long.toString(Math.max(1_048_576L, rows.rows() + 1)));
        try (InsertResponse r = client.insert(table, rows::writeTo, ClickHouseFormat.RowBinary, settings)
                .get(timeoutSeconds, TimeUnit.SECONDS)) {
            trace(start, what);
            return r.getWrittenRows();
        } catch (Exception e) {
            throw wrap(what, e);
        }
    }

    @Override
    public List<String[]> queryTsv(String sql) {
        String full = sql.strip();
        if (full.endsWith(";")) {
            full = full.substring(0, full.length() - 1);
        }
        full = full + "\nFORMAT TabSeparated";
        byte[] body;
        long start = System.nanoTime();
        com.clickhouse.client.api.query.QuerySettings settings = new com.clickhouse.client.api.query.QuerySettings();
        settings.serverSetting("max_execution_time", Long.toString(serverTimeoutSeconds));
        try (QueryResponse r = client.query(full, settings).get(timeoutSeconds, TimeUnit.SECONDS);
             InputStream in = r.getInputStream()) {
            body = in.readAllBytes();
        } catch (Exception e) {
            throw wrap(sql, e);
        }
        trace(start, sql);
        return parseTsv(new String(body, StandardCharsets.UTF_8));
    }

    /**
     * Splits a TabSeparated body into rows of unescaped fields ({@code \N} is null). Public for the chDB test
     * runner ({@code io.walshadow.testing.Chdb}), which reads the same format from another engine.
     */
    public static List<String[]> parseTsv(String text) {
        List<String[]> rows = new ArrayList<>();
        int start = 0;
        while (start < text.length()) {
            int nl = text.indexOf('\n', start);
            String line = nl < 0 ? text.substring(start) : text.substring(start, nl);
            start = nl < 0 ? text.length() : nl + 1;
            String[] raw = line.split("\t", -1);
            String[] fields = new String[raw.length];
            for (int i = 0; i < raw.length; i++) {
                fields[i] = unescape(raw[i]);
            }
            rows.add(fields);
        }
        return rows;
    }

    /** TabSeparated escaping: backslash sequences; {@code \N} alone is NULL. */
    public static String unescape(String f) {
        if (f.equals("\\N")) {
            return null;
        }
        if (f.indexOf('\\') < 0) {
            return f;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(f.length());
        byte[] b = f.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < b.length; i++) {
            if (b[i] != '\\' || i + 1 == b.length) {
                out.write(b[i]);
                continue;
            }
            byte n = b[++i];
            switch (n) {
                case 't' -> out.write('\t');
                case 'n' -> out.write('\n');
                case 'r' -> out.write('\r');
                case 'b' -> out.write('\b');
                case 'f' -> out.write('\f');
                case '0' -> out.write(0);
                case 'a' -> out.write(7);
                case 'v' -> out.write(11);
                default -> out.write(n); // \\ \' and any other escaped character stand for themselves
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private ClickHouseException wrap(String sql, Exception e) {
        Throwable t = e;
        if (t instanceof ExecutionException && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        String msg = t instanceof TimeoutException ? "no answer within " + timeoutSeconds + " s"
                : t.getClass().getSimpleName() + ": " + t.getMessage();
        return new ClickHouseException(sql, msg, t);
    }

    @Override
    public void close() {
        client.close();
    }

    @Override
    public String toString() {
        return "ClickHouseConnection[" + endpoint + ", user=" + user + ", database=" + database + "]";
    }
}
