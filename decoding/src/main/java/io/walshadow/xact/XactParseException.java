package io.walshadow.xact;

import io.walshadow.wal.Lsn;

/**
 * A transaction-rmgr record ({@code RM_XACT_ID}) whose main data cannot be read as PostgreSQL 15 wrote it: cut
 * short, or holding a value PostgreSQL itself would never write (a negative count, an unknown invalidation message
 * id, a bad two-phase magic, bytes left over). Always names the record's LSN, its {@code xl_info} and the field at
 * fault; the parser never returns a partial result.
 */
public final class XactParseException extends RuntimeException {
    /** What was wrong with the field. */
    public enum Reason {
        /** The main data ended inside (or before) the field. */
        TRUNCATED,
        /** The field is present but holds a value that PostgreSQL 15 does not write. */
        INVALID
    }

    private final Reason reason;
    private final long lsn;
    private final int info;
    private final String field;
    private final int offset;

    public XactParseException(Reason reason, long lsn, int info, String field, int offset, String detail) {
        super(reason + " " + XactInfo.opName(info) + " record at " + Lsn.format(lsn) + " (xl_info 0x"
                + Integer.toHexString(info & 0xFF) + "): field " + field + " at main data offset " + offset + ": "
                + detail);
        this.reason = reason;
        this.lsn = lsn;
        this.info = info & 0xFF;
        this.field = field;
        this.offset = offset;
    }

    public Reason reason() {
        return reason;
    }

    /** Start LSN of the record. */
    public long lsn() {
        return lsn;
    }

    /** The record's whole {@code xl_info} byte. */
    public int info() {
        return info;
    }

    /** The field that was cut or invalid, named after the PostgreSQL struct member (e.g. {@code xl_xact_invals.msgs}). */
    public String field() {
        return field;
    }

    /** Offset into the main data where the field starts. */
    public int offset() {
        return offset;
    }
}
