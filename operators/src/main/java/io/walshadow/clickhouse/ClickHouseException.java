package io.walshadow.clickhouse;

/** A ClickHouse statement failed: carries the server's error text and the first line of the SQL (never credentials). */
public final class ClickHouseException extends RuntimeException {
    private final String sqlFirstLine;
    private final String serverMessage;

    public ClickHouseException(String sql, String serverMessage, Throwable cause) {
        super("ClickHouse statement failed: " + firstLine(sql) + " -> " + serverMessage, cause);
        this.sqlFirstLine = firstLine(sql);
        this.serverMessage = serverMessage;
    }

    public String sqlFirstLine() {
        return sqlFirstLine;
    }

    public String serverMessage() {
        return serverMessage;
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
