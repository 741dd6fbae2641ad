package io.walshadow.types;

/**
 * {@code cube} (contrib/cube/cubedata.h, cube.c {@code cube_out}) into its text. After the varlena header:
 * {@code uint32 header} (dimensions in the low 31 bits, {@code POINT_BIT} 0x80000000: one corner stored), then the
 * float8 coordinates: the lower-left corner's, then (not a point) the upper-right's. Printed {@code (x, y)} for a
 * point, also for a box whose corners are equal ({@code cube_is_point_internal}), else {@code (x, y),(x, y)}; each
 * coordinate as float8out prints it.
 */
final class CubeCodec {
    private static final int POINT_BIT = 0x80000000;
    private static final int DIM_MASK = 0x7FFFFFFF;

    private CubeCodec() {}

    static final TypeCodec CODEC = TypeCodec.of(CubeCodec::text, String.class);

    static String text(byte[] b, int o, int l) {
        LtreeCodec.Struct s = new LtreeCodec.Struct(b, o, l, "cube");
        int header = s.int32(4);
        int dim = header & DIM_MASK;
        boolean point = (header & POINT_BIT) != 0;
        long need = 8L + 8L * dim * (point ? 1 : 2);
        if (need != l + 4L) {
            throw new MalformedDatumException("cube of " + dim + " dimensions" + (point ? " (point)" : "") + " in "
                    + (l + 4) + " bytes, expected " + need);
        }
        double[] x = new double[point ? dim : 2 * dim];
        for (int i = 0; i < x.length; i++) {
            x[i] = Double.longBitsToDouble(s.int64(8 + 8 * i));
        }
        boolean equalCorners = true;
        for (int i = 0; !point && i < dim; i++) {
            equalCorners &= x[i] == x[i + dim]; // C's ==: 0 and -0 equal, NaN unequal
        }
        StringBuilder out = new StringBuilder();
        corner(out, x, 0, dim);
        if (!point && !equalCorners) {
            out.append(',');
            corner(out, x, dim, dim);
        }
        return out.toString();
    }

    private static void corner(StringBuilder out, double[] x, int from, int dim) {
        out.append('(');
        for (int i = 0; i < dim; i++) {
            if (i > 0) {
                out.append(", ");
            }
            out.append(FloatText.float8(x[from + i]));
        }
        out.append(')');
    }
}
