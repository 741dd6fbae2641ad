package io.walshadow.source;

import io.walshadow.wal.Lsn;
import io.walshadow.wal.XLogRecord;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.metrics.MetricGroup;

/**
 * Source reader of one slot. Remembers the resume position of every checkpoint it took, and when Flink reports a
 * checkpoint complete, confirms exactly that position to the slot: PostgreSQL then keeps all WAL a restore from
 * the latest completed checkpoint needs, and no more.
 */
final class WalSourceReader extends SingleThreadMultiplexSourceReaderBase<XLogRecord, XLogRecord, WalSplit, WalSplitState> {
    private final SlotFeedback feedback;
    private final TreeMap<Long, Long> checkpointPositions = new TreeMap<>();

    WalSourceReader(Supplier<SplitReader<XLogRecord, WalSplit>> splitReader, SlotFeedback feedback,
                    Configuration config, SourceReaderContext context) {
        super(splitReader, new WalRecordEmitter(feedback), config, context);
        this.feedback = feedback;
        MetricGroup wal = context.metricGroup().addGroup("wal");
        wal.gauge("received_lsn", () -> feedback.receivedLsn);
        wal.gauge("confirmed_lsn", () -> feedback.reportedLsn);
        wal.gauge("server_lsn", () -> feedback.serverWalEnd);
        wal.gauge("keepalives_while_backpressured", () -> feedback.keepalivesWhileBackpressured);
        wal.gauge("overwritten_records", () -> feedback.overwrittenRecords);
        wal.gauge("slot_wal_status", () -> feedback.slotWalStatus);
        wal.gauge("slot_safe_wal_size_bytes", () -> feedback.slotSafeWalSize);
        // WAL the slot holds back in the server's pg_wal (server position - restart_lsn; -1: not known yet): grows
        // while checkpoints do not complete, since the job confirms only what a completed checkpoint covers
        wal.gauge("slot_retained_wal_bytes", () -> feedback.serverWalEnd == 0 || feedback.slotRestartLsn == 0 ? -1
                : Math.max(0, feedback.serverWalEnd - feedback.slotRestartLsn));
        // replication lag in bytes: WAL the server has that the pipeline has not been handed yet (-1: not known yet)
        wal.gauge("lag_bytes", () -> feedback.serverWalEnd == 0 || feedback.emittedLsn == 0 ? -1
                : Math.max(0, feedback.serverWalEnd - feedback.emittedLsn));
    }

    @Override
    public List<WalSplit> snapshotState(long checkpointId) {
        List<WalSplit> splits = super.snapshotState(checkpointId);
        for (WalSplit s : splits) {
            if (s.resumeLsn() != Lsn.INVALID) {
                checkpointPositions.put(checkpointId, s.resumeLsn());
            }
        }
        return splits;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        Long lsn = checkpointPositions.get(checkpointId);
        // Older pending checkpoints can no longer complete usefully once a newer one did.
        checkpointPositions.headMap(checkpointId, true).clear();
        if (lsn != null) {
            feedback.confirm(lsn);
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        checkpointPositions.remove(checkpointId);
    }

    @Override
    protected void onSplitFinished(Map<String, WalSplitState> finished) {
        // An unbounded WAL split never finishes.
    }

    @Override
    protected WalSplitState initializedState(WalSplit split) {
        return new WalSplitState(split);
    }

    @Override
    protected WalSplit toSplitType(String splitId, WalSplitState state) {
        return state.toSplit();
    }
}
