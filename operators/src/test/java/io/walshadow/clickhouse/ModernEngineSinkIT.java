package io.walshadow.clickhouse;

import static io.walshadow.clickhouse.DestinationSchema.quote;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.LiveRelation;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.RowChange;
import io.walshadow.heap.Tid;
import io.walshadow.pg.JdbcCatalogSource;
import io.walshadow.pg.TypeCatalogLoader;
import io.walshadow.sink.DestTable;
import io.walshadow.sink.SinkBatch;
import io.walshadow.sink.SinkStep;
import io.walshadow.testing.ChdbSession;
import io.walshadow.testing.LocalPg;
import io.walshadow.types.PgArray;
import io.walshadow.types.PgDate;
import io.walshadow.types.PgNumeric;
import io.walshadow.types.PgTimestamp;
import io.walshadow.types.MapTypeCatalog;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.Lsn;
import io.walshadow.xact.PgTimestamps;
import java.math.BigDecimal;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sink's newer-server path end to end on a modern engine (chDB 26.x, one {@link ChdbSession}): capabilities from
 * {@code SELECT version()}, the destination DDL ({@code ReplacingMergeTree(_lsn, _is_deleted)},
 * {@code non_replicated_deduplication_window}, {@code DateTime64(6, 'UTC')}), {@link RowEncoder} rows staged as
 * RowBinary, and {@link BatchCommitter} running the steps ({@code insert_deduplication_token}, {@code ADD COLUMN IF
 * NOT EXISTS}, native {@code RENAME COLUMN}, TRUNCATE, RENAME TABLE, the views). The same code on 18.16 is covered by
 * the tests against the real server. Descriptors come from the local PostgreSQL, so the added column's DEFAULT is
 * PostgreSQL's own missing value.
 */
class ModernEngineSinkIT {
    private static final String SINK = "modern";
    /** A writer attempt other than 0, so the committer's inserts filter on it. */
    private static final long ATTEMPT = 0x8000_0000_0000_0007L;
    private static final UUID U1 = UUID.fromString("61f0c404-5cb3-11e7-907b-a6006ad3dba0");
    private static final UUID U2 = UUID.fromString("00000000-0000-0000-0000-000000000002");

    private String schema;

