package io.walshadow.types;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * float4out/float8out with {@code extra_float_digits > 0} (the PostgreSQL 12+ default), i.e. PostgreSQL's copy of
 * Ryu (src/common/d2s.c, f2s.c), which is built without STRICTLY_SHORTEST: the output is the shortest decimal
 * lying strictly inside the value's rounding interval (the interval's end points, the midpoints to the
 * neighbouring floats, are excluded even where round-half-even would read them back as the value), and among
 * those the one closest to the exact value, ties to an even last digit. It is printed as {@code to_chars} does:
 * fixed-point when the decimal exponent is in [-4, 15) for float8 and [-4, 6) for float4, else {@code d.ddde+XX}
 * with at least two exponent digits; {@code NaN}, {@code Infinity}, {@code -Infinity}, {@code -0}.
 *
 * <p>Java's Double.toString differs in format and, before JDK 19, is not always shortest; the digits are found
 * here with exact BigDecimal arithmetic instead (a few microseconds a value; only text output needs this).
 */
public final class FloatText {
    private static final BigDecimal HALF = new BigDecimal("0.5");

    private FloatText() {}

    public static String float8(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        if (d == 0) {
            return (Double.doubleToRawLongBits(d) < 0) ? "-0" : "0";
        }
        double a = Math.abs(d);
        BigDecimal exact = new BigDecimal(a);
        BigDecimal hi = exact.add(new BigDecimal(Math.ulp(a)).multiply(HALF));
        BigDecimal lo = exact.subtract(exact.subtract(new BigDecimal(Math.nextDown(a))).multiply(HALF));
        return format(d < 0, shortest(exact, lo, hi, 17), 15);
    }

    public static String float4(float f) {
        if (Float.isNaN(f)) {
            return "NaN";
        }
        if (Float.isInfinite(f)) {
            return f > 0 ? "Infinity" : "-Infinity";
        }
        if (f == 0) {
            return (Float.floatToRawIntBits(f) < 0) ? "-0" : "0";
        }
        float a = Math.abs(f);
        BigDecimal exact = new BigDecimal(a);
        BigDecimal hi = exact.add(new BigDecimal(Math.ulp(a)).multiply(HALF));
        BigDecimal lo = exact.subtract(exact.subtract(new BigDecimal(Math.nextDown(a))).multiply(HALF));
        return format(f < 0, shortest(exact, lo, hi, 9), 6);
    }

    /**
     * The shortest decimal in the open interval (lo, hi), closest to {@code exact}, ties to even. Whether some
     * p-digit decimal lies in the interval is monotone in p (a p-digit decimal is also a (p+1)-digit one), so the
     * length is found by binary search.
     */
    private static BigDecimal shortest(BigDecimal exact, BigDecimal lo, BigDecimal hi, int maxDigits) {
        int low = 1;
        int high = maxDigits; // maxDigits always suffice (17 for double, 9 for float)
        while (low < high) {
            int p = (low + high) >>> 1;
            if (exact.round(new MathContext(p, RoundingMode.FLOOR)).compareTo(lo) > 0
                    || exact.round(new MathContext(p, RoundingMode.CEILING)).compareTo(hi) < 0) {
                high = p;
            } else {
                low = p + 1;
            }
        }
        BigDecimal down = exact.round(new MathContext(low, RoundingMode.FLOOR));
        BigDecimal up = exact.round(new MathContext(low, RoundingMode.CEILING));
        boolean okDown = down.compareTo(lo) > 0;
        boolean okUp = up.compareTo(hi) < 0;
        if (okDown && okUp && down.compareTo(up) != 0) {
            int c = exact.subtract(down).compareTo(up.subtract(exact));
            if (c != 0) {
                return c < 0 ? down : up;
            }
            return down.unscaledValue().testBit(0) ? up : down;
        }
        if (okDown || okUp) {
            return okDown ? down : up;
        }
        return exact.round(new MathContext(maxDigits, RoundingMode.HALF_EVEN)); // not reached
    }

    /** d2s.c/f2s.c to_chars: fixed-point for decimal exponents in [-4, fixedLimit), else exponent form. */
    private static String format(boolean negative, BigDecimal v, int fixedLimit) {
        BigDecimal s = v.stripTrailingZeros();
        BigInteger unscaled = s.unscaledValue();
        String digits = unscaled.toString();
        int n = digits.length();
        int exp = n - 1 - s.scale(); // decimal exponent of the first digit
        StringBuilder out = new StringBuilder(n + 8);
        if (negative) {
            out.append('-');
        }
        if (exp >= -4 && exp < fixedLimit) {
            if (exp < 0) {
                out.append("0.");
                for (int i = -1; i > exp; i--) {
                    out.append('0');
                }
                out.append(digits);
            } else if (n <= exp + 1) {
                out.append(digits);
                for (int i = n; i <= exp; i++) {
                    out.append('0');
                }
            } else {
                out.append(digits, 0, exp + 1).append('.').append(digits, exp + 1, n);
            }
            return out.toString();
        }
        out.append(digits.charAt(0));
        if (n > 1) {
            out.append('.').append(digits, 1, n);
        }
        out.append('e').append(exp < 0 ? '-' : '+');
        int e = Math.abs(exp);
        if (e < 10) {
            out.append('0');
        }
        out.append(e);
        return out.toString();
    }
}
