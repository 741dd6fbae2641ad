package io.walshadow.xact;

/**
 * {@code xl_xact_stats_item} of PostgreSQL 15 (new in 15): a statistics entry dropped when the transaction
 * commits (or aborts). 12 bytes in WAL: {@code int kind; Oid dboid; Oid objoid}. PostgreSQL 18 widened objoid to
 * a 64-bit objid (16 bytes), which this is not.
 */
public record DroppedStatsItem(int kind, int dbOid, int objOid) {
    public static final int SIZE = 12;
    // PgStat_Kind (pgstat.h, 15): only these are dropped transactionally
    public static final int PGSTAT_KIND_DATABASE = 1;
    public static final int PGSTAT_KIND_RELATION = 2;
    public static final int PGSTAT_KIND_FUNCTION = 3;

    /** {@code kind/dboid/objoid} as pg_waldump prints it. */
    @Override
    public String toString() {
        return kind + "/" + Integer.toUnsignedString(dbOid) + "/" + Integer.toUnsignedString(objOid);
    }
}
