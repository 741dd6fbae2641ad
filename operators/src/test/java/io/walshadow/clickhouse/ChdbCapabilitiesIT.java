package io.walshadow.clickhouse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.testing.Chdb;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The newer-server SQL that {@link ServerCapabilities} gates, executed on a modern engine (chDB 26.x): the only
 * server installable here is 18.16, which has none of it. Each test is one chDB session (see {@link Chdb}).
 */
class ChdbCapabilitiesIT {

    @Test
    void versionProbeTurnsEveryFlagOn() {
        String version = Chdb.query("SELECT version()").get(0)[0];
        ServerCapabilities caps = ServerCapabilities.of(version);
        assertTrue(caps.major() >= 23, version);
        assertTrue(caps.replacingWithIsDeleted(), version);
        assertTrue(caps.dateTime64(), version);
        assertTrue(caps.insertDeduplicationToken(), version);
        assertTrue(caps.addColumnIfNotExists(), version);
        assertTrue(caps.renameColumn(), version);
        assertTrue(caps.nonReplicatedDeduplicationWindow(), version);
        assertTrue(caps.bloomFilterIndex(), version);
        assertTrue(caps.mapType(), version);
    }

    /** hstore's Map column: ColumnCodec's RowBinary (from hstore_out text) read back by the server, NULL values kept. */
    @Test
    void hstoreMapReadsBack() {
        String structure = "k UInt8, h " + TypeMapping.HSTORE_MAP;
        ColumnCodec h = ColumnCodec.of(16500, -1, TypeMapping.HSTORE_MAP, null, null);
        io.walshadow.clickhouse.RowBinaryBuffer out = new io.walshadow.clickhouse.RowBinaryBuffer(256);
        out.u8(1);
        h.write(out, "\"a\"=>\"1\", \"b c\"=>NULL, \"q\\\"\"=>\"\\\\\", \"ü\"=>\"日本\"");
        out.u8(2);
        h.write(out, null); // a NULL hstore: no Nullable(Map), written empty
        out.u8(3);
        h.write(out, "");
        List<String[]> rows = Chdb.query(
                "CREATE TABLE t (" + structure + ") ENGINE = MergeTree ORDER BY k",
                Chdb.rowBinaryInsert("t", structure, out.toByteArray()),
                "SELECT k, length(h), h['a'], isNull(h['b c']), h['q\"'], h['ü'], mapKeys(h) FROM t ORDER BY k");
        assertArrayEquals(new String[] {"1", "4", "1", "1", "\\", "日本", "['a','b c','q\"','ü']"}, rows.get(0));
        assertEquals("0", rows.get(1)[1]);
        assertEquals("0", rows.get(2)[1]);
        assertEquals("0", Chdb.query("SELECT length(" + h.literal("") + ")").get(0)[0]);
        assertEquals("v", Chdb.query("SELECT " + h.literal("\"k\"=>\"v\", \"n\"=>NULL") + "['k']").get(0)[0]);
    }

    @Test
    void replacingWithIsDeletedHidesDeletedKeysUnderFinal() {
        List<List<String[]>> r = Chdb.run(
                "CREATE TABLE t (id UInt64, v String, _lsn UInt64, _is_deleted UInt8) "
                        + "ENGINE = ReplacingMergeTree(_lsn, _is_deleted) ORDER BY id",
                "SYSTEM STOP MERGES t", // keep every insert a part of its own: FINAL, not a merge, must do the work
                "INSERT INTO t VALUES (1, 'a', 10, 0), (2, 'b', 10, 0), (3, 'c', 10, 0)",
                "INSERT INTO t VALUES (1, 'a', 20, 1)",  // DELETE id 1
                "INSERT INTO t VALUES (2, 'b2', 30, 0)", // UPDATE id 2
                "INSERT INTO t VALUES (1, 'a', 10, 0)",  // a replayed (restart) copy of the older birth of id 1
                "SELECT count() FROM t",
                "SELECT id, v, _lsn FROM t FINAL ORDER BY id");
        assertEquals("6", r.get(6).get(0)[0], "all versions are stored");
        List<String[]> fin = r.get(7);
        assertEquals(2, fin.size(), "id 1 is deleted, also after the replay of its older version");
        assertArrayEquals(new String[] {"2", "b2", "30"}, fin.get(0));
        assertArrayEquals(new String[] {"3", "c", "10"}, fin.get(1));
    }

