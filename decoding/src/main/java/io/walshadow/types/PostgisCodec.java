package io.walshadow.types;

import io.walshadow.wal.Bytes;
import java.util.ArrayDeque;

/**
 * PostGIS {@code geometry} and {@code geography} (PostGIS 3) into the text their output functions print
 * ({@code LWGEOM_out}, {@code geography_out}: {@code lwgeom_to_hexwkb_buffer(g, WKB_EXTENDED)}): the value's EWKB in
 * upper-case hex, which is {@code upper(encode(ST_AsEWKB(v), 'hex'))} and keeps SRID, Z and M. Little-endian (NDR)
 * EWKB is written, which is what a little-endian server prints; the initial snapshot reads the same text.
 *
 * <p>The datum is a GSERIALIZED ({@code liblwgeom/gserialized2.c} header comment, {@code gserialized1.c} for the
 * PostGIS 2 form, {@code gserialized.c} choosing between them by the version bit): varlena header, 3-byte SRID
 * (big-endian, 21 bits signed, 0 = unknown), a flags byte (Z 0x01, M 0x02, BBOX 0x04, GEODETIC 0x08; version 2
 * has 0x40 set and may have EXTENDED 0x10: 8 bytes of extended flags follow), then the optional box (float4s:
 * xmin, xmax, ymin, ymax, ... for each dimension, 6 of them for a geodetic box) and the geometry. A geometry is
 * {@code uint32 type, uint32 count}; a point, line, circular string or triangle is followed by its {@code count}
 * points (doubles, Z and M after X Y), a polygon by {@code count} ring sizes, 4 bytes of padding when that count is
 * odd, then the rings' points; the collection types by their {@code count} members, each a geometry, with the
 * parent's Z / M ({@code lwgeom_from_gserialized2_buffer} and its helpers). Every part stays 8-byte aligned, so no
 * other padding.
 *
 * <p>The EWKB ({@code liblwgeom/lwout_wkb.c}): byte order 01, {@code uint32} WKB type with 0x80000000 for Z,
 * 0x40000000 for M and 0x20000000 when an SRID follows (the outermost geometry only, and only a known SRID), then
 * the count and the points; coordinates are the stored doubles, byte for byte. An empty point is written as NaN
 * coordinates ({@code 000000000000F87F} each); an empty polygon (no rings, or an empty first ring) and an empty
 * triangle as a count of 0; a non-empty triangle with a ring count of 1 before its points. The liblwgeom type
 * numbers 1-12 are the WKB ones; PolyhedralSurface 13, Triangle 14 and TIN 15 are written 15, 17 and 16.
 *
 * <p>A datum of another form (a flag this decoder does not know, a member its collection cannot hold,
 * {@code lwcollection_allows_subtype} in {@code liblwgeom/lwcollection.c}, bytes past or short of the geometry) is a
 * {@link MalformedDatumException}. Nested collections are walked with an explicit stack, not recursion.
 */
final class PostgisCodec {
    private static final int FLAG_Z = 0x01;
    private static final int FLAG_M = 0x02;
    private static final int FLAG_BBOX = 0x04;
    private static final int FLAG_GEODETIC = 0x08;
    /** Version 2: 8 bytes of extended flags follow the header. In version 1 the bit is READONLY (0x10). */
    private static final int FLAG_V2_EXTENDED = 0x10;
    /** Version 1: SOLID; version 2: reserved (solid is an extended flag there). Neither shows in EWKB. */
    private static final int FLAG_0X20 = 0x20;
    private static final int FLAG_VERSION = 0x40;
    /** {@code G2FLAG_RESERVED2}: "reserved for future versions". */
    private static final int FLAG_FUTURE = 0x80;
    /** {@code G2FLAG_X_SOLID}, the only extended flag PostGIS 3 sets; no extended flag shows in EWKB. */
    private static final long XFLAG_SOLID = 0x1;

    static final int POINT = 1;
    static final int LINE = 2;
    static final int POLYGON = 3;
    static final int MULTIPOINT = 4;
    static final int MULTILINE = 5;
    static final int MULTIPOLYGON = 6;
    static final int COLLECTION = 7;
    static final int CIRCSTRING = 8;
    static final int COMPOUND = 9;
    static final int CURVEPOLY = 10;
    static final int MULTICURVE = 11;
    static final int MULTISURFACE = 12;
    static final int POLYHEDRALSURFACE = 13;
    static final int TRIANGLE = 14;
    static final int TIN = 15;

