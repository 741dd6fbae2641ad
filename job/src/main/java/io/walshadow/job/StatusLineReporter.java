package io.walshadow.job;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.metrics.reporter.Scheduled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a {@link StatusLine} every few seconds (logger {@code io.walshadow.job.status}), read from the job's own
 * metrics as Flink's reporters see them: the WAL source's lag, the decoder's commit lag, the sink's rows and the
 * newest commit visible in ClickHouse (its writer's {@code _walshadow_visible} mark with rows written at commit, else
 * the watermark its committer made visible), the snapshot coordinator's progress. A Flink metric reporter, so it sees
 * the JobManager's metrics (the copy's progress) and the TaskManager's alike: the embedded MiniCluster of a run from a
 * plain JVM has both in one registry. Nothing is printed while no job runs.
 */
public final class StatusLineReporter implements MetricReporter, Scheduled, MetricReporterFactory {
    private static final Logger LOG = LoggerFactory.getLogger("io.walshadow.job.status");
    /** Reporter name in the Flink configuration ({@code metrics.reporter.<name>.*}). */
    static final String REPORTER = "status";

    static final String LAG_BYTES = "wal.lag_bytes";
    static final String COMMIT_LAG_MS = "decoder.commit_lag_ms";
    static final String ROWS_STAGED = "clickhouse_sink.rows_staged";
    static final String VISIBLE_LSN = "clickhouse_sink.visible_lsn";
    static final String VISIBLE_AGE_MS = "clickhouse_sink.visible_commit_age_ms";
    /** The writer's, with rows written at commit: ahead of the committer's checkpointed cut. */
    static final String DIRECT_VISIBLE_LSN = "clickhouse_sink.direct_visible_lsn";
    static final String DIRECT_VISIBLE_AGE_MS = "clickhouse_sink.direct_visible_commit_age_ms";
    static final String COPY_COMPLETE = "snapshot.complete";
    static final String COPY_CHUNKS_TOTAL = "snapshot.chunks_total";
    static final String COPY_CHUNKS_DONE = "snapshot.chunks_done";
    static final String COPY_ROWS = "snapshot.rows_done";
    static final String COPY_ETA_MS = "snapshot.eta_ms";
    static final String COPY_WAITING_MS = "snapshot.waiting_for_start_transactions_ms";

    /** The metrics the line reads, by {@code group.name}; the newest registration wins (a restarted task's). */
    private final Map<String, Metric> metrics = new ConcurrentHashMap<>();
    private final Map<Metric, String> names = new ConcurrentHashMap<>();
    private long lastRows;
    private Counter lastRowsCounter;
    private long lastReportNanos = System.nanoTime(); // rows/s of the first line: since the reporter started

    /** Configures the reporter in an embedded MiniCluster's configuration: a line every {@code interval}. */
    public static void applyTo(Configuration flink, Duration interval) {
        flink.setString("metrics.reporter." + REPORTER + ".factory.class", StatusLineReporter.class.getName());
        flink.setString("metrics.reporter." + REPORTER + ".interval", interval.toMillis() + " ms");
    }

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new StatusLineReporter();
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        String id = group.getMetricIdentifier(name);
        for (String wanted : new String[] {LAG_BYTES, COMMIT_LAG_MS, ROWS_STAGED, VISIBLE_LSN, VISIBLE_AGE_MS,
            DIRECT_VISIBLE_LSN, DIRECT_VISIBLE_AGE_MS, COPY_COMPLETE, COPY_CHUNKS_TOTAL, COPY_CHUNKS_DONE, COPY_ROWS,
            COPY_ETA_MS, COPY_WAITING_MS}) {
            if (id.endsWith("." + wanted)) {
                metrics.put(wanted, metric);
                names.put(metric, wanted);
            }
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        String wanted = names.remove(metric);
        if (wanted != null) {
            metrics.remove(wanted, metric); // unless a newer registration replaced it already
        }
    }

    @Override
    public void report() {
        StatusLine line = read(System.nanoTime());
        if (line != null) {
            LOG.info("{}", line.format());
        }
    }

    /** The line from the metrics registered at {@code now} ({@link System#nanoTime()}); null while the job's source and sink are not (no job runs). */
    StatusLine read(long now) {
        if (!metrics.containsKey(LAG_BYTES) || !metrics.containsKey(ROWS_STAGED)) {
            return null;
        }
        double rowsPerSecond = -1;
        if (metrics.get(ROWS_STAGED) instanceof Counter rows) {
            long count = rows.getCount();
            // a restarted sink counts from 0 again: its rows since it registered
            long delta = rows == lastRowsCounter ? count - lastRows : count;
            double seconds = (now - lastReportNanos) / 1e9;
            rowsPerSecond = seconds > 0 ? Math.max(0, delta) / seconds : -1;
            lastRowsCounter = rows;
            lastRows = count;
        }
        lastReportNanos = now;
        StatusLine.Copy copy = null;
        if (metrics.containsKey(COPY_COMPLETE) && value(COPY_COMPLETE, 1) == 0) {
            copy = new StatusLine.Copy(value(COPY_CHUNKS_DONE, 0), value(COPY_CHUNKS_TOTAL, 0), value(COPY_ROWS, 0),
                    value(COPY_ETA_MS, -1), value(COPY_WAITING_MS, 0));
        }
        long visibleLsn = value(VISIBLE_LSN, 0);
        long visibleAgeMs = value(VISIBLE_AGE_MS, -1);
        long direct = value(DIRECT_VISIBLE_LSN, 0);
        if (Long.compareUnsigned(direct, visibleLsn) > 0) { // the rows written at commit are ahead of the cut
            visibleLsn = direct;
            visibleAgeMs = value(DIRECT_VISIBLE_AGE_MS, -1);
        }
        return new StatusLine(value(LAG_BYTES, -1), value(COMMIT_LAG_MS, -1), rowsPerSecond, visibleLsn, visibleAgeMs,
                copy);
    }

    private long value(String name, long absent) {
        Metric m = metrics.get(name);
        if (m instanceof Counter c) {
            return c.getCount();
        }
        if (m instanceof Gauge<?> g && g.getValue() instanceof Number n) {
            return n.longValue();
        }
        return absent;
    }
}
