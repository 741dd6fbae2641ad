package io.walshadow.clickhouse;

import static io.walshadow.clickhouse.DestinationSchema.quote;

/**
 * {@code _walshadow_snapshot}: per sink and start point, whether the initial snapshot has seeded the TOAST mirrors.
 * The snapshot's coordinator writes it once every TOAST chunk is in its mirror; the TOAST stage waits for it before
 * it looks a value up in a mirror, since a WAL row may refer to a value written before the job began.
 *
 * <p>{@code _walshadow_copy_seeded}: per sink, the copy requests ({@link CopyRequests}: a table attached with rows as
 * a partition) whose round has seeded its TOAST mirrors, with that round's start point. Written with the round's own
 * marker, for every request the round planned (one whose table left before the round has nothing to seed); the TOAST
 * stage holds short lookups of an attached table's TOAST relation until its request is listed. A table of its own,
 * not a column of {@link #TABLE}: ClickHouse 18.16 has no {@code ADD COLUMN IF NOT EXISTS} for existing markers.
 */
public final class SnapshotMarkers {
    public static final String TABLE = "_walshadow_snapshot";
    public static final String COPIES_TABLE = "_walshadow_copy_seeded";

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

    public static String createCopiesSql(String db) {
        return "CREATE TABLE IF NOT EXISTS " + quote(db) + "." + quote(COPIES_TABLE) + " (sink String, relation UInt32,"
                + " attach_lsn UInt64, start_lsn UInt64, at DateTime) ENGINE = ReplacingMergeTree"
                + " ORDER BY (sink, relation, attach_lsn, start_lsn)";
    }

    /** The requests ({@link CopyRequests#key}) a round at {@code startLsn} seeded, one row each. */
    public static String markCopiesSeededSql(String db, String sink, long startLsn, java.util.Collection<String> keys) {
        StringBuilder sb = new StringBuilder("INSERT INTO " + quote(db) + "." + quote(COPIES_TABLE)
                + " (sink, relation, attach_lsn, start_lsn, at) VALUES ");
        String sep = "";
        for (String k : keys) {
            int at = k.indexOf('@');
            sb.append(sep).append('(').append(ColumnCodec.quote(sink)).append(", ")
                    .append(Integer.toUnsignedString(Integer.parseUnsignedInt(k.substring(0, at)))).append(", ")
                    .append(Long.toUnsignedString(Long.parseUnsignedLong(k.substring(at + 1)))).append(", ")
                    .append(Long.toUnsignedString(startLsn)).append(", now())");
            sep = ", ";
        }
        return sb.toString();
    }

    /**
     * The start point of the round that seeded the request of {@code relation} attached at {@code attachLsn}, 0 when
     * none has yet (a start point is never 0); fails when the table does not exist. The least one: a coordinator
     * that finished the round marks every request planned so far again, under its latest round's start point.
     */
    public static String copySeededSql(String db, String sink, int relation, long attachLsn) {
        return "SELECT min(start_lsn) FROM " + quote(db) + "." + quote(COPIES_TABLE) + " WHERE sink = "
                + ColumnCodec.quote(sink) + " AND relation = " + Integer.toUnsignedString(relation) + " AND attach_lsn = "
                + Long.toUnsignedString(attachLsn);
    }
}
