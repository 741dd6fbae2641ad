package io.walshadow.compress;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.testing.LocalPg;
import io.walshadow.wal.Bytes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link Pglz} against data PostgreSQL itself compressed: text values stored inline-compressed with pglz
 * ({@code STORAGE MAIN}, {@code COMPRESSION pglz}) are read raw from the heap page with {@code pageinspect}
 * ({@code heap_page_items} + {@code tuple_data_split}, which return attribute bytes as stored, varlena header
 * included, without detoasting), decompressed here, and compared with the value {@code SELECT} returns. Plus
 * hand-made streams for each rule of the format and corrupt input.
 */
class PglzIT {
    private static final String TABLE = "walshadow_pglz_test";

    /** id -> SQL expression; each compresses by pglz's default strategy and stays inline under STORAGE MAIN. */
    private static final Map<Integer, String> VALUES = new LinkedHashMap<>();

    static {
        VALUES.put(1, "repeat('abc', 2000)");
        VALUES.put(2, "repeat('abc', 20000)");
        VALUES.put(3, "repeat('The quick brown fox jumps over the lazy dog. ', 200)");
        // Varied runs: many short matches and literals.
        VALUES.put(4, "(SELECT string_agg(g || ':' || repeat(chr(65 + g % 26), g % 50), ',') FROM generate_series(1, 400) g)");
        // A 2 kB random-looking block repeated: back-references 2048 bytes back.
        VALUES.put(5, "repeat('x', 200) || (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 64) g)"
                + " || (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 64) g)");
        // A 4000-byte block repeated: offsets close to the 4095 limit (12-bit offsets).
        VALUES.put(6, "repeat('y', 300) || (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 125) g)"
                + " || (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 125) g)");
        // Literal stretches (hex) between matches (dashes): exercises mixed control bytes.
        VALUES.put(7, "(SELECT string_agg(md5(g::text) || repeat('-', 30), '') FROM generate_series(1, 200) g)");
        // 480 kB: long runs of maximal (273-byte) matches; compressed it still fits in the page.
        VALUES.put(8, "repeat('abcdefgh', 60000)");
        // Multi-byte UTF-8.
        VALUES.put(9, "repeat('ünïcødé ✓ ', 500)");
        // Barely compressible: pglz must reach 25% savings; md5 hex halves repeat every other row.
        VALUES.put(10, "(SELECT string_agg(md5((g / 2)::text), '') FROM generate_series(1, 200) g)");
    }

    /** id -> the compressed datum as stored (varlena header included). */
    private static final Map<Integer, byte[]> STORED = new LinkedHashMap<>();
    /** id -> the value's bytes as SELECT returns them. */
    private static final Map<Integer, byte[]> EXPECTED = new LinkedHashMap<>();

