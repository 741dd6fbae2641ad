package io.walshadow.bench.e2e;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * DDL under load: an ALTER TABLE of {@code pgbench_history} every few milliseconds on a thread of its own (ADD
 * COLUMN, then DROP COLUMN of the column added before, and so on), as a migration tool's burst would, while
 * pgbench writes. Each ALTER waits for its lock like any migration does ({@code lock_timeout} 2 s; one that times
 * out is counted as refused).
 */
final class DdlLoad implements AutoCloseable {
    private final Thread thread;
    private volatile boolean stopped;
    private volatile int done;
    private volatile int refused;

    DdlLoad(Source source, int everyMs) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", source.user());
        p.setProperty("password", source.password());
        Connection c = DriverManager.getConnection("jdbc:postgresql://" + source.host() + ":" + source.port() + "/"
                + source.database(), p);
        try (Statement st = c.createStatement()) {
            st.execute("SET lock_timeout = '2s'");
        }
        thread = new Thread(() -> {
            try (c; Statement st = c.createStatement()) {
                for (int i = 0; !stopped; i++) {
                    long next = System.currentTimeMillis() + everyMs;
                    String sql = i % 2 == 0 ? "ALTER TABLE pgbench_history ADD COLUMN ddl_" + i + " int DEFAULT " + i
                            : "ALTER TABLE pgbench_history DROP COLUMN ddl_" + (i - 1);
                    try {
                        st.execute(sql);
                        done++;
                    } catch (SQLException e) {
                        refused++;
                    }
                    long wait = next - System.currentTimeMillis();
                    if (wait > 0) {
                        Thread.sleep(wait);
                    }
                }
            } catch (InterruptedException | SQLException e) {
                // stopped
            }
        }, "ddl-load");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops the DDL; returns how many ALTERs ran. */
    int stop() throws InterruptedException {
        stopped = true;
        thread.join(10_000);
        if (refused > 0) {
            E2eBenchmark.log("DDL load: " + refused + " ALTERs timed out on their lock");
        }
        return done;
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
