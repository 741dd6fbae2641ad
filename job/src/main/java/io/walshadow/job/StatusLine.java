package io.walshadow.job;

import io.walshadow.wal.Lsn;
import java.util.Locale;

/**
 * What the job is doing, as one console line a person reads while it runs: how far it is behind the source (WAL it
 * was not handed yet, and how old the newest commit was when the decoder reached it), how many rows it writes per
 * second, up to where ClickHouse shows the source and how old that is, and, while a copy runs, its progress. Plain
 * text: no terminal escapes, so a log file or a pipe reads the same as a terminal.
 *
 * @param lagBytes WAL the server has that the pipeline was not handed yet; -1 not known yet (not streaming)
 * @param commitLagMs how old the newest commit was when the decoder reached it; -1 not known
 * @param rowsPerSecond rows written to ClickHouse per second since the previous line; negative: not known
 * @param visibleLsn commit LSN of the newest commit visible in ClickHouse; 0 none since the sink (re)started
 * @param visibleAgeMs now minus that commit's time on the source; -1 none yet
 * @param copy the copy in progress (the initial snapshot or a later round), null when none runs
 */
record StatusLine(long lagBytes, long commitLagMs, double rowsPerSecond, long visibleLsn, long visibleAgeMs,
                  Copy copy) {

    /**
     * A copy round's progress.
     *
     * @param chunksDone chunks copied
     * @param chunksTotal chunks planned; 0 while it is not planned yet
     * @param rows rows copied
     * @param etaMs time left at the rate so far; -1 before its first chunk
     * @param waitingMs how long it has waited for transactions running at its start point; 0 not waiting
     */
    record Copy(long chunksDone, long chunksTotal, long rows, long etaMs, long waitingMs) {}

    String format() {
        StringBuilder out = new StringBuilder("WAL lag ");
        if (lagBytes < 0) {
            out.append("not known yet (not streaming)");
        } else {
            out.append(lagBytes).append(" bytes");
            if (lagBytes >= 1024) {
                out.append(" (").append(bytes(lagBytes)).append(')');
            }
            if (commitLagMs >= 0) {
                out.append(", ").append(duration(commitLagMs)).append(" behind");
            }
        }
        out.append(" | ");
        out.append(rowsPerSecond < 0 ? "? rows/s" : String.format(Locale.ROOT, rowsPerSecond < 10 && rowsPerSecond > 0
                ? "%.1f rows/s" : "%.0f rows/s", rowsPerSecond));
        out.append(" | ");
        if (visibleLsn == 0 || visibleAgeMs < 0) {
            out.append("no batch visible in ClickHouse since the sink (re)started");
        } else {
            out.append("visible up to ").append(Lsn.format(visibleLsn)).append(", committed ")
                    .append(duration(visibleAgeMs)).append(" ago");
        }
        if (copy != null) {
            out.append(" | ");
            if (copy.chunksTotal() == 0) {
                out.append(copy.waitingMs() > 0 ? "copy waiting " + duration(copy.waitingMs())
                        + " for transactions running at its start point" : "copy being planned");
            } else {
                out.append("copy ").append(copy.chunksDone()).append(" of ").append(copy.chunksTotal())
                        .append(" chunks, ").append(copy.rows()).append(" rows, ETA ")
                        .append(copy.etaMs() < 0 ? "after the first chunk" : duration(copy.etaMs()));
            }
        }
        return out.toString();
    }

    /** 850 ms, 4.2 s, 3 min 05 s, 2 h 07 min. */
    static String duration(long ms) {
        if (ms < 1000) {
            return ms + " ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%d h %02d min", s / 3600, s % 3600 / 60);
    }

    /** 1.5 KiB, 12.0 MiB, 3.2 GiB. */
    static String bytes(long n) {
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u < 0 ? n + " bytes" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
