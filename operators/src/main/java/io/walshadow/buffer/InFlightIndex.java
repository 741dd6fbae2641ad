package io.walshadow.buffer;

import io.walshadow.wal.Lsn;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction buffer's diagnostics: an index of the families this subtask has seen since it opened (their
 * buffered changes and bytes, the oldest by first LSN), its gauges, and an INFO line summarizing them at most every
 * 30 s. Not state: after a restore it fills again as families get changes.
 */
final class InFlightIndex {
    private static final Logger LOG = LoggerFactory.getLogger(XactBuffer.class);
    private static final long LOG_INTERVAL_MS = 30_000;

    private final Map<Integer, Tracked> tracked = new HashMap<>();
    /** The tracked keys by first LSN (unique per key: each first change is its own record). */
    private final TreeMap<Long, Integer> byFirstLsn = new TreeMap<>();
    private volatile long bufferedChanges;
    private volatile long bufferedBytes;
    private volatile long oldestFirstLsn;
    private volatile long oldestFirstTime;
    private volatile int oldestXid;
    private long lastSummaryMs = System.currentTimeMillis();

    InFlightIndex(MetricGroup g) {
        g.gauge("buffered_changes", () -> bufferedChanges);
        g.gauge("buffered_bytes", () -> bufferedBytes);
        g.gauge("oldest_in_flight_first_lsn", () -> oldestFirstLsn);
        g.gauge("oldest_in_flight_age_ms", () -> {
            long t = oldestFirstTime;
            return t == 0 ? 0L : Math.max(0L, System.currentTimeMillis() - t);
        });
    }

    /** What the index keeps of a family: updated in place, since {@link #track} runs for every change buffered. */
    private static final class Tracked {
        long live;
        long bytes;
        long firstLsn;
        long firstArrivalMs;
    }

    /** Puts (or refreshes) a key; null meta removes it. */
    void track(int top, FamilyMeta m) {
        if (m == null) {
            Tracked t = tracked.remove(top);
            if (t != null) {
                bufferedChanges -= t.live;
                bufferedBytes -= t.bytes;
                byFirstLsn.remove(t.firstLsn, top);
                refreshOldest();
            }
            return;
        }
        Tracked t = tracked.get(top);
        boolean reordered = t == null || t.firstLsn != m.firstLsn();
        if (t == null) {
            t = new Tracked();
            tracked.put(top, t);
        } else {
            bufferedChanges -= t.live;
            bufferedBytes -= t.bytes;
            if (reordered) {
                byFirstLsn.remove(t.firstLsn, top);
            }
        }
        t.live = m.live();
        t.bytes = m.bytes();
        t.firstLsn = m.firstLsn();
        t.firstArrivalMs = m.firstArrivalMs();
        bufferedChanges += t.live;
        bufferedBytes += t.bytes;
        if (reordered) {
            byFirstLsn.put(t.firstLsn, top);
            refreshOldest();
        } else if (top == oldestXid) {
            oldestFirstTime = t.firstArrivalMs;
        }
    }

    private void refreshOldest() {
        Map.Entry<Long, Integer> oldest = byFirstLsn.firstEntry();
        if (oldest == null) {
            oldestXid = 0;
            oldestFirstTime = 0;
            oldestFirstLsn = 0;
        } else {
            oldestXid = oldest.getValue();
            oldestFirstTime = tracked.get(oldest.getValue()).firstArrivalMs;
            oldestFirstLsn = oldest.getKey();
        }
    }

    /** At most every 30 s, on event arrival: one INFO line on the in-flight transactions of this subtask. */
    void maybeLogSummary(long inFlight) {
        long now = System.currentTimeMillis();
        if (now - lastSummaryMs < LOG_INTERVAL_MS) {
            return;
        }
        lastSummaryMs = now;
        if (inFlight == 0 && tracked.isEmpty()) {
            return;
        }
        long firstTime = oldestFirstTime;
        LOG.info(summary(inFlight, tracked.size(), bufferedChanges, bufferedBytes, oldestXid, oldestFirstLsn,
                firstTime == 0 ? -1 : now - firstTime));
    }

    /** The periodic in-flight summary line; {@code ageMs} -1 when unknown (state from before arrival times). */
    static String summary(long inFlight, int tracked, long changes, long bytes, int oldestXid, long oldestFirstLsn,
                          long ageMs) {
        return "in-flight transactions: " + inFlight + " (" + tracked + " tracked since open), " + changes
                + " buffered changes, ~" + bytes + " bytes; oldest xid " + Integer.toUnsignedString(oldestXid)
                + " first LSN " + Lsn.format(oldestFirstLsn) + " age " + (ageMs < 0 ? "unknown" : ageMs + " ms");
    }
}
