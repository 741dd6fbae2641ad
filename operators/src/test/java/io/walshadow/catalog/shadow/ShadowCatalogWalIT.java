package io.walshadow.catalog.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.shadow.CatalogRow.AttributeRow;
import io.walshadow.catalog.shadow.CatalogRow.ClassRow;
import io.walshadow.catalog.shadow.CatalogRow.EnumRow;
import io.walshadow.catalog.shadow.CatalogRow.ExtensionRow;
import io.walshadow.catalog.shadow.CatalogRow.InheritsRow;
import io.walshadow.catalog.shadow.CatalogRow.IndexRow;
import io.walshadow.catalog.shadow.CatalogRow.NamespaceRow;
import io.walshadow.catalog.shadow.CatalogRow.RangeRow;
import io.walshadow.catalog.shadow.CatalogRow.TypeRow;
import io.walshadow.pg.CatalogBootstrap;
import io.walshadow.testing.LocalPg;
import io.walshadow.types.Oids;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.WalSegmentReader;
import io.walshadow.wal.XLogRecord;
import io.walshadow.xact.XactAbort;
import io.walshadow.xact.XactCommit;
import io.walshadow.xact.XactRecord;
import io.walshadow.xact.XactRecordParser;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The shadow driven by the real server's WAL against the real server's catalog: after every step of a DDL workload
 * (every DDL form, rollbacks, savepoints, a prepared transaction, rewrites of user tables and of the catalogs
 * themselves, vacuum), every row of the catalogs the shadow keeps, as the shadow has it once it has read the
 * WAL up to that point, must equal what PostgreSQL's own SELECT shows. The oracle renders rows from SQL text, the
 * shadow's side from the decoded tuples; the shadow is also written to bytes and read back at every step. A range
 * type created after the bootstrap must decode with the types the shadow answers (pg_range from the WAL).
 */
class ShadowCatalogWalIT {
    final String sfx = Long.toString(System.nanoTime(), 36);

    /** Catalog contents at one point: rows rendered as text, per catalog. */
    record Expected(String step, long lsn, Map<String, TreeSet<String>> rows) {
    }

    static final Map<String, String> ORACLE = Map.of(
            "pg_class", "SELECT concat_ws('|', oid::int8, relname, relnamespace::int8, relfilenode::int8,"
                    + " reltablespace::int8, relkind, relpersistence, relreplident, relnatts, reltoastrelid::int8,"
                    + " relisshared) FROM pg_class",
            "pg_attribute", "SELECT concat_ws('|', attrelid::int8, attnum, attname, atttypid::int8, atttypmod, attlen,"
                    + " attalign, attbyval, attstorage, attisdropped, attnotnull, atthasmissing) FROM pg_attribute"
                    + " WHERE attnum > 0",
            "pg_namespace", "SELECT concat_ws('|', oid::int8, nspname) FROM pg_namespace",
            "pg_index", "SELECT concat_ws('|', indexrelid::int8, indrelid::int8, indisprimary, indisreplident,"
                    + " replace(indkey::text, ' ', ',')) FROM pg_index",
            "pg_type", "SELECT concat_ws('|', oid::int8, typname, typnamespace::int8, typlen, typbyval, typalign,"
                    + " typtype, typcategory, typelem::int8, typbasetype::int8, typtypmod, typrelid::int8) FROM pg_type",
            "pg_enum", "SELECT concat_ws('|', oid::int8, enumtypid::int8, enumlabel) FROM pg_enum",
            "pg_range", "SELECT concat_ws('|', rngtypid::int8, rngsubtype::int8, rngmultitypid::int8) FROM pg_range",
            "pg_extension", "SELECT concat_ws('|', oid::int8, extname, extnamespace::int8) FROM pg_extension",
            "pg_inherits", "SELECT concat_ws('|', inhrelid::int8, inhparent::int8, inhseqno, inhdetachpending)"
                    + " FROM pg_inherits");

