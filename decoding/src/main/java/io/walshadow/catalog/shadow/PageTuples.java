package io.walshadow.catalog.shadow;

import io.walshadow.heap.HeapRecordDecoder;
import io.walshadow.heap.HeapTuple;
import io.walshadow.wal.Bytes;
import io.walshadow.wal.RelFileLocator;
import java.util.LinkedHashMap;
import java.util.Map;

/** The normal (LP_NORMAL) tuples of a heap page restored from a full-page image, by offset. */
final class PageTuples {
    private static final int SIZE_OF_PAGE_HEADER = 24;
    private static final int LP_NORMAL = 1;

    private PageTuples() {}

    /** Offset to tuple; empty for a new (all-zero) page. */
    static Map<Integer, HeapTuple> of(byte[] page, long lsn, RelFileLocator rel) {
        Map<Integer, HeapTuple> out = new LinkedHashMap<>();
        int upper = Bytes.uint16(page, 14);
        if (upper == 0) {
            return out; // PageIsNew: never initialized
        }
        int lower = Bytes.uint16(page, 12);
        int items = Math.max(0, (lower - SIZE_OF_PAGE_HEADER) / 4);
        for (int off = 1; off <= items; off++) {
            int itemId = Bytes.int32(page, SIZE_OF_PAGE_HEADER + 4 * (off - 1));
            if (((itemId >>> 15) & 0x3) == LP_NORMAL) {
                out.put(off, HeapRecordDecoder.pageTuple(page, off, lsn, rel));
            }
        }
        return out;
    }
}