    @BeforeEach
    void setUp() throws Exception {
        schema = "msink_" + Long.toHexString(System.nanoTime());
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE SCHEMA " + schema);
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    @Test
    void sinkPathRunsOnAModernEngine() throws Exception {
        RelationDescriptor d1;
        RelationDescriptor d2;
        RelationDescriptor d3;
        MapTypeCatalog types;
        String items = schema + ".items";
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE TABLE " + items + " (id int8 PRIMARY KEY, ts timestamptz NOT NULL,"
                    + " price numeric(12,3), note text, tags text[], uid uuid, day date, label text NOT NULL)");
            d1 = descriptor(c, "items");
            LocalPg.exec(c, "ALTER TABLE " + items + " ADD COLUMN qty int4 NOT NULL DEFAULT 7", // attmissingval
                    "ALTER TABLE " + items + " RENAME COLUMN note TO remark",
                    "ALTER TABLE " + items + " ALTER COLUMN label DROP NOT NULL");
            d2 = descriptor(c, "items");
            LocalPg.exec(c, "ALTER TABLE " + items + " RENAME TO items_v2");
            d3 = descriptor(c, "items_v2");
            types = TypeCatalogLoader.load(c);
        }
        assertTrue(d2.column(9).hasMissingValue(), "ADD COLUMN ... DEFAULT 7 left a missing value");

        try (ChdbSession chdb = ChdbSession.open("walshadow")) {
            Recording ch = new Recording(chdb);
            String db = ch.database();
            ServerCapabilities caps = ServerCapabilities.probe(ch);
            assertTrue(caps.replacingWithIsDeleted() && caps.dateTime64() && caps.insertDeduplicationToken()
                    && caps.addColumnIfNotExists() && caps.renameColumn() && caps.nonReplicatedDeduplicationWindow(),
                    caps.toString());
            Retrier retry = new Retrier(Duration.ofSeconds(10), null);
            BatchCommitter committer = new BatchCommitter(ch, caps, retry, SINK);
            committer.setup();
            committer.setup(); // IF NOT EXISTS throughout
            SchemaPlanner planner = new SchemaPlanner(db, caps, true);
            ValueDecoder values = new ValueDecoder(types);

            // ---- batch 1: create; inserts, updates, a delete, a key change; ALTERs; rows in the new shape
            SchemaPlanner.Plan created = planner.create(d1, types);
            DestTable t1 = created.table();
            String dest = t1.destName();
            String destSql = quote(db) + "." + quote(dest);
            List<SinkStep> steps = new ArrayList<>(created.steps());
            RowEncoder enc1 = new RowEncoder(t1, types, values, (r, col) -> { });
            RowBinaryBuffer rows = new RowBinaryBuffer(1024);
            long lsnA = 0x1250;
            long lsnB = 0x1550;
            Object[] one = {1L, ts("2024-02-29T23:59:59.123456Z"), num("12.345"), "one", text("a", null, "c"), U1,
                    date(2024, 2, 29), "L1"};
            Object[] two = {2L, ts("1999-12-31T23:59:59.999999Z"), null, null, text(), null, null, "L2"};
            Object[] three = {3L, ts("2000-01-01T00:00:00Z"), num("3"), "three", text(), null, null, "L3"};
            Object[] twoV2 = {2L, ts("1999-12-31T23:59:59.999999Z"), num("-0.5"), "two v2", text("x"), U2,
                    date(1970, 1, 1), "L2b"};
            Object[] ten = one.clone();
            ten[0] = 10L;
            ten[3] = "ten";
            ten[7] = "L10";
            int staged = 0;
            staged += enc1.encode(change(RowChange.Op.INSERT, d1, 0x1000, one, null), lsnA, 700, 1, 0, ATTEMPT, rows);
            staged += enc1.encode(change(RowChange.Op.INSERT, d1, 0x1100, two, null), lsnA, 700, 1, 0, ATTEMPT, rows);
            staged += enc1.encode(change(RowChange.Op.INSERT, d1, 0x1200, three, null), lsnA, 700, 1, 0, ATTEMPT, rows);
            staged += enc1.encode(change(RowChange.Op.UPDATE, d1, 0x1300, twoV2, null), lsnB, 701, 1, 0, ATTEMPT, rows);
            staged += enc1.encode(change(RowChange.Op.DELETE, d1, 0x1400, null, key(d1, 3L)),
                    lsnB, 701, 1, 0, ATTEMPT, rows);
            staged += enc1.encode(change(RowChange.Op.UPDATE, d1, 0x1500, ten, key(d1, 1L)),
                    lsnB, 701, 1, 0, ATTEMPT, rows);
            assertEquals(7, staged, "the key change is a tombstone of the old key and a live row");
            steps.add(stage(ch, t1, rows, 1, 0));

            SchemaPlanner.Plan altered = planner.plan(t1, new CatalogChange(d1.relOid(), d1, d2, null, null), 0x2000,
                    types, values);
            assertEquals(List.of(new SinkStep.RenameColumn(dest, "note", "remark", "Nullable(String)"),
                    new SinkStep.ModifyColumn(dest, "label", "Nullable(String)"),
                    new SinkStep.AddColumn(dest, "qty", "Int32", "7")), altered.steps());
            steps.addAll(altered.steps());
            DestTable t2 = altered.table();
            RowEncoder enc2 = new RowEncoder(t2, types, values, (r, col) -> { });
            long lsnD = 0x3100;
            Object[] four = {4L, ts("1969-07-20T20:17:40.000001Z"), num("0.001"), "four", text(), null,
                    date(2105, 12, 31), null, 40};
            Object[] five = {5L, ts("2024-03-01T00:00:00.5Z"), null, "five", null, null, null, "L5"};
            staged += enc2.encode(change(RowChange.Op.INSERT, d2, 0x3000, four, null), lsnD, 703, 1, 1, ATTEMPT, rows);
            // written with the shape before the ALTER: qty reads PostgreSQL's missing value, note lands in remark
            staged += enc2.encode(change(RowChange.Op.INSERT, d1, 0x3010, five, null), lsnD, 703, 1, 1, ATTEMPT, rows);
            steps.add(stage(ch, t2, rows, 1, 1));

            RowBinaryBuffer log = new RowBinaryBuffer(256);
            commitLogRow(log, 1, 700, lsnA, 0, List.of(items), false, 3, 1);
            commitLogRow(log, 2, 701, lsnB, 1, List.of(items), false, 3, 1);
            commitLogRow(log, 3, 702, 0x2000, 2, List.of(items), true, 0, 1);
            commitLogRow(log, 4, 703, lsnD, 4, List.of(items), false, 2, 1);
            ch.execute(SinkTables.createCommitLogStageSql(db, SINK));
            ch.insertRowBinary(quote(db) + "." + quote(SinkTables.commitLogStage(SINK)), log);
            steps.add(new SinkStep.Insert(SinkTables.COMMIT_LOG, SinkTables.commitLogStage(SINK),
                    SinkTables.COMMIT_LOG_COLUMNS, 0, 4));
            SinkBatch batch1 = new SinkBatch(SINK, 1, steps, 4, staged, 4, lsnD, 703, commitTime(4), ATTEMPT);
            assertTrue(committer.commit(batch1));

            String create = ch.queryString("SHOW CREATE TABLE " + destSql);
            assertTrue(create.contains("ENGINE = ReplacingMergeTree(_lsn, _is_deleted)"), create);
            assertTrue(create.contains("non_replicated_deduplication_window = 1000"), create);
            assertEquals(List.of(List.of("id", "Int64"), List.of("ts", "DateTime64(6, 'UTC')"),
                    List.of("price", "Nullable(Decimal(12, 3))"), List.of("remark", "Nullable(String)"),
                    List.of("tags", "Array(Nullable(String))"), List.of("uid", "Nullable(UUID)"),
                    List.of("day", "Nullable(Date)"), List.of("label", "Nullable(String)"), List.of("qty", "Int32"),
                    List.of("_lsn", "UInt64"), List.of("_commit_lsn", "UInt64"), List.of("_xid", "UInt64"),
                    List.of("_is_deleted", "UInt8"), List.of("_tid_block", "UInt32"), List.of("_tid_offset", "UInt16")),
                    rows(ch, "SELECT name, type FROM system.columns WHERE database = '" + db + "' AND table = '"
                            + dest + "' ORDER BY position"));
            // the rename was the native one: no add + copy (a mutation) + drop
            assertTrue(ch.log.contains("ALTER TABLE " + destSql + " RENAME COLUMN `note` TO `remark`"), ch.dump());
            assertTrue(ch.log.contains("ALTER TABLE " + destSql + " ADD COLUMN IF NOT EXISTS `qty` Int32 DEFAULT 7 AFTER `label`"),
                    ch.dump());
            assertFalse(ch.log.stream().anyMatch(s -> s.contains(" UPDATE ")), ch.dump());
            assertEquals("0", ch.queryString("SELECT count() FROM system.mutations WHERE table = '" + dest
                    + "' AND command LIKE '%UPDATE%'"));

            String select = "SELECT id, ts, toUnixTimestamp64Micro(ts), price, remark, tags, uid, day, label, qty"
                    + " FROM ";
            List<List<String>> live = List.of(
                    row("2", "1999-12-31 23:59:59.999999", "946684799999999", "-0.5", "two v2", "['x']", U2.toString(),
                            "1970-01-01", "L2b", "7"),
                    row("4", "1969-07-20 20:17:40.000001", "-14182939999999", "0.001", "four", "[]", null,
                            "2105-12-31", null, "40"),
                    row("5", "2024-03-01 00:00:00.500000", "1709251200500000", null, "five", "[]", null, null, "L5",
                            "7"),
                    row("10", "2024-02-29 23:59:59.123456", "1709251199123456", "12.345", "ten", "['a',NULL,'c']",
                            U1.toString(), "2024-02-29", "L10", "7"));
            // ids 1 and 3 are gone: their newest versions are tombstones, which FINAL drops under (_lsn, _is_deleted)
            assertEquals(live, rows(ch, select + destSql + " FINAL ORDER BY id"));
            assertEquals(live, rows(ch, select + quote(db) + "." + quote(dest + SinkTables.LIVE_SUFFIX)
                    + " ORDER BY id"));
            // every commit of the batch is visible: the consistent view agrees
            assertEquals(live, rows(ch, select + quote(db) + "." + quote(dest + SinkTables.CONSISTENT_SUFFIX)
                    + " ORDER BY id"));
            // a merge keeps each key's newest version, tombstones included (only a CLEANUP merge drops them)
            assertEquals("2", ch.queryString("SELECT countIf(_is_deleted = 1) FROM " + destSql));

            String wm = "SELECT batch, phase, commit_seq, commit_lsn, commit_lsn_text, xid, commit_time, commits, rows"
                    + " FROM " + sys(db, SinkTables.WATERMARK) + " FINAL WHERE sink = 'modern' ORDER BY batch, phase";
            List<String> done1 = List.of("4", "12544", Lsn.format(0x3100), "703", "2024-03-01 10:00:01", "4", "9");
            assertEquals(List.of(cat(List.of("1", "0"), done1), cat(List.of("1", "1"), done1)), rows(ch, wm));
            String tables = "['" + items + "']";
            assertEquals(List.of(
                    row("1", "700", "4688", Lsn.format(0x1250), "2024-03-01 10:00:00", "1709287200000000", tables,
                            "0", "3", "1"),
                    row("2", "701", "5456", Lsn.format(0x1550), "2024-03-01 10:00:00", "1709287200250000", tables,
                            "0", "3", "1"),
                    row("3", "702", "8192", Lsn.format(0x2000), "2024-03-01 10:00:00", "1709287200500000", tables,
                            "1", "0", "1"),
                    row("4", "703", "12544", Lsn.format(0x3100), "2024-03-01 10:00:01", "1709287201000000", tables,
                            "0", "2", "1")),
                    rows(ch, "SELECT commit_seq, xid, commit_lsn, commit_lsn_text, commit_time, commit_time_us, tables,"
                            + " schema_change, changes, batch FROM " + sys(db, SinkTables.COMMIT_LOG)
                            + " FINAL WHERE sink = 'modern' ORDER BY commit_seq"));
            String committed = "SELECT committed_batch, commit_seq, commit_lsn, commit_lsn_text, commit_time,"
                    + " commit_in_progress FROM " + sys(db, SinkTables.COMMITTED_VIEW) + " WHERE sink = 'modern'";
            assertEquals(List.of(row("1", "4", "12544", Lsn.format(0x3100), "2024-03-01 10:00:01", "0")),
                    rows(ch, committed));
            assertEquals(List.of(row("0"), row("2"), row("3"), row("4")), rows(ch, "SELECT step FROM "
                    + sys(db, SinkTables.PROGRESS) + " FINAL WHERE sink = 'modern' AND batch = 1 ORDER BY step"),
                    "the DDL steps are recorded, the inserts are not");
            for (String stage : List.of(SinkTables.stageName(SINK, t1), SinkTables.stageName(SINK, t2),
                    SinkTables.commitLogStage(SINK))) {
                assertEquals(0, count(ch, sys(db, stage)), stage + " partition dropped");
            }

            // From here every insert stays a part of its own, so count() without FINAL counts every row stored and
            // only deduplication, not a merge, can explain an insert that adds nothing. (Not earlier: an ALTER
            // waits for its mutation, which stopped merges hold back too.)
            ch.execute("SYSTEM STOP MERGES " + destSql);
            long stored = count(ch, destSql);

            // ---- the same batch again (a committer restored from an older checkpoint): nothing is written
            int before = ch.log.size();
            assertFalse(committer.commit(batch1));
            assertFalse(ch.log.subList(before, ch.log.size()).stream().anyMatch(s -> s.startsWith("INSERT")),
                    ch.dump());
            assertEquals(stored, count(ch, destSql));

            // ---- batch 2: the committer dies right after its INSERT; the retry repeats that INSERT with the same
            // token, and the table (non_replicated_deduplication_window) stores it once, visible without FINAL
            Object[] six = {6L, ts("2024-03-02T00:00:00.000006Z"), null, "six", text(), null, null, "L6", 6};
            Object[] seven = {7L, ts("2024-03-02T00:00:00.000007Z"), null, "seven", text(), null, null, "L7", 7};
            enc2.encode(change(RowChange.Op.INSERT, d2, 0x4000, six, null), 0x4100, 704, 2, 0, ATTEMPT, rows);
            enc2.encode(change(RowChange.Op.INSERT, d2, 0x4010, seven, null), 0x4100, 704, 2, 0, ATTEMPT, rows);
            SinkBatch batch2 = new SinkBatch(SINK, 2, List.of(stage(ch, t2, rows, 2, 0)), 1, 2, 5, 0x4100, 704,
                    commitTime(5), ATTEMPT);
            ch.crashAfter = s -> s.startsWith("INSERT INTO " + destSql);
            assertThrows(IllegalStateException.class, () -> committer.commit(batch2));
            assertEquals(stored + 2, count(ch, destSql));
            assertEquals(List.of(row("1", "4", "12544", Lsn.format(0x3100), "2024-03-01 10:00:01", "1")),
                    rows(ch, committed), "batch 2 started, not finished");
            assertTrue(committer.commit(batch2));
            List<String> destInserts = ch.log.stream().filter(s -> s.startsWith("INSERT INTO " + destSql)
                    && s.contains("_batch` = 2")).toList();
            assertEquals(2, destInserts.size(), ch.dump());
            assertEquals(destInserts.get(0), destInserts.get(1));
            assertTrue(destInserts.get(0).contains(" SETTINGS insert_deduplication_token = 'modern-2-0' SELECT "),
                    destInserts.get(0));
            assertEquals(stored + 2, count(ch, destSql), "the repeated INSERT stored nothing");
            ch.execute("SYSTEM START MERGES " + destSql);
            assertEquals(List.of(row("2", "5", "16640", Lsn.format(0x4100), "2024-03-01 10:00:01", "0")),
                    rows(ch, committed));

            // ---- batch 3: TRUNCATE, a row, then the table is renamed (views follow)
            SchemaPlanner.Plan renamed = planner.plan(t2, new CatalogChange(d2.relOid(), d2, d3, null, null), 0x5000,
                    types, values);
            String dest3 = schema + "__items_v2";
            assertEquals(List.of(new SinkStep.RenameTable(dest, dest3)), renamed.steps());
            Object[] eight = {8L, ts("2024-03-03T00:00:00.000008Z"), num("8.8"), "eight", text("e"), U1,
                    date(2024, 3, 3), "L8", 8};
            enc2.encode(change(RowChange.Op.INSERT, d2, 0x5100, eight, null), 0x5200, 705, 3, 1, ATTEMPT, rows);
            List<SinkStep> steps3 = new ArrayList<>();
            steps3.add(new SinkStep.Truncate(dest));
            steps3.add(stage(ch, t2, rows, 3, 1));
            steps3.addAll(renamed.steps());
            assertTrue(committer.commit(new SinkBatch(SINK, 3, steps3, 2, 1, 7, 0x5200, 705, commitTime(7), ATTEMPT)));
            assertEquals(List.of(row(dest3), row(dest3 + SinkTables.CONSISTENT_SUFFIX), row(dest3
                    + SinkTables.LIVE_SUFFIX)), rows(ch, "SELECT name FROM"
                    + " system.tables WHERE database = '" + db + "' AND name LIKE '" + schema + "%' ORDER BY name"));
            String dest3Sql = quote(db) + "." + quote(dest3);
            List<List<String>> eightRow = List.of(row("8", "2024-03-03 00:00:00.000008", "1709424000000008", "8.8",
                    "eight", "['e']", U1.toString(), "2024-03-03", "L8", "8"));
            assertEquals(eightRow, rows(ch, select + dest3Sql + " FINAL ORDER BY id"));
            assertEquals(eightRow, rows(ch, select + quote(db) + "." + quote(dest3 + SinkTables.LIVE_SUFFIX)));
            assertEquals(1, count(ch, dest3Sql), "TRUNCATE emptied the table");
            assertTrue(ch.queryString("SHOW CREATE TABLE " + dest3Sql)
                    .contains("ENGINE = ReplacingMergeTree(_lsn, _is_deleted)"));
            assertEquals(List.of(row("3", "7", "20992", Lsn.format(0x5200), "2024-03-01 10:00:01", "0")),
                    rows(ch, committed));
        }
    }

