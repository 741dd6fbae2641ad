package io.walshadow.types;

import io.walshadow.wal.Bytes;

/**
 * A multirange (PostgreSQL's {@code utils/adt/multirangetypes.c}, {@code src/include/utils/multirangetypes.h}),
 * decoded into the text {@code multirange_out} prints: {@code {}}, or its ranges in {@code range_out}'s text,
 * comma-separated without spaces, in braces.
 *
 * <p>Layout after the varlena header: the multirange type's oid, the range count {@code n}, {@code n - 1} uint32
 * items (for ranges 2..n: the length of the previous range's bound values, or, every fourth one and flagged by the
 * high bit, the offset of this range's bound values), {@code n} flag bytes (a range's flags, as the range's last
 * byte holds them), then, aligned to the subtype, each range's bound values exactly as a range holds them after its
 * own header (no header, no flags), each range's bound values padded to the subtype's alignment. Offsets count from
 * the start of the bound values; alignment is relative to the datum's start, as in the range itself.
 */
final class MultirangeCodec implements TypeCodec {
    private static final int ITEM_OFF_BIT = 0x80000000;
    /** MultirangeType: varlena header, multirangetypid, rangeCount. */
    private static final int HEADER = 12;

    private final String name;
    private final RangeCodec range;

    MultirangeCodec(String name, RangeCodec range) {
        this.name = name;
        this.range = range;
    }

    @Override
    public Object decode(byte[] b, int off, int len) {
        if (len < 8) {
            throw new MalformedDatumException(name + ": multirange of " + len + " bytes");
        }
        final int base = off - 4; // the datum (and its 4-byte header) starts just before the payload
        final int end = off + len;
        long count = Bytes.int32(b, off + 4) & 0xFFFFFFFFL;
        if (count == 0) {
            return "{}";
        }
        long boundsRel = HEADER + (count - 1) * 4 + count;
        if (boundsRel > len + 4) {
            throw new MalformedDatumException(name + ": " + count + " ranges do not fit " + (len + 4) + " bytes");
        }
        int items = base + HEADER;
        int flags = items + (int) (count - 1) * 4;
        int bounds = ResolvedType.align(base + (int) boundsRel, range.subtypeAlign(), base);
        StringBuilder out = new StringBuilder().append('{');
        long offset = 0;
        int prevEnd = bounds;
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                int item = Bytes.int32(b, items + 4 * (i - 1));
                long offlen = item & ~ITEM_OFF_BIT;
                offset = (item & ITEM_OFF_BIT) != 0 ? offlen : offset + offlen;
                out.append(',');
            }
            int rflags = b[flags + i] & 0xFF;
            if ((rflags & RangeCodec.EMPTY) != 0) {
                throw new MalformedDatumException(name + ": range " + (i + 1) + " of " + count + " is flagged empty");
            }
            if (offset > end - bounds || bounds + offset < prevEnd) {
                throw new MalformedDatumException(name + ": range " + (i + 1) + " of " + count + " at offset "
                        + offset + " outside the bound values");
            }
            int start = bounds + (int) offset;
            // this range's bounds end before the next range's start; the item list is walked ahead for that limit
            int limit = i + 1 < count ? nextStart(b, items, i + 1, offset, bounds, end) : end;
            prevEnd = range.appendRange(out, b, start, limit, base, rflags);
        }
        return out.append('}').toString();
    }

    /** Where range {@code next} (>= 1) starts, given that range {@code next - 1} starts at {@code offset}. */
    private int nextStart(byte[] b, int items, int next, long offset, int bounds, int end) {
        int item = Bytes.int32(b, items + 4 * (next - 1));
        long offlen = item & ~ITEM_OFF_BIT;
        long at = (item & ITEM_OFF_BIT) != 0 ? offlen : offset + offlen;
        if (at > end - bounds || at < offset) {
            throw new MalformedDatumException(name + ": range " + (next + 1) + " at offset " + at
                    + " outside the bound values");
        }
        return bounds + (int) at;
    }

    @Override
    public void appendText(StringBuilder out, Object value) {
        out.append(TypeCodec.cast(value, String.class));
    }
}
