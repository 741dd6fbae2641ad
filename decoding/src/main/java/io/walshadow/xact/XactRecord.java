package io.walshadow.xact;

/**
 * A parsed transaction-rmgr ({@code RM_XACT_ID}) WAL record of PostgreSQL 15. Obtained from
 * {@link XactRecordParser#parse}; every variant is complete (the parser never returns a partial result).
 */
public sealed interface XactRecord
        permits XactCommit, XactAbort, XactPrepare, XactAssignment, XactInvalidations {
    /** Start LSN of the record. */
    long lsn();

    /** The record's whole {@code xl_info} byte. */
    int info();

    /** {@code xl_xid} of the record header: the xid that wrote the record (0 for COMMIT/ABORT PREPARED run outside one). */
    int recordXid();

    /** {@code info & XLOG_XACT_OPMASK}. */
    default int op() {
        return info() & XactInfo.XLOG_XACT_OPMASK;
    }

    /** Name as pg_waldump prints it. */
    default String opName() {
        return XactInfo.opName(info());
    }
}