    // ---- fixtures

    private static PgTimestamp ts(String instant) {
        return new PgTimestamp(PgTimestamps.fromInstant(Instant.parse(instant)), true);
    }

    private static PgNumeric num(String v) {
        return PgNumeric.of(new BigDecimal(v));
    }

    private static PgDate date(int y, int m, int d) {
        return new PgDate((int) (LocalDate.of(y, m, d).toEpochDay() - LocalDate.of(2000, 1, 1).toEpochDay()));
    }

    private static PgArray text(String... elements) {
        return elements.length == 0 ? new PgArray(25, new int[0], new int[0], new Object[0])
                : new PgArray(25, new int[] {elements.length}, new int[] {1}, elements);
    }

    /** 2024-03-01 10:00:00 UTC plus {@code quarters} quarter-seconds, as PostgreSQL microseconds. */
    private static long commitTime(int quarters) {
        return PgTimestamps.fromInstant(Instant.parse("2024-03-01T10:00:00Z").plusMillis(250L * quarters));
    }

    private static Object[] key(RelationDescriptor d, long id) {
        Object[] k = new Object[d.natts()];
        k[0] = id;
        return k;
    }

    private static RowChange change(RowChange.Op op, RelationDescriptor d, long lsn, Object[] values, Object[] oldKey) {
        Tid tid = new Tid(0, (int) (lsn & 0xff) + 1);
        return new RowChange(lsn, 700, op, d.locator(), d, op == RowChange.Op.DELETE ? null : tid, null, values,
                oldKey, false);
    }

