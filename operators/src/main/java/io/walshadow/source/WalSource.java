package io.walshadow.source;

import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.codec.SerializerTypeInfo;
import io.walshadow.wal.XLogRecord;
import java.util.List;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * FLIP-27 source of verified WAL records from one physical replication slot (one split). Unbounded; its position
 * is the split state, so checkpoints carry it and restores resume at the first record not yet emitted.
 * Run it with parallelism 1: there is one slot to read.
 */
public final class WalSource implements Source<XLogRecord, WalSplit, WalEnumeratorState>, ResultTypeQueryable<XLogRecord> {
    private static final long serialVersionUID = 1L;

    private final PgConnectionConfig pg;
    private final WalSourceOptions options;

    public WalSource(PgConnectionConfig pg, WalSourceOptions options) {
        this.pg = pg;
        this.options = options;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<XLogRecord, WalSplit> createReader(SourceReaderContext context) {
        SlotFeedback feedback = new SlotFeedback();
        return new WalSourceReader(() -> new WalSplitReader(pg, options, feedback), feedback, new Configuration(), context);
    }

    @Override
    public SplitEnumerator<WalSplit, WalEnumeratorState> createEnumerator(SplitEnumeratorContext<WalSplit> context) {
        return new WalSplitEnumerator(context, List.of(WalSplit.fresh(options.slotName())));
    }

    @Override
    public SplitEnumerator<WalSplit, WalEnumeratorState> restoreEnumerator(SplitEnumeratorContext<WalSplit> context,
                                                                         WalEnumeratorState state) {
        return new WalSplitEnumerator(context, state.unassigned());
    }

    @Override
    public SimpleVersionedSerializer<WalSplit> getSplitSerializer() {
        return WalSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<WalEnumeratorState> getEnumeratorCheckpointSerializer() {
        return WalEnumeratorStateSerializer.INSTANCE;
    }

    @Override
    public TypeInformation<XLogRecord> getProducedType() {
        return new SerializerTypeInfo<>(XLogRecord.class, XLogRecordSerializer.INSTANCE);
    }
}
