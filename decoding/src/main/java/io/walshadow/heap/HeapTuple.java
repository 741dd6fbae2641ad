package io.walshadow.heap;

import io.walshadow.wal.Bytes;
import io.walshadow.wal.RelFileLocator;

/**
 * A view of one heap tuple ({@code HeapTupleData}) over bytes owned by someone else: the WAL record's bytes, or a
 * page restored from a full-page image. Nothing is copied.
 *
 * <p>WAL logs a tuple without its fixed 23-byte {@code HeapTupleHeaderData}: only {@code t_infomask2},
 * {@code t_infomask} and {@code t_hoff} ({@code xl_heap_header}), then everything from {@code t_bits} on (null
 * bitmap, padding, data). A page tuple has the whole header. Both are described the same way here: the null
 * bitmap starts at {@link #bitsOffset()}, user data at {@link #dataOffset()} = bitsOffset + t_hoff - 23, and the
 * tuple ends at {@link #endOffset()}. Offsets in user data are aligned relative to {@link #dataOffset()}, as
 * PostgreSQL aligns them relative to the MAXALIGNed tuple start.
 */
public final class HeapTuple {
    /** SizeofHeapTupleHeader: offsetof(HeapTupleHeaderData, t_bits). */
    public static final int SIZEOF_HEADER = 23;

    // t_infomask (htup_details.h)
    public static final int HEAP_HASNULL = 0x0001;
    public static final int HEAP_HASVARWIDTH = 0x0002;
    public static final int HEAP_HASEXTERNAL = 0x0004;
    public static final int HEAP_HASOID_OLD = 0x0008;
    // t_infomask2
    public static final int HEAP_NATTS_MASK = 0x07FF;
    public static final int HEAP_KEYS_UPDATED = 0x2000;
    public static final int HEAP_HOT_UPDATED = 0x4000;
    public static final int HEAP_ONLY_TUPLE = 0x8000;

    /** Where the tuple's bytes come from. */
    public enum Source {
        /** The record's block data or main data: {@code xl_heap_header} form, no xmin/xmax/ctid. */
        WAL,
        /** A page restored from the record's full-page image: the whole on-page tuple, header included. */
        PAGE_IMAGE
    }

    private final byte[] buf;
    private final int headerOffset;
    private final int bitsOffset;
    private final int endOffset;
    private final int infomask2;
    private final int infomask;
    private final int hoff;
    private final Source source;
    private final long lsn;

    private HeapTuple(byte[] buf, int headerOffset, int bitsOffset, int endOffset, int infomask2, int infomask,
                      int hoff, Source source, long lsn) {
        this.buf = buf;
        this.headerOffset = headerOffset;
        this.bitsOffset = bitsOffset;
        this.endOffset = endOffset;
        this.infomask2 = infomask2;
        this.infomask = infomask;
        this.hoff = hoff;
        this.source = source;
        this.lsn = lsn;
    }

    /**
     * A WAL-form tuple: {@code xl_heap_header} fields given, bitmap+padding+data in {@code buf[bitsOffset,
     * bitsOffset+length)}. Checked for header consistency.
     */
    static HeapTuple fromWal(byte[] buf, int bitsOffset, int length, int infomask2, int infomask, int hoff,
                             long lsn, RelFileLocator rel) {
        HeapTuple t = new HeapTuple(buf, -1, bitsOffset, bitsOffset + length, infomask2, infomask, hoff,
                Source.WAL, lsn);
        t.check(rel);
        return t;
    }

    /**
     * A tuple held apart from any record or page (the catalog shadow's copy): {@code bits} is everything from
     * {@code t_bits} on, the header fields as {@code xl_heap_header} gives them. Checked like a WAL-form tuple.
     */
    public static HeapTuple ofBits(byte[] bits, int infomask2, int infomask, int hoff, long lsn, RelFileLocator rel) {
        return fromWal(bits, 0, bits.length, infomask2, infomask, hoff, lsn, rel);
    }

    /** An on-page tuple whose 23-byte header starts at {@code headerOffset}, {@code lpLen} bytes long. */
    static HeapTuple fromPage(byte[] page, int headerOffset, int lpLen, long lsn, RelFileLocator rel) {
        HeapTuple t = new HeapTuple(page, headerOffset, headerOffset + SIZEOF_HEADER, headerOffset + lpLen,
                Bytes.uint16(page, headerOffset + 18), Bytes.uint16(page, headerOffset + 20),
                Bytes.uint8(page, headerOffset + 22), Source.PAGE_IMAGE, lsn);
        t.check(rel);
        return t;
    }