    private static final int WKB_Z = 0x80000000;
    private static final int WKB_M = 0x40000000;
    private static final int WKB_SRID = 0x20000000;
    private static final String NAN_NDR = "000000000000F87F";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private PostgisCodec() {}

    static TypeCodec codec(String typname) {
        return TypeCodec.of((b, o, l) -> hexEwkb(b, o, l, typname), String.class);
    }

    /** The GSERIALIZED in {@code b[off, off+len)} (varlena header stripped) as upper-case hex EWKB. */
    static String hexEwkb(byte[] b, int off, int len, String type) {
        Reader r = new Reader(b, off, len, type);
        int srid = (r.u8(0) << 16 | r.u8(1) << 8 | r.u8(2)) << 11 >> 11; // 21 bits, sign-extended
        int flags = r.u8(3);
        boolean v2 = (flags & FLAG_VERSION) != 0;
        if ((flags & FLAG_FUTURE) != 0 || v2 && (flags & FLAG_0X20) != 0) {
            throw new MalformedDatumException(type + ": GSERIALIZED flags 0x" + Integer.toHexString(flags)
                    + " set a bit PostGIS 3 reserves");
        }
        int ndims = 2 + (flags & FLAG_Z) + ((flags & FLAG_M) >> 1);
        int pos = 4;
        if (v2 && (flags & FLAG_V2_EXTENDED) != 0) {
            long xflags = r.int64(pos);
            if ((xflags & ~XFLAG_SOLID) != 0) {
                throw new MalformedDatumException(type + ": GSERIALIZED extended flags 0x" + Long.toHexString(xflags)
                        + " beyond the solid flag: a layout this decoder does not know");
            }
            pos += 8;
        }
        if ((flags & FLAG_BBOX) != 0) {
            pos += 4 * ((flags & FLAG_GEODETIC) != 0 ? 6 : 2 * ndims);
        }
        int zm = ((flags & FLAG_Z) != 0 ? WKB_Z : 0) | ((flags & FLAG_M) != 0 ? WKB_M : 0);
        int pointBytes = 8 * ndims;

        StringBuilder out = new StringBuilder(2 * len + 16);
        ArrayDeque<int[]> open = new ArrayDeque<>(); // {collection type, members still to read}
        do {
            int geomType = r.int32(pos);
            long count = Integer.toUnsignedLong(r.int32(pos + 4));
            int[] parent = open.peek();
            if (parent == null ? geomType < POINT || geomType > TIN : !allows(parent[0], geomType)) {
                throw new MalformedDatumException(type + ": geometry type " + Integer.toUnsignedString(geomType)
                        + (parent == null ? " unknown" : " inside a " + name(parent[0])) + " at offset " + (pos + 4));
            }
            if (parent != null) {
                parent[1]--;
            }
            boolean withSrid = parent == null && srid != 0;
            out.append("01");
            int32(out, wkbType(geomType) | zm | (withSrid ? WKB_SRID : 0));
            if (withSrid) {
                int32(out, srid);
            }
            pos += 8;
            switch (geomType) {
                case POINT -> {
                    if (count > 1) {
                        throw new MalformedDatumException(type + ": a point of " + count + " points");
                    }
                    if (count == 0) {
                        out.append(NAN_NDR.repeat(ndims)); // POINT EMPTY as NaN coordinates
                    } else {
                        pos = r.hex(out, pos, pointBytes);
                    }
                }
                case LINE, CIRCSTRING -> {
                    int32(out, (int) count);
                    pos = r.hex(out, pos, count * pointBytes);
                }
                case TRIANGLE -> {
                    if (count > 0) {
                        int32(out, 1); // one ring
                    }
                    int32(out, (int) count);
                    pos = r.hex(out, pos, count * pointBytes);
                }
                case POLYGON -> {
                    int ordinates = r.skip(pos, 4 * count + (count % 2) * 4);
                    boolean empty = count == 0 || r.int32(pos) == 0; // lwpoly_is_empty: no rings, or an empty first
                    int32(out, empty ? 0 : (int) count);
                    for (int i = 0; i < count; i++) {
                        long points = Integer.toUnsignedLong(r.int32(pos + 4 * i));
                        if (empty) {
                            ordinates = r.skip(ordinates, points * pointBytes);
                        } else {
                            int32(out, (int) points);
                            ordinates = r.hex(out, ordinates, points * pointBytes);
                        }
                    }
                    pos = ordinates;
                }
                default -> { // the collection types
                    int32(out, (int) count);
                    if (count > 0) {
                        open.push(new int[] {geomType, (int) Math.min(count, Integer.MAX_VALUE)});
                        if (count > len) {
                            throw new MalformedDatumException(type + ": " + count + " members in " + len + " bytes");
                        }
                    }
                }
            }
            while (!open.isEmpty() && open.peek()[1] == 0) {
                open.pop();
            }
        } while (!open.isEmpty());
        if (pos != len) {
            throw new MalformedDatumException(type + ": the geometry ends at byte " + pos + " of a " + len
                    + "-byte value");
        }
        return out.toString();
    }

