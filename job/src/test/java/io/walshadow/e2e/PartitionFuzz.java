package io.walshadow.e2e;

import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * A seeded random workload on two partitioned tables, one keyed ({@code pk}) and one keyless ({@code pn}), both
 * ranged by {@code k} in steps of 100: rows inserted, updated, deleted and moved between partitions; partitions
 * created, attached from tables of their own (another column order, rows in them), detached, dropped, truncated and
 * rewritten; columns added, renamed and dropped on the roots. The partitions are read back from PostgreSQL before
 * every statement, so a failed statement never misleads the next one. The same seed gives the same statements.
 */
final class PartitionFuzz {
    private static final String[] ROOTS = {"pk", "pn"};
    private final Connection pg;
    private final String schema;
    private final Random rnd;
    private final List<String> log = new ArrayList<>();
    private int serial;
    private int nextId = 1;
    private int extraColumns;

    PartitionFuzz(Connection pg, String schema, long seed) {
        this.pg = pg;
        this.schema = schema;
        this.rnd = new Random(seed);
    }

    List<String> log() {
        return log;
    }

    void setup() throws SQLException {
        exec("CREATE TABLE " + schema + ".pk (id int, k int, v text, PRIMARY KEY (id, k)) PARTITION BY RANGE (k)");
        exec("CREATE TABLE " + schema + ".pn (id int, k int, v text) PARTITION BY RANGE (k)");
        for (String root : ROOTS) {
            for (int r = 0; r < 3; r++) {
                exec("CREATE TABLE " + schema + "." + root + "_" + r + " PARTITION OF " + schema + "." + root
                        + " FOR VALUES FROM (" + r * 100 + ") TO (" + (r + 1) * 100 + ")");
            }
            insert(root, 40);
        }
    }

    /** Runs {@code n} statements (some fail by design of the draw: logged, not fatal). */
    void run(int n) throws SQLException {
        for (int i = 0; i < n; i++) {
            String root = ROOTS[rnd.nextInt(ROOTS.length)];
            TreeMap<Integer, String> parts = partitions(root);
            int p = rnd.nextInt(100);
            if (parts.isEmpty() || p < 8) {
                create(root, parts);
            } else if (p < 40) {
                insert(root, 1 + rnd.nextInt(15), parts);
            } else if (p < 50) {
                exec("UPDATE " + schema + "." + root + " SET v = 'u" + (serial++) + "' WHERE id % 7 = "
                        + rnd.nextInt(7));
            } else if (p < 62) {
                // moves: the partition key crosses a bound
                int from = pick(parts);
                int to = pick(parts);
                exec("UPDATE " + schema + "." + root + " SET k = k - " + from + " + " + to + " WHERE k >= " + from
                        + " AND k < " + (from + 100) + " AND id % 3 = " + rnd.nextInt(3));
            } else if (p < 70) {
                exec("DELETE FROM " + schema + "." + root + " WHERE id % 11 = " + rnd.nextInt(11));
            } else if (p < 75) {
                attachOwn(root, parts);
            } else if (p < 80 && parts.size() > 1) {
                exec("ALTER TABLE " + schema + "." + root + " DETACH PARTITION " + schema + "." + parts.get(pick(parts)));
            } else if (p < 84 && parts.size() > 1) {
                exec("DROP TABLE " + schema + "." + parts.get(pick(parts)));
            } else if (p < 88) {
                exec("TRUNCATE " + schema + "." + parts.get(pick(parts)));
            } else if (p < 92) {
                exec("VACUUM FULL " + schema + "." + parts.get(pick(parts)));
            } else {
                rootDdl(root);
            }
        }
    }

    private void create(String root, TreeMap<Integer, String> parts) throws SQLException {
        int lo = parts.isEmpty() ? 0 : parts.lastKey() + 100;
        exec("CREATE TABLE " + schema + "." + root + "_n" + (serial++) + " PARTITION OF " + schema + "." + root
                + " FOR VALUES FROM (" + lo + ") TO (" + (lo + 100) + ")");
    }

