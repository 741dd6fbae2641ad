package io.walshadow.catalog.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.CatalogHistorySerializer;
import io.walshadow.catalog.CatalogTracker;
import io.walshadow.pg.CatalogBootstrap;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.DescriptorHistory;
import io.walshadow.catalog.Lookup;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.RowDecoder;
import io.walshadow.change.WalChangeDecoder;
import io.walshadow.testing.LocalPg;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.WalSegmentReader;
import io.walshadow.wal.XLogRecord;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The partition → root mapping is part of the catalog as of each LSN: a partition DDL workload runs on the real
 * server (range, list and hash partitioning, two levels, a default partition, a table of another column order
 * attached, root DDL that cascades, DETACH plain and CONCURRENTLY, a sub-root detached and attached again, DROP of a
 * partition, a DETACH CONCURRENTLY left pending then finalized, legacy INHERITS), and after every step PostgreSQL's own answer ({@code pg_partition_root()} and a join
 * of the columns by name, read in the same snapshot as the WAL position) must equal what the decoder's history,
 * built from the WAL alone, says at that LSN: for every table, its root and column map, or none; for every root,
 * its columns. The decoder is written to bytes and restored at every step, as a restarted job would be.
 */
class PartitionHistoryIT {
    final String sfx = Long.toString(System.nanoTime(), 36);

    record Expected(String step, long lsn, Map<Integer, String> relations) {
    }