    @Test
    void dateTime64KeepsMicroseconds() {
        List<String[]> rows = Chdb.query(
                "CREATE TABLE t (k UInt8, ts DateTime64(6, 'UTC')) ENGINE = MergeTree ORDER BY k",
                "INSERT INTO t VALUES (1, '2024-02-29 23:59:59.123456'), (2, '1969-12-31 23:59:59.999999')",
                "SELECT ts, toUnixTimestamp64Micro(ts) FROM t ORDER BY k");
        assertArrayEquals(new String[] {"2024-02-29 23:59:59.123456", "1709251199123456"}, rows.get(0));
        // before 1970, which 18.16's UInt32 DateTime cannot hold at all
        assertArrayEquals(new String[] {"1969-12-31 23:59:59.999999", "-1"}, rows.get(1));
    }

    @Test
    void insertDeduplicationTokenDropsARepeatedInsert() {
        String ins = "INSERT INTO %s SETTINGS insert_deduplication_token = '%s' VALUES %s";
        List<List<String[]>> r = Chdb.run(
                "CREATE TABLE d (k UInt64, v String) ENGINE = MergeTree ORDER BY k "
                        + "SETTINGS non_replicated_deduplication_window = 100",
                ins.formatted("d", "ckpt-1", "(1, 'a'), (2, 'b')"),
                ins.formatted("d", "ckpt-1", "(1, 'a'), (2, 'b')"), // the retry after a restart
                "SELECT count() FROM d",
                ins.formatted("d", "ckpt-2", "(1, 'a'), (2, 'b')"),
                "SELECT count() FROM d",
                ins.formatted("d", "ckpt-1", "(3, 'c')"), // same token, other rows: the token alone decides
                "SELECT count() FROM d",
                // without the window a non-replicated table keeps every insert, token or not
                "CREATE TABLE nodedup (k UInt64, v String) ENGINE = MergeTree ORDER BY k",
                ins.formatted("nodedup", "ckpt-1", "(1, 'a')"),
                ins.formatted("nodedup", "ckpt-1", "(1, 'a')"),
                "SELECT count() FROM nodedup");
        assertEquals("2", r.get(3).get(0)[0], "same token twice: stored once");
        assertEquals("4", r.get(5).get(0)[0], "another token: stored again");
        assertEquals("4", r.get(7).get(0)[0], "a reused token drops even different rows");
        assertEquals("2", r.get(11).get(0)[0], "no deduplication without non_replicated_deduplication_window");
    }

    @Test
    void addColumnIfNotExistsIsANoOpTheSecondTime() {
        String add = "ALTER TABLE t ADD COLUMN IF NOT EXISTS c Nullable(String)";
        List<List<String[]>> r = Chdb.run(
                "CREATE TABLE t (k UInt64) ENGINE = MergeTree ORDER BY k",
                "INSERT INTO t VALUES (1)",
                add,
                add,
                "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 't' ORDER BY position",
                "SELECT k, c FROM t");
        List<String[]> cols = r.get(4);
        assertEquals(2, cols.size());
        assertArrayEquals(new String[] {"c", "Nullable(String)"}, cols.get(1));
        assertArrayEquals(new String[] {"1", null}, r.get(5).get(0), "old rows read the new column as NULL");
        // the same ADD without IF NOT EXISTS is what a replayed DDL would hit
        Chdb.StatementException e = assertThrows(Chdb.StatementException.class, () -> Chdb.run(
                "CREATE TABLE t (k UInt64) ENGINE = MergeTree ORDER BY k",
                "ALTER TABLE t ADD COLUMN c String",
                "ALTER TABLE t ADD COLUMN c String"));
        assertEquals(2, e.index());
        assertTrue(e.getMessage().contains("ALTER TABLE t ADD COLUMN c String"), e.getMessage());
    }

    @Test
    void renameColumnKeepsDataButNotForSortingKeyColumns() {
        List<List<String[]>> r = Chdb.run(
                "CREATE TABLE t (id UInt64, a String) ENGINE = MergeTree ORDER BY id",
                "INSERT INTO t VALUES (1, 'x')",
                "ALTER TABLE t RENAME COLUMN a TO b",
                "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 't' ORDER BY position",
                "SELECT id, b FROM t");
        assertEquals(List.of("id", "b"), r.get(3).stream().map(row -> row[0]).toList());
        assertArrayEquals(new String[] {"1", "x"}, r.get(4).get(0));
        // A PostgreSQL primary-key rename cannot be mirrored with RENAME COLUMN: the key column is in ORDER BY.
        Chdb.StatementException e = assertThrows(Chdb.StatementException.class, () -> Chdb.run(
                "CREATE TABLE t (id UInt64, a String) ENGINE = MergeTree ORDER BY id",
                "ALTER TABLE t RENAME COLUMN id TO id2"));
        assertEquals(1, e.index());
    }

