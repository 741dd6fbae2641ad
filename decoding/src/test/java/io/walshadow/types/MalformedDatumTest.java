package io.walshadow.types;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PgType;
import io.walshadow.wal.Bytes;
import java.math.BigDecimal;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Hand-made datums: header forms and slicing, and corrupt bytes that must fail with a typed exception. */
class MalformedDatumTest {
    private final ValueDecoder dec = new ValueDecoder(null);

    private static byte[] hex(String h) {
        return HexFormat.of().parseHex(h.replace(" ", ""));
    }

    private Object decode(int oid, byte[] b) {
        return dec.decode(oid, -1, b, 0, b.length);
    }

    private MalformedDatumException malformed(int oid, String hex) {
        return assertThrows(MalformedDatumException.class, () -> decode(oid, hex(hex)));
    }

    /** A 4-byte-header varlena around {@code payload}. */
    private static byte[] varlena4(byte[] payload) {
        byte[] out = new byte[4 + payload.length];
        Bytes.putInt32(out, 0, out.length << 2);
        System.arraycopy(payload, 0, out, 4, payload.length);
        return out;
    }

    @Test
    void headerForms() {
        assertEquals("abc", decode(Oids.TEXT, hex("09 616263")));          // 1-byte header: (4 << 1) | 1
        assertEquals("", decode(Oids.TEXT, hex("03")));                    // empty, 1-byte header
        assertEquals("abc", decode(Oids.TEXT, varlena4("abc".getBytes()))); // 4-byte header
        assertEquals("", decode(Oids.TEXT, hex("10000000")));              // empty, 4-byte header
        // a datum in the middle of a larger buffer: only its slice is read
        byte[] page = hex("ffff 09 616263 ffff");
        assertEquals("abc", dec.decode(Oids.TEXT, -1, page, 2, 4));
        assertEquals("abc", dec.decode(Oids.TEXT, -1, new Datum(page, 2, 4)));
        // fixed length, by value and by reference
        assertEquals(-2, decode(Oids.INT4, hex("feffffff")));
        assertEquals(new PgMacaddr(hex("08002b010203")), decode(Oids.MACADDR, hex("08002b010203")));
        byte[] name = new byte[64];
        name[0] = 'n';
        assertEquals("n", decode(Oids.NAME, name));
        // numeric 1.5 = NumericShort: header 0x8000 | dscale 1 << 7, weight 0; digits 1, 5000
        assertEquals(PgNumeric.of(new BigDecimal("1.5")), decode(Oids.NUMERIC, hex("0f 8080 0100 8813")));
        assertEquals(PgNumeric.NAN, decode(Oids.NUMERIC, hex("07 00c0")));
    }

