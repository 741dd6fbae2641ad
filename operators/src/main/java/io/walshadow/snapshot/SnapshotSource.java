package io.walshadow.snapshot;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.change.BufferEvent;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.sink.ClickHouseSinkOptions;
import io.walshadow.buffer.BufferEventSerializer;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * FLIP-27 source of the initial snapshot: the included tables' rows as of one exported snapshot, in TID-range
 * chunks read in parallel, as sink-ready inserts versioned just below the start point (see {@link SnapshotExport}).
 * Its enumerator state records the plan and progress; each reader's split state, how far into its chunk it got.
 * Restored with a table filter that includes more, it copies the tables newly included (see {@link SnapshotEnumerator}).
 */
public final class SnapshotSource implements Source<BufferEvent, SnapshotSplit, SnapshotEnumeratorState>,
        ResultTypeQueryable<BufferEvent> {
    private static final long serialVersionUID = 1L;

    private final PgConnectionConfig pg;
    private final String include;
    private final String exclude;
    private final StartPoint start;
    private final SnapshotOptions options;
    private final ClickHouseSinkOptions mirrors;
    private final ClickHouseSinkOptions sink;
    private io.walshadow.types.UndecodableColumns undecodable = io.walshadow.types.UndecodableColumns.FAIL;
    private boolean partitionRoots;

    /**
     * @param sink the sink's ClickHouse (null: none); its TOAST mirrors, when it keeps them, are seeded first, and a
     *     table included again has the rows it kept from before removed
     */
    public SnapshotSource(PgConnectionConfig pg, String include, String exclude, StartPoint start,
                          SnapshotOptions options, ClickHouseSinkOptions sink) {
        this.sink = sink;
        this.mirrors = mirrorsOf(sink);
        this.pg = pg;
        this.include = include == null ? "" : include;
        this.exclude = exclude == null ? "" : exclude;
        this.start = start;
        this.options = options;
        CatalogFilter.parse(this.include, this.exclude);
    }

    /** This source with partitions copied through their roots, or as tables of their own (as the decoder's). */
    public SnapshotSource withPartitionRoots(boolean roots) {
        this.partitionRoots = roots;
        return this;
    }

    private CatalogFilter filter() {
        return CatalogFilter.parse(include, exclude).withPartitionRoots(partitionRoots);
    }

    /** This source with the policy for columns whose type has no decoder (as the WAL decoder's). */
    public SnapshotSource withUndecodable(io.walshadow.types.UndecodableColumns policy) {
        this.undecodable = policy;
        return this;
    }

    /** The sink's settings when it keeps TOAST mirrors (which the snapshot seeds), else null. */
    static ClickHouseSinkOptions mirrorsOf(ClickHouseSinkOptions sink) {
        return sink != null && sink.toastMirrors() ? sink : null;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED; // readers stay until the job ends (see SnapshotSourceReader)
    }

    @Override
    public SourceReader<BufferEvent, SnapshotSplit> createReader(SourceReaderContext context) {
        SnapshotName name = new SnapshotName();
        CatalogFilter filter = filter();
        return new SnapshotSourceReader(() -> new SnapshotSplitReader(pg, filter, options.fetchRows(), name, mirrors,
                undecodable),
                name, context);
    }

    @Override
    public SplitEnumerator<SnapshotSplit, SnapshotEnumeratorState> createEnumerator(
            SplitEnumeratorContext<SnapshotSplit> context) {
        return restoreEnumerator(context, SnapshotEnumeratorState.initial());
    }

    @Override
    public SplitEnumerator<SnapshotSplit, SnapshotEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<SnapshotSplit> context, SnapshotEnumeratorState state) {
        return new SnapshotEnumerator(context, pg, filter(), start, options, sink, state);
    }

    @Override
    public SimpleVersionedSerializer<SnapshotSplit> getSplitSerializer() {
        return SnapshotSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<SnapshotEnumeratorState> getEnumeratorCheckpointSerializer() {
        return SnapshotEnumeratorStateSerializer.INSTANCE;
    }

    @Override
    public TypeInformation<BufferEvent> getProducedType() {
        return BufferEventSerializer.typeInfo();
    }
}
