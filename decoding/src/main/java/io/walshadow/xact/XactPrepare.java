package io.walshadow.xact;

import io.walshadow.wal.RelFileLocator;
import java.util.List;

/**
 * XLOG_XACT_PREPARE: the whole two-phase state file of PREPARE TRANSACTION ({@code xl_xact_prepare} header, GID,
 * subxids, commit/abort rels, commit/abort dropped stats, invalidations, then the rmgr records), without its
 * trailing CRC. Each part is MAXALIGNed (8) in the record.
 *
 * @param recordXid {@code xl_xid}: the preparing transaction (equal to {@link #xid})
 * @param magic {@link XactInfo#TWOPHASE_MAGIC}
 * @param totalLength {@code total_len}: state file length including its 4-byte CRC, i.e. main data length + 4
 * @param xid the prepared transaction's xid
 * @param dbId database it ran in
 * @param preparedAt TimestampTz of PREPARE
 * @param owner role oid that ran it
 * @param initFileInval whether the relcache init file must be invalidated at COMMIT PREPARED
 * @param originLsn origin LSN (meaningful when {@link #originNodeId} != 0)
 * @param originTimestamp origin timestamp (likewise)
 * @param originNodeId replication origin id from the record header, 0 when none
 * @param twoPhaseRecords the rmgr records after the invalidations, END sentinel excluded
 */
public record XactPrepare(long lsn, int info, int recordXid, int magic, int totalLength, int xid, int dbId,
                          long preparedAt, int owner, XidList subxids, List<RelFileLocator> commitRels,
                          List<RelFileLocator> abortRels, List<DroppedStatsItem> commitStats,
                          List<DroppedStatsItem> abortStats, InvalidationMessages invals, boolean initFileInval,
                          String gid, long originLsn, long originTimestamp, int originNodeId,
                          List<TwoPhaseRecord> twoPhaseRecords)
        implements XactRecord {

    /** {@code MAXALIGN(sizeof(xl_xact_prepare))}. */
    public static final int HEADER_SIZE = 72;

    /** The replication origin (as PrepareRedoAdd decides: by the header's origin id), or null. */
    public XactOrigin origin() {
        return originNodeId == 0 ? null : new XactOrigin(originNodeId, originLsn, originTimestamp);
    }
}
