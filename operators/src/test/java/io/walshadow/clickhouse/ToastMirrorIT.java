package io.walshadow.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.testing.ChdbSession;
import io.walshadow.testing.LocalClickHouse;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The mirror's SQL on both engines: {@link ToastMirror#createSql}, the as-of fetch (batched, checked against a
 * plain one-value formulation) and the rewrite barrier, on
 * ClickHouse 18.16 (the local server) and on the modern engine (chDB: {@code ReplacingMergeTree(_lsn, _is_deleted)}
 * and the bloom filter on chunk_id). One history of TIDs, as PostgreSQL would write it: births, deletes, a line
 * pointer reused by another value, a VACUUM FULL copy at new TIDs, the barrier after it, and merges.
 */
class ToastMirrorIT {
    private static final int REL = 4242;

    @Test
    void asOfFetchAndBarrierOn1816() {
        String db = "walshadow_toast_mirror_" + Long.toString(System.nanoTime(), 36);
        try (ClickHouseConnection admin = LocalClickHouse.connect()) {
            admin.execute("CREATE DATABASE `" + db + "`");
            try (ClickHouseConnection ch = new ClickHouseConnection(LocalClickHouse.url(), LocalClickHouse.user(),
                    LocalClickHouse.password(), db)) {
                ServerCapabilities caps = ServerCapabilities.probe(ch);
                history(ch, caps);
            } finally {
                admin.execute("DROP DATABASE IF EXISTS `" + db + "`");
            }
        }
    }

    @Test
    void asOfFetchAndBarrierOnTheModernEngine() {
        try (ChdbSession chdb = ChdbSession.open("walshadow")) {
            ServerCapabilities caps = ServerCapabilities.probe(chdb);
            assertTrue(caps.replacingWithIsDeleted() && caps.bloomFilterIndex(), caps.version());
            history(chdb, caps);
            String create = chdb.queryString("SELECT create_table_query FROM system.tables WHERE database = 'walshadow'"
                    + " AND name = '" + ToastMirror.name(REL) + "'");
            assertTrue(create.contains("bloom_filter") && create.contains("ReplacingMergeTree(_lsn, _is_deleted)"), create);
        }
    }

    private static void history(ClickHouseSql ch, ServerCapabilities caps) {
        String m = DestinationSchema.quote(ch.database()) + "." + DestinationSchema.quote(ToastMirror.name(REL));
        ch.execute(ToastMirror.createSql(ch.database(), REL, caps));
        ch.execute(ToastMirror.createSql(ch.database(), REL, caps)); // idempotent
        // value 100: two chunks at (0,1), (0,2), LSN 10; deleted at LSN 20 (tombstones)
        insert(ch, m, "(0, 1, 100, 0, unhex('AA01'), 10, 0), (0, 2, 100, 1, unhex('AA02'), 10, 0)");
        assertEquals(List.of(), fetch(ch, 100, 5), "not born yet");
        assertEquals(List.of("0:aa01", "1:aa02"), fetch(ch, 100, 10));
        insert(ch, m, "(0, 1, 0, 0, '', 20, 1), (0, 2, 0, 0, '', 20, 1)");
        assertEquals(List.of(), fetch(ch, 100, 25), "dead at 25");
        assertEquals(List.of("0:aa01", "1:aa02"), fetch(ch, 100, 15), "still visible as of 15");
        // (0,1) reused at LSN 30 by value 200; value 100's dead generation stays invisible
        insert(ch, m, "(0, 1, 200, 0, unhex('BB'), 30, 0)");
        assertEquals(List.of("0:bb"), fetch(ch, 200, 35));
        assertEquals(List.of(), fetch(ch, 100, 35));
        // value 300 at (1,1) LSN 40; VACUUM FULL (first record at 45) copies it to (2,1) at LSN 50, commits at 60
        insert(ch, m, "(1, 1, 300, 0, unhex('CC'), 40, 0), (2, 1, 300, 0, unhex('CC'), 50, 0)");
        assertEquals(List.of("0:cc"), fetch(ch, 300, 55), "duplicated copies: one chunk per seq");
        ch.execute(ToastMirror.barrierSql(ch.database(), ToastMirror.name(REL), 45, 60));
        // the barrier tombstoned the TIDs the rewrite did not refill: (1,1) and (0,1); not (2,1)
        assertEquals(List.of("0,1,1,60", "0,2,1,20", "1,1,1,60", "2,1,0,50"), latest(ch, m));
        ch.execute(ToastMirror.barrierSql(ch.database(), ToastMirror.name(REL), 45, 60)); // a repeat adds nothing
        assertEquals("9", ch.queryString("SELECT count() FROM " + m), "7 rows and the first barrier's 2 tombstones");
        assertEquals(List.of("0:cc"), fetch(ch, 300, 65));
        assertEquals(List.of("0:bb"), fetch(ch, 200, 55), "as of before the barrier");
        batchAgreesWithSingleFetches(ch, 10);
        ch.execute("OPTIMIZE TABLE " + m + " FINAL");
        assertEquals(List.of("0:cc"), fetch(ch, 300, 65), "after merges");
        assertEquals(List.of(), fetch(ch, 200, 65));
        batchAgreesWithSingleFetches(ch, 3);
    }

