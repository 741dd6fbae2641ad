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
 * Keeps the MiniCluster's metrics the benchmarks read (the newest registration of each name and subtask, summed
 * over the subtasks of a parallel stage when read): the transaction
 * buffer's gauges, the job's checkpoint figures, the position the source confirmed to its slot and the TOAST stage's
 * counters (its {@code toast_*} gauges, and the sink's count of values written empty). Registered through {@code metrics.reporter.bench.factory.class} (the
 * buffer benchmark's job, and {@code WalshadowContender}'s); read directly, no reporting interval involved.
 */
public final class BenchMetrics implements MetricReporter, MetricReporterFactory {
    static final Set<String> NAMES = Set.of("buffered_changes", "buffered_bytes", "in_flight_transactions",
            "changes_drained", "commits_drained", "numberOfCompletedCheckpoints", "numberOfFailedCheckpoints",
            "lastCheckpointDuration", "lastCheckpointSize", "lastCheckpointFullSize",
            "toast_chunks", "toast_chunks_malformed", "toast_values_resolved_buffered", "toast_values_resolved_mirror",
            "toast_bytes_resolved", "toast_values_filled_default", "toast_values_filled_superseded",
            "toast_values_filled_mismatch", "toast_fetch_miss", "toast_buffered_chunks", "toast_values_written_empty", "toast_mirror_fetches",
            "catalog_shadow_tuples", "catalog_versions_created", "catalog_state_bytes", "catalog_state_write_ms",
            "confirmed_lsn");
    /** By name, then subtask index (-1: a metric of no subtask, the job's). */
    private static final Map<String, Map<Integer, Metric>> METRICS = new ConcurrentHashMap<>();

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
            METRICS.computeIfAbsent(name, n -> new ConcurrentHashMap<>()).put(subtask(group), metric);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        Map<Integer, Metric> m = METRICS.get(name);
        if (m != null) {
            m.remove(subtask(group), metric);
        }
    }

    private static int subtask(MetricGroup group) {
        String i = group.getAllVariables().get("<subtask_index>");
        return i == null ? -1 : Integer.parseInt(i);
    }

    /** Forgets the metrics of an earlier job (each job of the benchmark runs in a MiniCluster of its own). */
    public static void clear() {
        METRICS.clear();
    }

    /**
     * Current value of a counter or numeric gauge, summed over the subtasks that registered it; -1 when none has (yet)
     * or none is a number.
     */
    public static long value(String name) {
        long sum = -1;
        for (Metric m : METRICS.getOrDefault(name, Map.of()).values()) {
            long v = value(m);
            if (v != -1) {
                sum = sum == -1 ? v : sum + v;
            }
        }
        return sum;
    }

    private static long value(Metric m) {
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
