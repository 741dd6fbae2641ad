package io.walshadow.job;

import io.walshadow.wal.Lsn;
import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.XLogRecord;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs what the WAL stream carried since the last line: record counts by type and the position reached. The
 * stage after the source until the decoder takes its place; it emits nothing.
 */
final class WalProgressLogger extends RichFlatMapFunction<XLogRecord, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(WalProgressLogger.class);

    private final long intervalMs;
    private transient Map<String, Long> byType;
    private transient long records;
    private transient long bytes;
    private transient long totalRecords;
    private transient long lastLog;

    WalProgressLogger(long intervalMs) {
        this.intervalMs = intervalMs;
    }

    @Override
    public void flatMap(XLogRecord r, Collector<Void> out) {
        if (byType == null) {
            byType = new TreeMap<>();
            lastLog = System.currentTimeMillis();
        }
        byType.merge(Rmgrs.statsName(r.rmid(), r.info()), 1L, Long::sum);
        records++;
        totalRecords++;
        bytes += r.totalLength();
        long now = System.currentTimeMillis();
        if (now - lastLog >= intervalMs) {
            LOG.info("WAL up to {}: {} records, {} kB in the last {} s ({} in total); by type: {}",
                    Lsn.format(r.endLsn()), records, bytes / 1024, (now - lastLog) / 1000, totalRecords, byType);
            byType.clear();
            records = 0;
            bytes = 0;
            lastLog = now;
        }
    }
}
