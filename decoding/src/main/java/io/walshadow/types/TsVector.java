package io.walshadow.types;

import io.walshadow.wal.Bytes;
import java.nio.charset.Charset;

/**
 * {@code tsvector} (PostgreSQL's {@code utils/adt/tsvector.c}, {@code tsearch/ts_type.h}), decoded from its on-disk
 * form into the text {@code tsvectorout} prints, which is what the destination stores: each lexeme quoted (a quote
 * or backslash in it doubled or escaped), then {@code :} and its positions with their weights ({@code A}..{@code C};
 * {@code D} is not printed), lexemes separated by a space.
 *
 * <p>Layout after the varlena header: {@code int32 size}, {@code size} WordEntry words (bit 0 haspos, bits 1-11
 * len, bits 12-31 pos: the lexeme's offset in the string area), then the string area; a lexeme with positions is
 * followed, at the next even offset, by {@code uint16 npos} and {@code npos} WordEntryPos (weight in the top two
 * bits, position in the low 14).
 */
final class TsVector {
    private TsVector() {}

    static String text(byte[] b, int o, int l, Charset cs) {
        if (l < 4) {
            throw new MalformedDatumException("tsvector of " + l + " bytes");
        }
        int size = Bytes.int32(b, o);
        long strings = 4L + 4L * size;
        if (size < 0 || strings > l) {
            throw new MalformedDatumException("tsvector of " + l + " bytes claims " + size + " lexemes");
        }
        int area = o + (int) strings;
        int areaLen = l - (int) strings;
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < size; i++) {
            int entry = Bytes.int32(b, o + 4 + 4 * i);
            boolean haspos = (entry & 1) != 0;
            int len = (entry >>> 1) & 0x7FF;
            int pos = entry >>> 12;
            if ((long) pos + len > areaLen) {
                throw new MalformedDatumException("tsvector lexeme " + i + " at " + pos + "+" + len
                        + " past its " + areaLen + "-byte string area");
            }
            if (i > 0) {
                out.append(' ');
            }
            out.append('\'');
            for (char c : new String(b, area + pos, len, cs).toCharArray()) {
                if (c == '\'') {
                    out.append('\'');
                } else if (c == '\\') {
                    out.append('\\');
                }
                out.append(c);
            }
            out.append('\'');
            if (haspos) {
                int p = (pos + len + 1) & ~1; // SHORTALIGN, relative to the string area
                if (p + 2 > areaLen) {
                    throw new MalformedDatumException("tsvector positions of lexeme " + i + " past the value");
                }
                int npos = Bytes.uint16(b, area + p);
                if (p + 2 + 2L * npos > areaLen) {
                    throw new MalformedDatumException("tsvector lexeme " + i + " claims " + npos + " positions");
                }
                for (int k = 0; k < npos; k++) {
                    int wep = Bytes.uint16(b, area + p + 2 + 2 * k);
                    out.append(k == 0 ? ':' : ',').append(wep & 0x3FFF);
                    switch (wep >>> 14) {
                        case 3 -> out.append('A');
                        case 2 -> out.append('B');
                        case 1 -> out.append('C');
                        default -> { } // D: not printed
                    }
                }
            }
        }
        return out.toString();
    }
}
