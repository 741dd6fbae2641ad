package io.walshadow.change;

import java.util.LinkedHashMap;
import java.util.Map;

/** Everything the decoder skipped or deferred on purpose, counted (exposed as metrics by the Flink layer). */
public final class DecoderCounters {
    public long records;
    public long rowChanges;
    public long truncates;
    public long deferredRecords;
    /** Change events whose record names no transaction (not routable to the transaction buffer; dropped). */
    public long eventsWithoutXid;
    public long skippedForeignDatabase;
    public long skippedNotCovered;
    public long skippedBeforeHistory;
    public long xactEvents;

    public Map<String, Long> asMap() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("decoder_records", records);
        m.put("decoder_row_changes", rowChanges);
        m.put("decoder_truncates", truncates);
        m.put("decoder_deferred_records", deferredRecords);
        m.put("decoder_events_without_xid", eventsWithoutXid);
        m.put("decoder_skipped_foreign_db", skippedForeignDatabase);
        m.put("decoder_skipped_not_covered", skippedNotCovered);
        m.put("decoder_skipped_before_history", skippedBeforeHistory);
        m.put("decoder_xact_events", xactEvents);
        return m;
    }
}
