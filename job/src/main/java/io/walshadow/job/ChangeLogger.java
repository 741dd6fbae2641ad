package io.walshadow.job;

import io.walshadow.catalog.Column;
import io.walshadow.buffer.Drained;
import io.walshadow.buffer.DrainedChange;
import io.walshadow.buffer.DrainedCommit;
import io.walshadow.change.RowChange;
import io.walshadow.change.TruncateChange;
import io.walshadow.wal.Lsn;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs what the transaction buffer drained since the last line, and passes it on to the sink: committed row
 * changes per table and operation, commits, and the newest committed row. Only committed work shows (aborted
 * transactions and rolled-back savepoints never reach it).
 */
final class ChangeLogger extends RichMapFunction<Drained, Drained> {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeLogger.class);

    private final long intervalMs;
    /** Row changes since the last line, by relation oid and operation (names looked up once per relation). */
    private transient Map<Integer, long[]> counts;
    private transient Map<Integer, String> names;
    private transient Map<String, Long> truncates;
    private transient long commits;
    private transient long lastLog;
    private transient DrainedCommit lastCommit;
    private transient RowChange latest;

    ChangeLogger(long intervalMs) {
        this.intervalMs = intervalMs;
    }

    @Override
    public Drained map(Drained d) {
        if (counts == null) {
            counts = new HashMap<>();
            names = new HashMap<>();
            truncates = new TreeMap<>();
            lastLog = System.currentTimeMillis();
        }
        if (d instanceof DrainedChange c) {
            if (c.change() instanceof RowChange r) {
                long[] n = counts.get(r.relOid());
                if (n == null) {
                    n = new long[RowChange.Op.values().length];
                    counts.put(r.relOid(), n);
                    names.put(r.relOid(), r.descriptor().qualifiedName());
                }
                n[r.op().ordinal()]++;
                // a user table's row tells more than a TOAST chunk
                if (r.newValues() != null && !r.descriptor().qualifiedName().startsWith("pg_toast.")) {
                    latest = r;
                }
            } else if (c.change() instanceof TruncateChange t) {
                t.relations().forEach(rel -> truncates.merge(rel.qualifiedName() + " TRUNCATE", 1L, Long::sum));
            }
        } else if (d instanceof DrainedCommit c) {
            commits++;
            lastCommit = c;
        }
        long now = System.currentTimeMillis();
        if (now - lastLog >= intervalMs && lastCommit != null) {
            LOG.info("committed up to {} (commit seq {}, xid {}): {} commits, row changes {}{}",
                    Lsn.format(lastCommit.commitLsn()), lastCommit.commitSeq(), Long.toUnsignedString(lastCommit.fullXid()),
                    commits, summary(),
                    latest == null ? "" : "; newest committed row of " + latest.descriptor().qualifiedName() + ": "
                            + render(latest));
            counts.clear();
            truncates.clear();
            commits = 0;
            latest = null;
            lastLog = now;
        }
        return d;
    }

    /** {schema.table OP=n, ...}, sorted. */
    private Map<String, Long> summary() {
        Map<String, Long> out = new TreeMap<>(truncates);
        counts.forEach((rel, n) -> {
            for (RowChange.Op op : RowChange.Op.values()) {
                if (n[op.ordinal()] > 0) {
                    out.put(names.get(rel) + " " + op, n[op.ordinal()]);
                }
            }
        });
        return out;
    }

    private static String render(RowChange r) {
        StringJoiner j = new StringJoiner(", ", "{", "}");
        for (Column c : r.descriptor().columns()) {
            if (!c.dropped()) {
                j.add(c.name() + "=" + brief(r.newValues()[c.attnum() - 1]));
            }
        }
        return j.toString();
    }

    /** A value short enough for a log line: bytes as their length, long text cut. */
    private static String brief(Object v) {
        if (v instanceof byte[] b) {
            return "<" + b.length + " bytes>";
        }
        String text = String.valueOf(v);
        return text.length() <= 80 ? text : text.substring(0, 77) + "... (" + text.length() + " chars)";
    }
}
