package io.walshadow.xact;

import io.walshadow.wal.RelFileLocator;
import java.util.List;

/**
 * XLOG_XACT_ABORT or XLOG_XACT_ABORT_PREPARED ({@code ParseAbortRecord}); also written for a subtransaction rolled
 * back to its savepoint, then {@link #recordXid} is the subxid and {@link #subxids} its own children. Aborts carry
 * no invalidation messages. Absent parts are empty lists, {@code null} or 0 as in {@link XactCommit}.
 *
 * @param toplevelXid the header's top-level xid block (XLR_BLOCK_ID_TOPLEVEL_XID), 0 when absent
 */
public record XactAbort(long lsn, int info, int recordXid, int toplevelXid, long xactTime, int xinfo,
                        DbInfo dbInfo, XidList subxids, List<RelFileLocator> rels,
                        List<DroppedStatsItem> droppedStats, int twophaseXid, String gid, XactOrigin origin)
        implements XactRecord {

    /** Whether this is ABORT_PREPARED. */
    public boolean isPrepared() {
        return op() == XactInfo.XLOG_XACT_ABORT_PREPARED;
    }

    /** The aborted xid: the two-phase xid for ABORT_PREPARED, the header's xid for ABORT. */
    public int xid() {
        return isPrepared() ? twophaseXid : recordXid;
    }

    /** The aborted xid followed by the aborted subxids. */
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

    public boolean hadAccessExclusiveLocks() {
        return hasXinfo(XactInfo.XACT_XINFO_HAS_AE_LOCKS);
    }
}
