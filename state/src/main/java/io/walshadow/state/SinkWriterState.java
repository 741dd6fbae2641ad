package io.walshadow.state;

import java.util.List;

/**
 * The sink writer's state at a checkpoint: the next batch number (batches at or above it found in staging after a
 * restore were written after the checkpoint, and are discarded), the destination tables' shapes, and the TOAST
 * mirrors to retire (empty) in the next batch: their TOAST relation was dropped in the checkpoint's batch, and only
 * once a later checkpoint completed can no restore re-read a row that refers to them.
 */
public record SinkWriterState(String sinkId, long nextBatch, List<DestTable> tables, List<String> retireMirrors) {
    public SinkWriterState {
        tables = List.copyOf(tables);
        retireMirrors = List.copyOf(retireMirrors);
    }

    public SinkWriterState(String sinkId, long nextBatch, List<DestTable> tables) {
        this(sinkId, nextBatch, tables, List.of());
    }
}
