package io.walshadow.clickhouse;

import java.util.List;

/**
 * The statements the sink's committer side runs against one ClickHouse database ({@link StepExecutor},
 * {@link BatchCommitter}, {@link ServerCapabilities#probe}). {@link ClickHouseConnection} is the HTTP one; an
 * interface so tests can run the same code on an engine without an HTTP interface (chDB, for the SQL that only
 * newer servers run).
 */
public interface ClickHouseSql {
    /** The database the sink's tables live in. */
    String database();

    /** Runs a statement that returns no rows (DDL, INSERT ... SELECT, OPTIMIZE, ...). */
    void execute(String sql);

    /**
     * Runs a SELECT (or SHOW / DESCRIBE) and returns its rows as TabSeparated fields, unescaped; {@code \N} reads as
     * null. The SQL must not carry its own FORMAT clause.
     */
    List<String[]> queryTsv(String sql);

    /** First field of the first row, or null when there is no row. */
    default String queryString(String sql) {
        List<String[]> rows = queryTsv(sql);
        return rows.isEmpty() ? null : rows.get(0)[0];
    }

    /**
     * Inserts RowBinary rows (every column of {@code table}, a quoted {@code db.table}, in table order); returns the
     * rows written.
     */
    long insertRowBinary(String table, RowBinaryBuffer rows);
}