    /**
     * RowBinary written by hand from the format's documentation (ClickHouse docs, formats/RowBinary): fixed-width
     * little-endian integers; Nullable = one byte 1 (NULL, nothing follows) or 0 followed by the value; String and
     * Array = unsigned LEB128 length then bytes / elements; Decimal(P, S) = the unscaled value as a little-endian
     * integer of the Decimal's width (P 10..18: Int64); Date = UInt16 days since 1970-01-01; DateTime = UInt32
     * seconds; DateTime64(6) = Int64 microseconds; UUID = two little-endian UInt64, the high half first.
     */
    @Test
    void rowBinaryFedThroughFormatReadsBack() {
        String structure = "u UInt64, i Int32, s Nullable(String), d Decimal(12, 2), dt Date, ts DateTime('UTC'), "
                + "ts64 DateTime64(6, 'UTC'), id UUID, arr Array(Nullable(Int32))";
        UUID uuid = UUID.fromString("61f0c404-5cb3-11e7-907b-a6006ad3dba0");
        RowBinary rb = new RowBinary();
        // row 1: extremes and a string that needs TabSeparated escaping on the way back
        rb.u64(-1L).i32(Integer.MIN_VALUE).nullable(true).string("tab\there\nnewline ünïcödé")
                .i64(new BigDecimal("-12345.67").unscaledValue().longValueExact())
                .u16(LocalDate.of(2024, 2, 29).toEpochDay()).u32(Instant.parse("2024-02-29T12:34:56Z").getEpochSecond())
                .i64(1709210096123456L).uuid(uuid)
                .leb128(3).nullable(true).i32(1).nullable(false).nullable(true).i32(-7);
        // row 2: NULL string, empty array, zero-ish values
        rb.u64(2).i32(0).nullable(false)
                .i64(new BigDecimal("0.05").unscaledValue().longValueExact())
                .u16(0).u32(0).i64(0).uuid(new UUID(0, 0))
                .leb128(0);
        List<String[]> rows = Chdb.query(
                "CREATE TABLE t (" + structure + ") ENGINE = MergeTree ORDER BY u",
                Chdb.rowBinaryInsert("t", structure, rb.bytes()),
                "SELECT * FROM t ORDER BY u");
        assertEquals(2, rows.size());
        assertArrayEquals(new String[] {"2", "0", null, "0.05", "1970-01-01", "1970-01-01 00:00:00",
                "1970-01-01 00:00:00.000000", "00000000-0000-0000-0000-000000000000", "[]"}, rows.get(0));
        assertArrayEquals(new String[] {"18446744073709551615", "-2147483648", "tab\there\nnewline ünïcödé",
                "-12345.67", "2024-02-29", "2024-02-29 12:34:56", "2024-02-29 12:34:56.123456",
                "61f0c404-5cb3-11e7-907b-a6006ad3dba0", "[1,NULL,-7]"}, rows.get(1));
    }

    /** Minimal RowBinary encoder for the test above; every value is written in the column order of the structure. */
    private static final class RowBinary {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteBuffer buf = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);

        private RowBinary le(long v, int width) {
            buf.clear();
            buf.putLong(v);
            out.write(buf.array(), 0, width); // little-endian: the low `width` bytes come first
            return this;
        }

        RowBinary u16(long v) {
            return le(v, 2);
        }

        RowBinary u32(long v) {
            return le(v, 4);
        }

        RowBinary i32(int v) {
            return le(v, 4);
        }

        RowBinary u64(long v) {
            return le(v, 8);
        }

        RowBinary i64(long v) {
            return le(v, 8);
        }

        /** The Nullable prefix: {@code present} false writes the NULL marker, and the value is omitted. */
        RowBinary nullable(boolean present) {
            out.write(present ? 0 : 1);
            return this;
        }

        RowBinary leb128(long v) {
            do {
                int b = (int) (v & 0x7f);
                v >>>= 7;
                out.write(v == 0 ? b : b | 0x80);
            } while (v != 0);
            return this;
        }

        RowBinary string(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            leb128(b.length);
            out.write(b, 0, b.length);
            return this;
        }

        RowBinary uuid(UUID u) {
            return u64(u.getMostSignificantBits()).u64(u.getLeastSignificantBits());
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
