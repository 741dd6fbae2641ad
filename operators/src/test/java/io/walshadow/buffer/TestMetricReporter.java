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
    /** The same metrics by name and subtask index (a parallel stage registers each name once per subtask). */
    public static final Map<String, Map<Integer, Metric>> BY_SUBTASK = new ConcurrentHashMap<>();

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
                || id.endsWith("commit_lag_ms") || id.endsWith("_per_second") || id.endsWith("snapshot_rows_superseded")
                || id.contains(".commit_order.")) {
            METRICS.put(name, metric);
            String subtask = group.getAllVariables().get("<subtask_index>");
            if (subtask != null) {
                BY_SUBTASK.computeIfAbsent(name, n -> new ConcurrentHashMap<>()).put(Integer.parseInt(subtask), metric);
            }
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}

    /**
     * The value of each subtask's newest registration of {@code name}, by subtask index (empty when not registered
     * yet; a subtask of an earlier, wider run stays in it until {@link #clear}).
     */
    public static Map<Integer, Long> bySubtask(String name) {
        Map<Integer, Long> out = new java.util.TreeMap<>();
        BY_SUBTASK.getOrDefault(name, Map.of()).forEach((i, m) -> out.put(i, value(m)));
        return out;
    }

    /** The sum of {@link #bySubtask}: a parallel stage's whole count. */
    public static long sum(String name) {
        return bySubtask(name).values().stream().mapToLong(Long::longValue).sum();
    }

    /** Forgets every metric (a test starting a job of another parallelism). */
    public static void clear() {
        METRICS.clear();
        BY_SUBTASK.clear();
    }

    /** Current value of a counter or numeric gauge, a meter's event count; -1 when not registered yet. */
    public static long value(String name) {
        return value(METRICS.get(name));
    }

    private static long value(Metric m) {
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
