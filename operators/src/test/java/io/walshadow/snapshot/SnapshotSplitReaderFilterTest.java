package io.walshadow.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.BufferEvent;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.wal.RelFileLocator;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.junit.jupiter.api.Test;

/** A reader restored with a chunk of a table the job's filter no longer includes finishes it without reading. */
class SnapshotSplitReaderFilterTest {
    /** Nothing listens there: a reader that tried to read would fail. */
    private static final PgConnectionConfig NOWHERE = new PgConnectionConfig("127.0.0.1", 1, "none", "nobody", "x",
            "disable", null);

    private static SnapshotSplit chunkOf(String table) {
        RelationDescriptor d = new RelationDescriptor(16400, new RelFileLocator(1663, 5, 16400), "public", table, 'r',
                'p', 'd', 0, List.of(new Column(1, "id", 23, -1, 4, 'i', true, 'p', false, false, null)), List.of());
        return SnapshotSplit.fresh(d, 7, 0, -1).advanced(3, 5, 100); // restored in the middle of the chunk
    }

    @Test
    void chunkOfAnExcludedTableIsFinishedUnreadAndAnIncludedOneIsRead() throws Exception {
        SnapshotName name = new SnapshotName();
        name.set("00000003-0000001B-1");
        try (SnapshotSplitReader r = new SnapshotSplitReader(NOWHERE, CatalogFilter.parse("public.kept", null), 100,
                name, null, io.walshadow.types.UndecodableColumns.FAIL)) {
            SnapshotSplit gone = chunkOf("dropped_from_filter");
            r.handleSplitsChanges(new SplitsAddition<>(List.of(gone)));
            RecordsWithSplitIds<BufferEvent> out = r.fetch();
            assertEquals(Set.of(gone.splitId()), out.finishedSplits());
            assertNull(out.nextSplit(), "no rows");

            r.handleSplitsChanges(new SplitsAddition<>(List.of(chunkOf("kept"))));
            assertThrows(IOException.class, r::fetch, "an included table's chunk is read (and here cannot be)");
        }
    }
}
