package io.walshadow.wal;

/**
 * WAL that cannot be read as PostgreSQL wrote it. Always names the LSN at fault; the reader never skips past such
 * input, so nothing is lost silently: the job fails and restarts from its last checkpoint with the bytes intact.
 */
public class WalDecodeException extends RuntimeException {
    public enum Kind {
        INVALID_PAGE_HEADER,
        UNSUPPORTED_VERSION,
        TIMELINE_CHANGE,
        INVALID_RECORD_LENGTH,
        INVALID_RMGR,
        PREV_LINK_BROKEN,
        CRC_MISMATCH,
        TRUNCATED_RECORD,
        INVALID_BLOCK_REFERENCE,
        MISSING_CONTRECORD,
        STREAM_GAP,
        IMAGE_DECOMPRESSION
    }

    private final Kind kind;
    private final long lsn;

    public WalDecodeException(Kind kind, long lsn, String message) {
        super(kind + " at " + Lsn.format(lsn) + ": " + message);
        this.kind = kind;
        this.lsn = lsn;
    }

    public WalDecodeException(Kind kind, long lsn, String message, Throwable cause) {
        super(kind + " at " + Lsn.format(lsn) + ": " + message, cause);
        this.kind = kind;
        this.lsn = lsn;
    }

    public Kind kind() {
        return kind;
    }

    /** The LSN of the record (or page) at fault. */
    public long lsn() {
        return lsn;
    }
}
