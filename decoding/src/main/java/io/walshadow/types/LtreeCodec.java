package io.walshadow.types;

import io.walshadow.wal.Bytes;
import java.nio.charset.Charset;

/**
 * {@code ltree} and {@code lquery} (contrib/ltree/ltree.h, ltree_io.c {@code ltree_out} / {@code deparse_lquery}),
 * decoded into the text their output functions print. Offsets below are the C structs', which count the 4-byte
 * varlena header; every level and variant is MAXALIGNed (8) from the struct's start.
 *
 * <ul>
 *   <li>ltree: {@code uint16 numlevel} at 4, levels from 8 ({@code LTREE_HDRSIZE}): {@code uint16 len, name},
 *       the next at MAXALIGN(2 + len). Printed joined by {@code .}.
 *   <li>lquery: {@code uint16 numlevel} at 4, levels from 16 ({@code LQUERY_HDRSIZE}): {@code uint16 totallen,
 *       flag, numvar, low, high}, variants from 16 ({@code LQL_HDRSIZE}), the next level at MAXALIGN(totallen);
 *       a variant: {@code int32 val, uint16 len, uint8 flag, name} (name at 7), the next at 8 + MAXALIGN(len).
 * </ul>
 */
final class LtreeCodec {
    private static final int VARHDRSZ = 4;
    private static final int LVAR_ANYEND = 0x01;
    private static final int LVAR_INCASE = 0x02;
    private static final int LVAR_SUBLEXEME = 0x04;
    private static final int LQL_NOT = 0x10;
    /** PostgreSQL 13+: a non-'*' level with repeat counts (older lqueries have none; low/high are then 0). */
    private static final int LQL_COUNT = 0x20;
    private static final int LTREE_MAX_LEVELS = 0xFFFF;

    private LtreeCodec() {}

    static TypeCodec ltree(Charset cs) {
        return TypeCodec.of((b, o, l) -> ltreeText(new Struct(b, o, l, "ltree"), cs), String.class);
    }

    static TypeCodec lquery(Charset cs) {
        return TypeCodec.of((b, o, l) -> lqueryText(new Struct(b, o, l, "lquery"), cs), String.class);
    }

    static String ltreeText(Struct s, Charset cs) {
        int n = s.u16(4);
        StringBuilder out = new StringBuilder();
        int pos = 8;
        for (int i = 0; i < n; i++) {
            int len = s.u16(pos);
            if (i > 0) {
                out.append('.');
            }
            out.append(s.string(pos + 2, len, cs));
            pos += maxAlign(2 + len);
        }
        return out.toString();
    }

    static String lqueryText(Struct s, Charset cs) {
        int n = s.u16(4);
        StringBuilder out = new StringBuilder();
        int level = 16;
        for (int i = 0; i < n; i++) {
            int totallen = s.u16(level);
            int flag = s.u16(level + 2);
            int numvar = s.u16(level + 4);
            int low = s.u16(level + 6);
            int high = s.u16(level + 8);
            if (i > 0) {
                out.append('.');
            }
            if (numvar > 0) {
                if ((flag & LQL_NOT) != 0) {
                    out.append('!');
                }
                int v = level + 16;
                for (int j = 0; j < numvar; j++) {
                    int len = s.u16(v + 4);
                    int vflag = s.u8(v + 6);
                    if (j > 0) {
                        out.append('|');
                    }
                    out.append(s.string(v + 7, len, cs));
                    if ((vflag & LVAR_SUBLEXEME) != 0) {
                        out.append('%');
                    }
                    if ((vflag & LVAR_INCASE) != 0) {
                        out.append('@');
                    }
                    if ((vflag & LVAR_ANYEND) != 0) {
                        out.append('*');
                    }
                    v += 8 + maxAlign(len); // LVAR_NEXT: MAXALIGN(len) + LVAR_HDRSIZE
                }
            } else {
                out.append('*');
            }
            if ((flag & LQL_COUNT) != 0 || numvar == 0) {
                if (low == high) {
                    out.append('{').append(low).append('}');
                } else if (low == 0) {
                    if (high != LTREE_MAX_LEVELS) {
                        out.append("{,").append(high).append('}');
                    } else if (numvar != 0) {
                        out.append("{,}"); // a bare '*' is {0,max}: printed as nothing
                    }
                } else if (high == LTREE_MAX_LEVELS) {
                    out.append('{').append(low).append(",}");
                } else {
                    out.append('{').append(low).append(',').append(high).append('}');
                }
            }
            if (totallen == 0) {
                throw new MalformedDatumException("lquery level " + i + " of length 0");
            }
            level += maxAlign(totallen);
        }
        return out.toString();
    }

    static int maxAlign(int n) {
        return (n + 7) & ~7;
    }

    /** A varlena payload addressed by the C struct's offsets (which include the 4-byte header), bounds-checked. */
    record Struct(byte[] b, int off, int len, String type) {
        private int at(int structOffset, int n) {
            int p = structOffset - VARHDRSZ;
            if (p < 0 || n < 0 || (long) p + n > len) {
                throw new MalformedDatumException(type + ": " + n + " byte(s) at offset " + structOffset
                        + " past its " + (len + VARHDRSZ) + "-byte value");
            }
            return off + p;
        }

        int u8(int structOffset) {
            return Bytes.uint8(b, at(structOffset, 1));
        }

        int u16(int structOffset) {
            return Bytes.uint16(b, at(structOffset, 2));
        }

        int int32(int structOffset) {
            return Bytes.int32(b, at(structOffset, 4));
        }

        long int64(int structOffset) {
            return Bytes.int64(b, at(structOffset, 8));
        }

        String string(int structOffset, int n, Charset cs) {
            return new String(b, at(structOffset, n), n, cs);
        }
    }
}
