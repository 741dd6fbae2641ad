package io.walshadow.job;

import io.walshadow.catalog.Column;
import io.walshadow.change.ChangeEvent;
import io.walshadow.change.RowChange;
import io.walshadow.change.TruncateChange;
import io.walshadow.change.XactEvent;
import io.walshadow.wal.Lsn;
import io.walshadow.xact.XactCommit;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs what the decoder produced since the last line: row changes per table and operation, commits, and the
 * newest decoded row. The job's last stage until the transaction buffer and ClickHouse sink take its place.
 * Row changes here are not yet filtered by commit (aborted work shows too).
 */
final class ChangeLogger extends RichFlatMapFunction<ChangeEvent, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeLogger.class);

    private final long intervalMs;
    private transient Map<String, Long> counts;
    private transient long commits;
    private transient long lastLog;
    private transient long lastLsn;
    private transient RowChange latest;

    ChangeLogger(long intervalMs) {
        this.intervalMs = intervalMs;
    }

    @Override
    public void flatMap(ChangeEvent e, Collector<Void> out) {
        if (counts == null) {
            counts = new TreeMap<>();
            lastLog = System.currentTimeMillis();
        }
        lastLsn = e.lsn();
        if (e instanceof RowChange r) {
            counts.merge(r.descriptor().qualifiedName() + " " + r.op(), 1L, Long::sum);
            if (r.newValues() != null) {
                latest = r;
            }
        } else if (e instanceof TruncateChange t) {
            t.relations().forEach(d -> counts.merge(d.qualifiedName() + " TRUNCATE", 1L, Long::sum));
        } else if (e instanceof XactEvent x && x.xact() instanceof XactCommit) {
            commits++;
        }
        long now = System.currentTimeMillis();
        if (now - lastLog >= intervalMs) {
            LOG.info("decoded up to {}: {} commits, row changes {}{}", Lsn.format(lastLsn), commits, counts,
                    latest == null ? "" : "; newest row of " + latest.descriptor().qualifiedName() + ": " + render(latest));
            counts.clear();
            commits = 0;
            latest = null;
            lastLog = now;
        }
    }

    private static String render(RowChange r) {
        StringJoiner j = new StringJoiner(", ", "{", "}");
        for (Column c : r.descriptor().columns()) {
            if (!c.dropped()) {
                j.add(c.name() + "=" + r.newValues()[c.attnum() - 1]);
            }
        }
        return j.toString();
    }
}
