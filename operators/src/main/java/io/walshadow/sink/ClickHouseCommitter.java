package io.walshadow.sink;

import io.walshadow.clickhouse.BatchCommitter;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.ClickHouseException;
import io.walshadow.clickhouse.Retrier;
import io.walshadow.clickhouse.ServerCapabilities;
import io.walshadow.xact.PgTimestamps;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits staged batches after their checkpoint completed ({@link BatchCommitter}), oldest first. A ClickHouse
 * error that outlasts the retry budget fails the job; the batch stays in the committer's state and is committed
 * again after the restore.
 *
 * <p>Metrics (group {@code clickhouse_sink}): {@code batches_committed}, {@code batches_already_committed},
 * {@code commits_visible}, {@code committer_retries}; gauges {@code commit_duration_ms} (last batch) and
 * {@code visible_lag_ms} (when the last batch became visible, minus its last commit's time on the source),
 * {@code visible_lsn} (the commit LSN of the watermark this run made visible last, 0 before its first batch) and
 * {@code visible_commit_age_ms} (now minus that commit's time on the source, -1 before the first batch); histogram
 * {@code commit_to_visible_ms}: when a batch became visible minus the source commit time of each commit in the
 * batch's sample ({@link SinkBatch#latencySample()}: up to 32 of its commits, drawn uniformly), over the last
 * {@value #LATENCY_WINDOW} samples.
 */
final class ClickHouseCommitter implements Committer<SinkBatch> {
    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseCommitter.class);

    private final ClickHouseSinkOptions options;
    private final Counter committed;
    private final Counter alreadyCommitted;
    private final Counter commitsVisible;
    private final Counter retries;
    /** Samples the latency histogram keeps: a few dozen batches' worth, so its quantiles follow the job's recent past. */
    static final int LATENCY_WINDOW = 1000;
    private final Histogram commitToVisible;
    private volatile long lastDurationMs;
    private volatile long visibleLagMs;
    /** The watermark this run made visible last (its {@code _walshadow_committed} row): commit LSN and time. */
    private volatile long visibleLsn;
    private volatile long visibleCommitTimeMs = -1;
    private ClickHouseConnection ch;
    private BatchCommitter committer;

    ClickHouseCommitter(ClickHouseSinkOptions options, CommitterInitContext ctx) {
        this.options = options;
        MetricGroup g = ctx.metricGroup().addGroup("clickhouse_sink");
        committed = g.counter("batches_committed");
        alreadyCommitted = g.counter("batches_already_committed");
        commitsVisible = g.counter("commits_visible");
        retries = g.counter("committer_retries");
        commitToVisible = g.histogram("commit_to_visible_ms", new DescriptiveStatisticsHistogram(LATENCY_WINDOW));
        g.gauge("commit_duration_ms", () -> lastDurationMs);
        g.gauge("visible_lag_ms", () -> visibleLagMs);
        g.gauge("visible_lsn", () -> visibleLsn);
        // how old the newest commit visible in ClickHouse is (grows while the source is idle: read it with the lag)
        g.gauge("visible_commit_age_ms", () -> {
            long t = visibleCommitTimeMs;
            return t < 0 ? -1L : Math.max(0L, System.currentTimeMillis() - t);
        });
    }

    private BatchCommitter committer() throws InterruptedException {
        if (committer == null) {
            ch = options.connect();
            Retrier retry = new Retrier(options.retryTimeout(), retries::inc);
            ServerCapabilities caps = retry.call("SELECT version()", () -> ServerCapabilities.probe(ch));
            committer = new BatchCommitter(ch, caps, retry, options.sinkId());
            committer.setup();
        }
        return committer;
    }

    @Override
    public void commit(Collection<CommitRequest<SinkBatch>> requests) throws IOException, InterruptedException {
        List<CommitRequest<SinkBatch>> sorted = new ArrayList<>(requests);
        sorted.sort(Comparator.comparingLong(r -> r.getCommittable().batch()));
        for (CommitRequest<SinkBatch> r : sorted) {
            SinkBatch b = r.getCommittable();
            long start = System.currentTimeMillis();
            try {
                if (committer().commit(b)) {
                    committed.inc();
                    commitsVisible.inc(b.commits());
                    long now = System.currentTimeMillis();
                    lastDurationMs = now - start;
                    visibleLagMs = now - PgTimestamps.toUnixMicros(b.lastCommitTime()) / 1000;
                    visibleCommitTimeMs = PgTimestamps.toUnixMicros(b.lastCommitTime()) / 1000;
                    visibleLsn = b.lastCommitLsn();
                    recordLatencies(b, now);
                    LOG.debug("batch {}: {} commits, {} rows visible in {} ms", b.batch(), b.commits(), b.rows(),
                            lastDurationMs);
                } else {
                    alreadyCommitted.inc();
                    r.signalAlreadyCommitted();
                }
            } catch (ClickHouseException e) {
                throw new IOException("committing batch " + b.batch() + " of sink " + b.sinkId() + " ("
                        + b.commits() + " commits up to commit seq " + b.lastCommitSeq() + ") failed: "
                        + e.getMessage(), e);
            }
        }
    }

    /** The batch's sampled commits, visible at {@code now}: clocks apart by more than the latency count as 0. */
    private void recordLatencies(SinkBatch b, long now) {
        for (long t : b.latencySample()) {
            commitToVisible.update(Math.max(0L, now - PgTimestamps.toUnixMicros(t) / 1000));
        }
    }

    @Override
    public void close() {
        if (ch != null) {
            ch.close();
        }
    }
}
