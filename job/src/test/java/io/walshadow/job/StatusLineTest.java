package io.walshadow.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

class StatusLineTest {

    @Test
    void aStreamingJobSaysItsLagRateAndWatermark() {
        assertEquals("WAL lag 1536 bytes (1.5 KiB), 420 ms behind | 812 rows/s | visible up to 2A/01B3C4D0,"
                + " committed 2.5 s ago", new StatusLine(1536, 420, 812.4, 0x2A_01B3C4D0L, 2500, null).format());
        assertEquals("WAL lag 0 bytes, 3 ms behind | 0 rows/s | visible up to 0/016B3748, committed 3 min 05 s ago",
                new StatusLine(0, 3, 0, 0x16B3748, 185_000, null).format());
        assertEquals("WAL lag 734003200 bytes (700.0 MiB), 2 h 07 min behind | 2.5 rows/s | visible up to 0/016B3748,"
                + " committed 1 h 00 min ago", new StatusLine(700L << 20, 7_620_000, 2.5, 0x16B3748, 3_600_000, null)
                .format());
    }

    @Test
    void beforeItStreamsOrCommitsItSaysSo() {
        assertEquals("WAL lag not known yet (not streaming) | ? rows/s | no batch visible in ClickHouse since the sink (re)started",
                new StatusLine(-1, -1, -1, 0, -1, null).format());
        assertEquals("WAL lag 0 bytes | 0 rows/s | no batch visible in ClickHouse since the sink (re)started",
                new StatusLine(0, -1, 0, 0, -1, null).format());
    }

    @Test
    void aCopySaysItsChunksRowsAndEta() {
        assertEquals("WAL lag 0 bytes | 9120 rows/s | no batch visible in ClickHouse since the sink (re)started"
                + " | copy 12 of 40 chunks, 120000 rows, ETA 1 min 20 s",
                new StatusLine(0, -1, 9120, 0, -1, new StatusLine.Copy(12, 40, 120_000, 80_000, 0)).format());
        assertEquals("WAL lag 0 bytes | 0 rows/s | no batch visible in ClickHouse since the sink (re)started"
                + " | copy 0 of 40 chunks, 0 rows, ETA after the first chunk",
                new StatusLine(0, -1, 0, 0, -1, new StatusLine.Copy(0, 40, 0, -1, 0)).format());
        assertEquals("WAL lag 0 bytes | 0 rows/s | no batch visible in ClickHouse since the sink (re)started"
                + " | copy waiting 12.0 s for transactions running at its start point",
                new StatusLine(0, -1, 0, 0, -1, new StatusLine.Copy(0, 0, 0, -1, 12_000)).format());
    }

    @Test
    void theReporterReadsTheJobsMetricsAndRowsPerSecondSinceTheLastLine() {
        StatusLineReporter r = new StatusLineReporter();
        assertNull(r.read(0), "no job: no line");
        long[] lag = {4096};
        SimpleCounter rows = new SimpleCounter();
        r.notifyOfAddedMetric((Gauge<Long>) () -> lag[0], "lag_bytes", group("wal"));
        r.notifyOfAddedMetric(rows, "rows_staged", group("clickhouse_sink"));
        r.notifyOfAddedMetric((Gauge<Long>) () -> 0x3000060L, "visible_lsn", group("clickhouse_sink"));
        r.notifyOfAddedMetric((Gauge<Long>) () -> 1200L, "visible_commit_age_ms", group("clickhouse_sink"));
        r.notifyOfAddedMetric((Gauge<Long>) () -> 250L, "commit_lag_ms", group("decoder"));
        r.notifyOfAddedMetric((Gauge<Integer>) () -> 1, "complete", group("snapshot"));
        // a metric of another group with the same name is not the one read
        r.notifyOfAddedMetric((Gauge<Long>) () -> 99L, "lag_bytes", group("other"));
        r.read(0);
        rows.inc(1000);
        assertEquals("WAL lag 4096 bytes (4.0 KiB), 250 ms behind | 500 rows/s | visible up to 0/03000060, committed"
                + " 1.2 s ago", r.read(2_000_000_000L).format());
        rows.inc(100);
        lag[0] = 0;
        assertEquals(new StatusLine(0, 250, 20, 0x3000060L, 1200, null), r.read(7_000_000_000L));
        // a restarted sink counts from 0 again; the old counter's removal comes after the new one's registration
        SimpleCounter restarted = new SimpleCounter();
        r.notifyOfAddedMetric(restarted, "rows_staged", group("clickhouse_sink"));
        r.notifyOfRemovedMetric(rows, "rows_staged", group("clickhouse_sink"));
        restarted.inc(30);
        assertEquals(30, r.read(8_000_000_000L).rowsPerSecond());
        // rows written at commit: the writer's mark, when ahead of the committer's checkpointed cut
        long[] direct = {0x3000000L};
        r.notifyOfAddedMetric((Gauge<Long>) () -> direct[0], "direct_visible_lsn", group("clickhouse_sink"));
        r.notifyOfAddedMetric((Gauge<Long>) () -> 80L, "direct_visible_commit_age_ms", group("clickhouse_sink"));
        assertEquals(0x3000060L, r.read(9_000_000_000L).visibleLsn(), "behind the cut: the cut");
        direct[0] = 0x3000A00L;
        StatusLine ahead = r.read(9_100_000_000L);
        assertEquals(0x3000A00L, ahead.visibleLsn());
        assertEquals(80L, ahead.visibleAgeMs());
    }

    @Test
    void whileACopyRunsTheLineCarriesItsProgress() {
        StatusLineReporter r = new StatusLineReporter();
        r.notifyOfAddedMetric((Gauge<Long>) () -> 0L, "lag_bytes", group("wal"));
        r.notifyOfAddedMetric(new SimpleCounter(), "rows_staged", group("clickhouse_sink"));
        r.notifyOfAddedMetric((Gauge<Integer>) () -> 0, "complete", group("snapshot"));
        r.notifyOfAddedMetric((Gauge<Integer>) () -> 40, "chunks_total", group("snapshot"));
        r.notifyOfAddedMetric((Gauge<Integer>) () -> 10, "chunks_done", group("snapshot"));
        r.notifyOfAddedMetric((Gauge<Long>) () -> 5000L, "rows_done", group("snapshot"));
        r.notifyOfAddedMetric((Gauge<Long>) () -> 61_000L, "eta_ms", group("snapshot"));
        assertEquals(new StatusLine.Copy(10, 40, 5000, 61_000, 0), r.read(1_000_000_000L).copy());
    }

    /** A group whose metrics are named as Flink names them: scope, then the user groups, then the name. */
    private static MetricGroup group(String name) {
        return new UnregisteredMetricsGroup() {
            @Override
            public String getMetricIdentifier(String metricName) {
                return "localhost.taskmanager.tm-1.walshadow.op.0." + name + "." + metricName;
            }
        };
    }
}
