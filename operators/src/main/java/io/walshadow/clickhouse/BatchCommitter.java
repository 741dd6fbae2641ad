package io.walshadow.clickhouse;

import static io.walshadow.clickhouse.DestinationSchema.quote;

import io.walshadow.sink.SinkBatch;
import io.walshadow.sink.SinkStep;
import io.walshadow.wal.Lsn;
import io.walshadow.xact.PgTimestamps;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes one staged batch visible, after its checkpoint completed:
 * <ol>
 *   <li>a batch the watermark already shows as finished is only cleaned up (a committer retried after it got
 *       that far);
 *   <li>a watermark row "batch started" (readers polling {@code _walshadow_committed} see a commit in progress);
 *   <li>the steps in order: DDL, and INSERT ... SELECT from the staging tables (each staging segment first
 *       checked to hold the rows it was staged with); each finished DDL step is recorded
 *       in {@code _walshadow_progress}, and a retry resumes after the last recorded one (inserts before it are
 *       done; an insert after it is repeated, which leaves byte-identical rows that ReplacingMergeTree folds);
 *   <li>{@code _walshadow_visible} advanced to the batch's last commit;
 *   <li>the watermark row "batch finished" with the batch's last commit: every row of every commit up to it is now
 *       in the destination tables, and the commit log has one row per commit;
 *   <li>the batch's staging partitions are dropped.
 * </ol>
 */
public final class BatchCommitter {
    private static final Logger LOG = LoggerFactory.getLogger(BatchCommitter.class);

    private final ClickHouseSql ch;
    private final StepExecutor steps;
    private final Retrier retry;
    private final String db;

    /** @param sinkId the sink whose batches this commits */
    public BatchCommitter(ClickHouseSql ch, ServerCapabilities caps, Retrier retry, String sinkId) {
        this.ch = ch;
        this.retry = retry;
        this.db = ch.database();
        this.steps = new StepExecutor(ch, caps, retry, sinkId);
    }

    /** Creates the sink's own tables and views if missing. */
    public void setup() throws InterruptedException {
        for (String sql : SinkTables.setupSql(db)) {
            steps.sql(sql);
        }
    }

    /** @return false when the batch had been committed before (nothing was written again) */
    public boolean commit(SinkBatch b) throws InterruptedException {
        String sink = ColumnCodec.quote(b.sinkId());
        if (finished(b)) {
            dropStaging(b);
            return false;
        }
        if (b.steps().isEmpty()) {
            // the writer wrote every row itself (clickhouse.visibility=commit) and advanced _walshadow_visible: only
            // the watermark moves, both rows in one statement (the committer runs on the task's thread)
            Faults.at("commit.begin");
            Faults.at("commit.finish");
            steps.sql("INSERT INTO " + table(SinkTables.WATERMARK) + " (" + WATERMARK_COLUMNS + ") VALUES "
                    + watermarkValues(b, 0) + ", " + watermarkValues(b, 1));
            Faults.at("commit.cleanup");
            return true;
        }
        writeWatermark(b, 0);
        Faults.at("commit.begin");
        String q = "SELECT max(step) + 1, count() FROM " + table(SinkTables.PROGRESS) + " WHERE sink = " + sink
                + " AND batch = " + b.batch();
        String[] progress = retry.call(q, () -> ch.queryTsv(q)).get(0);
        int resumeAt = "0".equals(progress[1]) ? 0 : Integer.parseInt(progress[0]);
        if (resumeAt > 0) {
            LOG.info("batch {} of sink {}: resuming after step {} of {}", b.batch(), b.sinkId(), resumeAt - 1,
                    b.steps().size());
        }
        List<SinkStep> list = b.steps();
        steps.deferViews();
        Map<String, Long> staged = stagedRows(list);
        for (int i = resumeAt; i < list.size(); i++) {
            SinkStep s = list.get(i);
            Faults.at("commit.step");
            if (s instanceof SinkStep.Insert ins) {
                verifyStaged(b, ins, staged);
            }
            steps.execute(s, b.batch(), b.attempt(), b.sinkId() + "-" + b.batch() + "-" + i);
            if (!(s instanceof SinkStep.Insert)) {
                steps.sql("INSERT INTO " + table(SinkTables.PROGRESS) + " (sink, batch, step, done_at) VALUES ("
                        + sink + ", " + b.batch() + ", " + i + ", now())");
            }
        }
        // views of every table the batch's DDL touched (also by steps done before a resume), once each
        steps.flushViews(viewTables(list));
        Faults.at("commit.finish");
        if (b.commits() > 0) {
            steps.sql(SinkTables.visibleSql(db, b.sinkId(), b.lastCommitSeq(), b.lastCommitLsn(), b.lastCommitTime(),
                    b.batch()));
        }
        writeWatermark(b, 1);
        Faults.at("commit.cleanup");
        dropStaging(b);
        return true;
    }

    /** Rows each (staging table, segment) of the batch was staged with, by the writer's count. */
    private static Map<String, Long> stagedRows(List<SinkStep> list) {
        Map<String, Long> out = new HashMap<>();
        for (SinkStep s : list) {
            if (s instanceof SinkStep.Insert i) {
                out.merge(i.stage() + "\0" + i.segment(), i.rows(), Long::sum);
            }
        }
        return out;
    }

