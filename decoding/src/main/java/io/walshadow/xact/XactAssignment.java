package io.walshadow.xact;

/**
 * XLOG_XACT_ASSIGNMENT ({@code xl_xact_assignment}): subxids assigned under top-level {@link #xtop}, logged once a
 * transaction has more than PGPROC_MAX_CACHED_SUBXIDS (64) unreported ones. A hint: the commit/abort record
 * carries the authoritative list. {@link #recordXid} is not the top: it is the subtransaction whose xid assignment
 * filled the batch (the last of {@link #subxids}).
 */
public record XactAssignment(long lsn, int info, int recordXid, int xtop, XidList subxids) implements XactRecord {}
