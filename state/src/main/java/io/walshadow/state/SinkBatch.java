package io.walshadow.state;

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
 */
public record SinkBatch(String sinkId, long batch, List<SinkStep> steps, long commits, long rows, long lastCommitSeq,
                        long lastCommitLsn, long lastFullXid, long lastCommitTime) {
    public SinkBatch {
        steps = List.copyOf(steps);
    }
}
