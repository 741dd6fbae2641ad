package io.walshadow.snapshot;

import io.walshadow.change.BufferEvent;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.metrics.Counter;

/**
 * A chunk reader: asks for a chunk whenever it holds none, emits its rows (moving the chunk's resume TID with
 * each, on the task thread), reports finished chunks to the coordinator. Never finishes by itself: it stays
 * (idle) until the job ends, so that the coordinator keeps receiving checkpoint notifications.
 *
 * <p>Metrics (group {@code snapshot}): counter {@code rows_emitted}.
 */
final class SnapshotSourceReader
        extends SingleThreadMultiplexSourceReaderBase<BufferEvent, BufferEvent, SnapshotSplit, SnapshotSplitState> {
    private final SnapshotName name;
    /** Ids of the chunks this reader holds (restored or assigned, not finished). */
    private final java.util.Set<String> heldIds = new java.util.LinkedHashSet<>();

    SnapshotSourceReader(Supplier<SplitReader<BufferEvent, SnapshotSplit>> splitReader, SnapshotName name,
                         SourceReaderContext context) {
        super(splitReader, new Emitter(context.metricGroup().addGroup("snapshot").counter("rows_emitted")),
                new Configuration(), context);
        this.name = name;
    }

    private static final class Emitter implements RecordEmitter<BufferEvent, BufferEvent, SnapshotSplitState> {
        private final Counter rows;

        Emitter(Counter rows) {
            this.rows = rows;
        }

        @Override
        public void emitRecord(BufferEvent d, SourceOutput<BufferEvent> output, SnapshotSplitState state) {
            if (d.event() instanceof io.walshadow.change.RowChange r) {
                state.advance(r.newTid());
                rows.inc();
            }
            output.collect(d);
        }
    }

    @Override
    public void start() {
        context.sendSourceEventToCoordinator(new SnapshotEvents.Hello(List.copyOf(heldIds)));
        if (heldIds.isEmpty()) {
            context.sendSplitRequest();
        }
    }

    @Override
    public void addSplits(List<SnapshotSplit> splits) {
        splits.forEach(s -> heldIds.add(s.splitId()));
        super.addSplits(splits);
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (event instanceof SnapshotEvents.Ready r) {
            name.set(r.snapshotId());
        }
    }

    @Override
    protected void onSplitFinished(Map<String, SnapshotSplitState> finished) {
        for (SnapshotSplitState s : finished.values()) {
            heldIds.remove(s.split().splitId());
            context.sendSourceEventToCoordinator(new SnapshotEvents.ChunkDone(s.split().splitId(),
                    s.split().descriptor().qualifiedName(), s.rows()));
        }
        if (heldIds.isEmpty()) {
            context.sendSplitRequest();
        }
    }

    @Override
    protected SnapshotSplitState initializedState(SnapshotSplit split) {
        return new SnapshotSplitState(split);
    }

    @Override
    protected SnapshotSplit toSplitType(String splitId, SnapshotSplitState state) {
        return state.toSplit();
    }
}
