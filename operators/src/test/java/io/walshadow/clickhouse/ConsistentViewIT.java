package io.walshadow.clickhouse;

import static io.walshadow.clickhouse.DestinationSchema.quote;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.sink.SinkStep;
import io.walshadow.testing.LocalClickHouse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code <table>__consistent} views on the real ClickHouse 18.16: per key the newest version committed at or
 * before the sink's {@code _walshadow_visible} mark, without tombstones. The expected rows are the state after each
 * commit of the little history below, written out by hand; FINAL (the {@code __live} view) is the contrast: it shows
 * the newest version whatever the mark says.
 */
class ConsistentViewIT {
    private ClickHouseConnection ch;
    private StepExecutor steps;
    private String db;
    private final String prefix = "cv" + Long.toHexString(System.nanoTime()) + "__";
    /** A sink of this test alone: its visible mark starts empty. */
    private final String sink = prefix + "sink";

    @BeforeEach
    void setUp() throws Exception {
        ch = LocalClickHouse.connect();
        db = ch.database();
        Retrier retry = new Retrier(Duration.ofSeconds(10), null);
        ServerCapabilities caps = ServerCapabilities.probe(ch);
        new BatchCommitter(ch, caps, retry, sink).setup();
        steps = new StepExecutor(ch, caps, retry, sink);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (String[] t : ch.queryTsv("SELECT name FROM system.tables WHERE database = '" + db + "' AND name LIKE '"
                + prefix + "%' ORDER BY engine = 'View' DESC")) {
            ch.execute("DROP TABLE IF EXISTS " + quote(db) + "." + quote(t[0]));
        }
        ch.close();
    }

    @Test
    void keyedTableAsOfTheVisibleMark() throws Exception {
        String t = prefix + "accounts";
        // a source column named like the view's inner alias must not collide with it
        create(t, "id Int32, v Nullable(String), tags Array(Nullable(Int32)), _walshadow_row Int32", "id");
        // commit 100: ids 1, 2, 3; commit 200: 1 set NULL, 2 deleted, 4 inserted; commit 300 (in flight): 1 and 4
        insert(t, "(1, 'a', [1], 10, 100, 100, 7, 0), (2, 'b', [], 20, 101, 100, 7, 0),"
                + " (3, 'c', [NULL], 30, 102, 100, 7, 0)");
        insert(t, "(1, NULL, [2], 10, 200, 200, 8, 0), (2, 'b', [], 20, 201, 200, 8, 1),"
                + " (4, 'd', [4], 40, 202, 200, 8, 0)");
        insert(t, "(1, 'z', [9], 10, 300, 300, 9, 0), (4, 'y', [], 40, 301, 300, 9, 0)");
        steps.refreshView(t);

        assertEquals(List.of(), consistent(t), "nothing visible yet");
        visible(1, 100);
        assertEquals(List.of("1|a|[1]|10|0", "2|b|[]|20|0", "3|c|[NULL]|30|0"), consistent(t));
        visible(2, 200);
        // the NULL of commit 200 is the newest version of id 1 (argMax of a Nullable column alone would skip it)
        assertEquals(List.of("1|null|[2]|10|0", "3|c|[NULL]|30|0", "4|d|[4]|40|0"), consistent(t));
        assertEquals(List.of("1|z|[9]|10|0", "3|c|[NULL]|30|0", "4|y|[]|40|0"), live(t),
                "FINAL shows commit 300, which is not visible yet");
        // the views read the mark of their own sink only
        ch.execute(SinkTables.visibleSql(db, sink + "_other", 9, 999, 0, 9));
        assertEquals(List.of("1|null|[2]|10|0", "3|c|[NULL]|30|0", "4|d|[4]|40|0"), consistent(t));
        visible(3, 300);
        assertEquals(live(t), consistent(t), "everything visible: the view agrees with FINAL");
    }

