package io.walshadow.snapshot;

import io.walshadow.pg.PgConnectionConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Reads chunks of tables under an imported snapshot ({@code SET TRANSACTION SNAPSHOT}), one connection per reader,
 * so that parallel readers see exactly one state of the database. Rows arrive with their TID (the identity of
 * tables without a primary key) and their columns in PostgreSQL's text output.
 */
public final class SnapshotChunkReader implements AutoCloseable {
    /** A row of a chunk: its heap TID and the text output of each selected column (null for SQL NULL). */
    public record Row(long block, int offset, String[] values) {}

    @FunctionalInterface
    public interface RowSink {
        void accept(Row row) throws Exception;
    }

    private final Connection connection;

    private SnapshotChunkReader(Connection connection) {
        this.connection = connection;
    }

    public static SnapshotChunkReader open(PgConnectionConfig pg, String snapshotId) throws SQLException {
        Connection c = SnapshotTransaction.begin(pg);
        try (Statement st = c.createStatement()) {
            // must be the transaction's first statement; an expired snapshot fails here, naming it
            st.execute("SET TRANSACTION SNAPSHOT " + literal(snapshotId));
            return new SnapshotChunkReader(c);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
    }

    /** The table's size in heap pages, as the chunk plan needs it. */
    public long relPages(String qualifiedTable) throws SQLException {
        try (Statement st = connection.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_relation_size(" + literal(qualifiedTable)
                     + "::regclass, 'main') / current_setting('block_size')::bigint")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Streams the rows of {@code table} in {@code range} to {@code sink} ({@code columns}: a select list of the
     * table's columns, already quoted); returns the number of rows.
     */
    public long read(String qualifiedTable, String columns, TidRange range, RowSink sink) throws Exception {
        long n = 0;
        try (Statement st = connection.createStatement()) {
            st.setFetchSize(4096); // a cursor: a chunk never has to fit in memory
            try (ResultSet rs = st.executeQuery("SELECT (ctid::text::point)[0]::bigint, (ctid::text::point)[1]::int, "
                    + columns + " FROM " + qualifiedTable + " WHERE " + range.predicate())) {
                int width = rs.getMetaData().getColumnCount() - 2;
                while (rs.next()) {
                    String[] values = new String[width];
                    for (int i = 0; i < width; i++) {
                        values[i] = rs.getString(i + 3);
                    }
                    sink.accept(new Row(rs.getLong(1), rs.getInt(2), values));
                    n++;
                }
            }
        }
        return n;
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    @Override
    public void close() throws SQLException {
        SnapshotTransaction.end(connection);
    }
}
