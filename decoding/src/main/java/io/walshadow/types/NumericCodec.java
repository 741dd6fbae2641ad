package io.walshadow.types;

import io.walshadow.wal.Bytes;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * numeric's on-disk format (numeric.c): after the varlena header a uint16 word; its top two bits select
 * NumericLong (00 positive, 01 negative: low 14 bits dscale, then int16 weight), NumericShort (10: sign 0x2000,
 * dscale 0x1F80 >> 7, weight 0x007F as a 7-bit signed field) or special (11: 0xC000 NaN, 0xD000 +Infinity,
 * 0xF000 -Infinity); then base-10000 int16 digits, the first one weighted 10000^weight.
 */
final class NumericCodec {
    private NumericCodec() {}

    static final TypeCodec CODEC = TypeCodec.of(NumericCodec::decode, PgNumeric.class);

    static PgNumeric decode(byte[] b, int off, int len) {
        if (len < 2) {
            throw new MalformedDatumException("numeric of " + len + " byte(s)");
        }
        int header = Bytes.uint16(b, off);
        int flags = header & 0xC000;
        boolean negative;
        int dscale;
        int weight;
        int digits;
        if (flags == 0xC000) {
            if (len != 2) {
                throw new MalformedDatumException("special numeric with " + (len - 2) + " trailing byte(s)");
            }
            return switch (header & 0xF000) {
                case 0xC000 -> PgNumeric.NAN;
                case 0xD000 -> PgNumeric.POSITIVE_INFINITY;
                case 0xF000 -> PgNumeric.NEGATIVE_INFINITY;
                default -> throw new MalformedDatumException(String.format("numeric special header 0x%04x", header));
            };
        } else if (flags == 0x8000) {
            negative = (header & 0x2000) != 0;
            dscale = (header & 0x1F80) >> 7;
            weight = (header & 0x0040) != 0 ? (header & 0x003F) | ~0x003F : header & 0x003F;
            digits = off + 2;
        } else {
            if (len < 4) {
                throw new MalformedDatumException("long-format numeric of " + len + " bytes");
            }
            negative = flags == 0x4000;
            dscale = header & 0x3FFF;
            weight = (short) Bytes.uint16(b, off + 2);
            digits = off + 4;
        }
        int dlen = off + len - digits;
        if ((dlen & 1) != 0) {
            throw new MalformedDatumException("numeric with an odd digit area of " + dlen + " bytes");
        }
        int ndigits = dlen / 2;
        // value = sum digit[i] * 10000^(weight - i): unscaled integer of all digits, times 10^(4*(weight-ndigits+1))
        BigInteger unscaled;
        if (ndigits <= 4) {
            long acc = 0;
            for (int i = 0; i < ndigits; i++) {
                acc = acc * 10000 + digit(b, digits + 2 * i);
            }
            unscaled = BigInteger.valueOf(acc);
        } else {
            StringBuilder sb = new StringBuilder(ndigits * 4);
            for (int i = 0; i < ndigits; i++) {
                int d = digit(b, digits + 2 * i);
                sb.append((char) ('0' + d / 1000)).append((char) ('0' + d / 100 % 10))
                        .append((char) ('0' + d / 10 % 10)).append((char) ('0' + d % 10));
            }
            unscaled = new BigInteger(sb.toString());
        }
        long scale = -4L * ((long) weight - ndigits + 1);
        if (scale > Integer.MAX_VALUE || scale < Integer.MIN_VALUE) {
            throw new MalformedDatumException("numeric weight " + weight + " out of range");
        }
        // numeric_out prints exactly dscale fraction digits; stored digits never go beyond it (DOWN only matters
        // for a value written with a corrupt dscale, and truncation is what get_str_from_var does)
        BigDecimal v = new BigDecimal(unscaled, (int) scale).setScale(dscale, RoundingMode.DOWN);
        return PgNumeric.of(negative ? v.negate() : v);
    }

    private static int digit(byte[] b, int p) {
        int d = Bytes.uint16(b, p);
        if (d > 9999) {
            throw new MalformedDatumException("numeric digit " + d + " out of range 0..9999");
        }
        return d;
    }
}
