package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every DDL form a migration issues, while rows change around it, replicated with the catalog followed from the
 * WAL: each form's statements run in three parts, the first in autocommit with the job following, the second
 * while the job is down (killed without a savepoint right after the first part: the latest checkpoint may be
 * anywhere before it), the third in one transaction (or autocommit where PostgreSQL refuses a transaction) after
 * the job was restored from its latest checkpoint. Then every table of the schema is compared with ClickHouse,
 * value by value. {@code $s} stands for the test's schema.
 */
@ExpectedFaults("the job killed and restored in the middle of each DDL form")
class DdlFormsEndToEndIT {

    /** A DDL form: tables to start with, then the statements that exercise it. */
    record Form(String name, boolean inTransaction, List<String> setup, List<String> statements) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Form form(String name, boolean inTransaction, String[] setup, String... statements) {
        return new Form(name, inTransaction, List.of(setup), List.of(statements));
    }

    static final String[] TABLE = {
        "CREATE TABLE $s.t (id int PRIMARY KEY, a text, b int, c numeric(10,2))",
        "INSERT INTO $s.t SELECT g, 'a' || g, g, g / 4.0 FROM generate_series(1, 40) g"};
    static final String[] KEYLESS = {
        "CREATE TABLE $s.nk (x int, y text)",
        "INSERT INTO $s.nk SELECT g, 'y' || g FROM generate_series(1, 30) g"};

    static String[] both() {
        String[] out = Arrays.copyOf(TABLE, TABLE.length + KEYLESS.length);
        System.arraycopy(KEYLESS, 0, out, TABLE.length, KEYLESS.length);
        return out;
    }

    /**
     * The forms to run: all, or with {@code -Dwalshadow.forms=<part of a name>} those whose name holds it, each
     * {@code -Dwalshadow.forms.repeat=N} times (to chase a race).
     */
    static Stream<Form> forms() {
        String only = System.getProperty("walshadow.forms");
        int repeat = Integer.getInteger("walshadow.forms.repeat", 1);
        return allForms().filter(f -> only == null || f.name().contains(only))
                .flatMap(f -> java.util.stream.IntStream.range(0, repeat).mapToObj(i -> f));
    }