    /** Creates the shape's staging table, inserts the rows as the writer does, and returns the batch's Insert step. */
    private static SinkStep.Insert stage(ClickHouseSql ch, DestTable t, RowBinaryBuffer rows, long batch, int segment) {
        String stage = SinkTables.stageName(SINK, t);
        ch.execute(SinkTables.createStageSql(ch.database(), stage, t));
        long n = rows.rows();
        assertEquals(n, ch.insertRowBinary(sys(ch.database(), stage), rows));
        rows.clear();
        return new SinkStep.Insert(t.destName(), stage, SinkTables.columns(t), segment, n);
    }

    /** A commit-log staging row, laid out as ClickHouseSinkWriter writes it. */
    private static void commitLogRow(RowBinaryBuffer out, long seq, long xid, long lsn, int quarters,
                                     List<String> tables, boolean schemaChange, long changes, long batch) {
        long micros = PgTimestamps.toUnixMicros(commitTime(quarters));
        out.string(SINK);
        out.i64(seq);
        out.i64(xid);
        out.i64(lsn);
        out.string(Lsn.format(lsn));
        out.i32((int) Math.floorDiv(micros, 1_000_000L));
        out.i64(micros);
        out.uvarint(tables.size());
        tables.forEach(out::string);
        out.u8(schemaChange ? 1 : 0);
        out.i64(changes);
        out.string("");
        out.i64(batch);
        SinkTables.stagingSuffix(out, batch, 0, ATTEMPT);
        out.endRow();
    }

