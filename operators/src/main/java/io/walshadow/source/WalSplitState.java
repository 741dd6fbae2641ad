package io.walshadow.source;

import io.walshadow.wal.XLogRecord;

/** Mutable position of the split while records are emitted; becomes a {@link WalSplit} at each checkpoint. */
final class WalSplitState {
    private final String slotName;
    private long resumeLsn;
    private long lastRecordLsn;
    private int timeline;

    WalSplitState(WalSplit split) {
        this.slotName = split.slotName();
        this.resumeLsn = split.resumeLsn();
        this.lastRecordLsn = split.lastRecordLsn();
        this.timeline = split.timeline();
    }

    void advance(XLogRecord r) {
        resumeLsn = r.endLsn();
        lastRecordLsn = r.lsn();
    }

    void timeline(int tli) {
        timeline = tli;
    }

    WalSplit toSplit() {
        return new WalSplit(slotName, resumeLsn, lastRecordLsn, timeline);
    }
}
