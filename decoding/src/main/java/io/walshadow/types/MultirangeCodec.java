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
 * byte holds them), then, aligned to the subtype, each range's bound values as the range holds them between its
 * header and its flags, padded to the subtype's alignment. Offsets count from the start of the bound values;
 * alignment is relative to the datum's start, as in a range.
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
        int start = bounds;
        for (int i = 0; i < count; i++) {
            int flagsOfRange = b[flags + i] & 0xFF;
            if ((flagsOfRange & RangeCodec.EMPTY) != 0) {
                throw new MalformedDatumException(name + ": range " + (i + 1) + " of " + count + " is flagged empty");
            }
            // a range's bound values end by where the next one's start (the bounds check against that limit)
            int next = i + 1 < count ? start(b, items, i + 1, start - bounds, bounds, end) : end;
            if (i > 0) {
                out.append(',');
            }
            range.appendRange(out, b, start, next, base, flagsOfRange);
            start = next;
        }
        return out.append('}').toString();
    }

    /**
     * Where range {@code i} (>= 1) starts, given that range {@code i - 1} starts at {@code prev} (offsets from the
     * bound values' start): its item is that offset, flagged, or its distance from range {@code i - 1}.
     */
    private int start(byte[] b, int items, int i, long prev, int bounds, int end) {
        int item = Bytes.int32(b, items + 4 * (i - 1));
        long offlen = item & ~ITEM_OFF_BIT;
        long at = (item & ITEM_OFF_BIT) != 0 ? offlen : prev + offlen;
        if (at > end - bounds || at < prev) {
            throw new MalformedDatumException(name + ": range " + (i + 1) + " at offset " + at
                    + " outside the bound values");
        }
        return bounds + (int) at;
    }

    @Override
    public void appendText(StringBuilder out, Object value) {
        out.append(TypeCodec.cast(value, String.class));
    }
}
