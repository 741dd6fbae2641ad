package io.walshadow.types;

/**
 * A range (PostgreSQL's {@code utils/adt/rangetypes.c}), decoded from its on-disk form into the text
 * {@code range_out} prints, which is what the destination stores: {@code empty}, or the bounds in their
 * brackets, each printed by the subtype's output function and double-quoted when it holds a bracket, comma, quote,
 * backslash or whitespace (or is empty), an infinite bound left out.
 *
 * <p>Layout after the varlena header: the range type's oid, the lower bound if it has one, the upper bound if it
 * has one (each laid out and aligned as in a heap tuple, relative to the datum's start), and a flags byte last.
 */
final class RangeCodec implements TypeCodec {
    static final int EMPTY = 0x01;
    static final int LB_INC = 0x02;
    static final int UB_INC = 0x04;
    static final int LB_INF = 0x08;
    static final int UB_INF = 0x10;
    static final int LB_NULL = 0x20;
    static final int UB_NULL = 0x40;

    private final String name;
    private final ResolvedType subtype;

    RangeCodec(String name, ResolvedType subtype) {
        this.name = name;
        this.subtype = subtype;
    }

    @Override
    public Object decode(byte[] b, int off, int len) {
        if (len < 5) {
            throw new MalformedDatumException(name + ": range of " + len + " bytes");
        }
        final int base = off - 4; // the datum (and its 4-byte header) starts just before the payload
        int end = off + len - 1;
        int flags = b[end] & 0xFF;
        if ((flags & EMPTY) != 0) {
            return "empty";
        }
        StringBuilder out = new StringBuilder();
        int pos = appendRange(out, b, off + 4, end, base, flags);
        if (pos != end) {
            throw new MalformedDatumException(name + ": " + (end - pos) + " byte(s) between the bounds and the flags");
        }
        return out.toString();
    }

    /** The subtype's alignment, which a multirange aligns each range's bounds to. */
    char subtypeAlign() {
        return subtype.typalign;
    }

    /**
     * Appends range_out's text of a non-empty range whose bound values start at {@code pos} (lower, then upper, as
     * {@code flags} says they are present) and may run up to {@code end}; alignment is relative to {@code base}.
     * Returns where the bounds end.
     */
    int appendRange(StringBuilder out, byte[] b, int pos, int end, int base, int flags) {
        out.append((flags & LB_INC) != 0 ? '[' : '(');
        if ((flags & (LB_INF | LB_NULL)) == 0) {
            pos = bound(out, b, pos, end, base);
        }
        out.append(',');
        if ((flags & (UB_INF | UB_NULL)) == 0) {
            pos = bound(out, b, pos, end, base);
        }
        out.append((flags & UB_INC) != 0 ? ']' : ')');
        return pos;
    }

    /** Decodes the bound at {@code pos} (aligned first, as att_align_pointer does), appends it; returns its end. */
    private int bound(StringBuilder out, byte[] b, int pos, int end, int base) {
        int size;
        if (subtype.typlen == -1) {
            if (pos < end && b[pos] == 0) { // a pad byte: this varlena has a 4-byte header and is aligned
                pos = ResolvedType.align(pos, subtype.typalign, base);
            }
            size = Varlena.sizeAny(b, pos, end - pos);
        } else {
            pos = ResolvedType.align(pos, subtype.typalign, base);
            size = subtype.typlen;
        }
        if (pos > end || end - pos < size) {
            throw new MalformedDatumException(name + ": bound of " + size + " bytes past the end");
        }
        Object v = subtype.decodeDatum(b, pos, size);
        StringBuilder text = new StringBuilder();
        subtype.codec.appendText(text, v);
        escape(out, text);
        return pos + size;
    }

    /** range_bound_escape. */
    private static void escape(StringBuilder out, CharSequence s) {
        boolean quote = s.length() == 0;
        for (int i = 0; i < s.length() && !quote; i++) {
            char c = s.charAt(i);
            quote = c == '"' || c == '\\' || c == '(' || c == ')' || c == '[' || c == ']' || c == ','
                    || c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
        }
        if (quote) {
            out.append('"');
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append(c);
            }
            out.append(c);
        }
        if (quote) {
            out.append('"');
        }
    }

    @Override
    public void appendText(StringBuilder out, Object value) {
        out.append(TypeCodec.cast(value, String.class));
    }
}
