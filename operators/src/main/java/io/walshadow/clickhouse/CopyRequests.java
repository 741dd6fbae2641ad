package io.walshadow.clickhouse;

import static io.walshadow.clickhouse.DestinationSchema.quote;

/**
 * {@code _walshadow_copy_requests}: per sink, the tables whose rows must be copied from PostgreSQL because the WAL
 * does not hold them: a table the job did not replicate on its own, attached as a partition of a replicated root
 * (docs/design/partitioned-tables.md, section 4). The sink's committer writes a request in order with the batch of
 * the attach; the snapshot's coordinator polls the table and copies each request once, at a start point after it.
 * A repeated request (a batch committed again) folds with the first: same key, same row.
 */
public final class CopyRequests {
    public static final String TABLE = "_walshadow_copy_requests";

    private CopyRequests() {}

    public static String createSql(String db) {
        return "CREATE TABLE IF NOT EXISTS " + quote(db) + "." + quote(TABLE) + " (sink String, relation UInt32,"
                + " root UInt32, attach_lsn UInt64, at DateTime) ENGINE = ReplacingMergeTree"
                + " ORDER BY (sink, relation, attach_lsn)";
    }

    public static String insertSql(String db, String sink, int relation, int root, long attachLsn) {
        return "INSERT INTO " + quote(db) + "." + quote(TABLE) + " (sink, relation, root, attach_lsn, at) VALUES ("
                + ColumnCodec.quote(sink) + ", " + Integer.toUnsignedString(relation) + ", "
                + Integer.toUnsignedString(root) + ", " + Long.toUnsignedString(attachLsn) + ", now())";
    }

    /** The sink's requests, oldest attach first: TSV rows of relation, root, attach_lsn. */
    public static String listSql(String db, String sink) {
        return "SELECT DISTINCT relation, root, attach_lsn FROM " + quote(db) + "." + quote(TABLE) + " WHERE sink = "
                + ColumnCodec.quote(sink) + " ORDER BY attach_lsn, relation";
    }

    /** The key a request is known by in the coordinator's state. */
    public static String key(int relation, long attachLsn) {
        return Integer.toUnsignedString(relation) + "@" + Long.toUnsignedString(attachLsn);
    }
}