    private void check(RelFileLocator rel) {
        int length = endOffset - bitsOffset;
        if (hoff < SIZEOF_HEADER || (hoff & 7) != 0) {
            throw new HeapDecodeException(HeapDecodeException.Kind.MALFORMED_TUPLE, lsn, rel,
                    "t_hoff " + hoff + " is not a MAXALIGNed header size >= " + SIZEOF_HEADER);
        }
        if (hoff - SIZEOF_HEADER > length) {
            throw new HeapDecodeException(HeapDecodeException.Kind.MALFORMED_TUPLE, lsn, rel,
                    "t_hoff " + hoff + " exceeds the tuple length " + (length + SIZEOF_HEADER));
        }
        if (hasNulls() && bitmapLength(natts()) > hoff - SIZEOF_HEADER) {
            throw new HeapDecodeException(HeapDecodeException.Kind.MALFORMED_TUPLE, lsn, rel,
                    "null bitmap of " + natts() + " attributes does not fit before t_hoff " + hoff);
        }
    }

    /** BITMAPLEN(natts). */
    public static int bitmapLength(int natts) {
        return (natts + 7) / 8;
    }

    /** The bytes this tuple lives in (record bytes or a restored page). Do not modify. */
    public byte[] buffer() {
        return buf;
    }

    public Source source() {
        return source;
    }

    /** LSN of the record the tuple was decoded from (for error messages). */
    public long lsn() {
        return lsn;
    }

    public int infomask() {
        return infomask;
    }

    public int infomask2() {
        return infomask2;
    }

    /** t_hoff: header size including bitmap and padding, as on a page. */
    public int hoff() {
        return hoff;
    }

    /** Number of attributes stored in the tuple (HeapTupleHeaderGetNatts). */
    public int natts() {
        return infomask2 & HEAP_NATTS_MASK;
    }

    public boolean hasNulls() {
        return (infomask & HEAP_HASNULL) != 0;
    }

    public boolean hasExternal() {
        return (infomask & HEAP_HASEXTERNAL) != 0;
    }

    public boolean isHeapOnly() {
        return (infomask2 & HEAP_ONLY_TUPLE) != 0;
    }

    /** Offset of t_bits (the null bitmap, when {@link #hasNulls()}) in {@link #buffer()}. */
    public int bitsOffset() {
        return bitsOffset;
    }

    /** Offset of the first attribute's (possibly padded) position: t_bits + t_hoff - 23. */
    public int dataOffset() {
        return bitsOffset + hoff - SIZEOF_HEADER;
    }

    /** End (exclusive) of the tuple in {@link #buffer()}. */
    public int endOffset() {
        return endOffset;
    }

    public int dataLength() {
        return endOffset - dataOffset();
    }

    /** t_len: the tuple's length with the full 23-byte header, as on a page. */
    public int tLen() {
        return endOffset - bitsOffset + SIZEOF_HEADER;
    }

    /** att_isnull for a 0-based attribute index: only meaningful below {@link #natts()}. */
    public boolean attIsNull(int attIndex) {
        if (!hasNulls()) {
            return false;
        }
        return (buf[bitsOffset + (attIndex >> 3)] & (1 << (attIndex & 7))) == 0;
    }

    /** True for page-image tuples, which carry xmin, xmax and ctid. */
    public boolean hasFullHeader() {
        return headerOffset >= 0;
    }

    /** Offset of the full HeapTupleHeaderData in {@link #buffer()}, or -1 for a WAL-form tuple. */
    public int headerOffset() {
        return headerOffset;
    }

    public int xmin() {
        return Bytes.int32(buf, fullHeader());
    }

    public int xmax() {
        return Bytes.int32(buf, fullHeader() + 4);
    }

    public Tid ctid() {
        int h = fullHeader();
        long blk = ((long) Bytes.uint16(buf, h + 12) << 16) | Bytes.uint16(buf, h + 14);
        return new Tid(blk, Bytes.uint16(buf, h + 16));
    }

    private int fullHeader() {
        if (headerOffset < 0) {
            throw new IllegalStateException("a WAL-form tuple has no xmin/xmax/ctid (only xl_heap_header)");
        }
        return headerOffset;
    }

    @Override
    public String toString() {
        return "HeapTuple{" + source + ", natts=" + natts() + ", infomask=0x" + Integer.toHexString(infomask)
                + ", infomask2=0x" + Integer.toHexString(infomask2) + ", hoff=" + hoff + ", t_len=" + tLen() + "}";
    }
}
