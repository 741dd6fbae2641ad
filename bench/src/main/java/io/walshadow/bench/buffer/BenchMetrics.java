package io.walshadow.bench.buffer;

import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * Keeps the MiniCluster's metrics the benchmark reads (the newest registration of each name): the transaction
 * buffer's gauges and the job's checkpoint figures. Registered through {@code metrics.reporter.bench.factory.class};
 * the benchmark's sampler reads them, no reporting interval involved.
 */
public final class BenchMetrics implements MetricReporter, MetricReporterFactory {
    static final Set<String> NAMES = Set.of("buffered_changes", "buffered_bytes", "in_flight_transactions",
            "changes_drained", "commits_drained", "numberOfCompletedCheckpoints", "numberOfFailedCheckpoints",
            "lastCheckpointDuration", "lastCheckpointSize", "lastCheckpointFullSize");
    private static final Map<String, Metric> METRICS = new ConcurrentHashMap<>();

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new BenchMetrics();
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (NAMES.contains(name)) {
            METRICS.put(name, metric);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        METRICS.remove(name, metric);
    }

    /** Forgets the metrics of an earlier job (each job of the benchmark runs in a MiniCluster of its own). */
    static void clear() {
        METRICS.clear();
    }

    /** Current value of a counter or numeric gauge; -1 when not registered (yet) or not a number. */
    static long value(String name) {
        Metric m = METRICS.get(name);
        try {
            if (m instanceof Counter c) {
                return c.getCount();
            }
            if (m instanceof Gauge<?> g && g.getValue() instanceof Number n) {
                return n.longValue();
            }
        } catch (RuntimeException e) {
            // a gauge of an operator that is closing
        }
        return -1;
    }
}
