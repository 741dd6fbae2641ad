package io.walshadow.xact;

import io.walshadow.wal.RelFileLocator;
import java.util.List;

/**
 * XLOG_XACT_COMMIT or XLOG_XACT_COMMIT_PREPARED ({@code ParseCommitRecord}). Parts the record does not carry are
 * empty lists, {@code null} ({@link #dbInfo}, {@link #gid}, {@link #origin}) or 0 ({@link #twophaseXid}).
 *
 * @param lsn record start
 * @param info whole {@code xl_info}
 * @param recordXid {@code xl_xid}: the committing xid for COMMIT; for COMMIT_PREPARED the xid (usually none, 0)
 *     of the session that ran COMMIT PREPARED
 * @param xactTime commit time: TimestampTz, microseconds since 2000-01-01 00:00 UTC ({@link PgTimestamps})
 * @param xinfo the xinfo word (0 without XLOG_XACT_HAS_INFO)
 * @param dbInfo database and tablespace of the committing backend, when logged
 * @param subxids committed subtransactions
 * @param rels relation files to drop at commit
 * @param droppedStats statistics entries to drop at commit
 * @param invals invalidation messages to send at commit
 * @param twophaseXid the prepared transaction's xid (COMMIT_PREPARED), else 0
 * @param gid the prepared transaction's GID when logged (XACT_XINFO_HAS_GID: wal_level=logical), else null
 * @param origin replication origin, when XACT_XINFO_HAS_ORIGIN
 */
public record XactCommit(long lsn, int info, int recordXid, long xactTime, int xinfo, DbInfo dbInfo,
                         XidList subxids, List<RelFileLocator> rels, List<DroppedStatsItem> droppedStats,
                         InvalidationMessages invals, int twophaseXid, String gid, XactOrigin origin)
        implements XactRecord {

    /** Whether this is COMMIT_PREPARED. */
    public boolean isPrepared() {
        return op() == XactInfo.XLOG_XACT_COMMIT_PREPARED;
    }

    /** The committed top-level xid: the two-phase xid for COMMIT_PREPARED, the header's xid for COMMIT. */
    public int xid() {
        return isPrepared() ? twophaseXid : recordXid;
    }

    /** Top-level xid followed by the subxids: every xid this record makes committed. */
    public XidList allXids() {
        int[] all = new int[subxids.size() + 1];
        all[0] = xid();
        for (int i = 0; i < subxids.size(); i++) {
            all[i + 1] = subxids.getInt(i);
        }
        return XidList.wrap(all);
    }

    public boolean hasXinfo(int bit) {
        return (xinfo & bit) != 0;
    }

    /** XACT_COMPLETION_UPDATE_RELCACHE_FILE: the relcache init file must be invalidated. */
    public boolean relcacheInitFileInval() {
        return hasXinfo(XactInfo.XACT_COMPLETION_UPDATE_RELCACHE_FILE);
    }

    /** XACT_COMPLETION_FORCE_SYNC_COMMIT ({@code ForceSyncCommit}: CREATE/DROP DATABASE, TABLESPACE, ...). */
    public boolean forceSyncCommit() {
        return hasXinfo(XactInfo.XACT_COMPLETION_FORCE_SYNC_COMMIT);
    }

    /** XACT_COMPLETION_APPLY_FEEDBACK (synchronous_commit = remote_apply). */
    public boolean applyFeedback() {
        return hasXinfo(XactInfo.XACT_COMPLETION_APPLY_FEEDBACK);
    }

    /** XACT_XINFO_HAS_AE_LOCKS: the transaction held AccessExclusive locks (standby must release them). */
    public boolean hadAccessExclusiveLocks() {
        return hasXinfo(XactInfo.XACT_XINFO_HAS_AE_LOCKS);
    }

    /** Database of the committing backend, or 0 when the record does not say (no dbinfo: unknown, not "none"). */
    public int dbIdOrZero() {
        return dbInfo == null ? 0 : dbInfo.dbId();
    }
}
