package io.walshadow.clickhouse;

import java.util.Set;

/** A ClickHouse statement failed: carries the server's error text and the first line of the SQL (never credentials). */
public final class ClickHouseException extends RuntimeException {
    /**
     * Server error codes that a later attempt can get past (load, limits, network inside the cluster); any other
     * server error (syntax, unknown column, type mismatch, ...) would fail the same way again.
     */
    private static final Set<Integer> TRANSIENT_CODES = Set.of(
            159, // TIMEOUT_EXCEEDED
            164, // READONLY (a replica in read-only mode)
            202, // TOO_MANY_SIMULTANEOUS_QUERIES
            203, // NO_FREE_CONNECTION
            209, // SOCKET_TIMEOUT
            210, // NETWORK_ERROR
            241, // MEMORY_LIMIT_EXCEEDED
            242, // TABLE_IS_READ_ONLY
            252, // TOO_MANY_PARTS
            319, // UNKNOWN_STATUS_OF_INSERT
            394, // QUERY_WAS_CANCELLED (replaced by another attempt with the same query id)
            425, // SYSTEM_ERROR
            473, // DEADLOCK_AVOIDED
            517); // CANNOT_ASSIGN_ALTER

    private static final java.util.regex.Pattern BODY_CODE = java.util.regex.Pattern.compile("^\\s*Code: (\\d{1,6})[.,]");

    private final String sqlFirstLine;
    private final String serverMessage;
    private final int serverCode;

    public ClickHouseException(String sql, String serverMessage, Throwable cause) {
        super("ClickHouse statement failed: " + firstLine(sql) + " -> " + serverMessage, cause);
        this.sqlFirstLine = firstLine(sql);
        this.serverMessage = serverMessage;
        this.serverCode = serverCode(cause);
    }

    /**
     * The code the client read from the answer's {@code X-ClickHouse-Exception-Code} header, or else from the body
     * ({@code Code: 60, e.displayText() = ...}): servers before about 19.x send no such header, and without the
     * code every error would look transient and be retried for minutes.
     */
    static int serverCode(Throwable cause) {
        if (!(cause instanceof com.clickhouse.client.api.ServerException se)) {
            return 0;
        }
        if (se.getCode() > 0) {
            return se.getCode();
        }
        java.util.regex.Matcher m = BODY_CODE.matcher(String.valueOf(se.getMessage()));
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    public String sqlFirstLine() {
        return sqlFirstLine;
    }

    public String serverMessage() {
        return serverMessage;
    }

    /** The server's error code, 0 when the server did not answer with one (connection refused, timeout, ...). */
    public int serverCode() {
        return serverCode;
    }

    /**
     * Whether the client gave up waiting (clickhouse.statement.timeout) on a server that took the statement: unlike a
     * refused or reset connection, the server may still run it and apply it after the client has moved on.
     */
    public boolean timedOut() {
        for (Throwable t = getCause(); t != null; t = t.getCause()) {
            if (t instanceof java.net.SocketTimeoutException || t instanceof java.util.concurrent.TimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** Whether retrying may succeed: no server answer at all, or a transient server error. */
    public boolean retryable() {
        return serverCode == 0 || TRANSIENT_CODES.contains(serverCode);
    }

    static String firstLine(String sql) {
        if (sql == null) {
            return "";
        }
        String s = sql.strip();
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
