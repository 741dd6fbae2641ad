package io.walshadow.sink;

import java.util.List;

/**
 * The sink's committable: what one checkpoint's worth of drained commits does to ClickHouse. The rows sit in
 * staging tables (partition {@code batch}) until the committer runs {@code steps} after the checkpoint completed,
 * then records the commit watermark.
 *
 * @param sinkId names this sink's staging tables and its rows in the watermark table
 * @param batch the writer's batch number (staging partition), increasing
 * @param steps in order
 * @param commits drained commits in the batch
 * @param lastCommitSeq commit sequence of the batch's last commit: the watermark once committed
 * @param attempt the writer attempt that staged the rows ({@code _attempt} in staging tables): its insert steps
 *     take only that attempt's rows, so a writer cut off from the job (a zombie still writing into the partition a
 *     restored attempt reuses) cannot add to them; 0 for batches of builds that staged no attempt
 * @param commitTimes a uniform sample (at most {@value CommitTimeSample#CAPACITY}) of the source commit times
 *     (PostgreSQL microseconds) of the batch's commits, for the commit-to-visible latency; empty for batches of
 *     builds that sampled none (then {@code lastCommitTime} stands for them)
 */
public record SinkBatch(String sinkId, long batch, List<SinkStep> steps, long commits, long rows, long lastCommitSeq,
                        long lastCommitLsn, long lastFullXid, long lastCommitTime, long attempt,
                        List<Long> commitTimes) {
    public SinkBatch {
        steps = List.copyOf(steps);
        commitTimes = List.copyOf(commitTimes);
    }

    /** A batch without a sample of its commit times (staged by a build before the sample). */
    public SinkBatch(String sinkId, long batch, List<SinkStep> steps, long commits, long rows, long lastCommitSeq,
                     long lastCommitLsn, long lastFullXid, long lastCommitTime, long attempt) {
        this(sinkId, batch, steps, commits, rows, lastCommitSeq, lastCommitLsn, lastFullXid, lastCommitTime, attempt,
                List.of());
    }

    /**
     * The source commit times the commit-to-visible latency is measured from: the sample, or the last commit's time
     * for a batch without one; none for a batch without commits (DDL only).
     */
    public List<Long> latencySample() {
        if (!commitTimes.isEmpty()) {
            return commitTimes;
        }
        return commits > 0 ? List.of(lastCommitTime) : List.of();
    }

    /** A batch without an attempt stamp (staged by a build before attempts). */
    public SinkBatch(String sinkId, long batch, List<SinkStep> steps, long commits, long rows, long lastCommitSeq,
                     long lastCommitLsn, long lastFullXid, long lastCommitTime) {
        this(sinkId, batch, steps, commits, rows, lastCommitSeq, lastCommitLsn, lastFullXid, lastCommitTime, 0);
    }
}
