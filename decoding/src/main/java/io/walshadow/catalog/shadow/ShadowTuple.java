package io.walshadow.catalog.shadow;

import io.walshadow.heap.HeapTuple;
import io.walshadow.wal.RelFileLocator;

/**
 * One catalog tuple the shadow holds at a TID: its decoded row, who inserted it and whether that committed, who
 * deletes it (while that is in progress: a committed delete removes the tuple), and, when the page it is on has
 * been seen in the WAL, its bytes from {@code t_bits} on (a later prefix/suffix-compressed UPDATE of the tuple is
 * rebuilt from them, as heap redo does). Tuples the bootstrap read from a page the WAL has not touched since carry
 * no bytes. A marker ({@code row == null}) stands for a tuple the decoder never reads (a system column's
 * pg_attribute row): it keeps the TID accounted for without its bytes.
 */
final class ShadowTuple {
    final int xmin;
    boolean committed;
    /**
     * Seen on a page image, inserted by a transaction that ended before the redo point, and not in the bootstrap's
     * read: dead, unless a transaction the stream shows deletes it (then it was live until then). Only between the
     * redo point and the history start, and in a catalog rewrite's copy until its commit; never visible.
     */
    boolean doubtful;
    /** The xid deleting (or updating) it, 0 when none; in progress by construction. */
    int deleter;
    /** t_xmax as a page image showed it (a rewrite's copies are told apart by it), else 0. */
    int xmax;
    final int infomask2;
    final int infomask;
    final int hoff;
    /** Bytes from t_bits to the end (null bitmap, padding, data), or null when not known. */
    final byte[] bits;
    /** Null for a marker. */
    final CatalogRow row;

    ShadowTuple(int xmin, boolean committed, int infomask2, int infomask, int hoff, byte[] bits, CatalogRow row) {
        this.xmin = xmin;
        this.committed = committed;
        this.infomask2 = infomask2;
        this.infomask = infomask;
        this.hoff = hoff;
        this.bits = bits;
        this.row = row;
    }

    /** A committed, undeleted version: what a load sees. */
    boolean visible() {
        return committed && !doubtful && row != null;
    }

    /** HEAP_XMIN_FROZEN: inserted long enough ago that its xmin no longer matters. */
    boolean frozen() {
        return (infomask & 0x0300) == 0x0300;
    }

    boolean hasBytes() {
        return bits != null;
    }

    /** t_len: the tuple's length with its 23-byte header. */
    int tLen() {
        return HeapTuple.SIZEOF_HEADER + bits.length;
    }

    /** The user data (from t_hoff on). */
    int dataStart() {
        return hoff - HeapTuple.SIZEOF_HEADER;
    }

    HeapTuple view(long lsn, RelFileLocator rel) {
        return HeapTuple.ofBits(bits, infomask2, infomask, hoff, lsn, rel);
    }

    ShadowTuple withBytes(int infomask2, int infomask, int hoff, byte[] bits) {
        ShadowTuple t = new ShadowTuple(xmin, committed, infomask2, infomask, hoff, bits, row);
        t.deleter = deleter;
        t.doubtful = doubtful;
        t.xmax = xmax;
        return t;
    }
}
