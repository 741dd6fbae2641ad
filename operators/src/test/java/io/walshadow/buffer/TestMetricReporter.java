package io.walshadow.buffer;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * Keeps the transaction buffer's, the TOAST stage's, the WAL source's, the decoder's, the sink's metrics and the
 * job's restart count of the MiniCluster (the newest registration of each name) for tests.
 */
public final class TestMetricReporter implements MetricReporter, MetricReporterFactory {
    public static final Map<String, Metric> METRICS = new ConcurrentHashMap<>();

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new TestMetricReporter();
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        String id = group.getMetricIdentifier(name);
        if (id.contains("xact_buffer") || id.contains(".toast.") || id.contains(".wal.") || id.contains(".snapshot.") || id.contains(".decoder.catalog_") || id.contains(".decoder.values_")
                || id.contains(".clickhouse_sink.") || id.endsWith(".numRestarts")
                || id.endsWith("commit_lag_ms") || id.endsWith("_per_second") || id.endsWith("snapshot_rows_superseded")) {
            METRICS.put(name, metric);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}

    /** Current value of a counter or numeric gauge, a meter's event count; -1 when not registered yet. */
    public static long value(String name) {
        Metric m = METRICS.get(name);
        if (m instanceof Counter c) {
            return c.getCount();
        }
        if (m instanceof org.apache.flink.metrics.Meter meter) {
            return meter.getCount(); // events so far (the rate is updated every few seconds in the background)
        }
        if (m instanceof Gauge<?> g) {
            return ((Number) g.getValue()).longValue();
        }
        return -1;
    }
}
