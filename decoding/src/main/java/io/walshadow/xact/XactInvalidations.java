package io.walshadow.xact;

/**
 * XLOG_XACT_INVALIDATIONS ({@code xl_xact_invals}, wal_level=logical): the invalidations of one command, logged at
 * command end by the (sub)transaction {@link #recordXid}; {@link #toplevelXid} is the header's top-level xid
 * block when the writer is a subtransaction logging its first record, else 0.
 */
public record XactInvalidations(long lsn, int info, int recordXid, int toplevelXid, InvalidationMessages invals)
        implements XactRecord {}
