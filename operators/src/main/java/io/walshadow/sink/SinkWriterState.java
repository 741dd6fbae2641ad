package io.walshadow.sink;

import io.walshadow.catalog.TypeSet;
import java.util.List;

/**
 * The sink writer's state at a checkpoint: the next batch number (batches at or above it found in staging after a
 * restore were written after the checkpoint, and are discarded), the destination tables' shapes, and the TOAST
 * mirrors to retire (empty) in the next batch: their TOAST relation was dropped in the checkpoint's batch, and only
 * once a later checkpoint completed can no restore re-read a row that refers to them; the relations the stream
 * dropped, whose initial-snapshot rows still in flight must not bring their destination back; and the types the
 * stream sent with its catalog changes (the destination tables' columns map with them); the tables in quarantine;
 * the partitions that left a root ({@code leftRoots}: partition -> root); and for tables attached with rows the WAL
 * does not hold, the LSN of their latest such attach ({@code attachedAt}: a copy planned before it is superseded);
 * and for partitions that left a root with a partitioned table that became a root of its own (a sub-partition
 * detached), that new root ({@code movedRoots}: partition -> root); and the newest batch that holds staged work
 * ({@code stagedBatch}, 0 for none): with {@code clickhouse.visibility=commit} a restored writer writes directly only
 * once the watermark shows it finished.
 */
public record SinkWriterState(String sinkId, long nextBatch, List<DestTable> tables, List<String> retireMirrors,
                              List<Integer> droppedRelations, TypeSet types, List<QuarantinedTable> quarantined,
                              java.util.Map<Integer, Integer> leftRoots, java.util.Map<Integer, Long> attachedAt,
                              java.util.Map<Integer, Integer> movedRoots, long stagedBatch) {
    /** A state without its newest staged batch (an earlier build's): any batch before the next may be. */
    public SinkWriterState(String sinkId, long nextBatch, List<DestTable> tables, List<String> retireMirrors,
                           List<Integer> droppedRelations, TypeSet types, List<QuarantinedTable> quarantined,
                           java.util.Map<Integer, Integer> leftRoots, java.util.Map<Integer, Long> attachedAt,
                           java.util.Map<Integer, Integer> movedRoots) {
        this(sinkId, nextBatch, tables, retireMirrors, droppedRelations, types, quarantined, leftRoots, attachedAt,
                movedRoots, nextBatch - 1);
    }

    public SinkWriterState {
        movedRoots = java.util.Map.copyOf(movedRoots);
        leftRoots = java.util.Map.copyOf(leftRoots);
        attachedAt = java.util.Map.copyOf(attachedAt);
        tables = List.copyOf(tables);
        retireMirrors = List.copyOf(retireMirrors);
        droppedRelations = List.copyOf(droppedRelations);
        types = types == null ? TypeSet.EMPTY : types;
        quarantined = List.copyOf(quarantined);
    }

    /** A state without partitions moved under another root. */
    public SinkWriterState(String sinkId, long nextBatch, List<DestTable> tables, List<String> retireMirrors,
                           List<Integer> droppedRelations, TypeSet types, List<QuarantinedTable> quarantined,
                           java.util.Map<Integer, Integer> leftRoots, java.util.Map<Integer, Long> attachedAt) {
        this(sinkId, nextBatch, tables, retireMirrors, droppedRelations, types, quarantined, leftRoots, attachedAt,
                java.util.Map.of());
    }

    /** A state without partitions attached with rows. */
    public SinkWriterState(String sinkId, long nextBatch, List<DestTable> tables, List<String> retireMirrors,
                           List<Integer> droppedRelations, TypeSet types, List<QuarantinedTable> quarantined,
                           java.util.Map<Integer, Integer> leftRoots) {
        this(sinkId, nextBatch, tables, retireMirrors, droppedRelations, types, quarantined, leftRoots,
                java.util.Map.of());
    }

    /** A state without partitions that left their roots. */
    public SinkWriterState(String sinkId, long nextBatch, List<DestTable> tables, List<String> retireMirrors,
                           List<Integer> droppedRelations, TypeSet types, List<QuarantinedTable> quarantined) {
        this(sinkId, nextBatch, tables, retireMirrors, droppedRelations, types, quarantined, java.util.Map.of());
    }

    public SinkWriterState(String sinkId, long nextBatch, List<DestTable> tables, List<String> retireMirrors,
                           List<Integer> droppedRelations, TypeSet types) {
        this(sinkId, nextBatch, tables, retireMirrors, droppedRelations, types, List.of());
    }

    public SinkWriterState(String sinkId, long nextBatch, List<DestTable> tables, List<String> retireMirrors) {
        this(sinkId, nextBatch, tables, retireMirrors, List.of(), TypeSet.EMPTY);
    }

    public SinkWriterState(String sinkId, long nextBatch, List<DestTable> tables) {
        this(sinkId, nextBatch, tables, List.of());
    }
}
