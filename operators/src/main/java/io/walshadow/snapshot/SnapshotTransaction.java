package io.walshadow.snapshot;

import io.walshadow.pg.PgConnectionConfig;
import java.sql.Connection;
import java.sql.SQLException;

/** The REPEATABLE READ READ ONLY transaction both the exporter and the chunk readers run in. */
final class SnapshotTransaction {
    private SnapshotTransaction() {}

    /** A connection inside a new such transaction (its first statement decides the snapshot). */
    static Connection begin(PgConnectionConfig pg) throws SQLException {
        return configure(pg.openSql());
    }

    /** Puts {@code c} in that mode: from its next statement on, it runs in such a transaction. */
    static Connection configure(Connection c) throws SQLException {
        try {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setReadOnly(true);
            return c;
        } catch (SQLException e) {
            c.close();
            throw e;
        }
    }

    /** Ends the transaction (nothing was written) and closes the connection. */
    static void end(Connection c) throws SQLException {
        try {
            c.rollback();
        } finally {
            c.close();
        }
    }
}