    @Test
    void keylessTableAndASchemaChange() throws Exception {
        String t = prefix + "events";
        create(t, "payload Nullable(String), _tid_block UInt32, _tid_offset UInt16", "_tid_block, _tid_offset");
        insert(t, "('x', 0, 1, 100, 100, 7, 0), ('y', 0, 2, 101, 100, 7, 0)");
        insert(t, "('x2', 0, 1, 200, 200, 8, 0), ('y', 0, 2, 201, 200, 8, 1)");
        steps.refreshView(t);
        visible(1, 100);
        assertEquals(List.of("x|0|1|100|0", "y|0|2|101|0"), consistentRaw(t, "payload, _tid_block, _tid_offset,"
                + " _lsn, _is_deleted", "_tid_block, _tid_offset"));
        // a column added through the step: the views are rebuilt with it, the older rows read its default
        steps.execute(new SinkStep.AddColumn(t, "n", "Int64", "7"), 1, 1, "t");
        visible(2, 200);
        assertEquals(List.of("x2|7|0|1"), consistentRaw(t, "payload, n, _tid_block, _tid_offset",
                "_tid_block, _tid_offset"));
        List<String> columns = columns(t);
        assertTrue(columns.contains("n"), columns.toString());
        assertEquals(columns, columns(t + SinkTables.CONSISTENT_SUFFIX), "the view has the table's columns, in order");
    }

    private List<String> columns(String table) throws Exception {
        List<String> columns = new ArrayList<>();
        for (String[] r : ch.queryTsv("SELECT name FROM system.columns WHERE database = '" + db + "' AND table = '"
                + table + "'")) {
            columns.add(r[0]);
        }
        return columns;
    }

    @Test
    void aTableOfAnEarlierBuildGetsItsViewAtStartUp() throws Exception {
        String t = prefix + "old";
        create(t, "id Int32", "id");
        insert(t, "(1, 100, 100, 7, 0)");
        visible(1, 100);
        steps.addMissingConsistentViews(List.of(t, prefix + "gone"));
        steps.addMissingConsistentViews(List.of(t)); // there already: left as it is
        assertEquals(List.of("1"), select("SELECT id FROM " + quote(db) + "." + quote(t + SinkTables.CONSISTENT_SUFFIX)));
        assertEquals("0", ch.queryString("SELECT count() FROM system.tables WHERE database = '" + db
                + "' AND name LIKE '" + prefix + "gone%'"));
    }

    @Test
    void aTableWhereAViewGoesIsNeverDropped() throws Exception {
        String t = prefix + "t";
        create(t, "id Int32", "id");
        create(t + SinkTables.CONSISTENT_SUFFIX, "id Int32", "id");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> steps.refreshView(t));
        assertTrue(e.getMessage().contains(t + SinkTables.CONSISTENT_SUFFIX)
                && e.getMessage().contains(t + "'s consistent view goes; it is not a view"), e.getMessage());
        assertEquals("ReplacingMergeTree", ch.queryString("SELECT engine FROM system.tables WHERE database = '" + db
                + "' AND name = '" + t + SinkTables.CONSISTENT_SUFFIX + "'"));
    }

    private void create(String t, String columns, String key) throws Exception {
        ch.execute("CREATE TABLE " + quote(db) + "." + quote(t) + " (" + columns + ", _lsn UInt64, _commit_lsn UInt64,"
                + " _xid UInt64, _is_deleted UInt8) ENGINE = ReplacingMergeTree(_lsn) ORDER BY (" + key + ")");
    }

    /** Rows as {@code (columns..., _lsn, _commit_lsn, _xid, _is_deleted)}: one INSERT, one part. */
    private void insert(String t, String values) throws Exception {
        ch.execute("INSERT INTO " + quote(db) + "." + quote(t) + " VALUES " + values);
    }

    private void visible(long seq, long lsn) throws Exception {
        ch.execute(SinkTables.visibleSql(db, sink, seq, lsn, 0, seq));
    }

    private List<String> consistent(String t) throws Exception {
        return consistentRaw(t, "id, v, tags, _walshadow_row, _is_deleted", "id");
    }

    private List<String> consistentRaw(String t, String columns, String order) throws Exception {
        return select("SELECT " + columns + " FROM " + quote(db) + "." + quote(t + SinkTables.CONSISTENT_SUFFIX)
                + " ORDER BY " + order);
    }

    private List<String> live(String t) throws Exception {
        return select("SELECT id, v, tags, _walshadow_row, _is_deleted FROM " + quote(db) + "."
                + quote(t + SinkTables.LIVE_SUFFIX) + " ORDER BY id");
    }

    private List<String> select(String sql) throws Exception {
        List<String> out = new ArrayList<>();
        for (String[] r : ch.queryTsv(sql)) {
            out.add(String.join("|", r));
        }
        return out;
    }
}
