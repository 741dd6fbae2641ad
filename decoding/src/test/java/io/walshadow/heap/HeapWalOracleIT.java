package io.walshadow.heap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.heap.HeapChange.OldTupleKind;
import io.walshadow.heap.HeapChange.Operation;
import io.walshadow.testing.LocalPg;
import io.walshadow.wal.BlockRef;
import io.walshadow.wal.Bytes;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.WalDecodeException;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.WalSegmentReader;
import io.walshadow.wal.XLogRecord;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.PGConnection;

/**
 * Decodes the heap WAL of a workload on the local PostgreSQL 15 and checks it against PostgreSQL itself:
 *
 * <ul>
 *   <li>every Heap/Heap2 record of the range against pg_waldump's description of it (type, offsets, flags, block
 *       numbers, xid, TRUNCATE relids), decoding all relations, catalogs included;
 *   <li>every tuple decoded for the test relations (and their TOAST tables, and pg_class/pg_attribute/pg_type)
 *       against pageinspect's {@code tuple_data_split} of the tuple at the same TID, byte for byte per attribute;
 *   <li>old keys / old rows of UPDATE/DELETE against the old tuple version on the page;
 *   <li>the missing-attribute rule against {@code SELECT} for rows written before ADD COLUMN.
 * </ul>
 *
 * Tables carry a per-run suffix, autovacuum off, and are dropped at the end. A temporary physical slot keeps the
 * range's WAL from being recycled.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HeapWalOracleIT {
    private static final Pattern RECORD_LINE = Pattern.compile(
            "^rmgr: (\\S+)\\s+len \\(rec/tot\\):\\s*(\\d+)/\\s*(\\d+), tx:\\s*(\\d+), lsn: ([0-9A-F]+/[0-9A-F]+),"
                    + " prev ([0-9A-F]+/[0-9A-F]+), desc: (.*)$");
    private static final Pattern BLKREF = Pattern.compile(
            "blkref #(\\d+): rel (\\d+)/(\\d+)/(\\d+)(?: fork (\\w+))? blk (\\d+)");
    private static final Pattern INSERT_DESC = Pattern.compile("^(INSERT(?:\\+INIT)?) off (\\d+) flags 0x(\\w\\w)$");
    private static final Pattern UPDATE_DESC = Pattern.compile(
            "^((?:HOT_)?UPDATE(?:\\+INIT)?) off (\\d+) xmax (\\d+) flags 0x(\\w\\w) (.*); new off (\\d+) xmax (\\d+)$");
    private static final Pattern DELETE_DESC = Pattern.compile("^DELETE off (\\d+) flags 0x(\\w\\w) ?(.*)$");
    private static final Pattern TRUNCATE_DESC = Pattern.compile(
            "^TRUNCATE (cascade )?(restart_seqs )?nrelids (\\d+) relids((?: \\d+)*)$");
    private static final Pattern CONFIRM_DESC = Pattern.compile("^HEAP_CONFIRM off (\\d+)$");
    private static final Pattern INPLACE_DESC = Pattern.compile("^INPLACE off (\\d+)$");
    private static final Pattern MULTI_DESC = Pattern.compile(
            "^(MULTI_INSERT(?:\\+INIT)?) (\\d+) tuples flags 0x(\\w\\w)$");

    /** A relation whose tuples are checked: descriptor as of the end of the workload (or before TRUNCATE). */
    private record Rel(String regclass, RelationDescriptor desc, boolean inspectable) {
    }

    /** One pg_waldump line of a Heap/Heap2 record. */
    private record PgLine(String rmgr, long xid, long lsn, String head, List<long[]> blkrefs, String line) {
    }

    private Connection c;
    private Connection c2;
    private Connection slot;
    private String sfx;
    private PageInspector pages;
    private final Map<RelFileLocator, Rel> rels = new LinkedHashMap<>();
    private final Map<String, Rel> relsByName = new HashMap<>();
    private final List<XLogRecord> records = new ArrayList<>();
    private final Map<Long, PgLine> waldump = new TreeMap<>(Long::compareUnsigned);
    private final List<HeapChange> changes = new ArrayList<>();
    private final List<String> tables = new ArrayList<>();
    private final Map<String, Integer> truncatedOids = new HashMap<>();
    private int dbOid;
    private long end;

    // ------------------------------------------------------------------------------------------------------------
    // Workload
    // ------------------------------------------------------------------------------------------------------------

    private String t(String base) {
        return "hwo_" + base + "_" + sfx;
    }

    @BeforeAll
    void runWorkloadAndReadWal() throws Exception {
        sfx = Long.toString(System.nanoTime(), 36);
        c = LocalPg.connect();
        c2 = LocalPg.connect();
        slot = LocalPg.connect();
        WalFormat format = WalFormat.forServerVersionNum(LocalPg.serverVersionNum(c));
        // The oracle is Debian's pg_waldump 15 and the wording of its heap descriptions (heapdesc.c), both 15's: on
        // another major the record-by-record check is WalinspectParityIT's, the decoded rows are the end-to-end ITs'.
        Assumptions.assumeTrue(format.major == 15, "PostgreSQL " + format.major + ": the oracle here is pg_waldump"
                + " 15 and its 15 wording of heap records (another major: WalinspectParityIT, the end-to-end ITs)");
        int segSize = LocalPg.segmentSize(c);
        int tli = LocalPg.timeline(c);
        assertEquals("logical", LocalPg.queryString(c, "SHOW wal_level"), "these tests expect wal_level=logical");
        LocalPg.exec(c, "CREATE EXTENSION IF NOT EXISTS pageinspect");
        dbOid = Integer.parseInt(LocalPg.queryString(c,
                "SELECT oid FROM pg_database WHERE datname = current_database()"));
        LocalPg.exec(slot, "SELECT pg_create_physical_replication_slot('walshadow_heap_" + sfx + "', true, true)");
        LocalPg.exec(c, "SELECT pg_switch_wal()", "CHECKPOINT");
        long start = LocalPg.currentLsn(c);

        workload();

        end = LocalPg.flushLsn(c);
        Path walDir = LocalPg.walDir();
        readWaldump(walDir, start, end);
        // pg_waldump -s finds the first record at or after start; read from the first record pg_waldump printed
        // at all (heap or not), so the reader starts at a record boundary.
        long readFrom = firstRecordLsn(walDir, start, end);
        try (WalSegmentReader reader = new WalSegmentReader(walDir, format, segSize, tli, readFrom, end)) {
            XLogRecord r;
            while ((r = reader.next()) != null) {
                if (HeapRecordDecoder.isHeapRecord(r)) {
                    records.add(r);
                }
            }
        }

        // Descriptors as of now (the live catalog); truncated tables were described before their TRUNCATE.
        for (String name : List.of("mix", "nopk", "full", "evolve", "pages", "spec", "late")) {
            addRel(t(name), true);
            RelationDescriptor d = relsByName.get(t(name)).desc();
            if (d.toastRelOid() != 0) {
                String toast = LocalPg.queryString(c, "SELECT " + d.toastRelOid() + "::regclass::text");
                addRel(toast, true);
            }
        }
        for (String cat : List.of("pg_catalog.pg_class", "pg_catalog.pg_attribute", "pg_catalog.pg_type")) {
            addRel(cat, true);
        }
        pages = new PageInspector(c);
        for (XLogRecord r : records) {
            try {
                changes.addAll(HeapRecordDecoder.decode(r, rels::containsKey));
            } catch (HeapDecodeException e) {
                if (e.kind() != HeapDecodeException.Kind.PREFIX_SUFFIX_COMPRESSED || !isCatalog(e.rel())) {
                    throw e;
                }
            }
        }
    }

    private void addRel(String regclass, boolean inspectable) throws SQLException {
        RelationDescriptor d = PgDescriptors.describe(c, regclass);
        Rel rel = new Rel(regclass, d, inspectable);
        rels.put(d.locator(), rel);
        relsByName.put(regclass, rel);
    }

    private void workload() throws Exception {
        String mix = t("mix");
        String nopk = t("nopk");
        String full = t("full");
        String evolve = t("evolve");
        String pagesT = t("pages");
        String ta = t("ta");
        String tb = t("tb");
        String tp = t("tp");
        String tc = t("tc");
        String spec = t("spec");
        String gate = t("gate");
        tables.addAll(List.of(mix, nopk, full, evolve, pagesT, ta, tb, tc, tp, spec, t("late")));
        String noAv = " WITH (autovacuum_enabled = off, toast.autovacuum_enabled = off)";
        exec("CREATE TABLE " + mix + " (id int4 PRIMARY KEY, a int2, b int8, c bool, d text, e int4, f timestamptz,"
                        + " g numeric, h text)" + noAv,
                "ALTER TABLE " + mix + " ALTER COLUMN h SET STORAGE MAIN",
                "CREATE TABLE " + nopk + " (a int4, b text, c int8)" + noAv,
                "CREATE TABLE " + full + " (id int4 PRIMARY KEY, v text, n int4)" + noAv,
                "ALTER TABLE " + full + " REPLICA IDENTITY FULL",
                "CREATE TABLE " + evolve + " (id int4 PRIMARY KEY, v text, dropme int8, w int2)" + noAv,
                "CREATE TABLE " + pagesT + " (id int4 PRIMARY KEY, pad text)" + noAv,
                "CREATE TABLE " + ta + " (id int4 GENERATED ALWAYS AS IDENTITY, v text)" + noAv,
                "CREATE TABLE " + tb + " (v text)" + noAv,
                "CREATE TABLE " + tp + " (id int4 PRIMARY KEY)" + noAv,
                "CREATE TABLE " + tc + " (pid int4 REFERENCES " + tp + "(id))" + noAv);

        // --- single-row inserts: NULLs in various positions, 1-byte/4-byte varlenas, TOAST, inline compression ---
        Random rnd = new SecureRandom();
        StringBuilder incompressible = new StringBuilder();
        String alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        for (int i = 0; i < 6000; i++) {
            incompressible.append(alnum.charAt(rnd.nextInt(alnum.length())));
        }
        String ins = "INSERT INTO " + mix + " VALUES ";
        exec(ins + "(1, 1, 10, true, 'short', 100, '2024-02-29 12:34:56.789+00', 1.5, 'h1')",
                ins + "(2, NULL, -20, false, NULL, 200, NULL, -123456789.000001, NULL)",
                ins + "(3, 3, NULL, NULL, 'x', NULL, '1999-12-31 23:59:59+00', NULL, 'h3')",
                ins + "(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
                ins + "(5, -5, 9223372036854775807, true, repeat('m', 126), -2147483648, 'infinity', 'NaN',"
                        + " repeat('q', 127))",
                // d: 4-byte header whose first byte is 0 (size 256), right after a bool: the pad-byte rule
                ins + "(6, 6, 6, false, repeat('x', 252), 6, now(), 12345678901234567890.123456789,"
                        + " repeat('ab', 3000))",
                ins + "(7, 7, 7, true, '" + incompressible + "', 7, now(), 0, 'h7')",
                ins + "(8, 8, 8, true, repeat('compressible ', 400), 8, now(), 8, NULL)");
        exec("INSERT INTO " + mix + " SELECT g, g, g * 1000, g % 2 = 0, CASE WHEN g % 3 = 0 THEN NULL ELSE 'row'"
                + " || g END, g, '2020-01-01'::timestamptz + g * interval '1 hour', g / 7.0, CASE WHEN g % 4 = 0"
                + " THEN NULL ELSE repeat('r', g * 10) END FROM generate_series(10, 40) g");
        // subtransactions: records of a subxact carry its own xid; one insert is rolled back
        tx(c, ins + "(41, 41, 41, true, 'top', 41, now(), 41, NULL)", "SAVEPOINT s1",
                ins + "(42, 42, 42, true, 'sub', 42, now(), 42, NULL)", "RELEASE SAVEPOINT s1", "SAVEPOINT s2",
                ins + "(43, 43, 43, true, 'aborted', 43, now(), 43, NULL)", "ROLLBACK TO SAVEPOINT s2");
        // HOT updates, a non-HOT update changing the key (old key logged)
        exec("UPDATE " + mix + " SET e = e + 1000 WHERE id = 1",
                "UPDATE " + mix + " SET d = 'hot text', g = 2.5 WHERE id = 3",
                "UPDATE " + mix + " SET id = 102 WHERE id = 2");
        // INSERT ... ON CONFLICT: speculative insert + confirm; the DO UPDATE path (lock + update)
        exec("INSERT INTO " + mix + " (id, d) VALUES (9999, 'spec') ON CONFLICT (id) DO NOTHING",
                "INSERT INTO " + mix + " (id, d) VALUES (1, 'conflict') ON CONFLICT (id) DO UPDATE SET d ="
                        + " EXCLUDED.d || '!'",
                "INSERT INTO " + mix + " (id, d) VALUES (9998, 'spec2') ON CONFLICT (id) DO UPDATE SET d = 'never'");

        // Pages touched after a checkpoint get full-page images; logical keeps the tuple data too.
        exec("CHECKPOINT");
        StringBuilder copy = new StringBuilder();
        for (int i = 1000; i < 2500; i++) {
            copy.append(i).append('\t').append(i % 5 == 0 ? "\\N" : Integer.toString(i % 30000)).append('\t')
                    .append((long) i * 1_000_003L).append('\t').append(i % 2 == 0 ? "t" : "f").append('\t')
                    .append(i % 7 == 0 ? "\\N" : "copy" + "-".repeat(i % 200)).append('\t')
                    .append(i % 11 == 0 ? "\\N" : Integer.toString(-i)).append('\t')
                    .append("2021-06-0").append(1 + i % 9).append(" 10:00:0").append(i % 10).append("+02").append('\t')
                    .append(i % 13 == 0 ? "\\N" : i + "." + i).append('\t')
                    .append(i % 3 == 0 ? "\\N" : "h" + i).append('\n');
        }
        long copied = c.unwrap(PGConnection.class).getCopyAPI()
                .copyIn("COPY " + mix + " FROM STDIN", new StringReader(copy.toString()));
        assertEquals(1500, copied);
        exec("UPDATE " + mix + " SET d = repeat('z', 300) WHERE id IN (1000, 1001, 2400)",
                "UPDATE " + mix + " SET a = a + 1 WHERE id = 5",
                "DELETE FROM " + mix + " WHERE id = 3",
                "DELETE FROM " + mix + " WHERE id BETWEEN 1500 AND 1502",
                "DELETE FROM " + mix + " WHERE id = 7");

        // --- no replica identity key: no old key, the old TID is the identity ---
        exec("INSERT INTO " + nopk + " VALUES (1, 'a', 10), (2, NULL, 20), (3, 'c', NULL)",
                "UPDATE " + nopk + " SET b = 'bb' WHERE a = 2",
                "UPDATE " + nopk + " SET c = c + 1 WHERE a = 1",
                "DELETE FROM " + nopk + " WHERE a = 3");
        // --- REPLICA IDENTITY FULL: whole old rows ---
        exec("INSERT INTO " + full + " VALUES (1, 'one', 1), (2, 'two', 2), (3, NULL, 3)",
                "UPDATE " + full + " SET n = 20 WHERE id = 2",
                "UPDATE " + full + " SET id = 30 WHERE id = 3",
                "DELETE FROM " + full + " WHERE id = 1");
        // --- dropped column, ADD COLUMN with and without DEFAULT (missing values) ---
        exec("INSERT INTO " + evolve + " VALUES (1, 'v1', 100, 1), (2, 'v2', NULL, 2), (3, NULL, 300, NULL)",
                "ALTER TABLE " + evolve + " DROP COLUMN dropme",
                "INSERT INTO " + evolve + " VALUES (4, 'v4', 4)",
                "ALTER TABLE " + evolve + " ADD COLUMN x int4 DEFAULT 42, ADD COLUMN y text DEFAULT 'dflt',"
                        + " ADD COLUMN z int8",
                "INSERT INTO " + evolve + " VALUES (5, 'v5', 5, -1, 'own', 5)",
                "INSERT INTO " + evolve + " (id, v) VALUES (6, 'v6')",
                "UPDATE " + evolve + " SET v = 'v1b' WHERE id = 1",
                "UPDATE " + evolve + " SET id = 40 WHERE id = 4");
        // --- updates that move rows to another page ---
        exec("INSERT INTO " + pagesT + " SELECT g, repeat('p', 100) FROM generate_series(1, 300) g",
                "UPDATE " + pagesT + " SET pad = repeat('y', 150) WHERE id IN (1, 2, 150)");
        // --- TRUNCATE of several tables (relids), RESTART IDENTITY, CASCADE ---
        exec("INSERT INTO " + ta + " (v) VALUES ('a1'), ('a2')", "INSERT INTO " + tb + " VALUES ('b')",
                "INSERT INTO " + tp + " VALUES (1), (2)", "INSERT INTO " + tc + " VALUES (1)");
        for (String tt : List.of(ta, tb, tp, tc)) {
            addRel(tt, false);
            truncatedOids.put(tt, relsByName.get(tt).desc().relOid());
        }
        exec("TRUNCATE " + ta + ", " + tb + " RESTART IDENTITY", "TRUNCATE " + tp + " CASCADE");

        // --- a speculative insertion that loses the race: super-delete (XLH_DELETE_IS_SUPER) ---
        specAbort(spec, gate);

        // --- catalog inserts right after a checkpoint: full-page images without tuple data ---
        exec("CHECKPOINT", "CREATE TABLE " + t("late") + " (a int4, b text)" + noAv,
                "INSERT INTO " + t("late") + " VALUES (1, 'late')");
    }

    /**
     * Session B's ON CONFLICT insert passes the arbiter pre-check, inserts its heap tuple speculatively, then
     * blocks inside the unique index expression (an advisory lock held here) before its index entry exists;
     * session A inserts the same key and commits; B resumes, finds the conflict, and kills its own tuple.
     */
    private void specAbort(String spec, String gate) throws Exception {
        long lockKey = 0x5EC_0000L + (System.nanoTime() & 0xFFFF);
        exec("CREATE FUNCTION " + gate + "(k int4) RETURNS int4 LANGUAGE plpgsql IMMUTABLE AS $$"
                        + " DECLARE n int4; BEGIN"
                        + " n := coalesce(nullif(current_setting('walshadow.gate', true), ''), '-1')::int4;"
                        + " IF n >= 0 THEN PERFORM set_config('walshadow.gate', (n + 1)::text, false);"
                        + " IF n = 1 THEN PERFORM pg_advisory_lock(" + lockKey + "); PERFORM pg_advisory_unlock("
                        + lockKey + "); END IF; END IF; RETURN k; END $$",
                "CREATE TABLE " + spec + " (k int4, v text) WITH (autovacuum_enabled = off)",
                "CREATE UNIQUE INDEX ON " + spec + " ((" + gate + "(k)))");
        try (Connection b = LocalPg.connect()) {
            int bPid = Integer.parseInt(LocalPg.queryString(b, "SELECT pg_backend_pid()"));
            exec("SELECT pg_advisory_lock(" + lockKey + ")");
            CompletableFuture<Void> bInsert;
            try {
                LocalPg.exec(b, "SET walshadow.gate = '0'");
                bInsert = CompletableFuture.runAsync(() -> {
                    try {
                        LocalPg.exec(b, "INSERT INTO " + spec + " VALUES (1, 'b') ON CONFLICT ((" + gate
                                + "(k))) DO NOTHING");
                    } catch (SQLException e) {
                        throw new RuntimeException(e);
                    }
                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!"1".equals(LocalPg.queryString(c, "SELECT count(*) FROM pg_locks WHERE pid = " + bPid
                        + " AND locktype = 'advisory' AND NOT granted"))) {
                    assertTrue(System.nanoTime() < deadline, "session B never blocked in the index expression");
                    assertFalse(bInsert.isDone(), "session B finished without blocking");
                    Thread.sleep(20);
                }
                LocalPg.exec(c2, "INSERT INTO " + spec + " VALUES (1, 'a')");
            } finally {
                exec("SELECT pg_advisory_unlock(" + lockKey + ")");
            }
            bInsert.get(30, TimeUnit.SECONDS);
            LocalPg.exec(b, "RESET walshadow.gate");
        }
        assertEquals(List.of("a"), LocalPg.queryColumn(c, "SELECT v FROM " + spec));
    }

    private void exec(String... sql) throws SQLException {
        LocalPg.exec(c, sql);
    }

    private static void tx(Connection conn, String... sql) throws SQLException {
        conn.setAutoCommit(false);
        try {
            LocalPg.exec(conn, sql);
            conn.commit();
        } finally {
            conn.setAutoCommit(true);
        }
    }

    @AfterAll
    void dropEverything() throws SQLException {
        if (c == null) {
            return;
        }
        try {
            for (String table : tables) {
                LocalPg.exec(c, "DROP TABLE IF EXISTS " + table + " CASCADE");
            }
            LocalPg.exec(c, "DROP FUNCTION IF EXISTS " + t("gate") + "(int4)");
        } finally {
            c.close();
            c2.close();
            slot.close(); // the temporary slot goes with its session
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // (a) every Heap/Heap2 record against pg_waldump
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void everyHeapRecordMatchesPgWaldump() throws Exception {
        Map<String, Integer> kinds = new TreeMap<>();
        int prefixSuffixRefused = 0;
        int zstdImages = 0;
        int compared = 0;
        int imageTuples = 0;
        for (XLogRecord r : records) {
            PgLine pg = waldump.get(r.lsn());
            assertNotNull(pg, "pg_waldump printed no Heap/Heap2 record at " + Lsn.format(r.lsn()));
            assertEquals(pg.xid(), Integer.toUnsignedLong(r.xid()), "xid at " + Lsn.format(r.lsn()));
            HeapRecordKind kind = HeapRecordDecoder.kind(r);
            boolean init = (r.info() & HeapRecordDecoder.XLOG_HEAP_INIT_PAGE) != 0;
            String name = (kind == HeapRecordKind.CONFIRM ? "HEAP_CONFIRM" : kind.name()) + (init ? "+INIT" : "");
            assertTrue(pg.head().equals(name) || pg.head().startsWith(name + " "),
                    "kind " + name + " vs pg_waldump: " + pg.line());
            kinds.merge(name, 1, Integer::sum);
            List<HeapChange> out;
            try {
                out = HeapRecordDecoder.decode(r);
            } catch (HeapDecodeException e) {
                assertEquals(HeapDecodeException.Kind.PREFIX_SUFFIX_COMPRESSED, e.kind(), e.getMessage());
                assertEquals(r.lsn(), e.lsn());
                assertTrue(e.getMessage().contains(Lsn.format(r.lsn())), e.getMessage());
                Matcher m = UPDATE_DESC.matcher(pg.head());
                assertTrue(m.matches(), pg.line());
                assertTrue((Integer.parseInt(m.group(4), 16) & 0x60) != 0, "refused without prefix/suffix flags: "
                        + pg.line());
                assertTrue(isCatalog(e.rel()), "prefix/suffix-compressed update of a non-catalog relation "
                        + e.rel() + ": " + pg.line());
                prefixSuffixRefused++;
                continue;
            } catch (WalDecodeException e) {
                // A concurrently running WAL test may switch wal_compression to zstd, which BlockImages refuses.
                assertEquals(WalDecodeException.Kind.IMAGE_DECOMPRESSION, e.kind(), e.getMessage());
                assertTrue(e.getMessage().contains("zstd"), e.getMessage());
                zstdImages++;
                continue;
            }
            compareWithWaldump(r, kind, out, pg);
            for (HeapChange ch : out) {
                imageTuples += ch.newTupleFromImage() ? 1 : 0;
            }
            compared++;
        }
        assertEquals(waldump.size(), records.size(), "heap record counts: pg_waldump vs ours");
        System.out.printf("HeapWalOracleIT: %d heap records compared with pg_waldump (%d decoded, %d"
                        + " prefix/suffix-compressed catalog updates refused, %d skipped for zstd images; %d tuples"
                        + " read from page images); kinds %s%n",
                records.size(), compared, prefixSuffixRefused, zstdImages, imageTuples, kinds);
        for (String k : List.of("INSERT", "INSERT+INIT", "MULTI_INSERT", "MULTI_INSERT+INIT", "UPDATE",
                "HOT_UPDATE", "DELETE", "TRUNCATE", "HEAP_CONFIRM", "LOCK", "INPLACE", "NEW_CID")) {
            assertTrue(kinds.containsKey(k), "no " + k + " record in the range: " + kinds);
        }
        assertTrue(prefixSuffixRefused > 0, "expected catalog HOT updates with prefix/suffix compression");
    }

    private void compareWithWaldump(XLogRecord r, HeapRecordKind kind, List<HeapChange> out, PgLine pg) {
        String at = " at " + Lsn.format(r.lsn()) + ": " + pg.line();
        long blk0 = -1;
        long blk1 = -1;
        for (long[] b : pg.blkrefs()) {
            if (b[0] == 0) {
                blk0 = b[1];
            } else if (b[0] == 1) {
                blk1 = b[1];
            }
        }
        for (HeapChange ch : out) {
            assertEquals(Integer.toUnsignedLong(r.xid()), Integer.toUnsignedLong(ch.xid()));
            assertEquals(r.lsn(), ch.lsn());
            if (ch.op() != Operation.TRUNCATE) {
                assertEquals(r.block(0).rel(), ch.rel(), "rel" + at);
            }
        }
        switch (kind) {
            case INSERT -> {
                Matcher m = match(INSERT_DESC, pg);
                HeapChange ch = single(out, at);
                assertEquals(Operation.INSERT, ch.op());
                assertEquals(Integer.parseInt(m.group(2)), ch.newTid().offset(), "off" + at);
                assertEquals(Integer.parseInt(m.group(3), 16), ch.flags(), "flags" + at);
                assertEquals(blk0, ch.newTid().block(), "blk" + at);
                assertEquals(m.group(1).endsWith("+INIT"), ch.initPage());
                assertNotNull(ch.newTuple());
                assertNull(ch.oldTid());
            }
            case MULTI_INSERT -> {
                Matcher m = match(MULTI_DESC, pg);
                assertEquals(Integer.parseInt(m.group(2)), out.size(), "ntuples" + at);
                int i = 0;
                for (HeapChange ch : out) {
                    assertEquals(Operation.MULTI_INSERT, ch.op());
                    assertEquals(Integer.parseInt(m.group(3), 16), ch.flags(), "flags" + at);
                    assertEquals(blk0, ch.newTid().block(), "blk" + at);
                    assertEquals(i, ch.multiIndex());
                    assertEquals(out.size(), ch.multiCount());
                    assertNotNull(ch.newTuple());
                    if (ch.initPage()) {
                        assertEquals(i + 1, ch.newTid().offset(), "INIT offsets are 1..n" + at);
                    }
                    i++;
                }
            }
            case UPDATE, HOT_UPDATE -> {
                Matcher m = match(UPDATE_DESC, pg);
                HeapChange ch = single(out, at);
                assertEquals(kind == HeapRecordKind.HOT_UPDATE ? Operation.HOT_UPDATE : Operation.UPDATE, ch.op());
                assertEquals(Integer.parseInt(m.group(2)), ch.oldTid().offset(), "old off" + at);
                assertEquals(Integer.parseInt(m.group(4), 16), ch.flags(), "flags" + at);
                assertEquals(Integer.parseInt(m.group(6)), ch.newTid().offset(), "new off" + at);
                assertEquals(blk0, ch.newTid().block(), "new blk" + at);
                assertEquals(blk1 >= 0 ? blk1 : blk0, ch.oldTid().block(), "old blk" + at);
                assertNotNull(ch.newTuple());
                checkOldFlags(ch, HeapChange.XLH_UPDATE_CONTAINS_OLD_TUPLE, HeapChange.XLH_UPDATE_CONTAINS_OLD_KEY);
            }
            case DELETE -> {
                Matcher m = match(DELETE_DESC, pg);
                HeapChange ch = single(out, at);
                assertEquals(Operation.DELETE, ch.op());
                assertEquals(Integer.parseInt(m.group(1)), ch.oldTid().offset(), "off" + at);
                assertEquals(Integer.parseInt(m.group(2), 16), ch.flags(), "flags" + at);
                assertEquals(blk0, ch.oldTid().block(), "blk" + at);
                assertNull(ch.newTid());
                assertNull(ch.newTuple());
                checkOldFlags(ch, HeapChange.XLH_DELETE_CONTAINS_OLD_TUPLE, HeapChange.XLH_DELETE_CONTAINS_OLD_KEY);
            }
            case TRUNCATE -> {
                Matcher m = match(TRUNCATE_DESC, pg);
                HeapChange ch = single(out, at);
                assertEquals(Operation.TRUNCATE, ch.op());
                assertNull(ch.rel());
                assertEquals(m.group(1) != null, ch.truncateCascade(), "cascade" + at);
                assertEquals(m.group(2) != null, ch.truncateRestartSeqs(), "restart_seqs" + at);
                int[] relids = ch.truncateRelids();
                assertEquals(Integer.parseInt(m.group(3)), relids.length, "nrelids" + at);
                String[] pgRelids = m.group(4).trim().split(" ");
                for (int i = 0; i < relids.length; i++) {
                    assertEquals(Long.parseLong(pgRelids[i]), Integer.toUnsignedLong(relids[i]), "relid" + at);
                }
                assertEquals(dbOid, ch.truncateDbOid());
            }
            case CONFIRM -> {
                Matcher m = match(CONFIRM_DESC, pg);
                HeapChange ch = single(out, at);
                assertEquals(Operation.CONFIRM, ch.op());
                assertEquals(Integer.parseInt(m.group(1)), ch.newTid().offset(), "off" + at);
                assertEquals(blk0, ch.newTid().block(), "blk" + at);
            }
            case INPLACE -> {
                Matcher m = match(INPLACE_DESC, pg);
                assertTrue(out.isEmpty(), kind + " produced changes" + at);
                Tid tid = HeapRecordDecoder.inplaceTid(r);
                assertEquals(new Tid(blk0, Integer.parseInt(m.group(1))), tid, "INPLACE target" + at);
            }
            default -> {
                assertTrue(out.isEmpty(), kind + " produced changes" + at);
                assertNull(HeapRecordDecoder.inplaceTid(r));
            }
        }
    }

    private static void checkOldFlags(HeapChange ch, int fullBit, int keyBit) {
        OldTupleKind expected = (ch.flags() & fullBit) != 0 ? OldTupleKind.FULL
                : (ch.flags() & keyBit) != 0 ? OldTupleKind.KEY : OldTupleKind.NONE;
        assertEquals(expected, ch.oldTupleKind(), ch.toString());
        assertEquals(expected != OldTupleKind.NONE, ch.oldTuple() != null, ch.toString());
    }

    private static Matcher match(Pattern p, PgLine pg) {
        Matcher m = p.matcher(pg.head());
        assertTrue(m.matches(), "unexpected pg_waldump description: " + pg.line());
        return m;
    }

    private static HeapChange single(List<HeapChange> out, String at) {
        assertEquals(1, out.size(), "changes" + at);
        return out.get(0);
    }

    // ------------------------------------------------------------------------------------------------------------
    // (b) tuples against pageinspect
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void newTuplesMatchPageinspect() throws Exception {
        int compared = 0;
        int gone = 0;
        int notInspectable = 0;
        int fromImage = 0;
        Map<VarlenaHeader.Kind, Integer> varlenas = new EnumMap<>(VarlenaHeader.Kind.class);
        Map<String, Integer> perRel = new TreeMap<>();
        int droppedWithData = 0;
        int overwrittenInPlace = 0;
        Map<RelFileLocator, java.util.Set<Tid>> inplace = new HashMap<>();
        for (XLogRecord r : records) {
            Tid tid = HeapRecordDecoder.inplaceTid(r);
            if (tid != null) {
                inplace.computeIfAbsent(r.block(0).rel(), k -> new java.util.HashSet<>()).add(tid);
            }
        }
        for (HeapChange ch : changes) {
            if (ch.newTuple() == null) {
                continue;
            }
            if (inplace.getOrDefault(ch.rel(), java.util.Set.of()).contains(ch.newTid())) {
                overwrittenInPlace++; // a catalog field (relhasindex, ...) was overwritten later: bytes differ
                continue;
            }
            Rel rel = rels.get(ch.rel());
            DeformedRow row = TupleDeformer.deform(ch.newTuple(), rel.desc());
            countVarlenas(row, varlenas);
            if (!rel.inspectable()) {
                notInspectable++;
                continue;
            }
            PageInspector.Item item = pages.item(rel.regclass(), rel.desc().relOid(), ch.newTid().block(),
                    ch.newTid().offset());
            if (item == null || item.lpFlags() != 1 || item.xmin() != Integer.toUnsignedLong(ch.xid())) {
                gone++; // pruned, or the line pointer was reused: no longer the tuple this record wrote
                continue;
            }
            compareTuple(ch + " new tuple", row, item);
            for (int a = 1; a <= row.natts(); a++) {
                if (a <= row.tupleNatts() && rel.desc().column(a).dropped() && item.attrs()[a - 1] != null) {
                    droppedWithData++;
                }
            }
            compared++;
            fromImage += ch.newTupleFromImage() ? 1 : 0;
            perRel.merge(rel.desc().name(), 1, Integer::sum);
        }
        System.out.printf("HeapWalOracleIT: %d new tuples equal to pageinspect's (%d of them read from page"
                        + " images), %d no longer on their page, %d of truncated tables deformed only; per relation"
                        + " %s; varlena forms %s; %d dropped-column values skipped; %d catalog tuples overwritten"
                        + " in place later (not compared)%n",
                compared, fromImage, gone, notInspectable, perRel, varlenas, droppedWithData, overwrittenInPlace);
        assertTrue(compared > 1500, "only " + compared + " tuples compared");
        assertTrue(gone < compared / 10, gone + " tuples gone, of " + compared);
        assertTrue(fromImage > 0, "no tuple was read from a full-page image");
        for (VarlenaHeader.Kind k : VarlenaHeader.Kind.values()) {
            assertTrue(varlenas.getOrDefault(k, 0) > 0, "no " + k + " varlena: " + varlenas);
        }
        assertTrue(droppedWithData >= 2, "dropped column positions with data: " + droppedWithData);
        for (String name : List.of("mix", "nopk", "full", "evolve", "pages", "late")) {
            assertTrue(perRel.containsKey(t(name)), "no tuple of " + t(name) + " compared: " + perRel);
        }
        assertTrue(perRel.keySet().stream().anyMatch(n -> n.startsWith("pg_toast_")), "no TOAST chunk compared");
        // Catalog tuples (often read from page images): pg_attribute's are always there; pg_class rows are often
        // pruned by HOT or overwritten in place before the test looks, so they are not required.
        assertTrue(perRel.containsKey("pg_attribute"), "no catalog tuple compared: " + perRel);
    }

    @Test
    void oldKeysAndOldRowsMatchPageinspect() throws Exception {
        Map<String, Integer> seen = new TreeMap<>();
        Map<OldTupleKind, Integer> comparedKinds = new EnumMap<>(OldTupleKind.class);
        int compared = 0;
        int gone = 0;
        for (HeapChange ch : changes) {
            if (ch.op() != Operation.UPDATE && ch.op() != Operation.HOT_UPDATE && ch.op() != Operation.DELETE) {
                continue;
            }
            Rel rel = rels.get(ch.rel());
            if (rel.desc().relkind() != 'r' || rel.desc().schema().equals("pg_catalog")) {
                continue;
            }
            String shape = ch.op() + "/" + ch.oldTupleKind() + (ch.isSuperDelete() ? "/super" : "")
                    + (ch.op() == Operation.UPDATE && ch.oldTid().block() != ch.newTid().block() ? "/other-page" : "");
            seen.merge(shape, 1, Integer::sum);
            if (ch.oldTuple() == null || !rel.inspectable()) {
                continue;
            }
            PageInspector.Item item = pages.item(rel.regclass(), rel.desc().relOid(), ch.oldTid().block(),
                    ch.oldTid().offset());
            if (item == null || item.lpFlags() != 1 || item.xmax() != Integer.toUnsignedLong(ch.xid())) {
                gone++; // pruned since: on-access pruning of a full page removes dead versions
                continue;
            }
            DeformedRow old = TupleDeformer.deform(ch.oldTuple(), rel.desc());
            if (ch.oldTupleKind() == OldTupleKind.FULL) {
                compareTuple(ch + " old row", old, item);
            } else {
                List<Integer> key = rel.desc().identityAttnums();
                assertFalse(key.isEmpty(), "old key logged for a table without identity: " + ch);
                for (int a = 1; a <= old.natts(); a++) {
                    if (key.contains(a)) {
                        assertEquals(item.attrs()[a - 1], hex(old, a), ch + " key attribute " + a);
                    } else {
                        assertTrue(old.isNull(a), ch + ": non-key attribute " + a + " is not NULL in the old key");
                    }
                }
            }
            compared++;
            comparedKinds.merge(ch.oldTupleKind(), 1, Integer::sum);
        }
        System.out.printf("HeapWalOracleIT: %d old keys/rows equal to the old versions on their pages (%s), %d"
                + " pruned since; update/delete shapes %s%n", compared, comparedKinds, gone, seen);
        assertTrue(comparedKinds.getOrDefault(OldTupleKind.KEY, 0) >= 1, "no old key compared");
        assertTrue(comparedKinds.getOrDefault(OldTupleKind.FULL, 0) >= 2, "no old row compared");
        for (String shape : List.of("UPDATE/KEY", "UPDATE/FULL", "UPDATE/NONE/other-page",
                "HOT_UPDATE/NONE", "HOT_UPDATE/FULL", "DELETE/KEY", "DELETE/FULL", "DELETE/NONE",
                "DELETE/NONE/super")) {
            assertTrue(seen.containsKey(shape), "no " + shape + " change: " + seen);
        }
    }

    private void compareTuple(String what, DeformedRow row, PageInspector.Item item) {
        HeapTuple t = row.tuple();
        assertEquals(item.hoff(), t.hoff(), what + ": t_hoff");
        assertEquals(item.infomask2() & HeapTuple.HEAP_NATTS_MASK, t.natts(), what + ": natts");
        assertEquals((item.infomask() & HeapTuple.HEAP_HASNULL) != 0, t.hasNulls(), what + ": HEAP_HASNULL");
        assertEquals(item.bits(), bits(t), what + ": t_bits");
        String[] pg = item.attrs();
        assertEquals(row.natts(), pg.length, what + ": attribute count");
        for (int a = 1; a <= row.natts(); a++) {
            String at = what + " attribute " + a + " (" + row.descriptor().column(a).name() + ")";
            if (row.isDropped(a)) {
                continue;
            }
            if (a > t.natts()) {
                assertNull(pg[a - 1], at); // tuple_data_split gives NULL past natts
                assertTrue(row.isNull(a) || row.isMissingValue(a), at);
                continue;
            }
            assertEquals(pg[a - 1], hex(row, a), at);
        }
    }

    private static String bits(HeapTuple t) {
        if (!t.hasNulls()) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < HeapTuple.bitmapLength(t.natts()) * 8; i++) {
            sb.append((t.buffer()[t.bitsOffset() + (i >> 3)] & (1 << (i & 7))) != 0 ? '1' : '0');
        }
        return sb.toString();
    }

    private static String hex(DeformedRow row, int attnum) {
        if (row.isNull(attnum)) {
            return null;
        }
        return HexFormat.of().formatHex(row.buffer(attnum), row.datumOffset(attnum),
                row.datumOffset(attnum) + row.datumLength(attnum));
    }

    private static void countVarlenas(DeformedRow row, Map<VarlenaHeader.Kind, Integer> out) {
        for (int a : row.liveAttnums()) {
            if (!row.isNull(a) && row.descriptor().column(a).attlen() == -1) {
                out.merge(row.varlenaKind(a), 1, Integer::sum);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Missing attributes, full-page images, TRUNCATE relids, subtransactions, speculative insertion
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void missingAttributesReadAsSelectShowsThem() throws Exception {
        Rel evolve = relsByName.get(t("evolve"));
        RelationDescriptor d = evolve.desc();
        Map<String, Integer> attnum = new HashMap<>();
        for (Column col : d.columns()) {
            attnum.put(col.name(), col.attnum());
        }
        Map<Integer, Integer> renamed = Map.of(4, 40);
        int shortTuples = 0;
        int checked = 0;
        for (HeapChange ch : changes) {
            if (!d.locator().equals(ch.rel()) || ch.op() != Operation.INSERT) {
                continue;
            }
            DeformedRow row = TupleDeformer.deform(ch.newTuple(), d);
            int id = Bytes.int32(row.buffer(1), row.datumOffset(1));
            int nowId = renamed.getOrDefault(id, id);
            String[] sql = selectRow(evolve.regclass(), nowId);
            String[] ours = {text(row, attnum.get("x")), text(row, attnum.get("y")), text(row, attnum.get("z")),
                    text(row, attnum.get("w"))};
            assertArrayEquals(sql, ours, "row " + id + " (tuple natts " + row.tupleNatts() + ")");
            if (row.tupleNatts() < d.natts()) {
                shortTuples++;
                assertTrue(row.isMissingValue(attnum.get("x")) && row.isMissingValue(attnum.get("y")), row.toString());
                assertTrue(row.isNull(attnum.get("z")) && !row.isMissingValue(attnum.get("z")), row.toString());
            }
            checked++;
        }
        System.out.printf("HeapWalOracleIT: %d rows of the evolved table read like SELECT (%d written before"
                + " ADD COLUMN, with missing values)%n", checked, shortTuples);
        assertEquals(6, checked);
        assertEquals(4, shortTuples);
    }

    private String[] selectRow(String table, int id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT x::text, y, z::text, w::text FROM " + table
                + " WHERE id = ?")) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "no row " + id);
                return new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)};
            }
        }
    }

    /** A tiny stand-in for the type decoders: int2/int4/int8 and uncompressed inline text, as text. */
    private static String text(DeformedRow row, int attnum) {
        if (row.isNull(attnum)) {
            return null;
        }
        byte[] b = row.buffer(attnum);
        int off = row.datumOffset(attnum);
        int len = row.datumLength(attnum);
        Column col = row.descriptor().column(attnum);
        return switch (col.attlen()) {
            case 2 -> Short.toString((short) Bytes.uint16(b, off));
            case 4 -> Integer.toString(Bytes.int32(b, off));
            case 8 -> Long.toString(Bytes.int64(b, off));
            case -1 -> {
                VarlenaHeader.Kind k = VarlenaHeader.kind(b, off);
                assertTrue(k == VarlenaHeader.Kind.SHORT || k == VarlenaHeader.Kind.PLAIN, "" + k);
                int h = VarlenaHeader.headerSize(k);
                yield new String(b, off + h, len - h, StandardCharsets.UTF_8);
            }
            default -> throw new AssertionError("attlen " + col.attlen());
        };
    }

    /** Where a record has both a page image and the tuple data, the page's tuple equals the logged one. */
    @Test
    void imageTuplesEqualLoggedTuples() {
        int compared = 0;
        for (XLogRecord r : records) {
            BlockRef b0 = r.block(0);
            if (b0 == null || !b0.hasImage() || !b0.hasData() || !rels.containsKey(b0.rel())) {
                continue;
            }
            List<HeapChange> out;
            try {
                out = HeapRecordDecoder.decode(r);
            } catch (HeapDecodeException e) {
                continue; // prefix/suffix catalog updates, checked above
            }
            for (HeapChange ch : out) {
                if (ch.newTuple() == null) {
                    continue;
                }
                HeapTuple logged = ch.newTuple();
                HeapTuple page = HeapRecordDecoder.imageTuple(r, 0, ch.newTid().offset());
                assertEquals(HeapTuple.Source.PAGE_IMAGE, page.source());
                assertEquals(Integer.toUnsignedLong(ch.xid()), Integer.toUnsignedLong(page.xmin()), ch.toString());
                assertEquals(ch.newTid(), page.ctid(), ch.toString());
                assertEquals(logged.hoff(), page.hoff(), ch.toString());
                assertEquals(logged.natts(), page.natts(), ch.toString());
                assertArrayEquals(Arrays.copyOfRange(logged.buffer(), logged.bitsOffset(), logged.endOffset()),
                        Arrays.copyOfRange(page.buffer(), page.bitsOffset(), page.endOffset()), ch.toString());
                compared++;
            }
        }
        System.out.printf("HeapWalOracleIT: %d logged tuples equal to their page-image copies%n", compared);
        assertTrue(compared > 0, "no record with both a page image and tuple data");
    }

    @Test
    void truncateNamesRelationOids() {
        List<HeapChange> truncates = changes.stream().filter(ch -> ch.op() == Operation.TRUNCATE).toList();
        List<List<Long>> got = new ArrayList<>();
        List<HeapChange> ours = new ArrayList<>();
        for (HeapChange ch : truncates) {
            List<Long> ids = Arrays.stream(ch.truncateRelids()).mapToLong(Integer::toUnsignedLong).sorted().boxed()
                    .toList();
            if (ids.contains(Integer.toUnsignedLong(truncatedOids.get(t("ta"))))
                    || ids.contains(Integer.toUnsignedLong(truncatedOids.get(t("tp"))))) {
                got.add(ids);
                ours.add(ch);
            }
        }
        List<Long> ab = sortedOids(t("ta"), t("tb"));
        List<Long> pc = sortedOids(t("tp"), t("tc"));
        assertEquals(List.of(ab, pc), got, "TRUNCATE relids");
        assertTrue(ours.get(0).truncateRestartSeqs() && !ours.get(0).truncateCascade(), ours.get(0).toString());
        assertTrue(ours.get(1).truncateCascade() && !ours.get(1).truncateRestartSeqs(), ours.get(1).toString());
    }

    private List<Long> sortedOids(String... names) {
        return Arrays.stream(names).map(n -> Integer.toUnsignedLong(truncatedOids.get(n))).sorted().toList();
    }

    @Test
    void subtransactionsSpeculationAndToastFlags() {
        RelFileLocator mix = relsByName.get(t("mix")).desc().locator();
        RelFileLocator spec = relsByName.get(t("spec")).desc().locator();
        List<HeapChange> mixInserts = changes.stream()
                .filter(ch -> ch.op() == Operation.INSERT && mix.equals(ch.rel())).toList();
        // ids 41 (top level), 42 and 43 (two subtransactions): three different xids, sub ones name the top one
        Map<Integer, HeapChange> byId = new HashMap<>();
        for (HeapChange ch : mixInserts) {
            DeformedRow row = TupleDeformer.deform(ch.newTuple(), relsByName.get(t("mix")).desc());
            byId.put(Bytes.int32(row.buffer(1), row.datumOffset(1)), ch);
        }
        HeapChange top = byId.get(41);
        HeapChange sub1 = byId.get(42);
        HeapChange sub2 = byId.get(43);
        assertTrue(top.xid() != sub1.xid() && sub1.xid() != sub2.xid() && top.xid() != sub2.xid());
        assertEquals(0, top.toplevelXid());
        assertEquals(top.xid(), sub1.toplevelXid(), "first record of a subtransaction names the top-level xid");
        assertEquals(top.xid(), sub2.toplevelXid());

        // ON CONFLICT DO NOTHING / DO UPDATE without conflict: speculative insert, then CONFIRM at the same TID
        int confirmed = 0;
        for (int id : List.of(9999, 9998)) {
            HeapChange ins = byId.get(id);
            assertTrue(ins.isSpeculative(), ins.toString());
            HeapChange confirm = changes.stream().filter(ch -> ch.op() == Operation.CONFIRM
                    && ch.xid() == ins.xid() && ch.newTid().equals(ins.newTid())).findFirst().orElseThrow();
            assertTrue(Long.compareUnsigned(confirm.lsn(), ins.lsn()) > 0);
            confirmed++;
        }
        assertFalse(byId.get(1).isSpeculative());
        // the lost race: a speculative insert and its super-delete, same xid and TID, no CONFIRM
        List<HeapChange> specChanges = changes.stream().filter(ch -> spec.equals(ch.rel())).toList();
        HeapChange specIns = specChanges.stream().filter(HeapChange::isSpeculative).findFirst().orElseThrow();
        HeapChange superDelete = specChanges.stream().filter(HeapChange::isSuperDelete).findFirst().orElseThrow();
        assertEquals(specIns.xid(), superDelete.xid());
        assertEquals(specIns.newTid(), superDelete.oldTid());
        assertEquals(OldTupleKind.NONE, superDelete.oldTupleKind());
        assertTrue(specChanges.stream().noneMatch(ch -> ch.op() == Operation.CONFIRM));
        // TOAST chunks are flagged as such
        long toastInserts = changes.stream().filter(HeapChange::onToastRelation).count();
        assertTrue(toastInserts > 0);
        for (HeapChange ch : changes) {
            if (ch.onToastRelation()) {
                assertEquals('t', rels.get(ch.rel()).desc().relkind(), ch.toString());
            }
            if (ch.newTuple() != null && ch.rel() != null && !rels.get(ch.rel()).desc().schema().equals("pg_catalog")) {
                assertTrue(ch.flaggedContainsNewTuple(), "user-table change without CONTAINS_NEW_TUPLE: " + ch);
                assertFalse(ch.newTupleFromImage(), ch.toString());
            }
        }
        System.out.printf("HeapWalOracleIT: %d speculative inserts confirmed, 1 super-deleted; %d TOAST chunk"
                + " inserts%n", confirmed, toastInserts);
    }

    // ------------------------------------------------------------------------------------------------------------
    // helpers
    // ------------------------------------------------------------------------------------------------------------

    private final Map<RelFileLocator, Boolean> catalogCache = new HashMap<>();

    /** A system catalog (or its TOAST table): pg_filenode_relation gives an OID below FirstNormalObjectId. */
    private boolean isCatalog(RelFileLocator rel) {
        return catalogCache.computeIfAbsent(rel, r -> {
            try {
                String spc = r.spcOid() == 1663 ? "0" : Integer.toUnsignedString(r.spcOid());
                String oid = LocalPg.queryString(c, "SELECT pg_filenode_relation(" + spc + ", "
                        + Integer.toUnsignedString(r.relNumber()) + ")::oid::int8");
                return oid != null && Long.parseLong(oid) < 16384;
            } catch (SQLException e) {
                throw new RuntimeException(e);
            }
        });
    }

    private void readWaldump(Path walDir, long start, long end) throws IOException, InterruptedException {
        for (String line : waldump("-p", walDir.toString(), "-s", Lsn.format(start), "-e", Lsn.format(end))) {
            Matcher m = RECORD_LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String rmgr = m.group(1);
            if (!rmgr.equals("Heap") && !rmgr.equals("Heap2")) {
                continue;
            }
            String desc = m.group(7);
            int cut = desc.indexOf(", blkref #");
            String head = (cut < 0 ? desc : desc.substring(0, cut)).trim();
            List<long[]> blkrefs = new ArrayList<>();
            if (cut >= 0) {
                Matcher b = BLKREF.matcher(desc.substring(cut));
                while (b.find()) {
                    blkrefs.add(new long[] {Long.parseLong(b.group(1)), Long.parseLong(b.group(6))});
                }
            }
            long lsn = Lsn.parse(m.group(5));
            waldump.put(lsn, new PgLine(rmgr, Long.parseLong(m.group(4)), lsn, head, blkrefs, line));
        }
    }

    private long firstRecordLsn(Path walDir, long start, long end) throws IOException, InterruptedException {
        for (String line : waldump("-p", walDir.toString(), "-s", Lsn.format(start), "-e", Lsn.format(end),
                "-n", "1")) {
            Matcher m = RECORD_LINE.matcher(line);
            if (m.matches()) {
                return Lsn.parse(m.group(5));
            }
        }
        throw new AssertionError("pg_waldump found no record after " + Lsn.format(start));
    }

    private static List<String> waldump(String... args) throws IOException, InterruptedException {
        return io.walshadow.testing.PgWaldump.run(args);
    }
}
