package io.walshadow.toast;

import java.util.LinkedHashMap;
import java.util.Map;

/** What the TOAST stage resolved, filled or refused; the operator exposes each as a metric. */
public final class ToastCounters {
    /** Chunk rows of {@code pg_toast} relations seen in drained transactions. */
    public long chunks;
    /** Chunk rows without the (chunk_id oid, chunk_seq int4, chunk_data bytea) shape: not usable, passed on. */
    public long chunksMalformed;
    /** Values reassembled from chunks the job buffered (the same transaction's, or a recent one's). */
    public long resolvedBuffered;
    /** Values reassembled from the ClickHouse mirror. */
    public long resolvedMirror;
    public long resolvedBytes;
    /** Mode disabled: a value not written in the same transaction, delivered NULL/empty. */
    public long filledDefault;
    /** The mirror has no chunks of the value at the referrer's LSN (superseded since, or written before the job). */
    public long filledSuperseded;
    /** The mirror holds a gapped or short run of the value (a partly merged-away generation). */
    public long filledMismatch;
    /**
     * A value of a table attached with rows that its copy round's seed does not hold (the row referring to it is
     * older than the copy, or the value was deleted before the copy read it: a later change supersedes the row):
     * filled whatever {@code toast.missing} says.
     */
    public long filledAttached;
    /** A gap in chunks the job itself buffered: counted, then the job stops. */
    public long fetchMiss;
    /** Queries to the ClickHouse mirrors: one per TOAST relation per batch of rows waiting for their values. */
    public long mirrorFetches;

    public Map<String, Long> asMap() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("toast_chunks", chunks);
        m.put("toast_chunks_malformed", chunksMalformed);
        m.put("toast_values_resolved_buffered", resolvedBuffered);
        m.put("toast_values_resolved_mirror", resolvedMirror);
        m.put("toast_bytes_resolved", resolvedBytes);
        m.put("toast_values_filled_default", filledDefault);
        m.put("toast_values_filled_superseded", filledSuperseded);
        m.put("toast_values_filled_mismatch", filledMismatch);
        m.put("toast_values_filled_attached", filledAttached);
        m.put("toast_fetch_miss", fetchMiss);
        m.put("toast_mirror_fetches", mirrorFetches);
        return m;
    }
}
