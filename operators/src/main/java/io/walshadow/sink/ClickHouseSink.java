package io.walshadow.sink;

import io.walshadow.buffer.Drained;
import io.walshadow.pg.PgConnectionConfig;
import java.io.IOException;
import java.util.Collection;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The two-phase ClickHouse sink: the writer stages each checkpoint's rows in ClickHouse staging tables and hands
 * the checkpoint a {@link SinkBatch}; the committer makes a batch visible (DDL and inserts into the destination
 * tables, commit log, watermark) once Flink reports its checkpoint complete. ClickHouse has no transactions, so
 * exactly-once is in the end state: a retried batch re-inserts byte-identical rows that
 * {@code ReplacingMergeTree(_lsn)} folds, and DDL steps check before they act. Run with parallelism 1: the drain
 * order is the commit order.
 */
public final class ClickHouseSink implements Sink<Drained>, SupportsCommitter<SinkBatch>,
        SupportsWriterState<Drained, SinkWriterState> {
    private static final long serialVersionUID = 1L;

    private final ClickHouseSinkOptions options;
    private final PgConnectionConfig pg;
    private final SimpleVersionedSerializer<SinkWriterState> writerStateSerializer;
    private final SimpleVersionedSerializer<SinkBatch> committableSerializer;

    /** @param pg the source, for its type catalog (enums, domains, arrays) */
    public ClickHouseSink(ClickHouseSinkOptions options, PgConnectionConfig pg) {
        this(options, pg, SinkWriterStateSerializer.INSTANCE, SinkBatchSerializer.INSTANCE);
    }

    /**
     * With other state serializers: what an earlier build wrote its state with, so that a test can take a savepoint
     * as that build would and restore it with this one (the upgrade path of the versioned formats).
     */
    public ClickHouseSink(ClickHouseSinkOptions options, PgConnectionConfig pg,
                          SimpleVersionedSerializer<SinkWriterState> writerStateSerializer,
                          SimpleVersionedSerializer<SinkBatch> committableSerializer) {
        this.options = options;
        this.pg = pg;
        this.writerStateSerializer = writerStateSerializer;
        this.committableSerializer = committableSerializer;
    }

    @Override
    public SinkWriter<Drained> createWriter(WriterInitContext ctx) throws IOException {
        return new ClickHouseSinkWriter(options, pg, ctx, null);
    }

    @Override
    public StatefulSinkWriter<Drained, SinkWriterState> restoreWriter(WriterInitContext ctx,
                                                                      Collection<SinkWriterState> states)
            throws IOException {
        if (states.size() > 1) {
            throw new IOException("the ClickHouse sink runs with parallelism 1; restored " + states.size()
                    + " writer states (rescaled?)");
        }
        return new ClickHouseSinkWriter(options, pg, ctx, states.isEmpty() ? null : states.iterator().next());
    }

    @Override
    public SimpleVersionedSerializer<SinkWriterState> getWriterStateSerializer() {
        return writerStateSerializer;
    }

    @Override
    public Committer<SinkBatch> createCommitter(CommitterInitContext ctx) {
        return new ClickHouseCommitter(options, ctx);
    }

    @Override
    public SimpleVersionedSerializer<SinkBatch> getCommittableSerializer() {
        return committableSerializer;
    }
}