    /** {@code lwcollection_allows_subtype}. */
    private static boolean allows(int collection, int member) {
        return switch (collection) {
            case COLLECTION -> member >= POINT && member <= TIN;
            case MULTIPOINT -> member == POINT;
            case MULTILINE -> member == LINE;
            case MULTIPOLYGON, POLYHEDRALSURFACE -> member == POLYGON;
            case COMPOUND -> member == LINE || member == CIRCSTRING;
            case CURVEPOLY, MULTICURVE -> member == LINE || member == CIRCSTRING || member == COMPOUND;
            case MULTISURFACE -> member == POLYGON || member == CURVEPOLY;
            case TIN -> member == TRIANGLE;
            default -> false;
        };
    }

    /** {@code lwgeom_wkb_type}: the WKB numbers differ from liblwgeom's for the last three types. */
    private static int wkbType(int geomType) {
        return switch (geomType) {
            case POLYHEDRALSURFACE -> 15;
            case TRIANGLE -> 17;
            case TIN -> 16;
            default -> geomType;
        };
    }

    private static String name(int geomType) {
        return switch (geomType) {
            case MULTIPOINT -> "MultiPoint";
            case MULTILINE -> "MultiLineString";
            case MULTIPOLYGON -> "MultiPolygon";
            case COLLECTION -> "GeometryCollection";
            case COMPOUND -> "CompoundCurve";
            case CURVEPOLY -> "CurvePolygon";
            case MULTICURVE -> "MultiCurve";
            case MULTISURFACE -> "MultiSurface";
            case POLYHEDRALSURFACE -> "PolyhedralSurface";
            case TIN -> "Tin";
            default -> "type " + geomType;
        };
    }

    /** A little-endian uint32 as hex. */
    private static void int32(StringBuilder out, int v) {
        for (int i = 0; i < 4; i++) {
            int x = v >>> (8 * i) & 0xFF;
            out.append(HEX[x >> 4]).append(HEX[x & 0xF]);
        }
    }

    /** Bounds-checked reads at offsets into the value after its varlena header (GSERIALIZED offset - 4). */
    private record Reader(byte[] b, int off, int len, String type) {
        private int at(int pos, long n) {
            if (pos < 0 || n < 0 || pos + n > len) {
                throw new MalformedDatumException(type + ": " + n + " byte(s) at offset " + pos + " past its "
                        + len + "-byte value (after the varlena header)");
            }
            return off + pos;
        }

        int u8(int pos) {
            return Bytes.uint8(b, at(pos, 1));
        }

        int int32(int pos) {
            return Bytes.int32(b, at(pos, 4));
        }

        long int64(int pos) {
            return Bytes.int64(b, at(pos, 8));
        }

        /** The position {@code n} bytes on, which must be inside the value. */
        int skip(int pos, long n) {
            at(pos, n);
            return (int) (pos + n);
        }

        /** Appends {@code n} bytes as hex (the stored doubles, already little-endian); returns the position after. */
        int hex(StringBuilder out, int pos, long n) {
            int p = at(pos, n);
            for (int i = 0; i < n; i++) {
                int x = b[p + i] & 0xFF;
                out.append(HEX[x >> 4]).append(HEX[x & 0xF]);
            }
            return (int) (pos + n);
        }
    }
}
