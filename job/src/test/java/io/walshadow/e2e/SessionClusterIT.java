package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.job.JobConfig;
import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.LocalClickHouse;
import io.walshadow.testing.LocalPg;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The job as users run it: the shaded jar from {@code mvn package}, submitted through Flink's CLI frontend
 * ({@code deploy/flink-session.sh flink run -d -p 1 -c ...}) to a standalone session cluster (JobManager and
 * TaskManager processes of their own), stopped with a savepoint while a transaction is open and another is prepared,
 * resubmitted with {@code -s <savepoint>}; then every table equals PostgreSQL's, each commit is in the commit log
 * once, and no (key, version) holds two different values. Runs after {@code package} (failsafe), on the jar itself.
 */
@ExpectedFaults("jobs cancelled on a session cluster")
class SessionClusterIT {
    private static final Path ROOT = Path.of(System.getProperty("walshadow.root", "..")).toAbsolutePath().normalize();
    private static final Path JAR = Path.of(System.getProperty("walshadow.job.jar",
            "target/walshadow-job-0.1.0-SNAPSHOT.jar")).toAbsolutePath();
    private static final Pattern JOB_ID = Pattern.compile("Job has been submitted with JobID ([0-9a-f]{32})");
    private static final Pattern SAVEPOINT = Pattern.compile("Savepoint completed\\. Path: (\\S+)");

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void submitStopWithSavepointResubmit() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "the shaded job jar " + JAR + " (mvn package builds it)");
        Path home = Files.createTempDirectory("walshadow-session");
        Map<String, String> env = Map.of("WALSHADOW_FLINK_HOME", home.toString(), "WALSHADOW_FLINK_REST_PORT", "18091",
                "WALSHADOW_FLINK_RPC_PORT", "16143", JobConfig.PG_PASSWORD_ENV, LocalPg.password(),
                JobConfig.CH_PASSWORD_ENV, LocalClickHouse.password());
        try (E2e e = new E2e("e2e_session")) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".acct (id int PRIMARY KEY, balance bigint NOT NULL, note text)",
                    "CREATE TABLE " + s + ".events (at timestamptz DEFAULT now(), kind text, n int)",
                    "CREATE TABLE " + s + ".docs (id int PRIMARY KEY, version int, body text)");
            session(env, Duration.ofMinutes(5), "start");
            try {
                String first = submit(env, e, null);
                e.awaitCaughtUp(Duration.ofSeconds(180));
                workload(e.pg, s, 0);
                e.awaitCaughtUp(Duration.ofSeconds(120));
                e.assertAllTablesEqual();

                // across the stop: one transaction still open, one prepared, both finished while no job runs
                Connection open = LocalPg.connect();
                Connection prepared = LocalPg.connect();
                try {
                    open.setAutoCommit(false);
                    LocalPg.exec(open, "INSERT INTO " + s + ".acct SELECT g, g, 'open across the stop' FROM"
                            + " generate_series(1001, 1100) g",
                            // odd ids only: the workloads update the even ones, which would wait for this lock
                            "UPDATE " + s + ".docs SET version = version + 1 WHERE id % 2 = 1");
                    prepared.setAutoCommit(false);
                    LocalPg.exec(prepared, "INSERT INTO " + s + ".events (kind, n) SELECT 'prepared', g FROM"
                            + " generate_series(1, 50) g", "PREPARE TRANSACTION '" + s + "_p'");
                    prepared.setAutoCommit(true);
                    workload(e.pg, s, 1);

                    String stopped = session(env, Duration.ofMinutes(3), "flink", "stop", "--savepointPath",
                            home.resolve("savepoints").toUri().toString(), first);
                    Matcher m = SAVEPOINT.matcher(stopped);
                    assertTrue(m.find(), "stop-with-savepoint reported its path: " + stopped);
                    String savepoint = m.group(1);

                    open.commit();
                    workload(e.pg, s, 2);
                    String second = submit(env, e, savepoint);
                    LocalPg.exec(prepared, "COMMIT PREPARED '" + s + "_p'");
                    workload(e.pg, s, 3);
                    e.awaitCaughtUp(Duration.ofSeconds(180));

                    Map<String, Integer> rows = e.assertAllTablesEqual();
                    System.out.println("session cluster: jobs " + first + " -> savepoint " + savepoint + " -> "
                            + second + "; rows compared " + rows);
                    assertEquals("50", LocalPg.queryString(e.pg, "SELECT count(*) FROM " + s
                            + ".events WHERE kind = 'prepared'"));
                    assertTrue(rows.get("acct") >= 300 && rows.get("docs") >= 20, "workload size " + rows);
                    e.assertEachCommitOnce();
                    e.assertCopiesIdentical("acct", "id", "balance, note");
                    e.assertCopiesIdentical("docs", "id", "version, body");
                    e.assertCopiesIdentical("events", "_tid_block, _tid_offset", "at, kind, n");
                    session(env, Duration.ofMinutes(1), "flink", "cancel", second);
                } finally {
                    open.close();
                    try (Connection c = LocalPg.connect()) {
                        LocalPg.exec(c, "ROLLBACK PREPARED '" + s + "_p'");
                    } catch (java.sql.SQLException gone) {
                        // committed by the test
                    }
                    prepared.close();
                }
            } catch (Throwable t) {
                System.err.println("--- TaskManager log tail ---\n" + tail(home.resolve("log/taskmanager.log"), 80));
                throw t;
            } finally {
                session(env, Duration.ofMinutes(1), "stop");
            }
        }
    }

    /** {@code flink run -d -p 1 -c WalshadowJob [-s savepoint] <jar> <args>}; returns the job id. */
    private static String submit(Map<String, String> env, E2e e, String savepoint) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("flink", "run", "-d", "-p", "1", "-c", "io.walshadow.job.WalshadowJob"));
        if (savepoint != null) {
            cmd.addAll(List.of("-s", savepoint));
        }
        cmd.add(JAR.toString());
        cmd.addAll(List.of(e.args("--checkpoint.interval", "1s", "--checkpoint.dir",
                e.checkpoints.toUri().toString())));
        String out = session(env, Duration.ofMinutes(3), cmd.toArray(new String[0]));
        Matcher m = JOB_ID.matcher(out);
        assertTrue(m.find(), "flink run printed the job id: " + out);
        return m.group(1);
    }

    /** Inserts, updates (one leaving a TOASTed body unchanged), deletes; {@code round} keeps keys apart. */
    private static void workload(Connection pg, String s, int round) throws Exception {
        int base = round * 100;
        LocalPg.exec(pg, "INSERT INTO " + s + ".acct SELECT g, 100, 'round " + round + "' FROM generate_series("
                        + (base + 1) + ", " + (base + 100) + ") g",
                "UPDATE " + s + ".acct SET balance = balance + id WHERE id % 3 = " + round % 3,
                "DELETE FROM " + s + ".acct WHERE id % 10 = " + round,
                "INSERT INTO " + s + ".events (kind, n) SELECT 'round', g FROM generate_series(1, 40) g",
                "DELETE FROM " + s + ".events WHERE kind = 'round' AND n % 7 = " + round,
                // ~8 kB of hex per body: stored out of line, unchanged by the version bumps that follow
                "INSERT INTO " + s + ".docs SELECT g, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM"
                        + " generate_series(1, 250) i) FROM generate_series(" + (round * 10 + 1) + ", "
                        + (round * 10 + 10) + ") g",
                "UPDATE " + s + ".docs SET version = version + 1 WHERE id % 2 = 0");
    }

    /** Runs {@code deploy/flink-session.sh args} and returns its output; fails with it on a non-zero exit. */
    private static String session(Map<String, String> env, Duration timeout, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", ROOT.resolve("deploy/flink-session.sh").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Path out = Files.createTempFile("flink-session", ".out");
        pb.redirectOutput(out.toFile());
        Process p = pb.start();
        if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", args) + " did not finish in " + timeout + ": " + Files.readString(out));
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        Files.delete(out);
        if (p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", args) + " exited " + p.exitValue() + ": " + text);
        }
        return text;
    }

    private static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(" + file + ": " + e + ")";
        }
    }
}
