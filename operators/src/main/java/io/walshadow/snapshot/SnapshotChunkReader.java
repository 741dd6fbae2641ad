package io.walshadow.snapshot;

import io.walshadow.pg.PgConnectionConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * Reads chunks of tables under an imported snapshot ({@code SET TRANSACTION SNAPSHOT}), one connection per reader,
 * so that parallel readers see exactly one state of the database; each chunk in its own transaction
 * ({@link #restart}), so that the table lock a chunk takes ({@link #lock}) is gone when it ends. Rows arrive with their TID (the identity of
 * tables without a primary key) and their columns in PostgreSQL's text output, read by COPY ({@link #cursor}).
 */
public final class SnapshotChunkReader implements AutoCloseable {
    /** A row of a chunk: its heap TID and the text output of each selected column (null for SQL NULL). */
    public record Row(long block, int offset, String[] values) {}

    @FunctionalInterface
    public interface RowSink {
        void accept(Row row) throws Exception;
    }

    private final PgConnectionConfig pg;
    /** The chunk transactions' connection: each chunk runs in its own transaction in the imported snapshot. */
    private final Connection connection;
    /** An autocommit connection that sees the catalog as it is now (the chunk connection sees it as of the snapshot). */
    private Connection catalog;
    private String snapshotId;

    private SnapshotChunkReader(PgConnectionConfig pg, Connection connection, String snapshotId) {
        this.pg = pg;
        this.connection = connection;
        this.snapshotId = snapshotId;
    }

    public static SnapshotChunkReader open(PgConnectionConfig pg, String snapshotId) throws SQLException {
        return open(pg, snapshotId, null);
    }

    /**
     * As {@link #open(PgConnectionConfig, String)}, running {@code settings} (SET commands) first, in autocommit so
     * that they outlive the chunk transactions.
     */
    public static SnapshotChunkReader open(PgConnectionConfig pg, String snapshotId, String settings) throws SQLException {
        Connection c = pg.openSql();
        try {
            if (settings != null) {
                try (Statement st = c.createStatement()) {
                    st.execute(settings);
                }
            }
            SnapshotTransaction.configure(c);
            SnapshotChunkReader r = new SnapshotChunkReader(pg, c, snapshotId);
            r.importSnapshot();
            return r;
        } catch (SQLException e) {
            c.close();
            throw e;
        }
    }

    /** The snapshot this reader imports. */
    public String snapshotId() {
        return snapshotId;
    }

    /**
     * Ends the current transaction, releasing every lock it took, and begins the next one in {@code snapshotId}
     * (the coordinator's current export): a chunk's transaction lasts as long as the chunk.
     */
    public void restart(String snapshotId) throws SQLException {
        connection.rollback();
        this.snapshotId = snapshotId;
        importSnapshot();
    }

    /** Ends the current chunk's transaction: its lock is released, the reader holds none until the next chunk. */
    public void endChunk() throws SQLException {
        connection.rollback();
    }

    private void importSnapshot() throws SQLException {
        try (Statement st = connection.createStatement()) {
            // the transaction's first statement; an expired snapshot fails here, naming it
            st.execute("SET TRANSACTION SNAPSHOT " + literal(snapshotId));
        }
    }

    /**
     * Locks the relation {@code relOid} in ACCESS SHARE mode for the rest of this chunk's transaction and returns it
     * as the catalog has it now (null: dropped). Under the lock no DDL that rewrites, drops or renames the table or its
     * columns can commit until the chunk ends, and DDL queued for it waits for this chunk only. The table is locked
     * by its current name, then checked to still carry it: a rename in between takes another try.
     */
    public LockedTable lock(int relOid) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            LockedTable before = LockedTable.read(catalog(), relOid);
            if (before == null) {
                return null;
            }
            try (Statement st = connection.createStatement()) {
                st.execute("LOCK TABLE ONLY " + before.name() + " IN ACCESS SHARE MODE");
                LockedTable now = LockedTable.read(catalog(), relOid);
                if (now == null || now.name().equals(before.name())) {
                    return now;
                }
            } catch (SQLException e) {
                if (!"42P01".equals(e.getSQLState()) || attempt >= 5) {
                    throw e;
                }
            }
            restart(snapshotId); // dropped or renamed between the look-up and the lock: the lock may be another's
            if (attempt >= 5) {
                throw new SQLException("relation " + Integer.toUnsignedString(relOid) + " was renamed 5 times while the"
                        + " snapshot reader locked it");
            }
        }
    }

    private Connection catalog() throws SQLException {
        if (catalog == null) {
            catalog = pg.openSql();
        }
        return catalog;
    }

    /** The table's size in heap pages, as the chunk plan needs it. */
    public long relPages(String qualifiedTable) throws SQLException {
        return relPages(connection, literal(qualifiedTable) + "::regclass");
    }

    /** The heap pages of the relation {@code regclass} (an SQL expression of type regclass). */
    static long relPages(Connection c, String regclass) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_relation_size(" + regclass
                     + ", 'main') / current_setting('block_size')::bigint")) {
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
        try (Cursor c = cursor(qualifiedTable, columns, range, -1, 0)) {
            for (Row r = c.next(); r != null; r = c.next()) {
                sink.accept(r);
                n++;
            }
        }
        return n;
    }

    /**
     * The rows of {@code table} in {@code range} after TID {@code (afterBlock, afterOffset)} ({@code afterBlock < 0}:
     * all of them), in TID order, streamed by {@code COPY (SELECT ...) TO STDOUT}: a chunk never has to fit in memory,
     * and COPY's text rows cost both sides less than a cursor's result rows (no per-value length words and strings
     * from the driver, no round trip per fetch). The values are the columns' output functions' text, as a SELECT
     * gives them; COPY's escapes are undone by {@link CopyTextRow}. While it is open, the connection runs nothing
     * else.
     *
     * <p>TID order without ORDER BY: a TID range scan reads the heap forward, page by page and line pointer by line
     * pointer, and never joins a synchronized scan (only sequential scans do); the reader checks it anyway.
     */
    public Cursor cursor(String qualifiedTable, String columns, TidRange range, long afterBlock, int afterOffset)
            throws SQLException {
        String where = range.predicate() + (afterBlock < 0 ? "" : " AND ctid > '(" + afterBlock + "," + afterOffset + ")'::tid");
        String sql = "COPY (SELECT ctid" + (columns.isEmpty() ? "" : ", " + columns) + " FROM " + qualifiedTable
                + " WHERE " + where + ") TO STDOUT";
        CopyOut copy = connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql);
        return new Cursor(connection, qualifiedTable, copy);
    }

    /** An open chunk copy. */
    public static final class Cursor implements AutoCloseable {
        private final Connection connection;
        private final String table;
        private final CopyOut copy;
        /** Selected columns after the ctid. */
        private final int width;

        private Cursor(Connection connection, String table, CopyOut copy) {
            this.connection = connection;
            this.table = table;
            this.copy = copy;
            this.width = copy.getFieldCount() - 1;
        }

        /** The next row, or null after the last. */
        public Row next() throws SQLException {
            byte[] line = copy.readFromCopy();
            if (line == null) {
                return null;
            }
            return CopyTextRow.parse(line, width, table);
        }

        /**
         * Ends the copy. Closed before its last row (a failure or the job's end), it closes the reader's connection
         * too: pgjdbc's cancelCopy leaves the connection's protocol state unusable for the next statement, and
         * reading the rest of a chunk only to drop it costs more than a new connection.
         */
        @Override
        public void close() throws SQLException {
            if (copy.isActive()) {
                connection.close();
            }
        }
    }

    /** The reader's own connection (in the imported snapshot). */
    public Connection connection() {
        return connection;
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    @Override
    public void close() throws SQLException {
        try {
            if (!connection.isClosed()) { // closed with a copy unfinished (Cursor#close)
                SnapshotTransaction.end(connection);
            }
        } finally {
            if (catalog != null) {
                catalog.close();
            }
        }
    }
}