    @BeforeAll
    static void storeValues() throws Exception {
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c,
                    "CREATE EXTENSION IF NOT EXISTS pageinspect",
                    "DROP TABLE IF EXISTS " + TABLE,
                    "CREATE TABLE " + TABLE + " (id int, v text COMPRESSION pglz)",
                    "ALTER TABLE " + TABLE + " ALTER COLUMN v SET STORAGE MAIN");
            for (Map.Entry<Integer, String> e : VALUES.entrySet()) {
                LocalPg.exec(c, "INSERT INTO " + TABLE + " VALUES (" + e.getKey() + ", " + e.getValue() + ")");
            }
            try (Statement st = c.createStatement()) {
                try (ResultSet rs = st.executeQuery("SELECT id, textsend(v) FROM " + TABLE)) {
                    while (rs.next()) {
                        EXPECTED.put(rs.getInt(1), rs.getBytes(2));
                    }
                }
                // Raw attribute bytes straight from the heap pages: no detoasting, no decompression.
                try (ResultSet rs = st.executeQuery("SELECT a[1], a[2] FROM ("
                        + " SELECT tuple_data_split('" + TABLE + "'::regclass, t_data, t_infomask, t_infomask2, t_bits) a"
                        + " FROM generate_series(0, (pg_relation_size('" + TABLE + "') / 8192)::int - 1) blk,"
                        + " LATERAL heap_page_items(get_raw_page('" + TABLE + "', blk)) WHERE t_data IS NOT NULL) s")) {
                    while (rs.next()) {
                        STORED.put(Bytes.int32(rs.getBytes(1), 0), rs.getBytes(2));
                    }
                }
            }
            LocalPg.exec(c, "DROP TABLE " + TABLE);
        }
        assertEquals(VALUES.keySet(), EXPECTED.keySet());
        assertEquals(VALUES.keySet(), STORED.keySet());
    }

    /** A pglz-compressed inline varlena: 4-byte header with the compressed bit, then va_tcinfo, then pglz data. */
    private record Compressed(int rawSize, byte[] data) {
        static Compressed of(int id, byte[] datum) {
            int header = Bytes.int32(datum, 0);
            if ((header & 0x03) != 0x02) {
                fail("value " + id + " is not stored as an inline compressed varlena (header byte 0x"
                        + Integer.toHexString(datum[0] & 0xFF) + ")");
            }
            int size = header >>> 2;
            assertEquals(datum.length, size, "VARSIZE of value " + id);
            int tcinfo = Bytes.int32(datum, 4);
            assertEquals(0, tcinfo >>> 30, "compression method of value " + id + " (0 = pglz)");
            return new Compressed(tcinfo & 0x3FFFFFFF, Arrays.copyOfRange(datum, 8, size));
        }
    }

    @Test
    void decompressesWhatPostgresCompressed() {
        for (int id : VALUES.keySet()) {
            byte[] expected = EXPECTED.get(id);
            Compressed z = Compressed.of(id, STORED.get(id));
            assertEquals(expected.length, z.rawSize(), "rawsize of value " + id);
            assertTrue(z.data().length < expected.length * 3 / 4, "value " + id + " is really compressed");
            byte[] out = new byte[z.rawSize()];
            int n = Pglz.decompress(z.data(), 0, z.data().length, out, 0, z.rawSize(), true);
            assertEquals(z.rawSize(), n);
            assertArrayEquals(expected, out, "value " + id);
        }
    }

    @Test
    void decompressesAtOffsetsWithoutTouchingNeighbouringBytes() {
        for (int id : VALUES.keySet()) {
            Compressed z = Compressed.of(id, STORED.get(id));
            // Source inside a larger array, at an odd offset; destination with guard bytes on both sides.
            byte[] src = new byte[z.data().length + 20];
            Arrays.fill(src, (byte) 0x77);
            System.arraycopy(z.data(), 0, src, 13, z.data().length);
            byte[] dst = new byte[z.rawSize() + 64];
            Arrays.fill(dst, (byte) 0x5A);
            int n = Pglz.decompress(src, 13, z.data().length, dst, 31, z.rawSize(), true);
            assertEquals(z.rawSize(), n);
            assertArrayEquals(EXPECTED.get(id), Arrays.copyOfRange(dst, 31, 31 + n), "value " + id);
            assertGuards(dst, 31, n, (byte) 0x5A);
        }
    }

    @Test
    void prefixDecodeWithoutCheckComplete() {
        // What pglz_decompress_datum_slice does: ask for a prefix, input not consumed completely.
        for (int id : VALUES.keySet()) {
            Compressed z = Compressed.of(id, STORED.get(id));
            byte[] expected = EXPECTED.get(id);
            for (int len : new int[] {1, 3, 100, 1000, z.rawSize() / 2, z.rawSize() - 1}) {
                byte[] out = new byte[len];
                int n = Pglz.decompress(z.data(), 0, z.data().length, out, 0, len, false);
                assertEquals(len, n, "prefix " + len + " of value " + id);
                assertArrayEquals(Arrays.copyOf(expected, len), out, "prefix " + len + " of value " + id);
                // The same request with check_complete: the input is not used up, so it is an error. (Not for
                // rawSize - 1: when the last item is a back-reference, clipping it consumes all the input, and
                // pglz_decompress accepts that too.)
                if (len <= z.rawSize() / 2) {
                    assertThrows(Pglz.CorruptDataException.class,
                            () -> Pglz.decompress(z.data(), 0, z.data().length, new byte[len], 0, len, true));
                }
            }
        }
    }

    @Test
    void checkCompleteRequiresTheExactSize() {
        for (int id : VALUES.keySet()) {
            Compressed z = Compressed.of(id, STORED.get(id));
            byte[] expected = EXPECTED.get(id);
            // Expecting more output than the data holds: the input runs out first.
            byte[] big = new byte[z.rawSize() + 10];
            Pglz.CorruptDataException e = assertThrows(Pglz.CorruptDataException.class,
                    () -> Pglz.decompress(z.data(), 0, z.data().length, big, 0, z.rawSize() + 10, true));
            assertTrue(e.getMessage().contains(String.valueOf(z.rawSize())), e.getMessage());
            // Without check_complete the same call returns how much there was, all of it right.
            int n = Pglz.decompress(z.data(), 0, z.data().length, big, 0, z.rawSize() + 10, false);
            assertEquals(z.rawSize(), n);
            assertArrayEquals(expected, Arrays.copyOf(big, n));
        }
    }

    @Test
    void truncatedInput() {
        for (int id : VALUES.keySet()) {
            Compressed z = Compressed.of(id, STORED.get(id));
            byte[] expected = EXPECTED.get(id);
            for (int cut : new int[] {1, 2, 3, z.data().length / 2}) {
                int srcLen = z.data().length - cut;
                byte[] out = new byte[z.rawSize()];
                assertThrows(Pglz.CorruptDataException.class,
                        () -> Pglz.decompress(z.data(), 0, srcLen, out, 0, z.rawSize(), true), "cut " + cut);
                // Without check_complete: a shorter, correct prefix, or an error if the cut splits a back-reference.
                try {
                    int n = Pglz.decompress(z.data(), 0, srcLen, out, 0, z.rawSize(), false);
                    assertTrue(n < z.rawSize());
                    assertArrayEquals(Arrays.copyOf(expected, n), Arrays.copyOf(out, n));
                } catch (Pglz.CorruptDataException expectedForSplitTag) {
                    assertTrue(expectedForSplitTag.getMessage().contains("truncated"), expectedForSplitTag.getMessage());
                }
            }
        }
    }

    @Test
    void corruptedRealDataFailsCleanly() {
        // Flipped bytes either decode to something (pglz has no checksum) or raise CorruptDataException: never an
        // exception of another kind, never a write outside the destination range.
        Random rnd = new Random(42);
        int corrupt = 0, decoded = 0;
        for (int id : VALUES.keySet()) {
            Compressed z = Compressed.of(id, STORED.get(id));
            int tries = Math.min(300, z.data().length);
            for (int t = 0; t < tries; t++) {
                byte[] src = z.data().clone();
                int pos = t < 40 ? t : rnd.nextInt(src.length);
                src[pos] ^= (byte) (1 << rnd.nextInt(8));
                byte[] dst = new byte[z.rawSize() + 32];
                Arrays.fill(dst, (byte) 0x33);
                try {
                    int n = Pglz.decompress(src, 0, src.length, dst, 16, z.rawSize(), rnd.nextBoolean());
                    assertTrue(n >= 0 && n <= z.rawSize());
                    decoded++;
                } catch (Pglz.CorruptDataException e) {
                    corrupt++;
                }
                assertGuards(dst, 16, z.rawSize(), (byte) 0x33);
            }
        }
        assertTrue(corrupt > 0, "some corruptions are detected");
        assertTrue(decoded + corrupt > 1000);
    }

    private static void assertGuards(byte[] dst, int off, int len, byte guard) {
        for (int i = 0; i < off; i++) {
            assertEquals(guard, dst[i], "byte before the destination range at " + i);
        }
        for (int i = off + len; i < dst.length; i++) {
            assertEquals(guard, dst[i], "byte after the destination range at " + i);
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Hand-made streams
    // ------------------------------------------------------------------------------------------------

    /** Builds pglz streams item by item: a control byte announces the next eight items, LSB first. */
    private static final class Stream {
        private byte[] buf = new byte[64];
        private int len;
        private int ctrlPos;
        private int items;

        private void put(int b) {
            if (len == buf.length) {
                buf = Arrays.copyOf(buf, len * 2);
            }
            buf[len++] = (byte) b;
        }

        private void item(boolean ref, int... bytes) {
            if (items % 8 == 0) {
                ctrlPos = len;
                put(0);
            }
            if (ref) {
                buf[ctrlPos] |= (byte) (1 << (items % 8));
            }
            for (int b : bytes) {
                put(b);
            }
            items++;
        }

        Stream literal(String s) {
            for (char ch : s.toCharArray()) {
                item(false, ch);
            }
            return this;
        }

        /** A back-reference: copy {@code len} (3..273) bytes from {@code off} (1..4095) back. */
        Stream ref(int off, int len) {
            if (len >= 18) {
                item(true, ((off >> 4) & 0xF0) | 0x0F, off & 0xFF, len - 18);
            } else {
                item(true, ((off >> 4) & 0xF0) | (len - 3), off & 0xFF);
            }
            return this;
        }

        byte[] bytes() {
            return Arrays.copyOf(buf, len);
        }
    }

    private static String decode(byte[] src, int rawSize) {
        byte[] out = new byte[rawSize];
        int n = Pglz.decompress(src, 0, src.length, out, 0, rawSize, true);
        return new String(out, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    @Test
    void literalsAndReferences() {
        assertEquals("abcdefgh", decode(new Stream().literal("abcdefgh").bytes(), 8));
        assertEquals("abcdefghi", decode(new Stream().literal("abcdefghi").bytes(), 9)); // second control byte
        assertEquals("abcabcabc", decode(new Stream().literal("abc").ref(3, 6).bytes(), 9)); // overlapping copy
        assertEquals("a".repeat(11), decode(new Stream().literal("a").ref(1, 10).bytes(), 11)); // run-length
        assertEquals("xy" + "xy".repeat(9), decode(new Stream().literal("xy").ref(2, 18).bytes(), 20)); // len 18
        assertEquals("q".repeat(274), decode(new Stream().literal("q").ref(1, 273).bytes(), 274)); // max length
        assertEquals("hello, hello", decode(new Stream().literal("hello, ").ref(7, 5).bytes(), 12));
        // The offset may reach back to the very first byte written.
        assertEquals("abcdabc", decode(new Stream().literal("abcd").ref(4, 3).bytes(), 7));
        // 12-bit offsets: 4095 back.
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 4095; i++) {
            sb.append((char) ('a' + i % 26));
        }
        String s = sb.toString();
        assertEquals(s + s.substring(0, 10), decode(new Stream().literal(s).ref(4095, 10).bytes(), 4105));
    }

    @Test
    void referenceLongerThanTheRequestedOutputIsClipped() {
        byte[] src = new Stream().literal("ab").ref(2, 100).bytes();
        byte[] out = new byte[10];
        assertEquals(10, Pglz.decompress(src, 0, src.length, out, 0, 10, true)); // input used up, output full
        assertEquals("ababababab", new String(out, java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    @Test
    void offsetBeyondTheOutputWritten() {
        byte[] src = new Stream().literal("abc").ref(4, 3).bytes();
        Pglz.CorruptDataException e = assertThrows(Pglz.CorruptDataException.class,
                () -> Pglz.decompress(src, 0, src.length, new byte[6], 0, 6, true));
        assertTrue(e.getMessage().contains("offset 4"), e.getMessage());
        // As the very first item.
        byte[] first = new Stream().ref(1, 3).bytes();
        assertThrows(Pglz.CorruptDataException.class, () -> Pglz.decompress(first, 0, first.length, new byte[3], 0, 3, false));
        // The check is relative to the destination offset: bytes before dstOff are not history.
        byte[] dst = new byte[20];
        Arrays.fill(dst, (byte) 'z');
        assertThrows(Pglz.CorruptDataException.class, () -> Pglz.decompress(src, 0, src.length, dst, 10, 6, true));
    }

    @Test
    void offsetZero() {
        byte[] src = new Stream().literal("abc").ref(1, 3).bytes();
        src[src.length - 1] = 0; // offset low byte; high nibble is 0
        assertThrows(Pglz.CorruptDataException.class, () -> Pglz.decompress(src, 0, src.length, new byte[6], 0, 6, true));
    }

    @Test
    void truncatedReference() {
        byte[] two = new Stream().literal("abc").ref(3, 3).bytes();
        byte[] cut = Arrays.copyOf(two, two.length - 1); // tag without its offset byte
        Pglz.CorruptDataException e = assertThrows(Pglz.CorruptDataException.class,
                () -> Pglz.decompress(cut, 0, cut.length, new byte[6], 0, 6, false));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        byte[] three = new Stream().literal("abc").ref(3, 30).bytes();
        byte[] cut3 = Arrays.copyOf(three, three.length - 1); // long tag without its length byte
        e = assertThrows(Pglz.CorruptDataException.class,
                () -> Pglz.decompress(cut3, 0, cut3.length, new byte[33], 0, 33, false));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }

    @Test
    void trailingInputWithCheckComplete() {
        byte[] src = new Stream().literal("abcd").bytes();
        // Output full but input left over: an error with check_complete, fine without.
        assertThrows(Pglz.CorruptDataException.class, () -> Pglz.decompress(src, 0, src.length, new byte[3], 0, 3, true));
        byte[] out = new byte[3];
        assertEquals(3, Pglz.decompress(src, 0, src.length, out, 0, 3, false));
        assertEquals("abc", new String(out, java.nio.charset.StandardCharsets.ISO_8859_1));
        // Empty input, nothing expected.
        assertEquals(0, Pglz.decompress(new byte[0], 0, 0, new byte[0], 0, 0, true));
        assertFalse(Pglz.decompress(new byte[0], 0, 0, new byte[1], 0, 1, false) != 0);
        assertThrows(Pglz.CorruptDataException.class, () -> Pglz.decompress(new byte[0], 0, 0, new byte[1], 0, 1, true));
    }
}
