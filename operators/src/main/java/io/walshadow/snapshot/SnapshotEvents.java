package io.walshadow.snapshot;

import org.apache.flink.api.connector.source.SourceEvent;

/** Messages between the snapshot's coordinator and its chunk readers. */
final class SnapshotEvents {
    private SnapshotEvents() {}

    /** Coordinator to reader: the exported snapshot to import (a new one after every restart of the coordinator). */
    record Ready(String snapshotId) implements SourceEvent {}

    /**
     * Reader to coordinator, at its start: it wants the current snapshot's name; {@code held} are the ids of the
     * chunks it holds (restored from its checkpoint).
     */
    record Hello(java.util.List<String> held) implements SourceEvent {}

    /** Reader to coordinator: a chunk was read to its end (its rows are emitted). */
    record ChunkDone(String splitId, String table, long rows) implements SourceEvent {}
}
