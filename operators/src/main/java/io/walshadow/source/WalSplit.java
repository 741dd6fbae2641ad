package io.walshadow.source;

import io.walshadow.wal.Lsn;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * The WAL source's only split: one physical replication slot, and where reading resumes in it. Checkpointed, so a
 * restore re-reads WAL from exactly the first record not yet emitted before the checkpoint.
 *
 * @param slotName physical replication slot, also the split id
 * @param resumeLsn EndRecPtr of the last emitted record: where the next record starts (possibly at a page
 *     boundary); {@link Lsn#INVALID} before the first start, meaning "the slot's restart_lsn"
 * @param lastRecordLsn LSN of the last emitted record, checked against the next record's xl_prev;
 *     {@link Lsn#INVALID} when unknown
 * @param timeline timeline the WAL was read on; 0 before the first start
 */
public record WalSplit(String slotName, long resumeLsn, long lastRecordLsn, int timeline) implements SourceSplit {
    public WalSplit {
        if (slotName == null || slotName.isEmpty()) {
            throw new IllegalArgumentException("slot name must not be empty");
        }
    }

    public static WalSplit fresh(String slotName) {
        return new WalSplit(slotName, Lsn.INVALID, Lsn.INVALID, 0);
    }

    @Override
    public String splitId() {
        return slotName;
    }

    @Override
    public String toString() {
        return "WalSplit{slot=" + slotName + ", resume=" + Lsn.format(resumeLsn) + ", lastRecord="
                + Lsn.format(lastRecordLsn) + ", timeline=" + timeline + "}";
    }
}
