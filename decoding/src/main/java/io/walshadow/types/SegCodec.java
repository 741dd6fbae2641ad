package io.walshadow.types;

import io.walshadow.wal.Bytes;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Arrays;

/**
 * {@code seg} (contrib/seg/segdata.h, seg.c {@code seg_out} and its {@code restore}) into its text. A fixed 12-byte
 * value: {@code float4 lower, upper}, then {@code char l_sigd, u_sigd} (the significant digits the input had, which
 * the output restores: {@code 1.50} stays {@code 1.50}) and {@code char l_ext, u_ext} ({@code <}, {@code >},
 * {@code ~}, {@code -} for an open bound, else none).
 */
final class SegCodec {
    /** FLT_DIG: the most significant digits {@code restore} prints. */
    private static final int FLT_DIG = 6;

    private SegCodec() {}

    static final TypeCodec CODEC = TypeCodec.of(SegCodec::text, String.class);

    static String text(byte[] b, int o, int l) {
        if (l != 12) {
            throw new MalformedDatumException("seg of " + l + " bytes, expected 12");
        }
        float lower = Float.intBitsToFloat(Bytes.int32(b, o));
        float upper = Float.intBitsToFloat(Bytes.int32(b, o + 4));
        int lSigd = b[o + 8]; // C char: signed on the x86/ARM Linux builds this reads the WAL of
        int uSigd = b[o + 9];
        char lExt = (char) (b[o + 10] & 0xFF);
        char uExt = (char) (b[o + 11] & 0xFF);
        StringBuilder out = new StringBuilder();
        if (lExt == '>' || lExt == '<' || lExt == '~') {
            out.append(lExt);
        }
        if (lower == upper && lExt == uExt) {
            out.append(restore(lower, lSigd)); // a single point
        } else {
            if (lExt != '-') {
                out.append(restore(lower, lSigd)).append(' ');
            }
            out.append("..");
            if (uExt != '-') {
                out.append(' ');
                // PostgreSQL 15's seg_out tests l_ext here, not u_ext (newer sources test u_ext): an upper '~' shows
                // only after a lower '~', and after a lower '~' an unmarked upper bound prints its NUL marker, which
                // ends the C string: '~1 .. 2' prints "~1 .. ", '1 .. ~2' prints "1 .. 2"
                if (uExt == '>' || uExt == '<' || lExt == '~') {
                    if (uExt == 0) {
                        return out.toString();
                    }
                    out.append(uExt);
                }
                out.append(restore(upper, uSigd));
            }
        }
        return out.toString();
    }

    /**
     * seg.c's {@code restore}: {@code val} with exactly {@code n} significant digits ({@code %.*e}, then moved out of
     * exponent form when the exponent is within 4), step for step over the same 25-character buffer.
     */
    static String restore(float val, int n) {
        n = n <= 0 ? FLT_DIG : Math.min(n, FLT_DIG);
        int sign = val < 0 ? 1 : 0;
        String result = formatE(val, n - 1);
        int e = result.indexOf('e');
        if (e < 0) {
            return result; // inf, nan
        }
        int exp = Integer.parseInt(result.substring(e + 1));
        if (exp == 0) {
            return result.substring(0, e);
        }
        if (Math.abs(exp) > 4) {
            return result;
        }
        char[] buf = new char[25];
        Arrays.fill(buf, '0');
        buf[24] = 0;
        int i = 10;
        int dp = 0;
        for (int p = sign; result.charAt(p) != 'e'; p++, i++) {
            buf[i] = result.charAt(p);
            if (result.charAt(p) == '.') {
                dp = i--;
            }
        }
        if (dp == 0) {
            dp = i--;
        }
        if (exp > 0) {
            if (dp - 10 + exp >= n) {
                exp = dp - 10 + exp - n;
                buf[10 + n] = 0;
                if (n > 1) {
                    dp = 11;
                    for (i = 23; i > dp; i--) {
                        buf[i] = buf[i - 1];
                    }
                    buf[dp] = '.';
                }
                put(buf, n > 1 ? 11 + n : 11, "e" + (exp + n - 1));
            } else {
                dp += exp;
                for (i = 23; i > dp; i--) {
                    buf[i] = buf[i - 1];
                }
                buf[11 + n] = 0;
                buf[dp] = '.';
            }
            if (sign != 0) {
                buf[9] = '-';
                return cstring(buf, 9);
            }
            return cstring(buf, 10);
        }
        dp += exp - 1;
        buf[10 + n] = 0;
        buf[dp] = '.';
        if (sign != 0) {
            buf[dp - 2] = '-';
            return cstring(buf, dp - 2);
        }
        return cstring(buf, dp - 1);
    }

    private static void put(char[] buf, int at, String s) {
        s.getChars(0, s.length(), buf, at);
        buf[at + s.length()] = 0;
    }

    private static String cstring(char[] buf, int from) {
        int end = from;
        while (buf[end] != 0) {
            end++;
        }
        return new String(buf, from, end - from);
    }

    /**
     * C's {@code printf("%.*e", prec, (double) v)} as glibc prints it: the exact binary value rounded half-even
     * (glibc rounds the exact value in the current rounding mode), an exponent of at least two digits.
     */
    static String formatE(double v, int prec) {
        boolean neg = Double.doubleToRawLongBits(v) < 0;
        if (Double.isNaN(v)) {
            return neg ? "-nan" : "nan";
        }
        if (Double.isInfinite(v)) {
            return neg ? "-inf" : "inf";
        }
        String digits;
        int exp;
        if (v == 0) {
            digits = "0".repeat(prec + 1);
            exp = 0;
        } else {
            BigDecimal r = new BigDecimal(Math.abs(v)).round(new MathContext(prec + 1, RoundingMode.HALF_EVEN));
            String u = r.unscaledValue().toString();
            exp = u.length() - 1 - r.scale();
            digits = u.length() >= prec + 1 ? u.substring(0, prec + 1) : u + "0".repeat(prec + 1 - u.length());
        }
        StringBuilder out = new StringBuilder();
        if (neg) {
            out.append('-');
        }
        out.append(digits.charAt(0));
        if (prec > 0) {
            out.append('.').append(digits, 1, prec + 1);
        }
        out.append('e').append(exp < 0 ? '-' : '+');
        int a = Math.abs(exp);
        if (a < 10) {
            out.append('0');
        }
        return out.append(a).toString();
    }
}
