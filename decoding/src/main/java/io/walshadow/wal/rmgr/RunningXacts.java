package io.walshadow.wal.rmgr;

import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.XLogRecord;
import java.nio.ByteBuffer;

/**
 * XLOG_RUNNING_XACTS (standby rmgr, {@code xl_running_xacts}): the running transactions when it was logged. Only
 * the fixed part is read (the xid arrays after it are not needed).
 *
 * @param nextXid the xid the next transaction gets
 * @param oldestRunningXid every xid preceding it had ended when the record was logged
 * @param latestCompletedXid the newest xid that had ended
 */
public record RunningXacts(int xcnt, int subxcnt, boolean subxidOverflow, int nextXid, int oldestRunningXid,
                           int latestCompletedXid) {
    public static final int XLOG_RUNNING_XACTS = 0x10;
    /** xcnt, subxcnt, subxid_overflow (padded to 4), nextXid, oldestRunningXid, latestCompletedXid. */
    static final int FIXED_SIZE = 24;

    public static boolean is(XLogRecord r) {
        return r.rmid() == Rmgrs.RM_STANDBY_ID && r.rmgrInfo() == XLOG_RUNNING_XACTS;
    }

    public static RunningXacts of(XLogRecord r) {
        ByteBuffer d = Bodies.main(r, FIXED_SIZE, "xl_running_xacts");
        return new RunningXacts(d.getInt(0), d.getInt(4), d.get(8) != 0, d.getInt(12), d.getInt(16), d.getInt(20));
    }
}
