package io.walshadow.clickhouse;

import static io.walshadow.clickhouse.DestinationSchema.quote;

import io.walshadow.sink.DestTable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Names and DDL of the tables the sink keeps next to the destination tables, in the same database:
 * <ul>
 *   <li>{@code _walshadow_watermark}: per sink and batch, a row when the committer starts (phase 0) and one when it
 *       finished (phase 1) with the batch's last commit: the committed watermark.
 *   <li>{@code _walshadow_commit_log}: one row per drained commit.
 *   <li>{@code _walshadow_visible}: per sink, the newest commit visible in the destination tables with every commit
 *       before it: advanced by the committer after each batch and, with {@code clickhouse.visibility=commit}, by the
 *       writer after each of its direct writes (ahead of the checkpoint; {@code _walshadow_committed} stays the
 *       checkpointed cut).
 *   <li>{@code _walshadow_progress}: the DDL steps a committer finished, so a retried batch does not repeat them.
 *   <li>{@code _walshadow_stage_<sink>_<hash>}: staging tables, one per destination table shape, partitioned by
 *       batch; a batch's rows sit there until its checkpoint completes. Each row carries the batch, the segment
 *       (between DDL steps) and the writer attempt that staged it: a restored attempt reuses the batch number of
 *       the unfinished batch, which a writer cut off from the job may still be writing into.
 *       ({@code _a} names: tables of the layout with {@code _attempt}; earlier ones serve committables of earlier
 *       builds.)
 *   <li>views {@code _walshadow_committed} (the watermark, and whether a commit is in progress),
 *       {@code <dest>__live} (the table's live rows: FINAL, without tombstones) and {@code <dest>__consistent} (the
 *       table as of {@code _walshadow_visible}: {@link #consistentViewSql}).
 * </ul>
 */
public final class SinkTables {
    public static final String WATERMARK = "_walshadow_watermark";
    public static final String COMMIT_LOG = "_walshadow_commit_log";
    /** The tables each sink quarantined ({@code clickhouse.unwritable quarantine}): one row per table, while it is. */
    public static final String QUARANTINE = "_walshadow_quarantine";
    public static final String PROGRESS = "_walshadow_progress";
    public static final String COMMITTED_VIEW = "_walshadow_committed";
    /** Per sink, the newest commit whose rows (and every earlier commit's) are in the destination tables. */
    public static final String VISIBLE = "_walshadow_visible";
    public static final String STAGE_PREFIX = "_walshadow_stage_";
    public static final String LIVE_SUFFIX = "__live";
    /** A destination's rows as of {@link #VISIBLE}: every commit up to it whole, none after it. */
    public static final String CONSISTENT_SUFFIX = "__consistent";
    /** The views the sink keeps next to each destination table. */
    public static final List<String> VIEW_SUFFIXES = List.of(LIVE_SUFFIX, CONSISTENT_SUFFIX);
    public static final String BATCH = "_batch";
    public static final String SEGMENT = "_seg";
    public static final String ATTEMPT = "_attempt";
    private static final Pattern SINK_ID = Pattern.compile("[A-Za-z0-9_]{1,64}");

    /** Columns of the commit log, in table order (what the writer stages for it). */
    public static final List<String> COMMIT_LOG_COLUMNS = List.of("sink", "commit_seq", "xid", "commit_lsn",
            "commit_lsn_text", "commit_time", "commit_time_us", "tables", "schema_change", "changes", "gid", "batch");

    private SinkTables() {}

    /** Checks a sink id: it becomes part of table names. */
    public static String checkSinkId(String id) {
        if (id == null || !SINK_ID.matcher(id).matches()) {
            throw new IllegalArgumentException("sink id must be 1-64 characters of [A-Za-z0-9_], got '" + id + "'");
        }
        return id;
    }

    public static List<String> setupSql(String db) {
        String d = quote(db) + ".";
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + d + quote(WATERMARK) + " (sink String, batch UInt64, phase UInt8,"
                        + " commit_seq UInt64, commit_lsn UInt64, commit_lsn_text String, xid UInt64,"
                        + " commit_time DateTime('UTC'), commits UInt64, rows UInt64, written_at DateTime('UTC'))"
                        + " ENGINE = ReplacingMergeTree ORDER BY (sink, batch, phase)",
                "CREATE TABLE IF NOT EXISTS " + d + quote(COMMIT_LOG) + " (sink String, commit_seq UInt64, xid UInt64,"
                        + " commit_lsn UInt64, commit_lsn_text String, commit_time DateTime('UTC'), commit_time_us Int64,"
                        + " tables Array(String), schema_change UInt8, changes UInt64, gid String, batch UInt64)"
                        + " ENGINE = ReplacingMergeTree ORDER BY (sink, commit_seq)",
                "CREATE TABLE IF NOT EXISTS " + d + quote(VISIBLE) + " (sink String, commit_seq UInt64,"
                        + " commit_lsn UInt64, commit_lsn_text String, commit_time DateTime('UTC'), batch UInt64,"
                        + " written_at DateTime('UTC')) ENGINE = ReplacingMergeTree(commit_seq) ORDER BY sink",
                "CREATE TABLE IF NOT EXISTS " + d + quote(QUARANTINE) + " (sink String, relation UInt32,"
                        + " table String, destination String, lsn UInt64, lsn_text String, reason String,"
                        + " quarantined_at DateTime('UTC')) ENGINE = ReplacingMergeTree ORDER BY (sink, relation)",
                "CREATE TABLE IF NOT EXISTS " + d + quote(PROGRESS) + " (sink String, batch UInt64, step UInt32,"
                        + " done_at DateTime('UTC')) ENGINE = ReplacingMergeTree ORDER BY (sink, batch, step)",
                // One row per sink: the newest finished batch's last commit, and whether a later batch started.
                "CREATE VIEW IF NOT EXISTS " + d + quote(COMMITTED_VIEW) + " AS SELECT sink,"
                        + " maxIf(batch, phase = 1) AS committed_batch,"
                        + " argMaxIf(commit_seq, batch, phase = 1) AS commit_seq,"
                        + " argMaxIf(commit_lsn, batch, phase = 1) AS commit_lsn,"
                        + " argMaxIf(commit_lsn_text, batch, phase = 1) AS commit_lsn_text,"
                        + " argMaxIf(commit_time, batch, phase = 1) AS commit_time,"
                        + " maxIf(batch, phase = 0) > maxIf(batch, phase = 1) AS commit_in_progress"
                        + " FROM " + d + quote(WATERMARK) + " GROUP BY sink");
    }

    /** Staging table of a destination table's current shape (same name after a restore: it is derived). */
    public static String stageName(String sinkId, DestTable t) {
        StringBuilder key = new StringBuilder("a\0").append(t.destName()).append('\0').append(t.keyedByTid());
        if (t.tids() && !t.keyedByTid()) {
            key.append("\0tids"); // a keyed table with TID columns stages them too
        }
        if (DestinationSchema.partitioned(t)) {
            key.append("\0partition");
        }
        for (int i = 0; i < t.chNames().size(); i++) {
            key.append('\0').append(t.chNames().get(i)).append('\0').append(t.chTypes().get(i));
        }
        return STAGE_PREFIX + sinkId + "_" + hash(key.toString());
    }

    /** Staging table of the TOAST mirror of this TOAST relation. */
    public static String mirrorStageName(String sinkId, int toastRelOid) {
        return STAGE_PREFIX + sinkId + "_" + hash("mirror\0" + ToastMirror.name(toastRelOid));
    }

    public static String createMirrorStageSql(String db, String stage) {
        return createStage(db, stage, ToastMirror.stageDefinitions());
    }

    public static String commitLogStage(String sinkId) {
        return STAGE_PREFIX + sinkId + "_commit_log_a";
    }

    /** Destination columns of a table in staging order: source columns, then the replication columns. */
    public static List<String> columns(DestTable t) {
        List<String> cols = new ArrayList<>();
        for (String n : t.chNames()) {
            if (n != null) {
                cols.add(n);
            }
        }
        cols.add(DestinationSchema.LSN);
        cols.add(DestinationSchema.COMMIT_LSN);
        cols.add(DestinationSchema.XID);
        cols.add(DestinationSchema.IS_DELETED);
        if (t.tids()) {
            cols.add(DestinationSchema.TID_BLOCK);
            cols.add(DestinationSchema.TID_OFFSET);
        }
        if (DestinationSchema.partitioned(t)) {
            cols.add(DestinationSchema.PARTITION);
        }
        return cols;
    }

    public static String createStageSql(String db, String stage, DestTable t) {
        List<String> defs = new ArrayList<>();
        for (int i = 0; i < t.chNames().size(); i++) {
            if (t.chNames().get(i) != null) {
                defs.add(quote(t.chNames().get(i)) + " " + t.chTypes().get(i));
            }
        }
        defs.addAll(DestinationSchema.metaColumns(t));
        return createStage(db, stage, defs);
    }

    public static String createCommitLogStageSql(String db, String sinkId) {
        return createStage(db, commitLogStage(sinkId), List.of("sink String", "commit_seq UInt64", "xid UInt64",
                "commit_lsn UInt64", "commit_lsn_text String", "commit_time DateTime('UTC')", "commit_time_us Int64",
                "tables Array(String)", "schema_change UInt8", "changes UInt64", "gid String", "batch UInt64"));
    }

    private static String createStage(String db, String stage, List<String> defs) {
        return "CREATE TABLE IF NOT EXISTS " + quote(db) + "." + quote(stage) + " (" + String.join(", ", defs)
                + ", " + quote(BATCH) + " UInt64, " + quote(SEGMENT) + " UInt32, " + quote(ATTEMPT) + " UInt64)"
                + " ENGINE = MergeTree PARTITION BY " + quote(BATCH) + " ORDER BY tuple()";
    }

    /**
     * The batch of a row written straight into its destination ({@code clickhouse.visibility=commit}): it carries no
     * staging columns.
     */
    public static final long DIRECT = -1;

    /** The staging columns that end every staged row: batch, segment, attempt; none for a {@link #DIRECT} row. */
    public static void stagingSuffix(RowBinaryBuffer out, long batch, int segment, long attempt) {
        if (batch == DIRECT) {
            return;
        }
        out.i64(batch);
        out.i32(segment);
        out.i64(attempt);
    }

    /** The rows of one batch segment that one attempt staged (0: a batch of a build before attempts, all rows). */
    public static String stagedWhere(long batch, int segment, long attempt) {
        return quote(BATCH) + " = " + batch + " AND " + quote(SEGMENT) + " = " + segment
                + (attempt == 0 ? "" : " AND " + quote(ATTEMPT) + " = " + Long.toUnsignedString(attempt));
    }

    /**
     * The row saying every commit up to {@code commitSeq} is in the destination tables (a repeat, or an older one
     * written late, changes nothing: the table keeps the highest). {@code commitTime}: PostgreSQL's timestamp.
     */
    public static String visibleSql(String db, String sinkId, long commitSeq, long commitLsn, long commitTime,
                                    long batch) {
        return "INSERT INTO " + quote(db) + "." + quote(VISIBLE) + " (sink, commit_seq, commit_lsn, commit_lsn_text,"
                + " commit_time, batch, written_at) VALUES (" + ColumnCodec.quote(sinkId) + ", " + commitSeq + ", "
                + commitLsn + ", '" + io.walshadow.wal.Lsn.format(commitLsn) + "', toDateTime("
                + BatchCommitter.commitSeconds(commitTime) + ", 'UTC'), " + batch + ", now())";
    }

    /** The sink's visible mark: its commit LSN and commit time (Unix seconds); no row before its first. */
    public static String lastVisibleSql(String db, String sinkId) {
        return "SELECT commit_lsn, toUnixTimestamp(commit_time) FROM " + quote(db) + "." + quote(VISIBLE) + " FINAL"
                + " WHERE sink = " + ColumnCodec.quote(sinkId) + " ORDER BY commit_seq DESC LIMIT 1";
    }

    /**
     * The table as of the sink's visible mark: per key, the newest version whose commit is at or before the mark,
     * without tombstones. FINAL cannot say this (it folds to the newest version before any filter on
     * {@code _commit_lsn}); argMax of one tuple keeps NULLs (argMax of a Nullable column skips them) and reads the
     * rows once. The mark is read when a query using the view starts, so a query sees whole commits only.
     *
     * @param columns the table's columns in order, each named once
     * @param key its sorting-key columns: versions of one row share them
     */
    public static String consistentViewSql(String db, String sinkId, String table, List<String> columns,
                                           List<String> key) {
        String row = "_walshadow_row";
        while (columns.contains(row)) {
            row = "_" + row;
        }
        List<String> versioned = new ArrayList<>();
        List<String> out = new ArrayList<>();
        for (String c : columns) {
            if (key.contains(c)) {
                out.add(quote(c));
            } else {
                versioned.add(quote(c));
                out.add("tupleElement(" + quote(row) + ", " + versioned.size() + ") AS " + quote(c));
            }
        }
        versioned.add(quote(DestinationSchema.IS_DELETED));
        List<String> keys = key.stream().map(DestinationSchema::quote).toList();
        String d = quote(db) + ".";
        return "CREATE VIEW IF NOT EXISTS " + d + quote(table + CONSISTENT_SUFFIX) + " AS SELECT "
                + String.join(", ", out)
                + " FROM (SELECT " + String.join(", ", keys) + ", argMax(tuple(" + String.join(", ", versioned)
                + "), " + quote(DestinationSchema.LSN) + ") AS " + quote(row) + " FROM " + d + quote(table)
                + " WHERE " + quote(DestinationSchema.COMMIT_LSN) + " <= (SELECT max(commit_lsn) FROM " + d
                + quote(VISIBLE) + " WHERE sink = " + ColumnCodec.quote(sinkId) + ") GROUP BY "
                + String.join(", ", keys) + ") WHERE tupleElement(" + quote(row) + ", " + versioned.size() + ") = 0";
    }

    /** The newest batch of this sink the committer finished (empty: none yet). */
    public static String lastFinishedBatchSql(String db, String sinkId) {
        return "SELECT max(batch) FROM " + quote(db) + "." + quote(WATERMARK) + " WHERE sink = "
                + ColumnCodec.quote(sinkId) + " AND phase = 1";
    }

    /** All rows of one batch that one attempt staged, whatever their segment. */
    public static String stagedWhere(long batch, long attempt) {
        return quote(BATCH) + " = " + batch + " AND " + quote(ATTEMPT) + " = " + Long.toUnsignedString(attempt);
    }

    static String hash(String s) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
