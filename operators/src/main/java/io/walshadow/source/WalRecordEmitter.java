package io.walshadow.source;

import io.walshadow.wal.XLogRecord;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;

/** Emits a record and moves the split's checkpointed position past it, in the same step on the task thread. */
final class WalRecordEmitter implements RecordEmitter<XLogRecord, XLogRecord, WalSplitState> {
    private final SlotFeedback feedback;

    WalRecordEmitter(SlotFeedback feedback) {
        this.feedback = feedback;
    }

    @Override
    public void emitRecord(XLogRecord record, SourceOutput<XLogRecord> output, WalSplitState state) {
        output.collect(record);
        state.advance(record);
        feedback.emittedLsn = record.endLsn(); // the lag counts WAL after it: none once the server is there
        state.timeline(feedback.timeline);
    }
}