    /** The batched fetch answers every (value, LSN) of the history as the single fetch does, in one query. */
    private static void batchAgreesWithSingleFetches(ClickHouseSql ch, int minVisible) {
        List<ToastMirror.Need> needs = new java.util.ArrayList<>();
        for (int id : new int[] {100, 200, 300, 999}) {
            for (long lsn : new long[] {5, 10, 15, 20, 25, 30, 35, 45, 50, 55, 60, 65}) {
                needs.add(new ToastMirror.Need(id, lsn));
            }
        }
        java.util.Map<ToastMirror.Need, List<ToastMirror.Chunk>> batch = ToastMirror.parseBatch(
                ch.queryTsv(ToastMirror.fetchBatchSql(ch.database(), REL, needs)));
        int nonEmpty = 0;
        for (ToastMirror.Need n : needs) {
            List<String> got = batch.getOrDefault(n, List.of()).stream()
                    .map(c -> c.seq() + ":" + HexFormat.of().formatHex(c.data())).toList();
            assertEquals(fetch(ch, n.valueId(), n.maxLsn()), got, "value " + n.valueId() + " as of " + n.maxLsn());
            nonEmpty += got.isEmpty() ? 0 : 1;
        }
        assertTrue(nonEmpty >= minVisible, "the history has visible values: " + nonEmpty);
    }

    /**
     * The as-of fetch of one value written plainly (the TIDs that held it, their newest version at or before the
     * LSN, live chunks of the value, newest per seq): the reference the batched query is checked against.
     */
    static String fetchSql(String db, int toastRelOid, int valueId, long maxLsn) {
        String t = DestinationSchema.quote(db) + "." + DestinationSchema.quote(ToastMirror.name(toastRelOid));
        String id = Integer.toUnsignedString(valueId);
        String lsn = Long.toUnsignedString(maxLsn);
        return "SELECT seq, hex(argMax(data, l)) FROM ("
                + "SELECT argMax(chunk_id, _lsn) AS cid, argMax(chunk_seq, _lsn) AS seq, argMax(chunk_data, _lsn) AS data,"
                + " argMax(_is_deleted, _lsn) AS del, max(_lsn) AS l FROM " + t
                + " WHERE _lsn <= " + lsn + " AND (blkno, offnum) IN (SELECT blkno, offnum FROM " + t
                + " WHERE chunk_id = " + id + " AND _lsn <= " + lsn + " AND _is_deleted = 0)"
                + " GROUP BY blkno, offnum) WHERE del = 0 AND cid = " + id + " GROUP BY seq ORDER BY seq";
    }

    static List<ToastMirror.Chunk> parseFetch(List<String[]> rows) {
        List<ToastMirror.Chunk> out = new ArrayList<>(rows.size());
        for (String[] r : rows) {
            out.add(new ToastMirror.Chunk(Integer.parseInt(r[0]), HexFormat.of().parseHex(r[1])));
        }
        return out;
    }

    private static void insert(ClickHouseSql ch, String m, String values) {
        ch.execute("INSERT INTO " + m + " VALUES " + values);
    }

    private static List<String> fetch(ClickHouseSql ch, int valueId, long lsn) {
        return parseFetch(ch.queryTsv(fetchSql(ch.database(), REL, valueId, lsn))).stream()
                .map(c -> c.seq() + ":" + HexFormat.of().formatHex(c.data())).toList();
    }

    /** Per TID: blkno,offnum,deleted,lsn of its newest version. */
    private static List<String> latest(ClickHouseSql ch, String m) {
        return ch.queryTsv("SELECT concat(toString(blkno), ',', toString(offnum), ',', toString(argMax(_is_deleted, _lsn)),"
                + " ',', toString(max(_lsn))) AS r FROM " + m + " GROUP BY blkno, offnum ORDER BY r").stream()
                .map(r -> r[0]).toList();
    }
}
