package io.walshadow.heap;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A tuple split into per-attribute raw datums ({@code heap_deform_tuple} without fetching values): for each attnum
 * 1..{@link #natts()} of the descriptor, NULL, dropped, or a slice {@code buffer(attnum)[datumOffset,
 * datumOffset+datumLength)} holding the attribute exactly as stored: fixed-length values as their attlen bytes
 * (little-endian for by-value types), varlenas from their header on (1-byte, 4-byte, compressed or an 18-byte TOAST
 * pointer, see {@link VarlenaHeader}), cstrings with their terminating NUL.
 *
 * <p>Slices point into the tuple's bytes ({@link #buffer()}), except for attributes the tuple is too short to hold
 * and that take the column's {@code attmissingval} ({@link #isMissingValue}): their slice is the whole
 * {@link Column#missingValue()} array. Always go through {@link #buffer(int)} (or {@link #datum(int)}).
 */
public final class DeformedRow {
    /** Where an attribute's value comes from. */
    public enum Source {
        NULL,
        /** Stored in the tuple. */
        TUPLE,
        /** Not stored (the tuple predates ADD COLUMN ... DEFAULT): the column's attmissingval. */
        MISSING_VALUE,
        /** A dropped column: skipped in output, whatever the tuple holds at its position. */
        DROPPED
    }

    private final RelationDescriptor descriptor;
    private final HeapTuple tuple;
    private final Source[] sources;
    private final int[] offsets;
    private final int[] lengths;

    DeformedRow(RelationDescriptor descriptor, HeapTuple tuple, Source[] sources, int[] offsets, int[] lengths) {
        this.descriptor = descriptor;
        this.tuple = tuple;
        this.sources = sources;
        this.offsets = offsets;
        this.lengths = lengths;
    }

    public RelationDescriptor descriptor() {
        return descriptor;
    }

    public HeapTuple tuple() {
        return tuple;
    }

    /** Attributes of the descriptor (dropped ones included): valid attnums are 1..natts(). */
    public int natts() {
        return sources.length;
    }

    /** Attributes physically present in the tuple (t_infomask2 &amp; HEAP_NATTS_MASK). */
    public int tupleNatts() {
        return tuple.natts();
    }

    public Source source(int attnum) {
        return sources[index(attnum)];
    }

    public boolean isDropped(int attnum) {
        return sources[index(attnum)] == Source.DROPPED;
    }

    /** True for NULL and for dropped attributes (which have no value to output). */
    public boolean isNull(int attnum) {
        Source s = sources[index(attnum)];
        return s == Source.NULL || s == Source.DROPPED;
    }

    /** The value is the column's attmissingval rather than tuple bytes. */
    public boolean isMissingValue(int attnum) {
        return sources[index(attnum)] == Source.MISSING_VALUE;
    }

    /** The tuple's bytes: where every non-null, non-missing attribute's slice is. */
    public byte[] buffer() {
        return tuple.buffer();
    }

    /** The array the attribute's slice is in: the tuple's bytes, or the column's missing value. */
    public byte[] buffer(int attnum) {
        int i = valued(attnum);
        return sources[i] == Source.MISSING_VALUE ? descriptor.column(attnum).missingValue() : tuple.buffer();
    }

    public int datumOffset(int attnum) {
        return offsets[valued(attnum)];
    }

    public int datumLength(int attnum) {
        return lengths[valued(attnum)];
    }

    /** A read-only little-endian view of the attribute's slice. */
    public ByteBuffer datum(int attnum) {
        int i = valued(attnum);
        // asReadOnlyBuffer() and slice() reset the byte order to BIG_ENDIAN: set it last
        return ByteBuffer.wrap(buffer(attnum), offsets[i], lengths[i]).slice().asReadOnlyBuffer()
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    /** A copy of the attribute's slice. */
    public byte[] datumBytes(int attnum) {
        int i = valued(attnum);
        return Arrays.copyOfRange(buffer(attnum), offsets[i], offsets[i] + lengths[i]);
    }

    /** For varlena attributes (attlen -1): the stored form of the value. */
    public VarlenaHeader.Kind varlenaKind(int attnum) {
        int i = valued(attnum);
        if (descriptor.column(attnum).attlen() != -1) {
            throw new IllegalStateException("attribute " + attnum + " is not a varlena");
        }
        return VarlenaHeader.kind(buffer(attnum), offsets[i]);
    }

    /** Attnums of the columns that are not dropped, ascending: the row as output sees it. */
    public int[] liveAttnums() {
        int n = 0;
        for (Source s : sources) {
            n += s == Source.DROPPED ? 0 : 1;
        }
        int[] out = new int[n];
        for (int i = 0, j = 0; i < sources.length; i++) {
            if (sources[i] != Source.DROPPED) {
                out[j++] = i + 1;
            }
        }
        return out;
    }

    private int index(int attnum) {
        if (attnum < 1 || attnum > sources.length) {
            throw new IndexOutOfBoundsException("attnum " + attnum + " outside 1.." + sources.length);
        }
        return attnum - 1;
    }

    private int valued(int attnum) {
        int i = index(attnum);
        Source s = sources[i];
        if (s != Source.TUPLE && s != Source.MISSING_VALUE) {
            throw new IllegalStateException("attribute " + attnum + " is " + s + " and has no datum");
        }
        return i;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("DeformedRow{").append(descriptor.qualifiedName());
        for (int i = 0; i < sources.length; i++) {
            sb.append(i == 0 ? " " : ", ").append(i + 1).append('=');
            switch (sources[i]) {
                case NULL -> sb.append("null");
                case DROPPED -> sb.append("dropped");
                default -> sb.append(sources[i] == Source.MISSING_VALUE ? "missing[" : "[").append(lengths[i])
                        .append(" bytes]");
            }
        }
        return sb.append('}').toString();
    }
}