    private static Stream<Form> allForms() {
        return Stream.of(
                form("add column: none, constant default, volatile default (rewrite)", true, both(),
                        "ALTER TABLE $s.t ADD COLUMN d1 int", "UPDATE $s.t SET d1 = id WHERE id < 10",
                        "ALTER TABLE $s.t ADD COLUMN d2 int DEFAULT 5", "INSERT INTO $s.t (id, a) VALUES (100, 'x')",
                        "ALTER TABLE $s.nk ADD COLUMN z text DEFAULT 'zz'", "UPDATE $s.nk SET y = 'u' WHERE x = 3",
                        "ALTER TABLE $s.t ADD COLUMN d3 bigint DEFAULT (random() * 0)::bigint + 7",
                        "UPDATE $s.t SET d2 = 6 WHERE id = 2", "ALTER TABLE $s.t ADD COLUMN d4 text DEFAULT 'four'",
                        "INSERT INTO $s.t (id, a, d4) VALUES (101, 'y', 'given')", "DELETE FROM $s.t WHERE id = 5"),
                form("drop column", true, both(),
                        "ALTER TABLE $s.t DROP COLUMN b", "UPDATE $s.t SET a = a || '+' WHERE id < 5",
                        "ALTER TABLE $s.nk DROP COLUMN y", "INSERT INTO $s.nk VALUES (99)",
                        "ALTER TABLE $s.t DROP COLUMN c", "INSERT INTO $s.t VALUES (100, 'new')",
                        "ALTER TABLE $s.t ADD COLUMN b int DEFAULT 1", "UPDATE $s.t SET b = 2 WHERE id = 3",
                        "ALTER TABLE $s.t DROP COLUMN a", "DELETE FROM $s.t WHERE id = 7"),
                form("rename column and table", true, both(),
                        "ALTER TABLE $s.t RENAME COLUMN a TO a2", "UPDATE $s.t SET a2 = 'renamed' WHERE id = 6",
                        "ALTER TABLE $s.t RENAME TO t_renamed", "INSERT INTO $s.t_renamed (id, a2) VALUES (100, 'n')",
                        "ALTER TABLE $s.nk RENAME COLUMN y TO y2", "UPDATE $s.nk SET y2 = 'r' WHERE x = 1",
                        "ALTER TABLE $s.t_renamed RENAME COLUMN b TO b2", "ALTER TABLE $s.t_renamed RENAME TO t",
                        "UPDATE $s.t SET b2 = -1 WHERE id = 8", "ALTER TABLE $s.t RENAME COLUMN a2 TO a3",
                        "INSERT INTO $s.t (id, a3, b2) VALUES (101, 'last', 1)"),
                form("alter type with and without rewrite", true, both(),
                        "ALTER TABLE $s.t ALTER COLUMN b TYPE bigint", "UPDATE $s.t SET b = 5000000000 WHERE id = 1",
                        "ALTER TABLE $s.t ALTER COLUMN a TYPE varchar(80)", "INSERT INTO $s.t (id, a) VALUES (100, 'v')",
                        "ALTER TABLE $s.nk ALTER COLUMN x TYPE bigint", "UPDATE $s.nk SET y = 'after' WHERE x = 2",
                        "ALTER TABLE $s.t ALTER COLUMN c TYPE numeric(12,3)", "UPDATE $s.t SET c = 1.125 WHERE id = 2",
                        "ALTER TABLE $s.t ALTER COLUMN b TYPE numeric USING b::numeric",
                        "INSERT INTO $s.t (id, b) VALUES (101, 1.5)"),
                form("set and drop not null", true, both(),
                        "UPDATE $s.t SET a = 'x' WHERE a IS NULL", "ALTER TABLE $s.t ALTER COLUMN a SET NOT NULL",
                        "UPDATE $s.t SET a = 'nn' WHERE id = 3", "ALTER TABLE $s.t ALTER COLUMN a DROP NOT NULL",
                        "INSERT INTO $s.t (id) VALUES (100)", "ALTER TABLE $s.nk ALTER COLUMN x SET NOT NULL",
                        "INSERT INTO $s.nk VALUES (100, NULL)", "UPDATE $s.t SET b = 0 WHERE b IS NULL",
                        "ALTER TABLE $s.t ALTER COLUMN b SET NOT NULL",
                        "UPDATE $s.t SET b = b + 1 WHERE id < 4"),
                form("add and drop primary key", true, both(),
                        "ALTER TABLE $s.nk ADD PRIMARY KEY (x)", "UPDATE $s.nk SET y = 'keyed' WHERE x = 4",
                        "DELETE FROM $s.nk WHERE x = 5", "ALTER TABLE $s.t DROP CONSTRAINT t_pkey",
                        "UPDATE $s.t SET a = 'keyless now' WHERE id = 9", "INSERT INTO $s.t (id, a) VALUES (9, 'dup')",
                        "ALTER TABLE $s.nk DROP CONSTRAINT nk_pkey", "UPDATE $s.nk SET y = 'unkeyed' WHERE x = 6",
                        "ALTER TABLE $s.nk ADD PRIMARY KEY (x)", "INSERT INTO $s.nk VALUES (200, 'k')"),
                form("replica identity", true, both(),
                        "ALTER TABLE $s.t REPLICA IDENTITY FULL", "UPDATE $s.t SET b = 0 WHERE id < 6",
                        "DELETE FROM $s.t WHERE id = 7", "ALTER TABLE $s.nk REPLICA IDENTITY FULL",
                        "UPDATE $s.nk SET y = 'full' WHERE x < 4", "ALTER TABLE $s.t REPLICA IDENTITY NOTHING",
                        "UPDATE $s.t SET b = 1 WHERE id = 8", "CREATE UNIQUE INDEX t_a_idx ON $s.t (b, id)",
                        "ALTER TABLE $s.t REPLICA IDENTITY USING INDEX t_pkey", "DELETE FROM $s.t WHERE id = 9",
                        "ALTER TABLE $s.t REPLICA IDENTITY DEFAULT", "UPDATE $s.t SET a = 'dflt' WHERE id = 10"),
                form("create and drop table", true, new String[0],
                        "CREATE TABLE $s.a (k int PRIMARY KEY, v text)", "INSERT INTO $s.a VALUES (1, 'one'), (2, 'two')",
                        "CREATE TABLE $s.b (v jsonb)", "INSERT INTO $s.b VALUES ('{\"x\": 1}')",
                        "DROP TABLE $s.a", "CREATE TABLE $s.a (k text PRIMARY KEY, n int)",
                        "INSERT INTO $s.a VALUES ('k', 1)", "CREATE TABLE $s.c AS SELECT g AS id FROM generate_series(1, 5) g",
                        "DROP TABLE $s.b", "UPDATE $s.a SET n = 2", "CREATE TABLE $s.d (id int PRIMARY KEY)",
                        "INSERT INTO $s.d SELECT generate_series(1, 10)"),
                form("truncate", true, both(),
                        "TRUNCATE $s.t", "INSERT INTO $s.t (id, a) VALUES (1, 'after truncate'), (2, 'x')",
                        "TRUNCATE $s.nk", "INSERT INTO $s.nk VALUES (1, 'one')", "UPDATE $s.t SET b = 3 WHERE id = 1",
                        "TRUNCATE $s.t, $s.nk", "INSERT INTO $s.t (id) VALUES (7)", "INSERT INTO $s.nk VALUES (2, 'two')"),
                form("vacuum full and cluster, keyed and keyless", false, both(),
                        "DELETE FROM $s.t WHERE id % 3 = 0", "DELETE FROM $s.nk WHERE x % 4 = 0", "VACUUM FULL $s.t",
                        "VACUUM FULL $s.nk", "UPDATE $s.t SET a = 'vf' WHERE id = 1", "UPDATE $s.nk SET y = 'vf' WHERE x = 1",
                        "CLUSTER $s.t USING t_pkey", "UPDATE $s.t SET a = 'cl' WHERE id = 2", "VACUUM FULL $s.t, $s.nk",
                        "INSERT INTO $s.t (id, a) VALUES (3, 'back')", "DELETE FROM $s.nk WHERE x = 2", "CLUSTER $s.t",
                        "DELETE FROM $s.t WHERE id = 4", "UPDATE $s.nk SET y = 'last' WHERE x > 20"),
                form("vacuum full of the catalogs", false, TABLE,
                        "ALTER TABLE $s.t ADD COLUMN d int DEFAULT 4", "VACUUM FULL pg_attribute",
                        "ALTER TABLE $s.t RENAME COLUMN a TO a2", "UPDATE $s.t SET a2 = 'x', d = 5 WHERE id = 1",
                        "VACUUM FULL pg_class", "ALTER TABLE $s.t DROP COLUMN b", "VACUUM FULL pg_attribute, pg_class",
                        "INSERT INTO $s.t (id, a2) VALUES (100, 'after')", "VACUUM FULL pg_type",
                        "ALTER TABLE $s.t ADD COLUMN e text", "UPDATE $s.t SET e = 'e' WHERE id = 2"),
                form("ddl in a savepoint rolled back", false, both(),
                        "BEGIN", "ALTER TABLE $s.t ADD COLUMN d int DEFAULT 1", "SAVEPOINT s1",
                        "ALTER TABLE $s.t DROP COLUMN b", "INSERT INTO $s.t (id, a) VALUES (100, 'in savepoint')",
                        "ROLLBACK TO SAVEPOINT s1", "INSERT INTO $s.t (id, a, b, d) VALUES (101, 'kept', 1, 2)", "COMMIT",
                        "BEGIN", "SAVEPOINT s2", "ALTER TABLE $s.nk RENAME COLUMN y TO yy", "UPDATE $s.nk SET yy = 'r'",
                        "ROLLBACK TO SAVEPOINT s2", "UPDATE $s.nk SET y = 'kept' WHERE x = 1", "COMMIT",
                        "BEGIN", "ALTER TABLE $s.t RENAME COLUMN a TO gone", "ROLLBACK",
                        "UPDATE $s.t SET a = 'after rollback' WHERE id = 2"),
                form("ddl in a prepared transaction", false, both(),
                        "BEGIN", "ALTER TABLE $s.t ADD COLUMN p int DEFAULT 9", "INSERT INTO $s.t (id, p) VALUES (100, 1)",
                        "PREPARE TRANSACTION '$s_1'", "UPDATE $s.nk SET y = 'meanwhile' WHERE x = 1",
                        "COMMIT PREPARED '$s_1'", "BEGIN", "ALTER TABLE $s.nk ADD COLUMN q text",
                        "UPDATE $s.nk SET q = 'q'", "PREPARE TRANSACTION '$s_2'", "ROLLBACK PREPARED '$s_2'",
                        "UPDATE $s.t SET p = 10 WHERE id = 1"),
                // the rewrite's rows are decoded in the buffer at its commit, after the restore, when the type is
                // gone from the live catalog: with the types as of the commit, which the decoder sends along
                form("type dropped after a rewrite of its table", false, new String[] {
                        "CREATE TYPE $s.mood AS ENUM ('happy', 'sad', 'meh')",
                        "CREATE TABLE $s.em (x int, m $s.mood, ms $s.mood[])",
                        "INSERT INTO $s.em SELECT g, (ARRAY['happy', 'sad', 'meh'])[g % 3 + 1]::$s.mood,"
                                + " ARRAY['sad', 'meh']::$s.mood[] FROM generate_series(1, 30) g"},
                        "INSERT INTO $s.em VALUES (50, 'happy', '{}')", "UPDATE $s.em SET m = 'sad' WHERE x = 2",
                        "DELETE FROM $s.em WHERE x = 3",
                        "VACUUM FULL $s.em", "ALTER TABLE $s.em ALTER COLUMN m TYPE text, ALTER COLUMN ms TYPE text[]",
                        "DROP TYPE $s.mood",
                        "UPDATE $s.em SET m = 'after' WHERE x = 4", "INSERT INTO $s.em VALUES (101, 'new', '{a}')",
                        "DELETE FROM $s.em WHERE x = 5"),
                form("a migration of 24 statements", true, both(),
                        "CREATE TABLE $s.users (id bigserial PRIMARY KEY, email text NOT NULL)",
                        "INSERT INTO $s.users (email) SELECT 'u' || g || '@x' FROM generate_series(1, 20) g",
                        "ALTER TABLE $s.users ADD COLUMN name text", "UPDATE $s.users SET name = split_part(email, '@', 1)",
                        "ALTER TABLE $s.users ALTER COLUMN name SET NOT NULL", "CREATE INDEX ON $s.users (name)",
                        "ALTER TABLE $s.t ADD COLUMN user_id bigint", "UPDATE $s.t SET user_id = id % 20 + 1",
                        "ALTER TABLE $s.t ADD CONSTRAINT t_user FOREIGN KEY (user_id) REFERENCES $s.users (id)",
                        "ALTER TABLE $s.t RENAME COLUMN a TO label", "ALTER TABLE $s.t ALTER COLUMN b TYPE bigint",
                        "ALTER TABLE $s.t DROP COLUMN c", "ALTER TABLE $s.users ADD COLUMN created timestamptz DEFAULT now()",
                        "INSERT INTO $s.users (email, name) VALUES ('new@x', 'new')", "ALTER TABLE $s.nk ADD COLUMN id serial",
                        "ALTER TABLE $s.nk ADD PRIMARY KEY (id)", "UPDATE $s.nk SET y = y || '!' WHERE x < 10",
                        "ALTER TABLE $s.users RENAME TO accounts", "ALTER TABLE $s.accounts ADD COLUMN active bool DEFAULT true",
                        "UPDATE $s.accounts SET active = false WHERE id % 2 = 0", "ALTER TABLE $s.t ALTER COLUMN label TYPE varchar(100)",
                        "DELETE FROM $s.t WHERE id > 35", "ALTER TABLE $s.accounts ALTER COLUMN email TYPE varchar(200)",
                        "INSERT INTO $s.t (id, label, b, user_id) VALUES (500, 'last', 1, 1)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forms")
    void replicatesWhileKilledMidBurst(Form f) throws Exception {
        try (E2e e = new E2e("e2e_form")) {
            for (String sql : f.setup()) {
                LocalPg.exec(e.pg, sql.replace("$s", e.schema));
            }
            JobClient job = e.start();
            List<String> st = new ArrayList<>();
            for (String sql : f.statements()) {
                st.add(sql.replace("$s", e.schema));
            }
            int k1 = st.size() / 3;
            int k2 = 2 * st.size() / 3;
            if (!f.inTransaction()) { // statements that hold their own BEGIN/COMMIT: cut between whole units
                k1 = unitBoundary(st, k1);
                k2 = unitBoundary(st, Math.max(k1, k2));
            }
            run(e, st.subList(0, k1));
            job.cancel().get(); // killed: no savepoint, whatever the latest checkpoint holds
            run(e, st.subList(k1, k2));
            Path latest = FlinkTestJobs.latestCheckpoint(e.checkpoints);
            e.start(e.config(), latest, 0);
            List<String> rest = new ArrayList<>(st.subList(k2, st.size()));
            if (f.inTransaction()) {
                rest.add(0, "BEGIN");
                rest.add("COMMIT");
            }
            run(e, rest);
            e.awaitCaughtUp(Duration.ofSeconds(180));
            Map<String, Integer> rows = e.assertAllTablesEqual();
            assertFalse(rows.isEmpty(), "tables compared");
        }
    }

    /** RENAME SCHEMA: the tables move with it; the filter matches both names. */
    @org.junit.jupiter.api.Test
    void renameSchemaWhileKilledMidBurst() throws Exception {
        try (E2e e = new E2e("e2e_form")) {
            String a = e.schema + "_a";
            String b = e.schema + "_b";
            try {
                LocalPg.exec(e.pg, "CREATE SCHEMA " + a, "CREATE TABLE " + a + ".t (id int PRIMARY KEY, v text)",
                        "INSERT INTO " + a + ".t SELECT g, 'v' || g FROM generate_series(1, 20) g");
                JobClient job = e.start(e.config("--tables.include", e.schema + "*.*"), null, 0);
                e.awaitCaughtUp(Duration.ofSeconds(120));
                LocalPg.exec(e.pg, "ALTER SCHEMA " + a + " RENAME TO " + b, "UPDATE " + b + ".t SET v = 'moved' WHERE id < 4");
                job.cancel().get();
                LocalPg.exec(e.pg, "INSERT INTO " + b + ".t VALUES (100, 'while down')", "ALTER TABLE " + b
                        + ".t ADD COLUMN w int DEFAULT 3");
                e.start(e.config("--tables.include", e.schema + "*.*"), FlinkTestJobs.latestCheckpoint(e.checkpoints), 0);
                LocalPg.exec(e.pg, "BEGIN", "ALTER SCHEMA " + b + " RENAME TO " + a, "UPDATE " + a + ".t SET w = 4 WHERE id = 5",
                        "DELETE FROM " + a + ".t WHERE id = 6", "COMMIT");
                e.awaitCaughtUp(Duration.ofSeconds(180));
                assertTrue(TableComparison.assertEqual(e.pg, e.ch, a, "t") == 20);
            } finally {
                LocalPg.exec(e.pg, "DROP SCHEMA IF EXISTS " + a + " CASCADE", "DROP SCHEMA IF EXISTS " + b + " CASCADE");
            }
        }
    }

    private static void run(E2e e, List<String> statements) throws Exception {
        for (String sql : statements) {
            LocalPg.exec(e.pg, sql);
        }
    }

    /** The first index at or after {@code i} that is not inside a BEGIN ... COMMIT / PREPARE / ROLLBACK unit. */
    private static int unitBoundary(List<String> st, int i) {
        int depth = 0;
        for (int k = 0; k < st.size(); k++) {
            if (k >= i && depth == 0) {
                return k;
            }
            String s = st.get(k);
            if (s.equals("BEGIN")) {
                depth++;
            } else if (s.equals("COMMIT") || s.equals("ROLLBACK") || s.startsWith("PREPARE TRANSACTION")) {
                depth--;
            }
        }
        assertTrue(depth == 0, "balanced units");
        return st.size();
    }
}
