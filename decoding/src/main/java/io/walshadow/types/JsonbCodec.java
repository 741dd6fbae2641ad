package io.walshadow.types;

import io.walshadow.wal.Bytes;
import java.nio.charset.Charset;

/**
 * jsonb's on-disk format (jsonb.h) rendered as jsonb_out text. A container is a uint32 header (count in the low 28
 * bits; 0x10000000 raw scalar, 0x20000000 object, 0x40000000 array), then one uint32 JEntry per child (objects:
 * all keys, then the values in the same order), then the children's data. A JEntry has the child's type in bits
 * 28-30 (string, numeric, false, true, null, container) and in its low 28 bits either the child's length or, when
 * bit 31 is set (every JB_OFFSET_STRIDE-th child), the end offset of its data. Numerics (a numeric varlena) and
 * nested containers start at the next 4-byte boundary of the data area; the padding counts in their length.
 */
final class JsonbCodec implements TypeCodec {
    private static final int JB_CMASK = 0x0FFFFFFF;
    private static final int JB_FSCALAR = 0x10000000;
    private static final int JB_FOBJECT = 0x20000000;
    private static final int JB_FARRAY = 0x40000000;
    private static final int JENTRY_OFFLENMASK = 0x0FFFFFFF;
    private static final int JENTRY_TYPEMASK = 0x70000000;
    private static final int JENTRY_HAS_OFF = 0x80000000;
    private static final int JENTRY_ISSTRING = 0x00000000;
    private static final int JENTRY_ISNUMERIC = 0x10000000;
    private static final int JENTRY_ISBOOL_FALSE = 0x20000000;
    private static final int JENTRY_ISBOOL_TRUE = 0x30000000;
    private static final int JENTRY_ISNULL = 0x40000000;
    private static final int JENTRY_ISCONTAINER = 0x50000000;

    private final Charset charset;

    JsonbCodec(Charset charset) {
        this.charset = charset;
    }

    @Override
    public Object decode(byte[] b, int off, int len) {
        StringBuilder out = new StringBuilder(len + 16);
        container(out, b, off, len, 0);
        return new PgJsonb(out.toString());
    }

    @Override
    public void appendText(StringBuilder out, Object value) {
        // a String is already jsonb's text output (the initial snapshot reads values as text)
        out.append(value instanceof String text ? text : TypeCodec.cast(value, PgJsonb.class).text());
    }

    private void container(StringBuilder out, byte[] b, int off, int len, int depth) {
        if (depth > 10_000) {
            throw new MalformedDatumException("jsonb nested deeper than 10000 levels");
        }
        if (len < 4) {
            throw new MalformedDatumException("jsonb container of " + len + " byte(s)");
        }
        int header = Bytes.int32(b, off);
        int count = header & JB_CMASK;
        boolean object = (header & JB_FOBJECT) != 0;
        boolean array = (header & JB_FARRAY) != 0;
        boolean scalar = (header & JB_FSCALAR) != 0;
        if (object == array || (scalar && (!array || count != 1))) {
            throw new MalformedDatumException(String.format("jsonb container header 0x%08x", header));
        }
        long nchildren = object ? 2L * count : count;
        if (4 + 4 * nchildren > len) {
            throw new MalformedDatumException("jsonb container of " + len + " bytes cannot hold " + nchildren
                    + " entries");
        }
        int n = (int) nchildren;
        int base = off + 4 + 4 * n;
        int dataLen = len - 4 - 4 * n;
        int[] start = new int[n];
        int[] end = new int[n];
        int running = 0;
        for (int i = 0; i < n; i++) {
            int entry = Bytes.int32(b, off + 4 + 4 * i);
            int field = entry & JENTRY_OFFLENMASK;
            start[i] = running;
            end[i] = (entry & JENTRY_HAS_OFF) != 0 ? field : running + field;
            if (end[i] < start[i] || end[i] > dataLen) {
                throw new MalformedDatumException("jsonb entry " + i + " spans [" + start[i] + ", " + end[i]
                        + ") of a " + dataLen + "-byte data area");
            }
            running = end[i];
        }
        if (scalar) {
            value(out, b, off, base, 0, start, end, depth);
        } else if (array) {
            out.append('[');
            for (int i = 0; i < count; i++) {
                if (i > 0) {
                    out.append(", ");
                }
                value(out, b, off, base, i, start, end, depth);
            }
            out.append(']');
        } else {
            out.append('{');
            for (int i = 0; i < count; i++) {
                if (i > 0) {
                    out.append(", ");
                }
                int keyEntry = Bytes.int32(b, off + 4 + 4 * i);
                if ((keyEntry & JENTRY_TYPEMASK) != JENTRY_ISSTRING) {
                    throw new MalformedDatumException("jsonb object key " + i + " is not a string");
                }
                value(out, b, off, base, i, start, end, depth);
                out.append(": ");
                value(out, b, off, base, count + i, start, end, depth);
            }
            out.append('}');
        }
    }

    private void value(StringBuilder out, byte[] b, int containerOff, int base, int i, int[] start, int[] end,
                       int depth) {
        int entry = Bytes.int32(b, containerOff + 4 + 4 * i);
        int s = start[i];
        int e = end[i];
        switch (entry & JENTRY_TYPEMASK) {
            case JENTRY_ISSTRING -> escape(out, new String(b, base + s, e - s, charset));
            case JENTRY_ISNUMERIC -> {
                int p = (s + 3) & ~3;
                if (p > e) {
                    throw new MalformedDatumException("jsonb numeric entry " + i + " shorter than its padding");
                }
                Object num = Varlena.payload(b, base + p, e - p);
                if (!(num instanceof Datum d)) {
                    throw new MalformedDatumException("jsonb numeric entry " + i + " is a TOAST pointer");
                }
                out.append(NumericCodec.decode(d.buf(), d.off(), d.len()));
            }
            case JENTRY_ISBOOL_FALSE -> out.append("false");
            case JENTRY_ISBOOL_TRUE -> out.append("true");
            case JENTRY_ISNULL -> out.append("null");
            case JENTRY_ISCONTAINER -> {
                int p = (s + 3) & ~3;
                if (p > e) {
                    throw new MalformedDatumException("jsonb container entry " + i + " shorter than its padding");
                }
                container(out, b, base + p, e - p, depth + 1);
            }
            default -> throw new MalformedDatumException(String.format("jsonb entry type 0x%08x", entry));
        }
    }

    /** escape_json. */
    static void escape(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < ' ') {
                        out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
