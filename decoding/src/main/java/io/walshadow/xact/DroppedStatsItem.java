package io.walshadow.xact;

import io.walshadow.wal.WalFormat;

/**
 * {@code xl_xact_stats_item} (access/xact.h, new in 15): a statistics entry dropped when the transaction commits (or
 * aborts). 12 bytes in WAL on 15..17: {@code int kind; Oid dboid; Oid objoid}; REL_18_STABLE widened the object id to
 * PgStat_HashKey's 64-bit objid, stored as {@code uint32 objid_lo, objid_hi} (16 bytes). {@code objOid} is the
 * object id's low 32 bits: the whole id for the kinds dropped transactionally by the server itself (a relation's or
 * function's oid); nothing downstream reads these items, they are kept for the record's description.
 */
public record DroppedStatsItem(int kind, int dbOid, int objOid) {
    /** sizeof(xl_xact_stats_item) on 15..17. */
    public static final int SIZE = 12;
    /** sizeof(xl_xact_stats_item) from 18 on. */
    public static final int SIZE_18 = 16;
    // PgStat_Kind (pgstat.h, 15): only these are dropped transactionally
    public static final int PGSTAT_KIND_DATABASE = 1;
    public static final int PGSTAT_KIND_RELATION = 2;
    public static final int PGSTAT_KIND_FUNCTION = 3;

    /** The size of an item in the WAL of {@code format}'s major. */
    public static int size(WalFormat format) {
        return format.major >= 18 ? SIZE_18 : SIZE;
    }

    /** {@code kind/dboid/objoid} as pg_waldump prints it. */
    @Override
    public String toString() {
        return kind + "/" + Integer.toUnsignedString(dbOid) + "/" + Integer.toUnsignedString(objOid);
    }
}
