package io.walshadow.clickhouse;

import static io.walshadow.clickhouse.DestinationSchema.quote;

/**
 * {@code _walshadow_snapshot}: per sink and start point, whether the initial snapshot has seeded the TOAST mirrors.
 * The snapshot's coordinator writes it once every TOAST chunk is in its mirror; the TOAST stage waits for it before
 * it looks a value up in a mirror, since a WAL row may refer to a value written before the job began.
 */
public final class SnapshotMarkers {
    public static final String TABLE = "_walshadow_snapshot";

    private SnapshotMarkers() {}

    public static String createSql(String db) {
        return "CREATE TABLE IF NOT EXISTS " + quote(db) + "." + quote(TABLE) + " (sink String, start_lsn UInt64,"
                + " toast_seeded UInt8, at DateTime) ENGINE = ReplacingMergeTree ORDER BY (sink, start_lsn)";
    }

    public static String markSeededSql(String db, String sink, long startLsn) {
        return "INSERT INTO " + quote(db) + "." + quote(TABLE) + " VALUES (" + ColumnCodec.quote(sink) + ", "
                + Long.toUnsignedString(startLsn) + ", 1, now())";
    }

    /** 1 when seeded, 0 when not (yet); fails when the table does not exist. */
    public static String seededSql(String db, String sink, long startLsn) {
        return "SELECT count() > 0 FROM " + quote(db) + "." + quote(TABLE) + " WHERE sink = " + ColumnCodec.quote(sink)
                + " AND start_lsn = " + Long.toUnsignedString(startLsn) + " AND toast_seeded = 1";
    }
}
