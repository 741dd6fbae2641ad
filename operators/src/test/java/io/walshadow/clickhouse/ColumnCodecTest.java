package io.walshadow.clickhouse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeCatalog;
import io.walshadow.types.Oids;
import io.walshadow.types.PgArray;
import io.walshadow.types.PgDate;
import io.walshadow.types.PgNumeric;
import io.walshadow.types.PgTimestamp;
import io.walshadow.types.ValueDecoder;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Values a column cannot hold exactly are refused, never clamped (the wire bytes themselves are checked against
 * real servers by the end-to-end and chDB tests). Bytes here are hand-computed from the RowBinary layout.
 */
class ColumnCodecTest {
    private static final ValueDecoder TEXT = new ValueDecoder(null);

    private static byte[] encode(ColumnCodec c, Object v) {
        RowBinaryBuffer b = new RowBinaryBuffer(16);
        c.write(b, v);
        return b.toByteArray();
    }

    private static ColumnCodec codec(int oid, String chType) {
        return ColumnCodec.of(oid, -1, chType, null, TEXT);
    }

    @Test
    void decimalsAreExactOrRefused() {
        ColumnCodec d = codec(Oids.NUMERIC, "Decimal(5, 2)");
        assertArrayEquals(new byte[] {(byte) 0x85, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF},
                encode(d, PgNumeric.of(new BigDecimal("-1.23")))); // -123 as Int32 little-endian
        assertTrue(assertThrows(ValueConversionException.class, () -> encode(d, PgNumeric.NAN)).getMessage()
                .contains("NaN"));
        assertThrows(ValueConversionException.class, () -> encode(d, PgNumeric.of(new BigDecimal("1.234"))));
        assertThrows(ValueConversionException.class, () -> encode(d, PgNumeric.of(new BigDecimal("1000.00"))));
        assertEquals("CAST('-1.20' AS Decimal(5, 2))", d.literal(PgNumeric.of(new BigDecimal("-1.2"))));
        // Decimal128: 16 bytes two's complement
        byte[] wide = encode(codec(Oids.NUMERIC, "Decimal(38, 0)"), PgNumeric.of(new BigDecimal("-1")));
        assertEquals(16, wide.length);
        for (byte x : wide) {
            assertEquals((byte) 0xFF, x);
        }
    }

    @Test
    void datesAndTimesOutsideTheServerRangeAreRefused() {
        ColumnCodec date = codec(Oids.DATE, "Date");
        int pgDays2105 = (int) (LocalDate.of(2105, 12, 31).toEpochDay() - LocalDate.of(2000, 1, 1).toEpochDay());
        assertArrayEquals(new byte[] {(byte) (49672 & 0xFF), (byte) (49672 >> 8)}, encode(date, new PgDate(pgDays2105)));
        assertThrows(ValueConversionException.class, () -> encode(date, new PgDate(pgDays2105 + 1)));
        assertThrows(ValueConversionException.class, () -> encode(date, new PgDate(PgDate.NOEND)));
        ColumnCodec dt = codec(Oids.TIMESTAMPTZ, "DateTime('UTC')");
        // 1970-01-01 00:00:01.999999 UTC: sub-second part dropped, not rounded
        long pg = -946_684_800_000_000L + 1_999_999;
        assertArrayEquals(new byte[] {1, 0, 0, 0}, encode(dt, new PgTimestamp(pg, true)));
        assertThrows(ValueConversionException.class, () -> encode(dt, new PgTimestamp(-946_684_800_000_001L, true)));
        assertThrows(ValueConversionException.class, () -> encode(dt, new PgTimestamp(PgTimestamp.NOBEGIN, true)));
        ColumnCodec dt64 = codec(Oids.TIMESTAMPTZ, "DateTime64(6, 'UTC')");
        assertArrayEquals(new byte[] {(byte) 0x7F, (byte) 0x84, 0x1E, 0, 0, 0, 0, 0}, encode(dt64, new PgTimestamp(pg, true)));
    }