    /** A table of its own (columns in another order, a dropped one, rows), attached at the next free range. */
    private void attachOwn(String root, TreeMap<Integer, String> parts) throws SQLException {
        int lo = parts.isEmpty() ? 0 : parts.lastKey() + 100;
        String t = schema + "." + root + "_a" + (serial++);
        List<String> cols = columns(root);
        StringBuilder defs = new StringBuilder("junk int");
        for (int i = cols.size() - 1; i >= 0; i--) {
            String c = cols.get(i);
            defs.append(", ").append(c).append(c.equals("id") || c.startsWith("x") ? " int" : c.equals("k")
                    ? " int NOT NULL" : " text");
        }
        if (root.equals("pk")) {
            defs.append(", PRIMARY KEY (id, k)");
        }
        exec("CREATE TABLE " + t + " (" + defs + ")");
        exec("INSERT INTO " + t + " (id, k, v) SELECT " + nextId + " + g, " + lo + " + g % 100, 'own'"
                + " FROM generate_series(0, " + rnd.nextInt(20) + ") g");
        nextId += 100;
        exec("ALTER TABLE " + t + " DROP COLUMN junk");
        exec("ALTER TABLE " + schema + "." + root + " ATTACH PARTITION " + t + " FOR VALUES FROM (" + lo + ") TO ("
                + (lo + 100) + ")");
    }

    private void rootDdl(String root) throws SQLException {
        List<String> extra = columns(root).stream().filter(c -> c.startsWith("x")).toList();
        int p = rnd.nextInt(3);
        if (p == 0 || extra.isEmpty()) {
            exec("ALTER TABLE " + schema + "." + root + " ADD COLUMN x" + (extraColumns++) + " int DEFAULT "
                    + rnd.nextInt(100));
        } else if (p == 1) {
            exec("ALTER TABLE " + schema + "." + root + " RENAME COLUMN " + extra.get(0) + " TO x" + (extraColumns++));
        } else {
            exec("ALTER TABLE " + schema + "." + root + " DROP COLUMN " + extra.get(0));
        }
    }

    private void insert(String root, int n) throws SQLException {
        insert(root, n, partitions(root));
    }

    private void insert(String root, int n, TreeMap<Integer, String> parts) throws SQLException {
        List<Integer> los = new ArrayList<>(parts.keySet());
        StringBuilder ks = new StringBuilder();
        for (int i = 0; i < n; i++) {
            ks.append(i == 0 ? "" : ",").append(los.get(rnd.nextInt(los.size())) + rnd.nextInt(100));
        }
        exec("INSERT INTO " + schema + "." + root + " (id, k, v) SELECT " + nextId + " + o, k, "
                + (rnd.nextInt(5) == 0 ? "repeat(md5(k::text), 400)" : "'i' || k") // some TOASTed
                + " FROM unnest(ARRAY[" + ks + "]) WITH ORDINALITY AS u(k, o)");
        nextId += n + 1;
    }

    private int pick(TreeMap<Integer, String> parts) {
        List<Integer> los = new ArrayList<>(parts.keySet());
        return los.get(rnd.nextInt(los.size()));
    }

    /** The root's attached partitions by lower bound (every partition here spans 100). */
    private TreeMap<Integer, String> partitions(String root) throws SQLException {
        TreeMap<Integer, String> out = new TreeMap<>();
        for (String line : LocalPg.queryColumn(pg, "SELECT c.relname || ' ' || substring(pg_get_expr(c.relpartbound,"
                + " c.oid) FROM 'FROM \\((-?[0-9]+)\\)') FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                + " WHERE i.inhparent = '" + schema + "." + root + "'::regclass")) {
            String[] f = line.split(" ");
            out.put(Integer.parseInt(f[1]), f[0]);
        }
        return out;
    }

    private List<String> columns(String root) throws SQLException {
        return LocalPg.queryColumn(pg, "SELECT attname FROM pg_attribute WHERE attrelid = '" + schema + "." + root
                + "'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum");
    }

    private void exec(String sql) throws SQLException {
        try {
            LocalPg.exec(pg, sql);
            log.add(sql);
        } catch (SQLException e) {
            log.add(sql + "  -- failed: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }
}
