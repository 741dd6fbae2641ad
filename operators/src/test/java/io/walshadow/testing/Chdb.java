package io.walshadow.testing;

import org.apache.flink.util.FileUtils;
import io.walshadow.clickhouse.ClickHouseConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A modern ClickHouse engine (chDB 26.x, in-process in node) for tests of the SQL that only newer servers run: the
 * only server installable here is 18.16. Each {@link #run} call is one chDB session on a fresh temporary data path
 * (tables live from statement to statement within the call, never across calls), executed by
 * {@code deploy/local/chdb-run.mjs}. chDB is installed by {@code deploy/local/chdb.sh} into {@code
 * $WALSHADOW_CHDB_DIR} (test.sh exports it), else {@code $WALSHADOW_STATE_DIR/chdb}. A missing or broken install
 * fails the test: it is never a reason to skip. {@link ChdbSession} keeps one session open across statements.
 */
public final class Chdb {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

    private static final Pattern HEADER = Pattern.compile("#chdb-result (\\d+) (\\d+)");

    private Chdb() {}

    /** Thrown when chDB rejects a statement; the results of the statements before it are in {@link #before()}. */
    public static final class StatementException extends RuntimeException {
        private final int index;
        private final List<List<String[]>> before;

        StatementException(int index, String message, List<List<String[]>> before) {
            super(message);
            this.index = index;
            this.before = before;
        }

        /** 0-based index of the failing statement. */
        public int index() {
            return index;
        }

        public List<List<String[]>> before() {
            return before;
        }
    }

    public static Path installDir() {
        String dir = System.getenv("WALSHADOW_CHDB_DIR");
        return dir == null || dir.isEmpty() ? Path.of(LocalPg.stateDir(), "chdb") : Path.of(dir);
    }

    /** Rows of every statement, in order (DDL and INSERT give no rows). */
    public static List<List<String[]>> run(String... statements) {
        return run(List.of(statements), DEFAULT_TIMEOUT);
    }

    /** Rows of the last statement; the ones before it typically set up tables. */
    public static List<String[]> query(String... statements) {
        List<List<String[]>> all = run(statements);
        return all.get(all.size() - 1);
    }

    public static List<List<String[]>> run(List<String> statements, Duration timeout) {
        if (statements.isEmpty()) {
            throw new IllegalArgumentException("no statements");
        }
        Path dir = installDir();
        if (!Files.isRegularFile(dir.resolve("node_modules/chdb/package.json"))) {
            throw new IllegalStateException("chDB is not installed in " + dir + " (WALSHADOW_CHDB_DIR="
                    + System.getenv("WALSHADOW_CHDB_DIR") + "): run deploy/local/chdb.sh, as deploy/local/test.sh does");
        }
        Path work = null;
        try {
            // Files, not pipes, for all three streams: no pipe-buffer deadlock whatever the sizes, and the runner's
            // temp files stay inspectable while it runs.
            work = Files.createTempDirectory("walshadow-chdb-run-");
            Path in = work.resolve("statements.json");
            Path out = work.resolve("stdout");
            Path err = work.resolve("stderr");
            Files.writeString(in, toJson(statements), StandardCharsets.UTF_8);
            ProcessBuilder pb = new ProcessBuilder("node", runner().toString(), in.toString())
                    .directory(work.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            pb.environment().put("WALSHADOW_CHDB_DIR", dir.toString());
            Process p = pb.start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new IllegalStateException("chdb-run.mjs did not finish within " + timeout + " ("
                        + statements.size() + " statements, first: " + firstLine(statements.get(0)) + ")");
            }
            List<List<String[]>> results = parse(Files.readAllBytes(out));
            String stderr = Files.readString(err, StandardCharsets.UTF_8).strip();
            int rc = p.exitValue();
            if (rc == 3) {
                throw new StatementException(results.size(), stderr, results);
            }
            if (rc != 0 || results.size() != statements.size()) {
                throw new IllegalStateException("chdb-run.mjs exited " + rc + " after " + results.size() + " of "
                        + statements.size() + " statements: " + stderr);
            }
            return results;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run node " + runner() + " (is node installed?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            if (work != null) {
                FileUtils.deleteDirectoryQuietly(work.toFile()); // best effort
            }
        }
    }

    /**
     * {@code INSERT INTO table SELECT * FROM format(RowBinary, 'structure', base64Decode('...'))}: feeds RowBinary
     * bytes through SQL, because chDB has no HTTP interface to POST {@code INSERT ... FORMAT RowBinary} to (and its
     * raw-insert API takes text formats only). {@code structure} is the column list, e.g. {@code "a UInt64, b
     * String"}. Servers need 23.2 for this three-argument {@code format} (PR #45873); a real server gets the bytes
     * as an HTTP body instead.
     */
    public static String rowBinaryInsert(String table, String structure, byte[] rowBinary) {
        return "INSERT INTO " + table + " SELECT * FROM format(RowBinary, '"
                + structure.replace("\\", "\\\\").replace("'", "\\'") + "', base64Decode('"
                + Base64.getEncoder().encodeToString(rowBinary) + "'))";
    }

    /** Splits the runner's length-framed output; each body is TabSeparated, parsed like the 18.16 client does. */
    static List<List<String[]>> parse(byte[] out) {
        List<List<String[]>> results = new ArrayList<>();
        int pos = 0;
        while (pos < out.length) {
            int nl = pos;
            while (nl < out.length && out[nl] != '\n') {
                nl++;
            }
            String header = new String(out, pos, nl - pos, StandardCharsets.US_ASCII);
            Matcher m = HEADER.matcher(header);
            if (!m.matches() || Integer.parseInt(m.group(1)) != results.size() || nl == out.length) {
                throw new IllegalStateException("bad chdb-run.mjs output at byte " + pos + ": " + header);
            }
            int len = Integer.parseInt(m.group(2));
            if (nl + 1 + len > out.length) {
                throw new IllegalStateException("truncated chdb-run.mjs output for statement " + m.group(1));
            }
            results.add(ClickHouseConnection.parseTsv(new String(out, nl + 1, len, StandardCharsets.UTF_8)));
            pos = nl + 1 + len;
        }
        return results;
    }

    static String toJson(List<String> statements) {
        StringBuilder sb = new StringBuilder("[");
        for (String s : statements) {
            if (sb.length() > 1) {
                sb.append(',');
            }
            sb.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\t' -> sb.append("\\t");
                    case '\r' -> sb.append("\\r");
                    default -> {
                        if (c < 0x20) {
                            sb.append(String.format("\\u%04x", (int) c));
                        } else {
                            sb.append(c);
                        }
                    }
                }
            }
            sb.append('"');
        }
        return sb.append(']').toString();
    }

    /** deploy/local/chdb-run.mjs of this checkout: Surefire runs in the module dir, an IDE maybe in the root. */
    static Path runner() {
        for (Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath(); d != null; d = d.getParent()) {
            Path r = d.resolve("deploy/local/chdb-run.mjs");
            if (Files.isRegularFile(r)) {
                return r;
            }
        }
        throw new IllegalStateException("deploy/local/chdb-run.mjs not found above " + System.getProperty("user.dir"));
    }

    private static String firstLine(String sql) {
        String s = sql.strip();
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
