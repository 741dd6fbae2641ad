package io.walshadow.types;

import io.walshadow.wal.Bytes;

/**
 * The geometric types (PostgreSQL's {@code utils/adt/geo_ops.c} and {@code geo_decls.h}), decoded from their on-disk
 * form into their text form, which is what the destination stores ({@code String}): each coordinate printed as
 * {@code float8out} prints it (shortest exact), in the output functions' brackets. Fixed-size types are float8s in
 * the server's byte order; a path is {@code npts, closed, pad} then the points, a polygon {@code npts}, its bounding
 * box, then the points.
 */
final class Geometric {
    private Geometric() {}

    /** {@code (x,y)}. */
    static String point(byte[] b, int o, int l) {
        need("point", l, 16);
        return points(new StringBuilder(), b, o, 1).toString();
    }

    /** {@code [(x1,y1),(x2,y2)]}. */
    static String lseg(byte[] b, int o, int l) {
        need("lseg", l, 32);
        return points(new StringBuilder("["), b, o, 2).append(']').toString();
    }

    /** {@code (x1,y1),(x2,y2)}: the upper right corner, then the lower left. */
    static String box(byte[] b, int o, int l) {
        need("box", l, 32);
        return points(new StringBuilder(), b, o, 2).toString();
    }

    /** {@code {A,B,C}}: the line Ax + By + C = 0. */
    static String line(byte[] b, int o, int l) {
        need("line", l, 24);
        return "{" + f(b, o) + "," + f(b, o + 8) + "," + f(b, o + 16) + "}";
    }

    /** {@code <(x,y),r>}. */
    static String circle(byte[] b, int o, int l) {
        need("circle", l, 24);
        return "<(" + f(b, o) + "," + f(b, o + 8) + ")," + f(b, o + 16) + ">";
    }

    /** Closed {@code ((x1,y1),...)}, open {@code [(x1,y1),...]}. */
    static String path(byte[] b, int o, int l) {
        int npts = count("path", b, o, l, 12);
        boolean closed = Bytes.int32(b, o + 4) != 0;
        StringBuilder out = new StringBuilder(closed ? "(" : "[");
        return points(out, b, o + 12, npts).append(closed ? ')' : ']').toString();
    }

    /** {@code ((x1,y1),...)}. */
    static String polygon(byte[] b, int o, int l) {
        int npts = count("polygon", b, o, l, 36);
        return points(new StringBuilder("("), b, o + 36, npts).append(')').toString();
    }

    private static StringBuilder points(StringBuilder out, byte[] b, int o, int n) {
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append('(').append(f(b, o + 16 * i)).append(',').append(f(b, o + 16 * i + 8)).append(')');
        }
        return out;
    }

    private static String f(byte[] b, int o) {
        return FloatText.float8(Double.longBitsToDouble(Bytes.int64(b, o)));
    }

    private static void need(String type, int l, int size) {
        if (l != size) {
            throw new MalformedDatumException(type + " of " + l + " bytes, expected " + size);
        }
    }

    /** The point count of a path or polygon whose points start at {@code header}, checked against its length. */
    private static int count(String type, byte[] b, int o, int l, int header) {
        if (l < header) {
            throw new MalformedDatumException(type + " of " + l + " bytes, shorter than its " + header + "-byte header");
        }
        int npts = Bytes.int32(b, o);
        if (npts < 0 || (long) header + 16L * npts != l) {
            throw new MalformedDatumException(type + " of " + l + " bytes claims " + npts + " points");
        }
        return npts;
    }
}
