package io.walshadow.snapshot;

import io.walshadow.pg.PgConnectionConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One consistent view of the source for every chunk reader: a {@code REPEATABLE READ READ ONLY} transaction that
 * exported its snapshot ({@code pg_export_snapshot()}) and stays open while readers import it
 * ({@link SnapshotChunkReader}); closing it ends the transaction (readers that already imported keep their view).
 *
 * <p>{@link #lsn()} is {@code pg_current_wal_lsn()} read right after the snapshot was taken: every transaction
 * the snapshot sees committed below it (a commit record is written before the transaction leaves the proc array).
 */
public final class ExportedSnapshot implements AutoCloseable {
    private final Connection connection;
    private final String id;
    private final String lsn;

    private ExportedSnapshot(Connection connection, String id, String lsn) {
        this.connection = connection;
        this.id = id;
        this.lsn = lsn;
    }

    /** Exports a snapshot; the transaction holds no table lock (the chunk readers lock one table per chunk). */
    public static ExportedSnapshot export(PgConnectionConfig pg) throws SQLException {
        Connection c = SnapshotTransaction.begin(pg);
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_export_snapshot(), pg_current_wal_lsn()::text")) {
            rs.next();
            return new ExportedSnapshot(c, rs.getString(1), rs.getString(2));
        } catch (SQLException e) {
            c.close();
            throw e;
        }
    }

    /** The snapshot's name for {@code SET TRANSACTION SNAPSHOT}. */
    public String id() {
        return id;
    }

    /** The WAL position read just after the snapshot was taken, as text ({@code 0/16B3748}). */
    public String lsn() {
        return lsn;
    }

    /** The exporting transaction's own connection (queries here see the snapshot). */
    public Connection connection() {
        return connection;
    }

    @Override
    public void close() throws SQLException {
        SnapshotTransaction.end(connection);
    }
}