    static String render(CatalogRow row) {
        if (row instanceof ClassRow c) {
            return u(c.oid()) + "|" + c.relname() + "|" + u(c.relnamespace()) + "|" + u(c.relfilenode()) + "|"
                    + u(c.reltablespace()) + "|" + c.relkind() + "|" + c.relpersistence() + "|" + c.relreplident()
                    + "|" + c.relnatts() + "|" + u(c.reltoastrelid()) + "|" + b(c.relisshared());
        } else if (row instanceof AttributeRow a) {
            return u(a.attrelid()) + "|" + a.attnum() + "|" + a.attname() + "|" + u(a.atttypid()) + "|" + a.atttypmod()
                    + "|" + a.attlen() + "|" + a.attalign() + "|" + b(a.attbyval()) + "|" + a.attstorage() + "|"
                    + b(a.attisdropped()) + "|" + b(a.attnotnull()) + "|" + b(a.missingValue() != null);
        } else if (row instanceof NamespaceRow n) {
            return u(n.oid()) + "|" + n.nspname();
        } else if (row instanceof IndexRow i) {
            StringBuilder k = new StringBuilder();
            for (int x : i.indkey()) {
                k.append(k.length() == 0 ? "" : ",").append(x);
            }
            return u(i.indexrelid()) + "|" + u(i.indrelid()) + "|" + b(i.indisprimary()) + "|" + b(i.indisreplident())
                    + "|" + k;
        } else if (row instanceof TypeRow t) {
            return u(t.oid()) + "|" + t.typname() + "|" + u(t.typnamespace()) + "|" + t.typlen() + "|"
                    + b(t.typbyval()) + "|" + t.typalign() + "|" + t.typtype() + "|" + t.typcategory() + "|"
                    + u(t.typelem()) + "|" + u(t.typbasetype()) + "|" + t.typtypmod() + "|" + u(t.typrelid());
        } else if (row instanceof RangeRow r) {
            return u(r.rngtypid()) + "|" + u(r.rngsubtype()) + "|" + u(r.rngmultitypid());
        } else if (row instanceof ExtensionRow x) {
            return u(x.oid()) + "|" + x.extname() + "|" + u(x.extnamespace());
        } else if (row instanceof InheritsRow i) {
            return u(i.inhrelid()) + "|" + u(i.inhparent()) + "|" + i.inhseqno() + "|" + b(i.inhdetachpending());
        } else {
            EnumRow e = (EnumRow) row;
            return u(e.oid()) + "|" + u(e.enumtypid()) + "|" + e.enumlabel();
        }
    }

    static String u(int oid) {
        return Integer.toUnsignedString(oid);
    }

    static String b(boolean v) {
        return v ? "true" : "false";
    }