    private static String sys(String db, String table) {
        return quote(db) + "." + quote(table);
    }

    private static List<String> row(String... fields) {
        return Arrays.asList(fields);
    }

    private static List<String> cat(List<String> a, List<String> b) {
        List<String> r = new ArrayList<>(a);
        r.addAll(b);
        return r;
    }

    private static long count(ClickHouseSql ch, String table) {
        return Long.parseLong(ch.queryString("SELECT count() FROM " + table));
    }

    private static List<List<String>> rows(ClickHouseSql ch, String sql) {
        return ch.queryTsv(sql).stream().map(Arrays::asList).toList();
    }

    private RelationDescriptor descriptor(Connection c, String table) throws Exception {
        int relOid = Integer.parseInt(LocalPg.queryString(c, "SELECT '" + schema + "." + table + "'::regclass::oid"));
        LiveRelation live;
        try (Connection lc = LocalPg.connect()) {
            live = new JdbcCatalogSource(lc, CatalogFilter.parse(schema + ".*", null)).load(Set.of(relOid), false)
                    .relations().get(relOid);
        }
        assertNotNull(live);
        List<Column> cols = new ArrayList<>();
        for (LiveRelation.Attribute a : live.attributes()) {
            cols.add(a.column());
        }
        List<Integer> identity = List.of();
        for (LiveRelation.Index ix : live.indexes()) {
            if (ix.primary()) {
                identity = ix.attnums();
            }
        }
        return new RelationDescriptor(live.oid(), live.locator(), live.schema(), live.name(), live.relkind(),
                live.relpersistence(), live.replident(), live.toastRelOid(), cols, identity);
    }

