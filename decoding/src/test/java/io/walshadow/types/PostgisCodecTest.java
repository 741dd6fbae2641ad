package io.walshadow.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Hand-made GSERIALIZED datums (varlena header stripped) for the forms PostGIS 3.3 does not write from SQL: the
 * PostGIS 2 form (version bit clear), extended flags (only set by SFCGAL's ST_MakeSolid), a polygon whose first ring
 * is empty, deep nesting; and corrupt ones, which must fail typed. The expected EWKB is what PostgreSQL printed for
 * the same geometry ({@code SELECT 'POINT(1 2)'::geometry} and so on).
 */
class PostgisCodecTest {
    /** {@code 'POINT(1 2)'::geometry} as PostgreSQL 15 / PostGIS 3.3 stores it: SRID 0, flags 0x40 (version 2). */
    private static final String POINT_1_2 = "000000 40 01000000 01000000 000000000000F03F 0000000000000040";
    private static final String POINT_1_2_OUT = "0101000000000000000000F03F0000000000000040";
    /** {@code 'SRID=4326;POINT(1 2)'::geometry}'s text. */
    private static final String SRID_POINT_1_2_OUT = "0101000020E6100000000000000000F03F0000000000000040";

    private static String ewkb(String hex) {
        byte[] b = HexFormat.of().parseHex(hex.replace(" ", ""));
        return PostgisCodec.hexEwkb(b, 0, b.length, "geometry");
    }

    private static MalformedDatumException malformed(String hex) {
        return assertThrows(MalformedDatumException.class, () -> ewkb(hex));
    }

    @Test
    void versionOneAndTwoHeaders() {
        assertEquals(POINT_1_2_OUT, ewkb(POINT_1_2));
        // PostGIS 2's form: the version bit clear, no extended flags; READONLY (0x10) and SOLID (0x20) are flags there
        assertEquals(POINT_1_2_OUT, ewkb("000000 00 01000000 01000000 000000000000F03F 0000000000000040"));
        assertEquals(POINT_1_2_OUT, ewkb("000000 30 01000000 01000000 000000000000F03F 0000000000000040"));
        // SRID 4326 = 0x0010E6, big-endian in three bytes, in both versions
        assertEquals(SRID_POINT_1_2_OUT, ewkb("0010E6 40 01000000 01000000 000000000000F03F 0000000000000040"));
        assertEquals(SRID_POINT_1_2_OUT, ewkb("0010E6 00 01000000 01000000 000000000000F03F 0000000000000040"));
        // version 2 with extended flags (solid): 8 bytes before the geometry, nothing of them in EWKB
        assertEquals(POINT_1_2_OUT, ewkb("000000 50 0100000000000000 01000000 01000000 000000000000F03F 0000000000000040"));
        // a box (2-D: four float4s) is skipped
        assertEquals(POINT_1_2_OUT, ewkb("000000 44 0000803F 0000803F 00000040 00000040 01000000 01000000"
                + " 000000000000F03F 0000000000000040"));
    }

    @Test
    void polygonWithAnEmptyFirstRingIsEmpty() {
        // lwpoly_is_empty: printed as 'POLYGON EMPTY'::geometry prints, 010300000000000000; the second ring's points
        // are still skipped
        assertEquals("010300000000000000", ewkb("000000 40 03000000 02000000 00000000 04000000"
                + " 0000000000000000 0000000000000000 000000000000F03F 0000000000000000"
                + " 000000000000F03F 000000000000F03F 0000000000000000 0000000000000000"));
    }

    @Test
    void deepNestingNeedsNoRecursion() {
        int depth = 100_000;
        StringBuilder in = new StringBuilder("000000 40");
        in.append("07000000 01000000".repeat(depth)).append(POINT_1_2.substring(10));
        String out = ewkb(in.toString());
        assertEquals("010700000001000000".repeat(depth) + POINT_1_2_OUT, out);
    }

    @Test
    void corruptDatumsFailTyped() {
        // flags: reserved for future versions; version 2's reserved bit
        malformed("000000 C0 01000000 01000000 000000000000F03F 0000000000000040");
        malformed("000000 60 01000000 01000000 000000000000F03F 0000000000000040");
        // extended flags beyond solid: a layout not known here
        assertTrue(malformed("000000 50 0800000000000000 01000000 01000000 000000000000F03F 0000000000000040")
                .getMessage().contains("extended flags"));
        // cut short, bytes left over, no geometry at all
        malformed(POINT_1_2.substring(0, POINT_1_2.length() - 2));
        malformed(POINT_1_2 + " 00");
        malformed("000000 40");
        malformed("0000");
        // a point of two points; an unknown type; a line of more points than bytes
        malformed("000000 40 01000000 02000000 000000000000F03F 0000000000000040 000000000000F03F 0000000000000040");
        malformed("000000 40 10000000 00000000");
        malformed("000000 40 02000000 FFFFFFFF 000000000000F03F 0000000000000040");
        // a member its collection cannot hold (a line in a multipoint, a point in a TIN), a collection of 2^32-1
        malformed("000000 40 04000000 01000000 02000000 00000000");
        malformed("000000 40 0F000000 01000000" + POINT_1_2.substring(10));
        malformed("000000 40 07000000 FFFFFFFF" + POINT_1_2.substring(10));
        // polygon ring counts past the value
        malformed("000000 40 03000000 03000000 04000000");
    }
}
