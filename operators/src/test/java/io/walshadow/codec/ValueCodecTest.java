package io.walshadow.codec;

import io.walshadow.testing.Samples;

import static io.walshadow.testing.Deep.assertDeepEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.types.PgArray;
import io.walshadow.types.PgBitString;
import io.walshadow.types.PgDate;
import io.walshadow.types.PgInet;
import io.walshadow.types.PgInterval;
import io.walshadow.types.PgJsonb;
import io.walshadow.types.PgMacaddr;
import io.walshadow.types.PgMoney;
import io.walshadow.types.PgNumeric;
import io.walshadow.types.PgRecord;
import io.walshadow.types.PgTid;
import io.walshadow.types.PgTime;
import io.walshadow.types.PgTimeTz;
import io.walshadow.types.PgTimestamp;
import io.walshadow.types.ToastPointer;
import java.io.EOFException;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class ValueCodecTest {
    /** Every Java class the type decoders return (see io.walshadow.types.package-info). */
    static final List<Class<?>> VALUE_CLASSES = List.of(Boolean.class, Short.class, Integer.class, Long.class,
            Float.class, Double.class, String.class, byte[].class, Byte.class, UUID.class, PgNumeric.class,
            PgMoney.class, PgJsonb.class, PgDate.class, PgTime.class, PgTimeTz.class, PgTimestamp.class,
            PgInterval.class, PgInet.class, PgMacaddr.class, PgBitString.class, PgTid.class, PgArray.class,
            PgRecord.class, ToastPointer.class);

    static byte[] encode(Object v) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16);
        ValueCodec.write(out, v);
        return out.getCopyOfBuffer();
    }

    static Object decode(byte[] b) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(b);
        Object v = ValueCodec.read(in);
        assertEquals(0, in.available(), "whole encoding consumed");
        return v;
    }

    static void assertRoundTrip(Object v) throws IOException {
        Object back = decode(encode(v));
        assertDeepEquals(v, back);
        if (v != null && !(v instanceof byte[])) {
            assertEquals(v, back);
        }
    }

    @Test
    void everyScalarRoundTripsExactly() throws IOException {
        for (Object v : Samples.scalars()) {
            assertRoundTrip(v);
        }
    }

    @Test
    void arraysAndRecordsNestedBothWaysRoundTrip() throws IOException {
        for (Object v : Samples.composites()) {
            assertRoundTrip(v);
        }
    }

    @Test
    void samplesCoverEveryValueClassAndEveryClassIsSupported() {
        Set<Class<?>> seen = new HashSet<>();
        for (Object v : Samples.scalars()) {
            if (v != null) {
                seen.add(v.getClass());
            }
        }
        for (Object v : Samples.composites()) {
            seen.add(v.getClass());
        }
        for (Class<?> c : VALUE_CLASSES) {
            assertTrue(ValueCodec.supports(c), c + " supported");
            assertTrue(seen.contains(c), c + " has samples");
        }
        assertEquals(Set.copyOf(VALUE_CLASSES), seen);
    }

    @Test
    void specialFloatsKeepTheirBits() throws IOException {
        Object negZero = decode(encode(-0.0));
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits((Double) negZero));
        Object payloadNaN = decode(encode(Float.intBitsToFloat(0x7fc0_0001)));
        assertEquals(0x7fc0_0001, Float.floatToRawIntBits((Float) payloadNaN));
        assertEquals(Double.NEGATIVE_INFINITY, decode(encode(Double.NEGATIVE_INFINITY)));
    }

    @Test
    void numericKeepsScaleAndSpecials() throws IOException {
        PgNumeric n = (PgNumeric) decode(encode(PgNumeric.of(new BigDecimal("1.500"))));
        assertEquals(3, n.value().scale());
        assertEquals("1.500", n.toString());
        PgNumeric zero = (PgNumeric) decode(encode(PgNumeric.of(new BigDecimal("0.00"))));
        assertEquals(2, zero.value().scale());
        assertEquals(PgNumeric.NAN, decode(encode(PgNumeric.NAN)));
        assertEquals(PgNumeric.Kind.NEGATIVE_INFINITY, ((PgNumeric) decode(encode(PgNumeric.NEGATIVE_INFINITY))).kind());
    }

    @Test
    void boxedTypesComeBackAsTheSameClass() throws IOException {
        assertEquals(Short.class, decode(encode((short) 5)).getClass());
        assertEquals(Byte.class, decode(encode((byte) 5)).getClass());
        assertEquals(Integer.class, decode(encode(5)).getClass());
        assertEquals(Long.class, decode(encode(5L)).getClass());
        assertEquals(Float.class, decode(encode(5f)).getClass());
    }

    @Test
    void rowsRoundTripIncludingNullRowAndNullValues() throws IOException {
        Object[][] rows = {null, {}, {null}, Samples.row(7), Samples.scalars().toArray(),
                Samples.composites().toArray(), new Object[3000]};
        for (Object[] row : rows) {
            DataOutputSerializer out = new DataOutputSerializer(64);
            ValueCodec.writeRow(out, row);
            DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
            Object[] back = ValueCodec.readRow(in);
            assertEquals(0, in.available());
            if (row == null) {
                assertNull(back);
            } else {
                assertDeepEquals(row, back);
            }
        }
    }

    @Test
    void unknownTagIsAClearError() {
        StateFormatException e = assertThrows(StateFormatException.class, () -> decode(new byte[] {(byte) 200}));
        assertTrue(e.getMessage().contains("unknown value tag 200"), e.getMessage());
        e = assertThrows(StateFormatException.class, () -> decode(new byte[] {32}));
        assertTrue(e.getMessage().contains("unknown value tag 32"), e.getMessage());
    }

    @Test
    void unknownFormatVersionIsAClearError() {
        StateFormatException e = assertThrows(StateFormatException.class,
                () -> ValueCodec.read(new DataInputDeserializer(new byte[] {0}), 2));
        assertTrue(e.getMessage().contains("value format version 2"), e.getMessage());
    }

    @Test
    void unsupportedClassIsRefusedOnWrite() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> encode(LocalDate.of(2020, 1, 1)));
        assertTrue(e.getMessage().contains("java.time.LocalDate"), e.getMessage());
        // nested: the array element is what is refused
        assertThrows(IllegalArgumentException.class,
                () -> encode(new PgArray(23, new int[] {1}, new int[] {1}, new Object[] {new Object()})));
    }

    @Test
    void truncatedAndDamagedInputFailCleanly() throws IOException {
        byte[] full = encode(Samples.composites().get(5));
        for (int n = 0; n < full.length; n++) {
            byte[] cut = java.util.Arrays.copyOf(full, n);
            assertThrows(IOException.class, () -> decode(cut), "cut at " + n);
        }
        assertThrows(EOFException.class, () -> decode(new byte[] {ValueCodec.BYTES, (byte) 0xff, (byte) 0xff, 0x3}));
        // a length beyond the limit
        StateFormatException e = assertThrows(StateFormatException.class,
                () -> decode(new byte[] {ValueCodec.BYTES, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}));
        assertTrue(e.getMessage().contains("implausible"), e.getMessage());
        // components a value class refuses
        e = assertThrows(StateFormatException.class, () -> decode(new byte[] {ValueCodec.INET, 0, 33, 1, 2, 3, 4}));
        assertTrue(e.getMessage().contains("netmask"), e.getMessage());
        e = assertThrows(StateFormatException.class, () -> decode(new byte[] {ValueCodec.MACADDR, 7}));
        assertTrue(e.getMessage().contains("MAC address of 7 bytes"), e.getMessage());
    }

    @Test
    void nestingDepthIsBounded() throws IOException {
        Object v = 1;
        for (int i = 0; i < ValueCodec.MAX_DEPTH; i++) {
            v = new PgRecord(1, List.of(new PgRecord.Field("f", 1, -1, v)));
        }
        assertRoundTrip(v); // MAX_DEPTH levels of records are fine
        Object tooDeep = new PgRecord(1, List.of(new PgRecord.Field("f", 1, -1, v)));
        assertThrows(IllegalArgumentException.class, () -> encode(tooDeep));
        // and a reader refuses such bytes too (a stack overflow would be the alternative)
        DataOutputSerializer out = new DataOutputSerializer(1024);
        for (int i = 0; i <= ValueCodec.MAX_DEPTH; i++) {
            out.write(HexFormat.of().parseHex("1e0101026601" + "01"));
        }
        out.writeByte(0);
        StateFormatException e = assertThrows(StateFormatException.class, () -> decode(out.getCopyOfBuffer()));
        assertTrue(e.getMessage().contains("nested"), e.getMessage());
    }

    /**
     * Format version 1 pinned byte for byte: a change here breaks every savepoint and every value in RocksDB. If this
     * fails, the change needs a new FORMAT_VERSION with the old reader kept, not a new expected string.
     */
    @Test
    void formatVersion1IsStable() throws IOException {
        assertEquals(1, ValueCodec.FORMAT_VERSION);
        HexFormat hex = HexFormat.of();
        Object[][] golden = {
            {null, "00"},
            {true, "02"},
            {false, "01"},
            {(short) -2, "03fffe"},
            {-3, "0405"},
            {300, "04d804"},
            {Integer.MIN_VALUE, "04ffffffff0f"},
            {Long.MAX_VALUE, "05feffffffffffffffff01"},
            {-0.0f, "0680000000"},
            {Double.NaN, "077ff8000000000000"},
            {"hé", "080368e901"},
            {new byte[] {1, 2}, "09020102"},
            {(byte) -1, "0aff"},
            {new UUID(1, 2), "0b00000000000000010000000000000002"},
            {PgNumeric.of(new BigDecimal("1.50")), "0c04ac02"},
            {PgNumeric.of(new BigDecimal("18446744073709551616")), "0d0009010000000000000000"},
            {PgNumeric.NAN, "0e"},
            {PgNumeric.POSITIVE_INFINITY, "0f"},
            {PgNumeric.NEGATIVE_INFINITY, "10"},
            {new PgMoney(-100), "11c701"},
            {new PgJsonb("{}"), "12037b7d"},
            {new PgDate(-1), "1301"},
            {new PgTime(1), "140000000000000001"},
            {new PgTimeTz(1, -3600), "150000000000000001" + "9f38"},
            {new PgTimestamp(2, false), "160000000000000002"},
            {new PgTimestamp(2, true), "170000000000000002"},
            {new PgInterval(1, -1, 3), "1802010000000000000003"},
            {new PgInet(true, 24, new byte[] {10, 0, 0, 0}), "1901180a000000"},
            {new PgMacaddr(new byte[] {1, 2, 3, 4, 5, 6}), "1a06010203040506"},
            {new PgBitString(9, new byte[] {(byte) 0xff, (byte) 0x80}), "1b09ff80"},
            {new PgTid(4294967295L, 1), "1cffffffff0f01"},
            {new PgArray(23, new int[] {2}, new int[] {1}, new Object[] {1, null}), "1d1701040202040200"},
            {new PgRecord(2249, List.of(new PgRecord.Field("a", 23, -1, 5))),
                "1ec911010261" + "1701040a"},
            {new ToastPointer(-1, 16393, 2004, 1000, ToastPointer.Compression.LZ4),
                "1fffffffff898001d40fe80702"},
        };
        for (Object[] g : golden) {
            assertEquals(g[1], hex.formatHex(encode(g[0])), "encoding of " + g[0]);
            assertRoundTrip(g[0]);
        }
    }

    /** Flink's StringValue encoding of an ASCII/BMP string: length + 1, then each char (7 bits a byte). */
    private static String stringValueHex(String s) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16);
        org.apache.flink.types.StringValue.writeString(s, out);
        return HexFormat.of().formatHex(out.getCopyOfBuffer());
    }

    @Test
    void stringValueEncodingItselfIsPinned() throws IOException {
        // the strings of format version 1 are Flink's StringValue encoding; pin it too
        assertEquals("0368e901", stringValueHex("hé"));
        assertEquals("00", stringValueHex(null));
        assertEquals("01", stringValueHex(""));
        assertArrayEquals(new byte[] {3, '{', '}'}, HexFormat.of().parseHex(stringValueHex("{}")));
    }
}
