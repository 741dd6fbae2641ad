package io.walshadow.testing;

import org.apache.flink.util.FileUtils;
import static io.walshadow.clickhouse.DestinationSchema.quote;

import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.ClickHouseException;
import io.walshadow.clickhouse.ClickHouseSql;
import io.walshadow.clickhouse.RowBinaryBuffer;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One long-lived chDB session (a modern ClickHouse engine, in a node process running {@code deploy/local/chdb-run.mjs
 * --serve}) behind {@link ClickHouseSql}, so the sink's committer code runs on it unchanged: a statement's result
 * comes back before the next one is chosen, unlike {@link Chdb#run}. Tables live until {@link #close}. chDB has no
 * HTTP interface, so {@link #insertRowBinary} feeds the bytes through SQL ({@link Chdb#rowBinaryInsert}). A missing
 * or broken chDB install fails the test, as with {@link Chdb}.
 */
public final class ChdbSession implements ClickHouseSql, AutoCloseable {
    private static final Pattern HEADER = Pattern.compile("#chdb-(result|error) (\\d+)");
    private static final Pattern CODE = Pattern.compile("Code: (\\d+)\\.");

    private final String database;
    private final Duration timeout;
    private final Path work;
    private final Process process;
    private final OutputStream in;
    private final DataInputStream out;
    /** Number of the request waiting for its answer, 0 when none: the watchdog kills the process only for it. */
    private volatile long waiting;
    private volatile boolean timedOut;
    private long requests;

    private ChdbSession(String database, Duration timeout) throws IOException {
        this.database = database;
        this.timeout = timeout;
        Path dir = Chdb.installDir();
        if (!Files.isRegularFile(dir.resolve("node_modules/chdb/package.json"))) {
            throw new IllegalStateException("chDB is not installed in " + dir + ": run deploy/local/chdb.sh, as "
                    + "deploy/local/test.sh does");
        }
        work = Files.createTempDirectory("walshadow-chdb-session-");
        ProcessBuilder pb = new ProcessBuilder("node", Chdb.runner().toString(), "--serve")
                .directory(work.toFile())
                .redirectError(work.resolve("stderr").toFile());
        pb.environment().put("WALSHADOW_CHDB_DIR", dir.toString());
        // The runner's data path goes under TMPDIR: inside our work dir, so close() removes it even after a kill.
        pb.environment().put("TMPDIR", work.toString());
        process = pb.start();
        in = process.getOutputStream();
        out = new DataInputStream(process.getInputStream());
    }

    /** Starts a session with database {@code database} created (chDB's own default database is an Overlay). */
    public static ChdbSession open(String database) {
        ChdbSession s;
        try {
            s = new ChdbSession(database, Chdb.DEFAULT_TIMEOUT);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start node " + Chdb.runner() + " (is node installed?)", e);
        }
        try {
            s.execute("CREATE DATABASE IF NOT EXISTS " + quote(database));
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
        return s;
    }

    @Override
    public String database() {
        return database;
    }

    @Override
    public void execute(String sql) {
        request(sql);
    }

    @Override
    public List<String[]> queryTsv(String sql) {
        String s = sql.strip();
        return ClickHouseConnection.parseTsv(request(s.endsWith(";") ? s.substring(0, s.length() - 1) : s));
    }

    /**
     * {@code INSERT INTO table SELECT * FROM format(RowBinary, '<structure>', base64Decode('...'))}, the structure
     * being the table's columns as the engine describes them (what a real server assumes for a RowBinary body).
     */
    @Override
    public long insertRowBinary(String table, RowBinaryBuffer rows) {
        List<String> cols = new ArrayList<>();
        for (String[] c : queryTsv("DESCRIBE TABLE " + table)) {
            cols.add(quote(c[0]) + " " + c[1]);
        }
        execute(Chdb.rowBinaryInsert(table, String.join(", ", cols), rows.toByteArray()));
        return rows.rows();
    }

    /** Sends one statement, returns its TabSeparated result; a chDB error is a {@link ClickHouseException}. */
    private synchronized String request(String sql) {
        if (!process.isAlive()) {
            throw new IllegalStateException("the chDB process has exited: " + stderr());
        }
        long id = ++requests;
        waiting = id;
        CompletableFuture.delayedExecutor(timeout.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
            if (waiting == id) {
                timedOut = true;
                process.destroyForcibly(); // unblocks the read below with EOF
            }
        });
        try {
            byte[] b = sql.getBytes(StandardCharsets.UTF_8);
            in.write((b.length + "\n").getBytes(StandardCharsets.US_ASCII));
            in.write(b);
            in.flush();
            String header = readLine();
            Matcher m = HEADER.matcher(header);
            if (!m.matches()) {
                throw new IllegalStateException("bad answer from chdb-run.mjs: " + header);
            }
            byte[] body = new byte[Integer.parseInt(m.group(2))];
            out.readFully(body);
            String text = new String(body, StandardCharsets.UTF_8);
            if (m.group(1).equals("error")) {
                Matcher code = CODE.matcher(text);
                // A ServerException cause, so ClickHouseException.retryable() judges chDB's code as a server's.
                throw new ClickHouseException(sql, text, new com.clickhouse.client.api.ServerException(
                        code.find() ? Integer.parseInt(code.group(1)) : 1002, text, 500, null));
            }
            return text;
        } catch (IOException e) {
            throw new IllegalStateException((timedOut ? "chDB answered nothing within " + timeout
                    : "the chDB process failed") + " at: " + sql.lines().findFirst().orElse("") + "; " + stderr(), e);
        } finally {
            waiting = 0;
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int c = out.read(); c != '\n'; c = out.read()) {
            if (c < 0) {
                throw new EOFException("end of output");
            }
            line.write(c);
        }
        return line.toString(StandardCharsets.US_ASCII);
    }

    private String stderr() {
        try {
            return Files.readString(work.resolve("stderr"), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "(no stderr: " + e.getMessage() + ")";
        }
    }

    /** Ends the session: stdin closed, the runner drops its data path and exits. */
    @Override
    public synchronized void close() {
        try {
            in.close();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        } finally {
            // best effort: a leftover temp dir must not hide the test's own outcome
            FileUtils.deleteDirectoryQuietly(work.toFile());
        }
    }
}
