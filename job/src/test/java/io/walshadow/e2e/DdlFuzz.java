package io.walshadow.e2e;

import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A seeded random DDL + DML workload on one schema: units of one statement in autocommit, of a few in one
 * transaction, or with a savepoint rolled back, drawn from what the schema holds at that moment (read back from
 * PostgreSQL after every unit, so a rolled-back change is never assumed). Every table has an integer {@code id}
 * that is never altered; everything else is fair game: ADD / DROP / RENAME COLUMN, ALTER TYPE with and without a
 * rewrite, SET / DROP NOT NULL, CREATE / DROP / RENAME TABLE, TRUNCATE, VACUUM FULL of tables and catalogs, primary
 * keys and replica identity coming and going, and INSERT / UPDATE / DELETE in between. The same seed gives the same
 * statements on the same starting schema ({@link #log()} has them all).
 */
final class DdlFuzz {
    record Col(String name, String type, boolean notNull) {
    }

    record Table(String name, List<Col> cols, boolean keyed, String replident) {
    }

    private final Connection pg;
    private final String schema;
    private final Random rnd;
    private final List<String> log = new ArrayList<>();
    private int serial;
    private int statements;
    private int failures;

    DdlFuzz(Connection pg, String schema, long seed) {
        this.pg = pg;
        this.schema = schema;
        this.rnd = new Random(seed);
    }

    /** Every statement run, with how it ended (for a failure message). */
    List<String> log() {
        return log;
    }

    int statements() {
        return statements;
    }

    int failures() {
        return failures;
    }

    /** Creates the starting tables (a keyed and a keyless one). */
    void setup() throws SQLException {
        exec("CREATE TABLE " + schema + ".k0 (id int PRIMARY KEY, a text, b int, c numeric(12,2))");
        exec("CREATE TABLE " + schema + ".n0 (id int, a text, b bigint)");
        exec("INSERT INTO " + schema + ".k0 SELECT g, 'a' || g, g, g / 3.0 FROM generate_series(1, 50) g");
        exec("INSERT INTO " + schema + ".n0 SELECT g, 'n' || g, g * 10 FROM generate_series(1, 30) g");
    }

    /** Runs units until at least {@code n} more statements ran. */
    void run(int n) throws SQLException {
        int target = statements + n;
        while (statements < target) {
            unit(model());
        }
    }

    private void unit(Map<String, Table> model) throws SQLException {
        int p = rnd.nextInt(100);
        if (p < 72) {
            one(statement(model, false));
        } else if (p < 92) {
            List<String> tx = new ArrayList<>();
            int k = 2 + rnd.nextInt(4);
            for (int i = 0; i < k; i++) {
                tx.add(statement(model, true));
            }
            transaction(tx, null);
        } else {
            List<String> kept = List.of(statement(model, true));
            List<String> undone = List.of(statement(model, true), statement(model, true));
            transaction(kept, undone);
        }
    }

    private void one(String sql) throws SQLException {
        statements++;
        try {
            exec(sql);
            log.add(sql);
        } catch (SQLException e) {
            failures++;
            log.add(sql + "   -- failed: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /** BEGIN; kept; [SAVEPOINT; undone; ROLLBACK TO]; COMMIT. A failed statement rolls the whole unit back. */
    private void transaction(List<String> kept, List<String> undone) throws SQLException {
        List<String> all = new ArrayList<>();
        all.add("BEGIN");
        all.addAll(kept);
        if (undone != null) {
            all.add("SAVEPOINT s");
            all.addAll(undone);
            all.add("ROLLBACK TO SAVEPOINT s");
        }
        all.add("COMMIT");
        statements += all.size() - 2;
        try {
            for (String sql : all) {
                exec(sql);
            }
            log.add(String.join("; ", all));
        } catch (SQLException e) {
            failures++;
            exec("ROLLBACK");
            log.add(String.join("; ", all) + "   -- rolled back: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    private void exec(String sql) throws SQLException {
        LocalPg.exec(pg, sql);
    }

    private String statement(Map<String, Table> model, boolean inTransaction) {
        List<Table> tables = new ArrayList<>(model.values());
        if (tables.isEmpty()) {
            return createTable();
        }
        Table t = tables.get(rnd.nextInt(tables.size()));
        String q = schema + "." + t.name();
        List<Col> free = new ArrayList<>();
        for (Col c : t.cols()) {
            if (!c.name().equals("id")) {
                free.add(c);
            }
        }
        Col c = free.isEmpty() ? null : free.get(rnd.nextInt(free.size()));
        int p = rnd.nextInt(100);
        if (p < 24) {
            StringBuilder names = new StringBuilder("id");
            StringBuilder values = new StringBuilder("(SELECT coalesce(max(id), 0) + 1 FROM " + q + ")");
            for (Col x : free) {
                if (x.notNull() || rnd.nextInt(4) > 0) {
                    names.append(", ").append(x.name());
                    values.append(", ").append(value(x.type()));
                }
            }
            return "INSERT INTO " + q + " (" + names + ") VALUES (" + values + ")";
        } else if (p < 44 && c != null) {
            return "UPDATE " + q + " SET " + c.name() + " = " + value(c.type()) + " WHERE id % " + (2 + rnd.nextInt(6))
                    + " = " + rnd.nextInt(2);
        } else if (p < 50) {
            return "DELETE FROM " + q + " WHERE id % " + (5 + rnd.nextInt(10)) + " = " + rnd.nextInt(5);
        } else if (p < 58) {
            String type = type();
            String dflt = rnd.nextBoolean() ? "" : " DEFAULT " + value(type);
            if (rnd.nextInt(10) == 0 && type.equals("int")) {
                dflt = " DEFAULT (random() * 0)::int + " + rnd.nextInt(100); // volatile: a rewrite
            }
            return "ALTER TABLE " + q + " ADD COLUMN c" + (++serial) + "_" + rnd.nextInt(1000) + " " + type + dflt;
        } else if (p < 63 && c != null && free.size() > 1) {
            return "ALTER TABLE " + q + " DROP COLUMN " + c.name();
        } else if (p < 68 && c != null) {
            return "ALTER TABLE " + q + " RENAME COLUMN " + c.name() + " TO r" + (++serial) + "_" + c.name().replaceAll(
                    "^r\\d+_", "");
        } else if (p < 74 && c != null) {
            String to = widen(c.type());
            return "ALTER TABLE " + q + " ALTER COLUMN " + c.name() + " TYPE " + to + " USING " + c.name() + "::" + to;
        } else if (p < 77 && c != null) {
            return c.notNull() ? "ALTER TABLE " + q + " ALTER COLUMN " + c.name() + " DROP NOT NULL"
                    : "ALTER TABLE " + q + " ALTER COLUMN " + c.name() + " SET NOT NULL";
        } else if (p < 80) {
            return createTable();
        } else if (p < 82 && tables.size() > 2) {
            return "DROP TABLE " + q;
        } else if (p < 85) {
            return "ALTER TABLE " + q + " RENAME TO " + t.name().replaceAll("_r\\d+$", "") + "_r" + (++serial);
        } else if (p < 87) {
            return "TRUNCATE " + q;
        } else if (p < 90 && !inTransaction && t.keyed()) {
            return rnd.nextBoolean() ? "VACUUM FULL " + q : "CLUSTER " + q + " USING " + t.name() + "_pkey";
        } else if (p < 92) {
            return "ALTER TABLE " + q + " REPLICA IDENTITY " + (t.replident().equals("f") ? "DEFAULT" : "FULL");
        } else if (p < 95) {
            return t.keyed() ? "ALTER TABLE " + q + " DROP CONSTRAINT " + t.name() + "_pkey"
                    : "ALTER TABLE " + q + " ADD CONSTRAINT " + t.name() + "_pkey PRIMARY KEY (id)";
        } else if (p < 97 && !inTransaction) {
            String[] catalogs = {"pg_attribute", "pg_class", "pg_type", "pg_attribute, pg_class"};
            return "VACUUM FULL " + catalogs[rnd.nextInt(catalogs.length)];
        } else {
            return "UPDATE " + q + " SET id = id WHERE id % 7 = " + rnd.nextInt(7);
        }
    }

    private String createTable() {
        String name = "t" + (++serial);
        StringBuilder sb = new StringBuilder("CREATE TABLE " + schema + "." + name + " (id int"
                + (rnd.nextBoolean() ? " PRIMARY KEY" : ""));
        int n = 1 + rnd.nextInt(4);
        for (int i = 0; i < n; i++) {
            sb.append(", f").append(i).append(' ').append(type());
        }
        return sb.append(')').toString();
    }

    private String type() {
        String[] types = {"int", "bigint", "text", "numeric(12,2)", "boolean", "varchar(40)", "date"};
        return types[rnd.nextInt(types.length)];
    }

    /** A type every value of {@code type} converts to (a rewrite or not). */
    private String widen(String type) {
        return switch (type) {
            case "integer" -> rnd.nextBoolean() ? "bigint" : "numeric(20,2)";
            case "bigint" -> "numeric(24,2)";
            case "text" -> "varchar(200)";
            case "boolean" -> "text";
            case "date" -> "timestamp";
            default -> type.startsWith("character varying") ? "text"
                    : type.startsWith("numeric") ? "numeric(30,4)" : "text";
        };
    }

    private String value(String type) {
        if (type.startsWith("int") || type.equals("integer")) {
            return Integer.toString(rnd.nextInt(2000) - 1000);
        } else if (type.equals("bigint")) {
            return Long.toString(rnd.nextLong() / 1000);
        } else if (type.startsWith("numeric")) {
            return (rnd.nextInt(200000) - 100000) / 100.0 + "";
        } else if (type.equals("boolean")) {
            return rnd.nextBoolean() ? "true" : "false";
        } else if (type.equals("date")) {
            return "DATE '2024-01-01' + " + rnd.nextInt(1000);
        } else if (type.startsWith("timestamp")) {
            return "TIMESTAMP '2024-01-01 00:00:00' + interval '" + rnd.nextInt(100000) + " seconds'";
        }
        return "'v" + Integer.toString(rnd.nextInt(1 << 20), 36) + "'";
    }

    /** The schema's tables as PostgreSQL has them now. */
    private Map<String, Table> model() throws SQLException {
        Map<String, List<Col>> cols = new LinkedHashMap<>();
        Map<String, String[]> rel = new LinkedHashMap<>();
        try (Statement st = pg.createStatement(); ResultSet rs = st.executeQuery("SELECT c.relname, a.attname,"
                + " format_type(a.atttypid, a.atttypmod), a.attnotnull, c.relreplident,"
                + " EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary)"
                + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
                + " WHERE n.nspname = '" + schema + "' AND c.relkind = 'r' AND c.relname <> '_marker'"
                + " ORDER BY c.relname, a.attnum")) {
            while (rs.next()) {
                cols.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(new Col(rs.getString(2),
                        rs.getString(3), rs.getBoolean(4)));
                rel.put(rs.getString(1), new String[] {rs.getString(5), rs.getString(6)});
            }
        }
        Map<String, Table> out = new LinkedHashMap<>();
        for (Map.Entry<String, List<Col>> e : cols.entrySet()) {
            String[] r = rel.get(e.getKey());
            out.put(e.getKey(), new Table(e.getKey(), e.getValue(), "t".equals(r[1]), r[0]));
        }
        return out;
    }
}