    @Test
    void toastPointer() {
        // 0x01, VARTAG_ONDISK, va_rawsize 10004, va_extinfo (lz4 << 30) | 3000, va_valueid 77, va_toastrelid 16400
        byte[] b = hex("01 12" + "14270000" + "b80b0040" + "4d000000" + "10400000");
        ToastPointer p = (ToastPointer) decode(Oids.TEXT, b);
        assertEquals(new ToastPointer(77, 16400, 10004, 3000, ToastPointer.Compression.LZ4), p);
        assertTrue(p.isCompressed());
        assertEquals(10000, p.payloadSize());
        assertThrows(MalformedDatumException.class, () -> p.toVarlena(new byte[10]));
        byte[] v = p.toVarlena(new byte[3000]);
        assertEquals((3004 << 2) | 2, Bytes.int32(v, 0)); // flagged compressed
        // uncompressed: stored size is the raw size minus the header
        ToastPointer u = (ToastPointer) decode(Oids.BYTEA, hex("01 12" + "14270000" + "10270000" + "4d000000" + "10400000"));
        assertEquals(ToastPointer.Compression.NONE, u.compression());
        assertEquals(10004 << 2, Bytes.int32(u.toVarlena(new byte[10000]), 0));
        malformed(Oids.TEXT, "01 01 0000000000000000");                   // VARTAG_INDIRECT is in-memory only
        malformed(Oids.TEXT, "01 12 14270000b80b0040");                   // truncated
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> dec.toText(Oids.TEXT, -1, p));
        assertTrue(e.getMessage().contains("TOAST"));
    }

    @Test
    void corruptVarlenas() {
        malformed(Oids.TEXT, "0b 6162");                        // 1-byte header says 5 bytes, 3 given
        malformed(Oids.TEXT, "40000000 61");                    // 4-byte header says 16 bytes
        malformed(Oids.TEXT, "0400");                           // truncated 4-byte header
        malformed(Oids.TEXT, "0c000000");                       // 4-byte header with size 3
        malformed(Oids.TEXT, "");                               // nothing
        malformed(Oids.TEXT, "2a000000 05000080 0102");         // compression method id 2
        malformed(Oids.TEXT, "2a000000 05000000 ffff");         // corrupt pglz
        malformed(Oids.TEXT, "2a000000 05000040 ffff");         // corrupt lz4
        malformed(Oids.TEXT, "2a000000 ffffff00 0102");         // absurd raw size for 2 compressed bytes
        malformed(Oids.INT4, "010203");                         // fixed length mismatch
        malformed(Oids.INT8, "0102030405060708 09");
    }

    @Test
    void corruptScalars() {
        malformed(Oids.NUMERIC, "03");                          // no header word
        malformed(Oids.NUMERIC, "0d 8080 0100 88");             // odd digit bytes
        malformed(Oids.NUMERIC, "0f 8080 0100 1027");           // digit 10000
        malformed(Oids.NUMERIC, "07 00e0");                     // special 0xE000
        malformed(Oids.NUMERIC, "0b 00c0 0100");                // NaN with digits
        malformed(Oids.TIME, "0100000000000080");               // negative time of day
        malformed(Oids.TIME, "01c0d2a2140000 00".replace(" ", "")); // after 24:00:00
        malformed(Oids.INET, "0f 0420 c0a80001");               // family 4
        malformed(Oids.INET, "0d 0220 c0a800");                 // short address
        malformed(Oids.INET, "0f 0221 c0a80001");               // /33
        malformed(Oids.VARBIT, "0d 09000000 ff");               // 9 bits in 1 byte
    }

    @Test
    void corruptJsonb() {
        malformed(Oids.JSONB, "09 000000");                     // container header truncated
        malformed(Oids.JSONB, "0b 01000000");                   // neither object nor array
        malformed(Oids.JSONB, "0b 01000040");                   // array of 1 without its entry
        malformed(Oids.JSONB, "13 01000040 05000000");          // entry longer than the data area
        malformed(Oids.JSONB, "13 01000070 00000000");          // object and array at once
        assertEquals(new PgJsonb("[\"ab\"]"), decode(Oids.JSONB, hex("17 01000040 02000000 6162")));
        assertEquals(new PgJsonb("null"), decode(Oids.JSONB, hex("13 01000050 00000040")));
    }

    @Test
    void corruptArraysAndRecords() {
        Map<Integer, PgType> types = Map.of(
                1007, new PgType(1007, "pg_catalog", "_int4", -1, false, 'i', 'b', 'A', Oids.INT4, 0, -1, 0, Map.of()),
                9001, new PgType(9001, "public", "mood", 4, true, 'i', 'e', 'E', 0, 0, -1, 0, Map.of(9100, "ok")),
                9002, new PgType(9002, "public", "pair", -1, false, 'd', 'c', 'C', 0, 0, -1, 9003, Map.of()));
        List<Column> pair = List.of(
                new Column(1, "a", Oids.INT4, -1, 4, 'i', true, 'p', false, false, null),
                new Column(2, "gone", 0, -1, 8, 'd', true, 'p', true, false, null),
                new Column(3, "b", Oids.TEXT, -1, -1, 'i', false, 'x', false, false, null));
        ValueDecoder d = new ValueDecoder(new MapTypeCatalog(types, Map.of(9003, pair)));
        // int4[] {7}: ndim 1, dataoffset 0, elemtype 23, dim 1, lbound 1, then data at MAXALIGN(16 + 8) = 24
        byte[] ok = varlena4(hex("01000000 00000000 17000000 01000000 01000000 07000000"));
        PgArray a = (PgArray) d.decode(1007, -1, ok, 0, ok.length);
        assertArrayEquals(new Object[] {7}, a.elements());
        assertEquals("{7}", d.toText(1007, -1, a));
        byte[][] bad = {
            varlena4(hex("07000000 00000000 17000000")),                                     // 7 dimensions
            varlena4(hex("01000000 00000000 17000000 00000000 01000000 00000000")),            // dimension of 0
            varlena4(hex("01000000 00000000 17000000 02000000 01000000 07000000")),            // 2 elements, 1 given
            varlena4(hex("01000000 10000000 17000000 01000000 01000000")),                     // dataoffset too small
            varlena4(hex("01000000 00000000 17000000")),                                     // dims truncated
        };
        for (byte[] b : bad) {
            assertThrows(MalformedDatumException.class, () -> d.decode(1007, -1, b, 0, b.length),
                    HexFormat.of().formatHex(b));
        }
        assertEquals("ok", d.decode(9001, -1, hex("8c230000"), 0, 4));
        assertThrows(MalformedDatumException.class, () -> d.decode(9001, -1, hex("8d230000"), 0, 4));
        // pair (a int4, [dropped int8], b text) = (5, <dropped>, 'x'): HeapTupleHeader with t_hoff 24, 3 attributes
        byte[] rec = varlena4(hex("ffffffff 2a230000 000000000000 0300 0000 18 00"
                + "05000000 00000000 0102030405060708 05 78"));
        PgRecord r = (PgRecord) d.decode(9002, -1, rec, 0, rec.length);
        assertEquals(List.of("a", "b"), r.fields().stream().map(PgRecord.Field::name).toList());
        assertEquals(5, r.get("a"));
        assertEquals("x", r.get("b"));
        assertEquals("(5,x)", d.toText(9002, -1, r));
        byte[] tooMany = varlena4(hex("ffffffff 2a230000 000000000000 0400 0000 18 00 05000000"));
        assertThrows(MalformedDatumException.class, () -> d.decode(9002, -1, tooMany, 0, tooMany.length));
        byte[] truncated = varlena4(hex("ffffffff 2a230000 000000000000 0300 0000 18 00 05000000 00000000 0102"));
        assertThrows(MalformedDatumException.class, () -> d.decode(9002, -1, truncated, 0, truncated.length));
    }

    /** A tsquery datum: {@code items} 12-byte QueryItems (as {@link #operand} / {@link #operator} make), then operands. */
    private static byte[] tsquery(byte[][] items, String operands) {
        byte[] ops = operands.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] payload = new byte[4 + 12 * items.length + ops.length];
        Bytes.putInt32(payload, 0, items.length);
        for (int i = 0; i < items.length; i++) {
            System.arraycopy(items[i], 0, payload, 4 + 12 * i, 12);
        }
        System.arraycopy(ops, 0, payload, 4 + 12 * items.length, ops.length);
        return varlena4(payload);
    }

    private static byte[] operand(int len, int at) {
        byte[] b = new byte[12];
        b[0] = 1;
        Bytes.putInt32(b, 8, len | at << 12);
        return b;
    }

    private static byte[] operator(int oper, int left) {
        byte[] b = new byte[12];
        b[0] = 2;
        b[1] = (byte) oper;
        Bytes.putInt32(b, 4, left);
        return b;
    }

    @Test
    void tsqueryTrees() {
        // 'a' & 'b': the operator, its right operand next, its left one two items on
        assertEquals("'a' & 'b'", decode(Oids.TSQUERY, tsquery(new byte[][] {operator(2, 2), operand(1, 2),
                operand(1, 0)}, "a\0b\0")));
        // a left-deep chain far deeper than a recursive printer's stack: printed without recursion
        int n = 100_000;
        byte[][] chain = new byte[2 * n - 1][];
        for (int i = 0; i < n - 1; i++) {
            chain[2 * i] = operator(2, 2);
            chain[2 * i + 1] = operand(1, 0);
        }
        chain[2 * n - 2] = operand(1, 0);
        String text = (String) decode(Oids.TSQUERY, tsquery(chain, "a\0"));
        assertEquals(n * 3 + (n - 1) * 3, text.length());
        assertTrue(text.startsWith("'a' & 'a' & 'a'") && text.endsWith("'a' & 'a'"), text.substring(0, 20));
        // corrupt: a left pointer the tree disagrees with, an operator short of operands, two trees, an unknown
        // operator or item type, an operand past its area or not NUL-terminated
        List<byte[]> corrupt = List.of(
                tsquery(new byte[][] {operator(2, 1), operand(1, 2), operand(1, 0)}, "a\0b\0"),
                tsquery(new byte[][] {operand(1, 0), operator(1, 0)}, "a\0"),
                tsquery(new byte[][] {operator(2, 2), operand(1, 0)}, "a\0"),
                tsquery(new byte[][] {operand(1, 0), operand(1, 0)}, "a\0"),
                tsquery(new byte[][] {operator(5, 0), operand(1, 0)}, "a\0"),
                tsquery(new byte[][] {new byte[12]}, "a\0"),
                tsquery(new byte[][] {operand(1, 2)}, "a\0"),
                tsquery(new byte[][] {operand(2, 0)}, "ab"));
        for (byte[] b : corrupt) {
            MalformedDatumException e = assertThrows(MalformedDatumException.class, () -> decode(Oids.TSQUERY, b),
                    HexFormat.of().formatHex(b));
            assertTrue(e.getMessage().contains("tsquery"), e.getMessage());
        }
    }

    @Test
    void aclitemPrivilegeBits() {
        // grantee 0 (PUBLIC), grantor 10, SELECT (bit 1) with grant option (bit 17), ALTER SYSTEM (bit 13)
        assertEquals("=r*A/10", decode(Oids.ACLITEM, hex("00000000 0a000000 02200200")));
        assertEquals("4294967295=/1", decode(Oids.ACLITEM, hex("ffffffff 01000000 00000000")));
        // bit 14 (MAINTAIN from PostgreSQL 17) cannot be in a PostgreSQL 15 aclitem
        assertTrue(malformed(Oids.ACLITEM, "00000000 0a000000 00400000").getMessage().contains("aclitem"));
        malformed(Oids.ACLITEM, "00000000 0a000000 00000040");
        malformed(Oids.ACLITEM, "00000000 0a000000 000000"); // 11 bytes
    }

    @Test
    void multirangesAndRangesOfOnesOwn() {
        // int4multirange {[1,3),[7,9)}: type oid 4451, 2 ranges, 1 item (the first range's bounds are 8 bytes),
        // flags [ and [, padding to the subtype's 4-byte alignment, then the bounds
        byte[] mr = varlena4(hex("63110000 02000000 08000000 0202 0000 01000000 03000000 07000000 09000000"));
        assertEquals("{[1,3),[7,9)}", decode(4451, mr));
        assertEquals("{}", decode(4451, varlena4(hex("63110000 00000000"))));
        byte[][] bad = {
            varlena4(hex("63110000 02000000 08000000 0102 0000 01000000 03000000 07000000 09000000")), // empty range
            varlena4(hex("63110000 ff000000 08000000")),                                              // 255 ranges
            varlena4(hex("63110000 02000000 ff000000 0202 0000 01000000 03000000 07000000 09000000")), // far offset
            varlena4(hex("63110000 02000000 04000000 0202 0000 01000000 03000000 07000000 09000000")), // overlap
            varlena4(hex("63110000")),                                                                // truncated
        };
        for (byte[] b : bad) {
            assertThrows(MalformedDatumException.class, () -> decode(4451, b), HexFormat.of().formatHex(b));
        }
        Map<Integer, PgType> types = Map.of(
                9011, new PgType(9011, "s", "floatrange", -1, false, 'd', 'r', 'R', 0, 0, -1, 0, Map.of(), 701, 0),
                9012, new PgType(9012, "s", "floatmultirange", -1, false, 'd', 'm', 'R', 0, 0, -1, 0, Map.of(), 0,
                        9011),
                4072, new PgType(4072, "pg_catalog", "jsonpath", -1, false, 'i', 'b', 'U', 0, 0, -1, 0, Map.of()),
                9013, new PgType(9013, "s", "pathrange", -1, false, 'i', 'r', 'R', 0, 0, -1, 0, Map.of(), 4072, 0),
                9014, new PgType(9014, "s", "pathmultirange", -1, false, 'i', 'm', 'R', 0, 0, -1, 0, Map.of(), 0,
                        9013),
                9015, new PgType(9015, "s", "unknownrange", -1, false, 'd', 'r', 'R', 0, 0, -1, 0, Map.of()));
        ValueDecoder d = new ValueDecoder(new MapTypeCatalog(types, Map.of()));
        // floatrange [1.5,2.5): range type oid, the bounds (8-aligned from the datum's start), flags
        byte[] fr = varlena4(hex("33230000 000000000000f83f 0000000000000440 02"));
        assertEquals("[1.5,2.5)", d.decode(9011, -1, fr, 0, fr.length));
        byte[] fm = varlena4(hex("34230000 01000000 02 000000 000000000000f83f 0000000000000440"));
        assertEquals("{[1.5,2.5)}", d.decode(9012, -1, fm, 0, fm.length));
        UnsupportedTypeException e = assertThrows(UnsupportedTypeException.class, () -> d.decode(9014, -1, fm, 0,
                fm.length));
        assertTrue(e.getMessage().contains("s.pathmultirange") && e.getMessage().contains("s.pathrange")
                && e.getMessage().contains("jsonpath"), e.getMessage());
        e = assertThrows(UnsupportedTypeException.class, () -> d.decode(9015, -1, fr, 0, fr.length));
        assertTrue(e.getMessage().contains("s.unknownrange") && e.getMessage().contains("pg_range"), e.getMessage());
    }

    /** contrib isn: an EAN of more than 13 digits or a datum not 8 bytes long is refused, as ean2string does. */
    @Test
    void isnOutOfRange() {
        assertEquals("0306406152!", IsnCodec.text(9_780_306_406_157L << 1 | 1, true)); // ISBN 0-306-40615-2
        assertEquals("9999999999994", IsnCodec.text(9_999_999_999_994L << 1, true));
        assertThrows(MalformedDatumException.class, () -> IsnCodec.text(10_000_000_000_000L << 1, false));
        assertThrows(MalformedDatumException.class, () -> IsnCodec.text(-1L, true));
        assertThrows(MalformedDatumException.class, () -> IsnCodec.text(new byte[4], 0, 4, false));
    }

    @Test
    void toTextArguments() {
        assertNull(dec.toText(Oids.INT4, -1, null));
        // a String is the type's text output already (the initial snapshot's values of types it keeps as text)
        assertEquals("1", dec.toText(Oids.INT4, -1, "1"));
        assertThrows(IllegalArgumentException.class, () -> dec.toText(Oids.INT4, -1, 1.5d));
        assertThrows(IllegalArgumentException.class, () -> dec.toText(Oids.NUMERIC, -1, BigDecimal.ONE));
        assertEquals("t", dec.toText(Oids.BOOL, -1, true));
        assertThrows(MalformedDatumException.class, () -> dec.decode(Oids.INT4, -1, new byte[4], 2, 4));
    }
}
