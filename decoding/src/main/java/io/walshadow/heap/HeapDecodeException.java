package io.walshadow.heap;

import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;

/**
 * A heap record or tuple that cannot be turned into row changes exactly as PostgreSQL wrote it. Always names the
 * record's LSN and, when known, the relation; the decoder never guesses past such input (fail closed), so the job
 * stops with the WAL intact instead of emitting wrong rows.
 */
public class HeapDecodeException extends RuntimeException {
    public enum Kind {
        /** An xl_info value PostgreSQL 15 does not write for Heap/Heap2 (e.g. INIT_PAGE on a DELETE). */
        UNKNOWN_INFO,
        /** Main data shorter than the record's fixed struct, or than what its counts announce. */
        SHORT_MAIN_DATA,
        /** Block data shorter than the tuple headers and lengths in it announce. */
        SHORT_BLOCK_DATA,
        /** Lengths that do not add up (trailing bytes), contradictory flags, a heap block on a non-main fork. */
        MALFORMED_RECORD,
        /** A block reference the record type requires is absent. */
        MISSING_BLOCK,
        /** The tuple is neither in the block data nor recoverable from a full-page image. */
        NO_TUPLE_DATA,
        /**
         * An UPDATE logged only the changed middle of the new tuple (XLH_UPDATE_PREFIX_FROM_OLD/SUFFIX_FROM_OLD);
         * rebuilding it needs the old page, which the record does not carry. PostgreSQL does this only when
         * logical decoding does not need the relation (catalogs; any table under wal_level=replica).
         */
        PREFIX_SUFFIX_COMPRESSED,
        /** The line pointer at the offset is not a normal tuple, or the page is not a heap page. */
        BAD_PAGE_ITEM,
        /** The tuple's own header or data is inconsistent (t_hoff, null bitmap, varlena headers, bounds). */
        MALFORMED_TUPLE,
        /** The tuple does not fit the relation descriptor (more attributes, or bytes left over): stale catalog. */
        DESCRIPTOR_MISMATCH,
        /** The tuple needs an attmissingval that the catalog could not load as on-disk bytes. */
        UNRESOLVED_MISSING_VALUE
    }

    private final Kind kind;
    private final long lsn;
    private final RelFileLocator rel;
    private final String detail;

    public HeapDecodeException(Kind kind, long lsn, RelFileLocator rel, String detail) {
        super(message(kind, lsn, rel, detail));
        this.kind = kind;
        this.lsn = lsn;
        this.rel = rel;
        this.detail = detail;
    }

    private static String message(Kind kind, long lsn, RelFileLocator rel, String detail) {
        return kind + " at " + Lsn.format(lsn) + (rel != null ? " rel " + rel : "") + ": " + detail;
    }

    public Kind kind() {
        return kind;
    }

    /** LSN of the record at fault (of the record the tuple came from, for tuple errors). */
    public long lsn() {
        return lsn;
    }

    /** The relation, or null when the record names none (TRUNCATE) or it was not reached. */
    public RelFileLocator rel() {
        return rel;
    }

    public String detail() {
        return detail;
    }
}
