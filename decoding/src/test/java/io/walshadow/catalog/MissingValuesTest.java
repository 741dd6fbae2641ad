package io.walshadow.catalog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Send-format parsing and conversion; the byte-for-byte check against PostgreSQL is the operators'
 * JdbcCatalogSourceMissingValueIT.
 */
class MissingValuesTest {
    static byte[] hex(String h) {
        return HexFormat.of().parseHex(h);
    }

    /** array_send of a one-element array of {@code elemType} holding {@code elem}. */
    static byte[] arraySend(int elemType, byte[] elem) {
        ByteBuffer b = ByteBuffer.allocate(24 + (elem == null ? 0 : elem.length));
        b.putInt(1).putInt(elem == null ? 1 : 0).putInt(elemType).putInt(1).putInt(1);
        if (elem == null) {
            b.putInt(-1);
        } else {
            b.putInt(elem.length).put(elem);
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    @Test
    void fromRealArraySend() {
        // SELECT array_send(attmissingval) for DEFAULT 12.5 (numeric), 'hi' (text), 7 (int4), from the server
        assertArrayEquals(hex("30000000" + "0100" + "0000" + "0c00" + "8813"),
                MissingValues.toDisk(hex("0000000100000000000006a400000001000000010000000c0002000000000001000c1388"),
                        1700, -1, true));
        assertArrayEquals(hex("18000000" + "6869"),
                MissingValues.toDisk(hex("0000000100000000000000190000000100000001000000026869"), 25, -1, true));
        assertArrayEquals(hex("07000000"),
                MissingValues.toDisk(hex("00000001000000000000001700000001000000010000000400000007"), 23, 4, true));
    }

    @Test
    void fixedWidth() {
        assertArrayEquals(hex("fdff"), MissingValues.toDisk(arraySend(21, hex("fffd")), 21, 2, true));
        assertArrayEquals(hex("0807060504030201"),
                MissingValues.toDisk(arraySend(20, hex("0102030405060708")), 20, 8, true));
        assertArrayEquals(hex("01"), MissingValues.toDisk(arraySend(16, hex("01")), 16, 1, true));
        assertArrayEquals(hex("0807060504030201" + "0c0b0a09"),
                MissingValues.toDisk(arraySend(1266, hex("0102030405060708090a0b0c")), 1266, 12, true));
        assertArrayEquals(hex("0807060504030201" + "0c0b0a09" + "100f0e0d"),
                MissingValues.toDisk(arraySend(1186, hex("0102030405060708090a0b0c0d0e0f10")), 1186, 16, true));
    }

    @Test
    void numericSpecialsAndZero() {
        assertArrayEquals(hex("18000000" + "00c0"),
                MissingValues.toDisk(arraySend(1700, hex("00000000c0000000")), 1700, -1, true));
        // zero with dscale 2: no digits
        assertArrayEquals(hex("20000000" + "0200" + "0000"),
                MissingValues.toDisk(arraySend(1700, hex("0000000000000002")), 1700, -1, true));
        // -1.5: digits 1, 5000; weight 0; NEG; dscale 1
        assertArrayEquals(hex("30000000" + "0140" + "0000" + "0100" + "8813"),
                MissingValues.toDisk(arraySend(1700, hex("0002" + "0000" + "4000" + "0001" + "0001" + "1388")),
                        1700, -1, true));
    }

    @Test
    void unresolvedAndAbsent() {
        assertNull(MissingValues.toDisk(null, 23, 4, true));
        assertNull(MissingValues.toDisk(arraySend(23, null), 23, 4, true));
        assertSame(Column.UNRESOLVED_MISSING, MissingValues.toDisk(arraySend(3802, hex("017b7d")), 3802, -1, true));
        assertSame(Column.UNRESOLVED_MISSING, MissingValues.toDisk(arraySend(25, hex("6869")), 25, -1, false),
                "text in a server encoding other than UTF8 / SQL_ASCII");
        assertSame(Column.UNRESOLVED_MISSING, MissingValues.toDisk(arraySend(23, hex("0007")), 23, 4, true),
                "wrong width");
        assertSame(Column.UNRESOLVED_MISSING, MissingValues.toDisk(hex("00000001"), 23, 4, true), "truncated");
    }
}
