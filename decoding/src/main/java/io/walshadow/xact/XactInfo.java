package io.walshadow.xact;

/**
 * Constants of PostgreSQL 15's {@code access/xact.h} for the transaction rmgr's WAL records, and of the two-phase
 * state file ({@code access/twophase.c}, {@code access/twophase_rmgr.h}) that a PREPARE record carries.
 */
public final class XactInfo {
    private XactInfo() {}

    // xl_info: three bits of opcode and one flag (the low four bits belong to the WAL machinery)
    public static final int XLOG_XACT_COMMIT = 0x00;
    public static final int XLOG_XACT_PREPARE = 0x10;
    public static final int XLOG_XACT_ABORT = 0x20;
    public static final int XLOG_XACT_COMMIT_PREPARED = 0x30;
    public static final int XLOG_XACT_ABORT_PREPARED = 0x40;
    public static final int XLOG_XACT_ASSIGNMENT = 0x50;
    public static final int XLOG_XACT_INVALIDATIONS = 0x60;
    public static final int XLOG_XACT_OPMASK = 0x70;
    /** The commit/abort record has an {@code xl_xact_xinfo} word after {@code xact_time}. */
    public static final int XLOG_XACT_HAS_INFO = 0x80;

    // xinfo: which parts follow
    public static final int XACT_XINFO_HAS_DBINFO = 1;
    public static final int XACT_XINFO_HAS_SUBXACTS = 1 << 1;
    /** {@code XACT_XINFO_HAS_RELFILENODES} in 15 (renamed ..._RELFILELOCATORS in 16, same bit). */
    public static final int XACT_XINFO_HAS_RELFILELOCATORS = 1 << 2;
    public static final int XACT_XINFO_HAS_INVALS = 1 << 3;
    public static final int XACT_XINFO_HAS_TWOPHASE = 1 << 4;
    public static final int XACT_XINFO_HAS_ORIGIN = 1 << 5;
    public static final int XACT_XINFO_HAS_AE_LOCKS = 1 << 6;
    public static final int XACT_XINFO_HAS_GID = 1 << 7;
    /** New in 15. */
    public static final int XACT_XINFO_HAS_DROPPED_STATS = 1 << 8;

    // xinfo: actions for recovery (XactCompletion...)
    public static final int XACT_COMPLETION_APPLY_FEEDBACK = 1 << 29;
    public static final int XACT_COMPLETION_UPDATE_RELCACHE_FILE = 1 << 30;
    public static final int XACT_COMPLETION_FORCE_SYNC_COMMIT = 1 << 31;

    /** Two-phase state file format identifier of 15 ({@code TWOPHASE_MAGIC}; 14 wrote 0x57F94533). */
    public static final int TWOPHASE_MAGIC = 0x57F94534;
    /** {@code GIDSIZE}: longest GID, NUL included. */
    public static final int GIDSIZE = 200;

    // TwoPhaseRmgrId (twophase_rmgr.h)
    public static final int TWOPHASE_RM_END_ID = 0;
    public static final int TWOPHASE_RM_LOCK_ID = 1;
    public static final int TWOPHASE_RM_PGSTAT_ID = 2;
    public static final int TWOPHASE_RM_MULTIXACT_ID = 3;
    public static final int TWOPHASE_RM_PREDICATELOCK_ID = 4;
    public static final int TWOPHASE_RM_MAX_ID = TWOPHASE_RM_PREDICATELOCK_ID;

    /** The record type as {@code xact_identify} names it ({@code INVALIDATION} is singular there), or UNKNOWN. */
    public static String opName(int info) {
        return switch (info & XLOG_XACT_OPMASK) {
            case XLOG_XACT_COMMIT -> "COMMIT";
            case XLOG_XACT_PREPARE -> "PREPARE";
            case XLOG_XACT_ABORT -> "ABORT";
            case XLOG_XACT_COMMIT_PREPARED -> "COMMIT_PREPARED";
            case XLOG_XACT_ABORT_PREPARED -> "ABORT_PREPARED";
            case XLOG_XACT_ASSIGNMENT -> "ASSIGNMENT";
            case XLOG_XACT_INVALIDATIONS -> "INVALIDATION";
            default -> String.format("UNKNOWN (%x)", info & 0xF0);
        };
    }
}
