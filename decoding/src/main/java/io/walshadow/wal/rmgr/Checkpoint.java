package io.walshadow.wal.rmgr;

import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.XLogRecord;
import java.nio.ByteBuffer;

/**
 * XLOG_CHECKPOINT_SHUTDOWN / XLOG_CHECKPOINT_ONLINE (xlog rmgr, {@code CheckPoint} of {@code pg_control.h}): the
 * fields read here, which lead the struct in every supported major.
 *
 * @param redo where replay of this checkpoint starts
 * @param nextFullXid the next full transaction id (epoch included), exact whenever the record was logged
 */
public record Checkpoint(long redo, int timeline, int prevTimeline, boolean fullPageWrites, long nextFullXid) {
    public static final int XLOG_CHECKPOINT_SHUTDOWN = 0x00;
    public static final int XLOG_CHECKPOINT_ONLINE = 0x10;
    /** redo, ThisTimeLineID, PrevTimeLineID, fullPageWrites (padded to 8), nextXid. */
    static final int READ_SIZE = 32;

    public static boolean is(XLogRecord r) {
        return r.rmid() == Rmgrs.RM_XLOG_ID
                && (r.rmgrInfo() == XLOG_CHECKPOINT_SHUTDOWN || r.rmgrInfo() == XLOG_CHECKPOINT_ONLINE);
    }

    public static Checkpoint of(XLogRecord r) {
        ByteBuffer d = Bodies.main(r, READ_SIZE, "CheckPoint");
        return new Checkpoint(d.getLong(0), d.getInt(8), d.getInt(12), d.get(16) != 0, d.getLong(24));
    }
}