    /**
     * Fails closed when a staging partition no longer holds the rows the writer staged into it (dropped or
     * truncated by hand, written twice): once the checkpoint completed the slot released that WAL, so inserting
     * whatever is left would lose or invent rows for good. Checked once per segment, before its first insert.
     */
    private void verifyStaged(SinkBatch b, SinkStep.Insert ins, Map<String, Long> staged) throws InterruptedException {
        Long expected = staged.remove(ins.stage() + "\0" + ins.segment());
        if (expected == null) {
            return; // verified at an earlier step of the segment
        }
        long actual = 0;
        if (steps.exists(ins.stage())) {
            String q = "SELECT count() FROM " + table(ins.stage()) + " WHERE " + SinkTables.stagedWhere(b.batch(),
                    ins.segment(), b.attempt());
            actual = Long.parseLong(retry.call(q, () -> ch.queryString(q)));
        }
        if (actual != expected) {
            // no restart can help (the same committable meets the same partition): stop at once, say it once
            throw new org.apache.flink.runtime.execution.SuppressRestartsException(new IllegalStateException("batch " + b.batch() + " of sink " + b.sinkId() + ": staging table "
                    + db + "." + ins.stage() + " holds " + actual + " rows of segment " + ins.segment() + " for "
                    + ins.table() + ", but " + expected + " were staged (dropped or written by something else?);"
                    + " the WAL they came from was released at the checkpoint, so the batch is not committed and"
                    + " the destination is left as of the batch before; start the job afresh (a new initial"
                    + " snapshot into an empty database) to replicate again"));
        }
    }

    private static Set<String> viewTables(List<SinkStep> list) {
        Set<String> out = new LinkedHashSet<>();
        for (SinkStep s : list) {
            if (s instanceof SinkStep.RenameTable r) {
                out.add(r.to());
            } else if ((s instanceof SinkStep.CreateTable && !ToastMirror.isMirror(s.table()))
                    || s instanceof SinkStep.AddColumn || s instanceof SinkStep.DropColumn
                    || s instanceof SinkStep.RenameColumn || s instanceof SinkStep.ModifyColumn) {
                out.add(s.table());
            }
        }
        return out;
    }

    /** Whether the watermark shows the batch finished; fails closed if it finished with other contents. */
    private boolean finished(SinkBatch b) throws InterruptedException {
        String q = "SELECT commit_seq, commit_lsn FROM " + table(SinkTables.WATERMARK) + " WHERE sink = "
                + ColumnCodec.quote(b.sinkId()) + " AND batch = " + b.batch() + " AND phase = 1 LIMIT 1";
        List<String[]> rows = retry.call(q, () -> ch.queryTsv(q));
        if (rows.isEmpty()) {
            return false;
        }
        if (Long.parseLong(rows.get(0)[0]) != b.lastCommitSeq() || Long.parseLong(rows.get(0)[1]) != b.lastCommitLsn()) {
            throw new IllegalStateException("batch " + b.batch() + " of sink " + b.sinkId() + " was committed before up "
                    + "to commit seq " + rows.get(0)[0] + ", but this committable ends at commit seq " + b.lastCommitSeq()
                    + ": another job with the same sink id (clickhouse.sink.id) writes to " + db + "?");
        }
        return true;
    }

    private static final String WATERMARK_COLUMNS = "sink, batch, phase, commit_seq, commit_lsn, commit_lsn_text, xid,"
            + " commit_time, commits, rows, written_at";

    private void writeWatermark(SinkBatch b, int phase) throws InterruptedException {
        steps.sql("INSERT INTO " + table(SinkTables.WATERMARK) + " (" + WATERMARK_COLUMNS + ") VALUES "
                + watermarkValues(b, phase));
    }

    private static String watermarkValues(SinkBatch b, int phase) {
        return "(" + ColumnCodec.quote(b.sinkId()) + ", " + b.batch() + ", " + phase + ", " + b.lastCommitSeq() + ", "
                + b.lastCommitLsn() + ", '" + Lsn.format(b.lastCommitLsn()) + "', " + b.lastFullXid() + ", "
                + "toDateTime(" + commitSeconds(b.lastCommitTime()) + ", 'UTC'), " + b.commits() + ", " + b.rows()
                + ", now())";
    }

    /** A PostgreSQL commit time in whole seconds since the Unix epoch, for a {@code DateTime} column. */
    public static long commitSeconds(long pgTimestamp) {
        return Math.max(0, Math.floorDiv(PgTimestamps.toUnixMicros(pgTimestamp), 1_000_000L));
    }

    private void dropStaging(SinkBatch b) throws InterruptedException {
        Set<String> stages = new LinkedHashSet<>();
        for (SinkStep s : b.steps()) {
            if (s instanceof SinkStep.Insert i) {
                stages.add(i.stage());
            }
        }
        for (String stage : stages) {
            if (steps.exists(stage)) {
                steps.sql("ALTER TABLE " + table(stage) + " DROP PARTITION " + b.batch());
            }
        }
    }

    private String table(String name) {
        return quote(db) + "." + quote(name);
    }

    public StepExecutor executor() {
        return steps;
    }
}