    /** Per table: root name and leaf→root attnums of live columns, "-" when not routed; per root: its columns. */
    static Expected oracle(Connection c, String schema, String step) throws SQLException {
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try (Statement st = c.createStatement()) {
            long lsn;
            try (ResultSet rs = st.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
                rs.next();
                lsn = Lsn.parse(rs.getString(1));
            }
            Map<Integer, String> out = new TreeMap<>();
            try (ResultSet rs = st.executeQuery("SELECT c.oid::int8, c.relkind, c.relname, r.relname,"
                    + " (SELECT string_agg(la.attnum || '>' || ra.attnum, ',' ORDER BY la.attnum)"
                    + "    FROM pg_attribute la JOIN pg_attribute ra ON ra.attrelid = r.oid"
                    + "      AND ra.attname = la.attname AND NOT ra.attisdropped"
                    + "    WHERE la.attrelid = c.oid AND la.attnum > 0 AND NOT la.attisdropped),"
                    + " (SELECT string_agg(a.attname, ',' ORDER BY a.attnum) FROM pg_attribute a"
                    + "    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)"
                    + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                    + " LEFT JOIN pg_class r ON r.oid = pg_partition_root(c.oid) AND r.oid <> c.oid"
                    + " WHERE n.nspname = '" + schema + "' AND (c.relkind = 'r'"
                    + "   OR c.relkind = 'p' AND pg_partition_root(c.oid) = c.oid)")) {
                while (rs.next()) {
                    int oid = (int) rs.getLong(1);
                    String kind = rs.getString(2);
                    String line = kind.equals("p") ? rs.getString(3) + " root [" + rs.getString(6) + "]"
                            : rs.getString(3) + " -> " + (rs.getString(4) == null ? "-"
                                    : rs.getString(4) + " [" + rs.getString(5) + "]");
                    out.put(oid, line);
                }
            }
            c.commit();
            return new Expected(step, lsn, out);
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** The same, from the decoder's history at the LSN. */
    static String fromHistory(DescriptorHistory h, int oid, long lsn) {
        Lookup l = h.lookupRelation(oid, lsn);
        if (!l.isPresent()) {
            return "not present: " + l;
        }
        RelationDescriptor d = l.descriptor();
        if (d.relkind() == 'p') {
            return d.name() + " root [" + liveNames(d) + "]";
        }
        if (d.partition() == null) {
            return d.name() + " -> -";
        }
        StringBuilder map = new StringBuilder();
        for (Column col : d.columns()) {
            if (!col.dropped()) {
                map.append(map.isEmpty() ? "" : ",").append(col.attnum()).append('>')
                        .append(d.partition().rootAttnum(col.attnum()));
            }
        }
        return d.name() + " -> " + d.partition().root().name() + " [" + map + "]";
    }

    private static String liveNames(RelationDescriptor d) {
        StringBuilder sb = new StringBuilder();
        for (Column col : d.columns()) {
            if (!col.dropped()) {
                sb.append(sb.isEmpty() ? "" : ",").append(col.name());
            }
        }
        return sb.toString();
    }

    @Test
    void everyPartitionRoutesAsPostgresSaysAtEveryLsn() throws Exception {
        String s = "ph_" + sfx;
        String slot = "ph_" + sfx;
        try (Connection c = LocalPg.connect(); Connection slotConn = LocalPg.connect();
             Connection boot = LocalPg.connect(); Connection oracle = LocalPg.connect();
             Connection other = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE SCHEMA " + s);
            LocalPg.exec(slotConn, "SELECT pg_create_physical_replication_slot('" + slot + "', true, true)");
            try {
                long restart = Lsn.parse(LocalPg.queryString(c, "SELECT restart_lsn::text FROM pg_replication_slots"
                        + " WHERE slot_name = '" + slot + "'"));
                CatalogBootstrap.Result boot1 = new CatalogBootstrap(boot, System.out::println).take(slot);
                String r = s + ".r";
                String[][] steps = {
                    {"range root, default partition", "CREATE TABLE " + r + " (k int, d date, v text, PRIMARY KEY (k))"
                            + " PARTITION BY RANGE (k)",
                        "CREATE TABLE " + r + "1 PARTITION OF " + r + " FOR VALUES FROM (0) TO (100)",
                        "CREATE TABLE " + r + "_def PARTITION OF " + r + " DEFAULT",
                        "INSERT INTO " + r + " SELECT g, date '2024-01-01' + g, 'v' || g FROM generate_series(1, 120) g"},
                    {"list and hash roots", "CREATE TABLE " + s + ".l (k int, c text, PRIMARY KEY (k, c))"
                            + " PARTITION BY LIST (c)",
                        "CREATE TABLE " + s + ".l_a PARTITION OF " + s + ".l FOR VALUES IN ('a')",
                        "CREATE TABLE " + s + ".l_b PARTITION OF " + s + ".l FOR VALUES IN ('b', 'c')",
                        "CREATE TABLE " + s + ".h (k int PRIMARY KEY, w text) PARTITION BY HASH (k)",
                        "CREATE TABLE " + s + ".h0 PARTITION OF " + s + ".h FOR VALUES WITH (MODULUS 2, REMAINDER 0)",
                        "CREATE TABLE " + s + ".h1 PARTITION OF " + s + ".h FOR VALUES WITH (MODULUS 2, REMAINDER 1)",
                        "INSERT INTO " + s + ".l VALUES (1, 'a'), (2, 'b'), (3, 'c')",
                        "INSERT INTO " + s + ".h SELECT g, 'w' FROM generate_series(1, 10) g"},
                    {"two levels", "CREATE TABLE " + r + "_m PARTITION OF " + r + " FOR VALUES FROM (300) TO (400)"
                            + " PARTITION BY RANGE (k)",
                        "CREATE TABLE " + r + "_m1 PARTITION OF " + r + "_m FOR VALUES FROM (300) TO (350)",
                        "CREATE TABLE " + r + "_m2 PARTITION OF " + r + "_m FOR VALUES FROM (350) TO (400)",
                        "INSERT INTO " + r + " SELECT g, null, 'm' FROM generate_series(300, 399, 7) g"},
                    {"attach a table of another column order", "DELETE FROM " + r + "_def WHERE k >= 200",
                        "CREATE TABLE " + r + "3 (v text, gone int, d date, k int NOT NULL PRIMARY KEY)",
                        "INSERT INTO " + r + "3 SELECT 'x', 1, null, g FROM generate_series(200, 210) g",
                        "ALTER TABLE " + r + "3 DROP COLUMN gone",
                        "ALTER TABLE " + r + " ATTACH PARTITION " + r + "3 FOR VALUES FROM (200) TO (300)",
                        "INSERT INTO " + r + " VALUES (211, null, 'y')"},
                    {"move across partitions", "UPDATE " + r + " SET k = k + 220 WHERE k BETWEEN 5 AND 9"},
                    {"root add column", "ALTER TABLE " + r + " ADD COLUMN z int DEFAULT 7",
                        "INSERT INTO " + r + " VALUES (5, null, 'z', 8)"},
                    {"root rename and drop column", "ALTER TABLE " + r + " RENAME COLUMN v TO v2",
                        "ALTER TABLE " + r + " DROP COLUMN d", "UPDATE " + r + " SET v2 = 'after' WHERE k = 5"},
                    {"rename the root", "ALTER TABLE " + r + " RENAME TO rr"},
                    {"detach", "ALTER TABLE " + s + ".rr DETACH PARTITION " + r + "3",
                        "INSERT INTO " + r + "3 VALUES ('own', 299, 0)"},
                    {"detach concurrently", "DROP TABLE " + r + "_def", "ALTER TABLE " + s + ".rr DETACH PARTITION " + r + "1 CONCURRENTLY"},
                    {"detach a sub-root", "ALTER TABLE " + s + ".rr DETACH PARTITION " + r + "_m",
                        "INSERT INTO " + r + "_m VALUES (301, 'sub', 1)"},
                    {"attach it again", "ALTER TABLE " + s + ".rr ATTACH PARTITION " + r + "_m"
                            + " FOR VALUES FROM (300) TO (400)"},
                    {"drop a partition", "DROP TABLE " + s + ".h1"},
                    // cancelled while it waits for a reader of the root: its first transaction done, the partition
                    // left pending, which PostgreSQL no longer routes through the root
                    {"detach concurrently, cancelled", "other: BEGIN", "other: SELECT count(*) FROM " + s + ".h",
                        "SET statement_timeout = '2s'",
                        "fails: ALTER TABLE " + s + ".h DETACH PARTITION " + s + ".h0 CONCURRENTLY",
                        "RESET statement_timeout", "other: COMMIT", "INSERT INTO " + s + ".h0 VALUES (1000, 'pending')"},
                    {"detach finalize", "ALTER TABLE " + s + ".h DETACH PARTITION " + s + ".h0 FINALIZE"},
                    {"legacy inherits", "CREATE TABLE " + s + ".lp (a int)",
                        "CREATE TABLE " + s + ".lc (b int) INHERITS (" + s + ".lp)",
                        "INSERT INTO " + s + ".lc VALUES (1, 2)"},
                    {"list root add column", "ALTER TABLE " + s + ".l ADD COLUMN n numeric",
                        "INSERT INTO " + s + ".l VALUES (4, 'a', 1.5)"},
                    // a table the filter does not include on its own (another schema) attached with rows: the rows
                    // it held are not in the WAL since the job began, which the tracker counts
                    {"attach a table not followed", "CREATE SCHEMA " + s + "_x",
                        "CREATE TABLE " + s + "_x.l_z (k int, c text, n numeric, PRIMARY KEY (k, c))",
                        "INSERT INTO " + s + "_x.l_z VALUES (9, 'z', 0)",
                        "ALTER TABLE " + s + ".l ATTACH PARTITION " + s + "_x.l_z FOR VALUES IN ('z')"},
                    // a sub-partitioned one: the attach changes l_y's catalog rows only, not its leaves' (one of
                    // them created in the attaching transaction: its rows are in the WAL)
                    {"attach a sub-partitioned table not followed",
                        "CREATE TABLE " + s + "_x.l_y (k int, c text, n numeric, PRIMARY KEY (k, c))"
                                + " PARTITION BY RANGE (k)",
                        "CREATE TABLE " + s + "_x.l_y1 PARTITION OF " + s + "_x.l_y FOR VALUES FROM (0) TO (10)",
                        "CREATE TABLE " + s + "_x.l_y2 PARTITION OF " + s + "_x.l_y FOR VALUES FROM (10) TO (20)"
                                + " PARTITION BY LIST (c)",
                        "CREATE TABLE " + s + "_x.l_y2y PARTITION OF " + s + "_x.l_y2 FOR VALUES IN ('y')",
                        "INSERT INTO " + s + "_x.l_y VALUES (1, 'y', 0), (11, 'y', 0)", "BEGIN",
                        "CREATE TABLE " + s + "_x.l_y3 PARTITION OF " + s + "_x.l_y FOR VALUES FROM (20) TO (30)",
                        "INSERT INTO " + s + "_x.l_y3 VALUES (21, 'y', 0)",
                        "ALTER TABLE " + s + ".l ATTACH PARTITION " + s + "_x.l_y FOR VALUES IN ('y')", "COMMIT"},
                };
                List<Expected> expected = new ArrayList<>();
                for (String[] step : steps) {
                    ShadowCatalogWalIT.runStep(c, other, step);
                    expected.add(oracle(oracle, s, step[0]));
                }
                LocalPg.exec(c, "SELECT pg_switch_wal()");
                long end = LocalPg.currentLsn(c);

                CatalogFilter filter = CatalogFilter.parse(s + ".*", null).withPartitionRoots(true);
                ShadowCatalog shadow = boot1.shadow();
                CatalogTracker tracker = CatalogTracker.seedAt(filter, new ShadowCatalogSource(shadow, filter),
                        shadow.dbOid(), shadow.startLsn());
                WalChangeDecoder decoder = decoder(tracker, shadow);
                List<io.walshadow.catalog.CatalogCounters> counters = new ArrayList<>(List.of(tracker.counters()));
                WalFormat format = WalFormat.forServerVersionNum(LocalPg.serverVersionNum(c));
                int step = 0;
                try (WalSegmentReader reader = new WalSegmentReader(LocalPg.walDir(), format, LocalPg.segmentSize(c),
                        LocalPg.timeline(c), restart, end)) {
                    XLogRecord rec;
                    while ((rec = reader.next()) != null && step < expected.size()) {
                        while (step < expected.size()
                                && Long.compareUnsigned(rec.lsn(), expected.get(step).lsn()) >= 0) {
                            step++;
                            decoder = restarted(decoder, filter, counters); // as a job restored here would be
                        }
                        decoder.decodeForBuffer(rec);
                    }
                }
                assertEquals(expected.size(), step, "every step reached");
                DescriptorHistory h = decoder.history();
                int routed = 0;
                for (Expected e : expected) {
                    Map<Integer, String> actual = new TreeMap<>();
                    for (int oid : e.relations().keySet()) {
                        actual.put(oid, fromHistory(h, oid, e.lsn()));
                    }
                    assertEquals(e.relations(), actual, "after step '" + e.step() + "' (" + Lsn.format(e.lsn())
                            + ")");
                    routed += (int) e.relations().values().stream().filter(v -> v.contains(" -> ")
                            && !v.endsWith("-> -")).count();
                }
                assertTrue(routed > 40, "partitions routed over all steps: " + routed);
                // CREATE TABLE ... PARTITION OF and the attach of a table followed on its own do not count
                List<String> attached = counters.stream().filter(k -> k.partitionsAttachedWithoutHistory() > 0)
                        .map(k -> k.partitionsAttachedWithoutHistory() + " " + k.lastPartitionAttachedWithoutHistory())
                        .toList();
                assertEquals(2, attached.size(), "only the attaches of the tables not followed count: " + attached);
                assertTrue(attached.get(0).startsWith("1 " + s + "_x.l_z -> " + s + ".l at "), attached.toString());
                // the leaves of l_y that held rows before the attaching transaction, at both depths
                assertTrue(attached.get(1).startsWith("2 " + s + "_x.l_y2y -> " + s + ".l at "), attached.toString());
                System.out.println("partition history: " + expected.size() + " steps, " + routed
                        + " partition routes compared; last: " + expected.get(expected.size() - 1).relations());
            } finally {
                LocalPg.exec(slotConn, "SELECT pg_drop_replication_slot('" + slot + "')");
                LocalPg.exec(c, "DROP SCHEMA " + s + " CASCADE", "DROP SCHEMA IF EXISTS " + s + "_x CASCADE");
            }
        }
    }

    private static WalChangeDecoder decoder(CatalogTracker tracker, ShadowCatalog shadow) {
        return new WalChangeDecoder(tracker, new RowDecoder(new ValueDecoder(new ShadowTypes(shadow))), shadow);
    }

    /** The decoder rebuilt from its catalog state written to bytes (history, shadow) and its pending sets. */
    private static WalChangeDecoder restarted(WalChangeDecoder d, CatalogFilter filter,
                                              List<io.walshadow.catalog.CatalogCounters> counters) throws Exception {
        DescriptorHistory h = CatalogHistorySerializer.fromBytes(CatalogHistorySerializer.toBytes(d.history()));
        ShadowCatalog shadow = ShadowCatalogSerializer.fromBytes(ShadowCatalogSerializer.toBytes(d.shadow()));
        CatalogTracker t = CatalogTracker.restore(filter, new ShadowCatalogSource(shadow, filter), h);
        counters.add(t.counters());
        WalChangeDecoder out = decoder(t, shadow);
        out.pendingCreated().addAll(d.pendingCreated());
        out.pendingAltered().putAll(new HashMap<>(d.pendingAltered()));
        out.pendingSubxactParents().putAll(d.pendingSubxactParents());
        out.pendingDeferred().putAll(d.pendingDeferred());
        out.restoreNextCommitSeq(d.nextCommitSeq());
        out.restoreXidReference(d.xidReference());
        return out;
    }
}