    /**
     * Passes statements through, recording the ones that change something ({@link #execute}); {@link #crashAfter}
     * makes the statement after the first match fail, as a committer process dying there would.
     */
    private static final class Recording implements ClickHouseSql {
        final ClickHouseSql ch;
        final List<String> log = new ArrayList<>();
        Predicate<String> crashAfter;
        boolean crashNext;

        Recording(ClickHouseSql ch) {
            this.ch = ch;
        }

        @Override
        public String database() {
            return ch.database();
        }

        @Override
        public void execute(String sql) {
            crashCheck(sql);
            log.add(sql);
            ch.execute(sql);
            if (crashAfter != null && crashAfter.test(sql)) {
                crashAfter = null;
                crashNext = true;
            }
        }

        @Override
        public List<String[]> queryTsv(String sql) {
            crashCheck(sql);
            return ch.queryTsv(sql);
        }

        @Override
        public long insertRowBinary(String table, RowBinaryBuffer rows) {
            return ch.insertRowBinary(table, rows);
        }

        private void crashCheck(String sql) {
            if (crashNext) {
                crashNext = false;
                // not a ClickHouseException: the Retrier must not retry it, the commit attempt ends here
                throw new IllegalStateException("simulated committer crash before: " + sql);
            }
        }

        String dump() {
            return String.join(";\n", log);
        }
    }
}