    @Test
    void arraysAreOneDimensionalAndNullBecomesEmpty() {
        TypeCatalog types = new TypeCatalog() {
            @Override
            public PgType type(int oid) {
                return oid == 1007 ? new PgType(1007, "pg_catalog", "_int4", -1, false, 'i', 'b', 'A', Oids.INT4, 0, -1,
                        0, Map.of()) : null;
            }

            @Override
            public List<Column> compositeAttributes(int relOid) {
                return List.of();
            }
        };
        ColumnCodec ints = ColumnCodec.of(1007, -1, "Array(Nullable(Int32))", types, TEXT);
        PgArray oneD = new PgArray(Oids.INT4, new int[] {2}, new int[] {1}, new Object[] {7, null});
        assertArrayEquals(new byte[] {2, 0, 7, 0, 0, 0, 1}, encode(ints, oneD));
        assertArrayEquals(new byte[] {0}, encode(ints, null)); // no Nullable(Array): a NULL array is empty
        assertEquals("[7, NULL]", ints.literal(oneD));
        PgArray twoD = new PgArray(Oids.INT4, new int[] {2, 1}, new int[] {1, 1}, new Object[] {1, 2});
        assertTrue(assertThrows(ValueConversionException.class, () -> encode(ints, twoD)).getMessage()
                .contains("2-dimensional"));
        ColumnCodec nullableString = codec(Oids.TEXT, "Nullable(String)");
        assertArrayEquals(new byte[] {1}, encode(nullableString, null));
        assertArrayEquals(new byte[] {0, 2, 'h', 'i'}, encode(nullableString, "hi"));
        ColumnCodec notNull = codec(Oids.TEXT, "String");
        assertThrows(ValueConversionException.class, () -> encode(notNull, null));
        assertEquals("'it\\'s \\\\'", notNull.literal("it's \\"));
    }

    @Test
    void integersOutOfRangeAreRefused() {
        ColumnCodec u32 = codec(Oids.OID, "UInt32");
        assertArrayEquals(new byte[] {-1, -1, -1, -1}, encode(u32, 0xFFFF_FFFFL));
        assertThrows(ValueConversionException.class, () -> encode(u32, -1L));
        assertThrows(ValueConversionException.class, () -> encode(codec(Oids.INT2, "Int16"), 1 << 20));
        assertThrows(ValueConversionException.class, () -> encode(codec(Oids.INT4, "Int32"), "not a number"));
    }

    /** The contrib types by (extension, name): hstore a Map where the server has one, else text; the others text. */
    @Test
    void extensionTypesMapByExtensionAndName() {
        Map<Integer, PgType> all = Map.of(
                16500, new PgType(16500, "public", "hstore", -1, false, 'i', 'b', 'U', 0, 0, -1, 0, Map.of(), "hstore"),
                16501, new PgType(16501, "public", "_hstore", -1, false, 'i', 'b', 'A', 16500, 0, -1, 0, Map.of()),
                16502, new PgType(16502, "public", "cube", -1, false, 'd', 'b', 'U', 0, 0, -1, 0, Map.of(), "cube"),
                16503, new PgType(16503, "other", "hstore", -1, false, 'i', 'b', 'U', 0, 0, -1, 0, Map.of()),
                16504, new PgType(16504, "public", "dh", -1, false, 'i', 'd', 'U', 0, 16500, -1, 0, Map.of()));
        TypeCatalog types = new TypeCatalog() {
            @Override
            public PgType type(int oid) {
                return all.get(oid);
            }

            @Override
            public List<Column> compositeAttributes(int relOid) {
                return List.of();
            }
        };
        ServerCapabilities modern = ServerCapabilities.of("22.3.8.39");
        ServerCapabilities old = ServerCapabilities.baseline();
        assertEquals("Map(String, Nullable(String))", TypeMapping.columnType(column(16500), types, modern));
        assertEquals("Map(String, Nullable(String))", TypeMapping.columnType(column(16504), types, modern));
        assertEquals("Nullable(String)", TypeMapping.columnType(column(16500), types, old));
        assertEquals("Array(Nullable(String))", TypeMapping.columnType(column(16501), types, modern));
        assertEquals("Nullable(String)", TypeMapping.columnType(column(16502), types, modern));
        assertEquals("Nullable(String)", TypeMapping.columnType(column(16503), types, modern), "not the extension's");

        ColumnCodec map = ColumnCodec.of(16504, -1, TypeMapping.HSTORE_MAP, types, TEXT);
        // 2 pairs; "a" => "1"; "b" => NULL
        assertArrayEquals(new byte[] {2, 1, 'a', 0, 1, '1', 1, 'b', 1}, encode(map, "\"a\"=>\"1\", \"b\"=>NULL"));
        assertArrayEquals(new byte[] {0}, encode(map, null));
        assertThrows(ValueConversionException.class, () -> encode(map, "a=>1"));
        assertEquals("CAST(map('k', 'it\\'s', 'n', NULL), 'Map(String, Nullable(String))')",
                map.literal("\"k\"=>\"it's\", \"n\"=>NULL"));
    }

    private static Column column(int typeOid) {
        return new Column(1, "c", typeOid, -1, -1, 'i', false, 'x', false, false, null);
    }
}