    /** The catalogs as PostgreSQL shows them, and the insert position read inside the same snapshot. */
    static Expected oracle(Connection c, String step) throws SQLException {
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try (Statement st = c.createStatement()) {
            long lsn;
            try (ResultSet rs = st.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
                rs.next();
                lsn = Lsn.parse(rs.getString(1));
            }
            Map<String, TreeSet<String>> rows = new TreeMap<>();
            for (Map.Entry<String, String> e : ORACLE.entrySet()) {
                TreeSet<String> s = new TreeSet<>();
                try (ResultSet rs = st.executeQuery(e.getValue())) {
                    while (rs.next()) {
                        s.add(rs.getString(1));
                    }
                }
                rows.put(e.getKey(), normalize(s));
            }
            c.commit();
            return new Expected(step, lsn, rows);
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Booleans print as t/f in SQL text: make every field that is exactly t or f read true/false. */
    static TreeSet<String> normalize(TreeSet<String> rows) {
        TreeSet<String> out = new TreeSet<>();
        for (String r : rows) {
            String[] f = r.split("\\|", -1);
            for (int i = 0; i < f.length; i++) {
                if (f[i].equals("t")) {
                    f[i] = "true";
                } else if (f[i].equals("f")) {
                    f[i] = "false";
                }
            }
            out.add(String.join("|", f));
        }
        return out;
    }

    static Map<String, TreeSet<String>> shadowRows(ShadowCatalog s) {
        Map<String, TreeSet<String>> out = new TreeMap<>();
        for (SystemCatalog c : SystemCatalog.values()) {
            TreeSet<String> rows = new TreeSet<>();
            for (CatalogRow r : s.rows(c)) {
                rows.add(render(r));
            }
            out.put(c.relname(), normalize(rows));
        }
        return out;
    }

    @Test
    void theShadowEqualsTheCatalogAfterEveryStep() throws Exception {
        String schema = "shadow_" + sfx;
        String slot = "shadow_" + sfx;
        try (Connection c = LocalPg.connect(); Connection slotConn = LocalPg.connect();
             Connection boot = LocalPg.connect(); Connection oracle = LocalPg.connect();
             Connection other = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE SCHEMA " + schema);
            LocalPg.exec(slotConn, "SELECT pg_create_physical_replication_slot('" + slot + "', true, true)");
            long restart = Lsn.parse(LocalPg.queryString(c, "SELECT restart_lsn::text FROM pg_replication_slots"
                    + " WHERE slot_name = '" + slot + "'"));
            CatalogBootstrap.Result r = new CatalogBootstrap(boot, System.out::println).take(slot);
            assertTrue(Long.compareUnsigned(r.shadow().redoLsn(), restart) >= 0, "redo point past the slot's start");
            assertTrue(Long.compareUnsigned(r.startLsn(), r.shadow().redoLsn()) > 0);
            ShadowCatalog shadow = ShadowCatalogSerializer.fromCompressed(ShadowCatalogSerializer.toCompressed(r.shadow()));

            List<Expected> expected = new ArrayList<>();
            // step index: (range, its multirange, subtype) of the ranges of one's own existing after it
            Map<Integer, List<long[]>> ranges = new TreeMap<>();
            String t = schema + ".t1";
            String pr = schema + ".pr";
            String[][] steps = {
                {"create", "CREATE TABLE " + t + " (id int PRIMARY KEY, a text, b int, c numeric(10,2))"},
                {"add column with default", "ALTER TABLE " + t + " ADD COLUMN d int DEFAULT 7"},
                {"drop column", "ALTER TABLE " + t + " DROP COLUMN b"},
                {"rename column", "ALTER TABLE " + t + " RENAME COLUMN a TO a2"},
                {"checkpoint: later images of known pages", "CHECKPOINT",
                    "ALTER TABLE " + t + " ALTER COLUMN c SET DEFAULT 1", "ALTER TABLE " + t + " RENAME COLUMN c TO c2"},
                {"alter type rewrite", "ALTER TABLE " + t + " ALTER COLUMN d TYPE bigint"},
                {"set not null", "ALTER TABLE " + t + " ALTER COLUMN a2 SET NOT NULL"},
                {"drop not null", "ALTER TABLE " + t + " ALTER COLUMN a2 DROP NOT NULL"},
                {"savepoint rolled back", "BEGIN", "ALTER TABLE " + t + " ADD e text", "SAVEPOINT s",
                    "ALTER TABLE " + t + " ADD f int", "ROLLBACK TO SAVEPOINT s", "ALTER TABLE " + t + " ADD g int",
                    "COMMIT"},
                {"rolled back", "BEGIN", "ALTER TABLE " + t + " RENAME COLUMN e TO e2", "ROLLBACK"},
                {"enum", "CREATE TYPE " + schema + ".mood AS ENUM ('sad', 'ok')",
                    "ALTER TYPE " + schema + ".mood ADD VALUE 'happy'"},
                {"range type", "CREATE TYPE " + schema + ".floatrange AS RANGE (subtype = float8)",
                    "CREATE TYPE " + schema + ".textrange AS RANGE (subtype = text, multirange_type_name = "
                            + schema + ".texts)"},
                {"dropped range type", "CREATE TYPE " + schema + ".gone AS RANGE (subtype = int8)",
                    "DROP TYPE " + schema + ".gone"},
                {"second table", "CREATE TABLE " + schema + ".t2 (k " + schema + ".mood, v numeric, w text)",
                    "ALTER TABLE " + schema + ".t2 REPLICA IDENTITY FULL"},
                {"primary key", "ALTER TABLE " + schema + ".t2 ADD COLUMN id serial",
                    "ALTER TABLE " + schema + ".t2 ADD PRIMARY KEY (id)"},
                {"drop primary key", "ALTER TABLE " + schema + ".t2 DROP CONSTRAINT t2_pkey"},
                {"rename table", "ALTER TABLE " + t + " RENAME TO t1r"},
                {"truncate", "TRUNCATE " + schema + ".t1r"},
                {"partitioned table", "CREATE TABLE " + pr + " (k int PRIMARY KEY, v text) PARTITION BY RANGE (k)",
                    "CREATE TABLE " + pr + "1 PARTITION OF " + pr + " FOR VALUES FROM (0) TO (100)",
                    "CREATE TABLE " + pr + "2 PARTITION OF " + pr + " FOR VALUES FROM (100) TO (200)"},
                {"attach a table with rows", "CREATE TABLE " + pr + "3 (k int PRIMARY KEY, gone int, v text)",
                    "INSERT INTO " + pr + "3 SELECT g, g, 'x' FROM generate_series(200, 250) g",
                    "ALTER TABLE " + pr + "3 DROP COLUMN gone",
                    "ALTER TABLE " + pr + " ATTACH PARTITION " + pr + "3 FOR VALUES FROM (200) TO (300)"},
                {"sub-partitioned", "CREATE TABLE " + pr + "m PARTITION OF " + pr
                        + " FOR VALUES FROM (300) TO (400) PARTITION BY RANGE (k)",
                    "CREATE TABLE " + pr + "m1 PARTITION OF " + pr + "m FOR VALUES FROM (300) TO (350)"},
                {"detach", "ALTER TABLE " + pr + " DETACH PARTITION " + pr + "2"},
                {"legacy inherits", "CREATE TABLE " + schema + ".lp (a int)", "CREATE TABLE " + schema + ".lq (b int)",
                    "CREATE TABLE " + schema + ".lc (c int) INHERITS (" + schema + ".lp, " + schema + ".lq)"},
                {"vacuum full table", "VACUUM FULL " + schema + ".t2"},
                {"vacuum full pg_attribute", "VACUUM FULL pg_attribute"},
                {"ddl after pg_attribute rewrite", "ALTER TABLE " + schema + ".t1r ADD COLUMN h text DEFAULT 'x'",
                    "ALTER TABLE " + schema + ".t1r RENAME COLUMN h TO h2"},
                {"vacuum full pg_class", "VACUUM FULL pg_class", "CHECKPOINT"},
                {"ddl after pg_class rewrite", "ALTER TABLE " + schema + ".t1r RENAME TO t1s",
                    "CREATE TABLE " + schema + ".t3 (x int)"},
                {"vacuum full the rest", "VACUUM FULL pg_type", "VACUUM FULL pg_namespace", "VACUUM FULL pg_index",
                    "VACUUM FULL pg_range", "VACUUM FULL pg_extension", "VACUUM FULL pg_inherits",
                    "CLUSTER pg_class USING pg_class_oid_index"},
                {"ddl after every rewrite", "ALTER TABLE " + schema + ".t3 ADD y int", "DROP TABLE " + schema + ".t2",
                    "ALTER TYPE " + schema + ".mood RENAME VALUE 'ok' TO 'fine'"},
                {"prepared", "BEGIN", "CREATE TABLE " + schema + ".t4 (z int)", "PREPARE TRANSACTION 'shadow_" + sfx + "'"},
                {"commit prepared", "COMMIT PREPARED 'shadow_" + sfx + "'"},
                {"rename schema", "ALTER SCHEMA " + schema + " RENAME TO " + schema + "_r",
                    "ALTER SCHEMA " + schema + "_r RENAME TO " + schema},
                {"vacuum", "VACUUM pg_attribute", "VACUUM pg_class", "VACUUM FREEZE pg_type"},
                {"burst", "ALTER TABLE " + schema + ".t3 ADD a1 int", "ALTER TABLE " + schema + ".t3 ADD a2 int",
                    "ALTER TABLE " + schema + ".t3 ALTER a1 TYPE bigint", "ALTER TABLE " + schema + ".t3 DROP a2",
                    "ALTER TABLE " + schema + ".t3 RENAME a1 TO a3", "ALTER TABLE " + schema + ".t3 ALTER y SET NOT NULL",
                    "CREATE INDEX ON " + schema + ".t3 (y)", "ALTER TABLE " + schema + ".t3 ADD PRIMARY KEY (y)"},
                // CONCURRENTLY runs two transactions itself (outside a transaction block: autocommit); the first
                // marks the row pending, the second deletes it
                {"detach concurrently", "ALTER TABLE " + pr + " DETACH PARTITION " + pr + "3 CONCURRENTLY"},
                // one cancelled while waiting for a reader of the root stays pending, its first transaction done
                {"detach concurrently, cancelled", "other: BEGIN", "other: SELECT count(*) FROM " + pr,
                    "SET statement_timeout = '2s'",
                    "fails: ALTER TABLE " + pr + " DETACH PARTITION " + pr + "1 CONCURRENTLY",
                    "RESET statement_timeout", "other: COMMIT", "VACUUM FULL pg_inherits"},
                {"detach finalize", "ALTER TABLE " + pr + " DETACH PARTITION " + pr + "1 FINALIZE"},
                {"drop a partition", "DROP TABLE " + pr + "m1"},
                {"drop a legacy parent", "ALTER TABLE " + schema + ".lc NO INHERIT " + schema + ".lp",
                    "DROP TABLE " + schema + ".lp"},
                {"vacuum full pg_inherits", "VACUUM FULL pg_inherits",
                    "ALTER TABLE " + pr + " ATTACH PARTITION " + pr + "2 FOR VALUES FROM (100) TO (200)"},
                {"range type after every rewrite", "CREATE TYPE " + schema + ".daterange2 AS RANGE (subtype = date)"},
                {"drop schema", "DROP SCHEMA " + schema + " CASCADE"},
            };
            for (String[] step : steps) {
                runStep(c, other, step);
                if (step[0].equals("detach concurrently, cancelled")) {
                    assertEquals("t", LocalPg.queryString(c, "SELECT inhdetachpending FROM pg_inherits"
                            + " WHERE inhrelid = '" + pr + "1'::regclass"), "left pending");
                }
                expected.add(oracle(oracle, step[0]));
                if (step[0].startsWith("range type")) {
                    ranges.put(expected.size() - 1, rangeOids(c, schema));
                }
            }
            LocalPg.exec(c, "SELECT pg_switch_wal()");
            long end = LocalPg.currentLsn(c);

            WalFormat format = WalFormat.forServerVersionNum(LocalPg.serverVersionNum(c));
            int step = 0;
            Map<String, Long> counters = new TreeMap<>();
            try (WalSegmentReader reader = new WalSegmentReader(LocalPg.walDir(), format, LocalPg.segmentSize(c),
                    LocalPg.timeline(c), restart, end)) {
                XLogRecord rec;
                while ((rec = reader.next()) != null && step < expected.size()) {
                    while (step < expected.size() && Long.compareUnsigned(rec.lsn(), expected.get(step).lsn) >= 0) {
                        Expected e = expected.get(step++);
                        assertEquals(e.rows, shadowRows(shadow), "after step '" + e.step + "' ("
                                + Lsn.format(e.lsn) + ")");
                        assertRangesDecode(shadow, ranges.getOrDefault(step - 1, List.of()), e.step);
                        shadow.counters().asMap().forEach((k, v) -> counters.merge(k, v, Long::sum));
                        shadow = ShadowCatalogSerializer.fromBytes(ShadowCatalogSerializer.toBytes(shadow));
                    }
                    feed(shadow, rec);
                }
            }
            assertEquals(expected.size(), step, "every step checked");
            System.out.println("shadow counters: " + counters);
            assertTrue(counters.get("catalog_shadow_catalog_rewrites") >= 6, counters.toString());
            assertTrue(counters.get("catalog_shadow_prefix_suffix_rebuilt") > 0, counters.toString());
            assertTrue(counters.get("catalog_shadow_pages_seen") > 0, counters.toString());
            assertTrue(counters.get("catalog_shadow_images_verified") > 0, counters.toString());
        }
    }

    /**
     * Runs a step's statements (from index 1) on {@code c}; one prefixed {@code other: } runs on {@code other}, one
     * prefixed {@code fails: } must fail.
     */
    static void runStep(Connection c, Connection other, String[] step) throws SQLException {
        for (int i = 1; i < step.length; i++) {
            if (step[i].startsWith("other: ")) {
                LocalPg.exec(other, step[i].substring("other: ".length()));
            } else if (step[i].startsWith("fails: ")) {
                String sql = step[i].substring("fails: ".length());
                assertThrows(SQLException.class, () -> LocalPg.exec(c, sql), sql);
            } else {
                LocalPg.exec(c, step[i]);
            }
        }
    }

    /** The schema's ranges of one's own as PostgreSQL's pg_range has them: (range, multirange, subtype). */
    static List<long[]> rangeOids(Connection c, String schema) throws SQLException {
        List<long[]> out = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT rngtypid::int8, rngmultitypid::int8, rngsubtype::int8"
                     + " FROM pg_range r JOIN pg_type t ON t.oid = r.rngtypid JOIN pg_namespace n"
                     + " ON n.oid = t.typnamespace WHERE n.nspname = '" + schema + "'")) {
            while (rs.next()) {
                out.add(new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)});
            }
        }
        assertTrue(!out.isEmpty(), "ranges in " + schema);
        return out;
    }

    /**
     * Types from the shadow know each range's subtype and each multirange's range, and decode their values: a
     * range and a multirange of it holding {@code [1,2)} of the subtype (built here for float8, text and date).
     */
    static void assertRangesDecode(ShadowCatalog shadow, List<long[]> ranges, String step) {
        ShadowTypes types = new ShadowTypes(shadow);
        ValueDecoder dec = new ValueDecoder(types);
        for (long[] r : ranges) {
            int range = (int) r[0];
            int multi = (int) r[1];
            int subtype = (int) r[2];
            String where = "after step '" + step + "', range " + r[0];
            assertEquals(subtype, types.type(range).rangeSubtype(), where);
            assertEquals(range, types.type(multi).rangeType(), where);
            String bounds = switch (subtype) {
                case Oids.FLOAT8 -> "000000000000f03f 0000000000000040";     // 1, 2
                case Oids.TEXT -> "0561 0562";                              // 'a', 'b' (short varlenas)
                case Oids.DATE -> "01000000 02000000";                      // 2000-01-02, 2000-01-03
                default -> throw new AssertionError("subtype " + subtype);
            };
            String text = switch (subtype) {
                case Oids.FLOAT8 -> "[1,2)";
                case Oids.TEXT -> "[a,b)";
                default -> "[2000-01-02,2000-01-03)";
            };
            byte[] datum = varlena(le(range) + bounds + "02");
            assertEquals(text, dec.toText(range, -1, dec.decode(range, -1, datum, 0, datum.length)), where);
            // one range: no items, its flags, padding to the subtype's alignment, its bounds
            byte[] mr = varlena(le(multi) + "01000000 02 000000" + bounds);
            assertEquals("{" + text + "}", dec.toText(multi, -1, dec.decode(multi, -1, mr, 0, mr.length)), where);
        }
    }

    private static byte[] varlena(String payloadHex) {
        byte[] payload = HexFormat.of().parseHex(payloadHex.replace(" ", ""));
        byte[] datum = new byte[4 + payload.length];
        datum[0] = (byte) (datum.length << 2);
        datum[1] = (byte) (datum.length >> 6);
        System.arraycopy(payload, 0, datum, 4, payload.length);
        return datum;
    }

    private static String le(int v) {
        return String.format("%02x%02x%02x%02x", v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF, v >>> 24);
    }

    static void feed(ShadowCatalog s, XLogRecord rec) {
        if (rec.rmid() == Rmgrs.RM_XACT_ID) {
            XactRecord x = XactRecordParser.parse(rec);
            if (x instanceof XactCommit cm) {
                s.commit(rec.lsn(), cm.allXids().toIntArray());
            } else if (x instanceof XactAbort a) {
                s.abort(rec.lsn(), a.allXids().toIntArray());
            }
        } else if (rec.rmid() == Rmgrs.RM_STANDBY_ID && rec.rmgrInfo() == 0x10) {
            ByteBuffer d = rec.mainData();
            s.runningXacts(rec.lsn(), d.getInt(16));
        } else {
            s.apply(rec);
        }
    }
}
