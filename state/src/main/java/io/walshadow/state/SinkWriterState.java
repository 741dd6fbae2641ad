package io.walshadow.state;

import java.util.List;

/**
 * The sink writer's state at a checkpoint: the next batch number (batches at or above it found in staging after a
 * restore were written after the checkpoint, and are discarded) and the destination tables' shapes.
 */
public record SinkWriterState(String sinkId, long nextBatch, List<DestTable> tables) {
    public SinkWriterState {
        tables = List.copyOf(tables);
    }
}
