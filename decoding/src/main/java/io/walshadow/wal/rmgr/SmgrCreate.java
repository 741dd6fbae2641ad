package io.walshadow.wal.rmgr;

import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.XLogRecord;
import java.nio.ByteBuffer;

/** XLOG_SMGR_CREATE (storage rmgr, {@code xl_smgr_create}): a relation fork's file was created. */
public record SmgrCreate(RelFileLocator locator, int fork) {
    public static final int XLOG_SMGR_CREATE = 0x10;
    public static final int MAIN_FORKNUM = 0;
    /** RelFileLocator (spc, db, rel), ForkNumber. */
    static final int SIZE = 16;

    public static boolean is(XLogRecord r) {
        return r.rmid() == Rmgrs.RM_SMGR_ID && r.rmgrInfo() == XLOG_SMGR_CREATE;
    }

    public static SmgrCreate of(XLogRecord r) {
        ByteBuffer d = Bodies.main(r, SIZE, "xl_smgr_create");
        return new SmgrCreate(new RelFileLocator(d.getInt(0), d.getInt(4), d.getInt(8)), d.getInt(12));
    }

    public boolean mainFork() {
        return fork == MAIN_FORKNUM;
    }
}
