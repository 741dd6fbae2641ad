package io.walshadow.job;

import io.walshadow.buffer.XactBuffer;
import io.walshadow.buffer.XactBufferOperator;
import io.walshadow.buffer.CommitOrderOperator;
import io.walshadow.change.BufferEvent;
import io.walshadow.buffer.Drained;
import io.walshadow.decoder.WalDecoderFunction;
import io.walshadow.sink.ClickHouseSink;
import io.walshadow.sink.ClickHouseSinkOptions;
import io.walshadow.snapshot.SnapshotOptions;
import io.walshadow.snapshot.SnapshotSource;
import io.walshadow.snapshot.StartPoint;
import io.walshadow.source.WalSource;
import io.walshadow.buffer.BufferEventSerializer;
import io.walshadow.buffer.DrainedSerializer;
import io.walshadow.toast.ToastOperator;
import io.walshadow.toast.ToastStage;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point. Submitted to a cluster ({@code flink run}) it uses the cluster's configuration; started from a
 * plain JVM it runs in an embedded MiniCluster with RocksDB state and file checkpoints.
 */
public final class WalshadowJob {
    private static final Logger LOG = LoggerFactory.getLogger(WalshadowJob.class);

    /** Operator uids: stable across builds, so savepoints restore into later versions. */
    static final String UID_SOURCE = "wal-source";
    static final String UID_DECODER = "wal-decoder";
    static final String UID_BUFFER = "xact-buffer";
    static final String UID_TOAST = "toast";
    static final String UID_SINK = "clickhouse-sink";
    static final String UID_SNAPSHOT = "snapshot-source";
    static final String UID_COMMIT_ORDER = "commit-order";
    /**
     * Key groups of the transaction buffer: the most subtasks it can run at. Set rather than derived, so the decoder
     * knows how xids spread over subtasks; the value Flink derives at parallelism 1, so earlier savepoints restore.
     */
    public static final int BUFFER_MAX_PARALLELISM = 128;

    private WalshadowJob() {}

    public static void main(String[] args) throws Exception {
        JobConfig config;
        try {
            config = JobConfig.from(args, System.getenv(), flinkConfiguration());
            config.requireClickHouse();
        } catch (IllegalArgumentException e) {
            LOG.error("walshadow: {}", e.getMessage()); // one line at the default level, before the stack trace
            throw e;
        }
        LOG.info("walshadow: source {}, slot {}", config.pg(), config.source().slotName());
        Configuration flink = new Configuration();
        flink.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        flink.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.checkpointInterval());
        // the transaction buffer can hold gigabytes: upload only what changed since the last checkpoint
        flink.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        flink.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        if (config.checkpointDir() != null) {
            flink.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, config.checkpointDir());
        }
        if (System.getenv("FLINK_CONF_DIR") == null) { // a plain JVM: the embedded MiniCluster
            config.local().applyTo(flink);
            StatusLineReporter.applyTo(flink, config.progressInterval());
            LOG.info("walshadow: embedded MiniCluster: {}", config.local().describe());
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        try {
            build(env, config);
        } catch (Preflight.PreflightException e) {
            LOG.error("walshadow: {}", e.getMessage());
            throw e;
        }
        env.execute("walshadow " + config.pg().database() + " via slot " + config.source().slotName());
    }

    /** The cluster's configuration when submitted with {@code flink run} (it sets FLINK_CONF_DIR), else empty. */
    private static Map<String, String> flinkConfiguration() {
        return System.getenv("FLINK_CONF_DIR") == null ? Map.of() : GlobalConfiguration.loadConfiguration().toMap();
    }

    public static void build(StreamExecutionEnvironment env, JobConfig config) {
        build(env, config, new ClickHouseSink(config.requireClickHouse(), config.pg()));
    }

    /** The job with this sink (tests: a sink writing its state as an earlier build did). */
    public static void build(StreamExecutionEnvironment env, JobConfig config, ClickHouseSink sink) {
        ClickHouseSinkOptions ch = config.requireClickHouse();
        if (ch.visibleAtCommit()) {
            // Flink ships a partly filled network buffer after 100 ms by default: the keyBy between decoder and
            // buffer alone would cost that much of the latency budget
            env.setBufferTimeout(Math.max(1, Math.min(10, ch.directWrites().toMillis() / 10)));
        }
        Preflight.check(config, restoring(env)); // before the slot or any table is created
        StartPoint.Bootstrapped boot = startPoint(env, config);
        StartPoint start = boot.start();
        boolean seeding = config.snapshot().enabled() && ch.toastMirrors();
        // One key: the TOAST stage keeps its chunks in keyed (RocksDB) state, in the commit order the commit-order
        // operator restored, so the stream is declared keyed rather than shuffled (and stays chained).
        DataStreamUtils.reinterpretAsKeyedStream(transactionBuffer(env, config, boot), d -> ToastStage.KEY, Types.INT)
                .transform("TOAST", DrainedSerializer.typeInfo(), new ToastOperator(new ToastStage(config.toastMode(),
                        config.toastMissing(), config.toastValueMaxBytes(), config.toastFetchBatchBytes(), ch, config.pg(),
                        seeding ? start.lsn() : 0)))
                .uid(UID_TOAST).setParallelism(1)
                .sinkTo(sink)
                .uid(UID_SINK).name("ClickHouse sink").setParallelism(1);
    }

    /**
     * Where a fresh job starts, after making sure the slot exists, so the slot holds every record from here on: the
     * catalog bootstrap's position, with the catalog as of it (the decoder follows it from the WAL). A job restored
     * from a savepoint or checkpoint ignores both (its state says where it is): it takes only a start point, which a
     * changed table filter uses.
     */
    private static StartPoint.Bootstrapped startPoint(StreamExecutionEnvironment env, JobConfig config) {
        boolean restoring = restoring(env);
        try {
            StartPoint.Bootstrapped b = restoring
                    ? new StartPoint.Bootstrapped(StartPoint.take(config.pg(), config.source().slotName(),
                            config.source().createSlot()), null)
                    : StartPoint.bootstrap(config.pg(), config.source().slotName(), config.source().createSlot());
            LOG.info("start point {} ({}){}", b.start(), restoring ? "restoring: used if the table filter changed"
                    : "used unless restored from a checkpoint", b.catalog() == null ? ""
                    : ", catalog bootstrap " + b.catalog().length + " bytes");
            return b;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("could not take the start point on " + config.pg() + " (slot "
                    + config.source().slotName() + "): " + e.getMessage(), e);
        }
    }

    private static boolean restoring(StreamExecutionEnvironment env) {
        return env.getConfiguration().getOptional(StateRecoveryOptions.SAVEPOINT_PATH).isPresent();
    }

    /**
     * Source, decoder and transaction buffer: the committed changes, in commit order. Public for the benchmark
     * programs (bench module), which end it in a counting sink instead of ClickHouse.
     */
    public static SingleOutputStreamOperator<Drained> transactionBuffer(StreamExecutionEnvironment env, JobConfig config) {
        return transactionBuffer(env, config, startPoint(env, config));
    }

    static SingleOutputStreamOperator<Drained> transactionBuffer(StreamExecutionEnvironment env, JobConfig config,
                                                                 StartPoint.Bootstrapped boot) {
        StartPoint start = boot.start();
        // Stages pass immutable records: chained operators need no defensive copies.
        env.getConfig().enableObjectReuse();
        DataStream<BufferEvent> events = env.fromSource(new WalSource(config.pg(), config.source()),
                        WatermarkStrategy.noWatermarks(), "WAL source")
                .uid(UID_SOURCE).setParallelism(1)
                .process(new WalDecoderFunction(config.pg(), config.include(), config.exclude(), start, boot.catalog())
                        .withUndecodable(config.undecodable()).withPartitionRoots(config.partitionRoots())
                        .withBufferParallelism(config.bufferParallelism(), BUFFER_MAX_PARALLELISM))
                .returns(BufferEventSerializer.typeInfo())
                .uid(UID_DECODER).name("decoder").setParallelism(1);
        SnapshotOptions snap = config.snapshot();
        if (snap.enabled()) {
            // Joins ahead of the keyBy (an exchange anyway), so the WAL path behind the buffer stays one chain.
            // A restored job's snapshot source resumes from its own state (or, finished, stays idle).
            events = events.union(env.fromSource(new SnapshotSource(config.pg(), config.include(), config.exclude(),
                            start, snap, config.clickhouse()).withUndecodable(config.undecodable())
                            .withPartitionRoots(config.partitionRoots()), WatermarkStrategy.noWatermarks(), "initial snapshot")
                    .uid(UID_SNAPSHOT).setParallelism(snap.parallelism()));
        }
        int buffers = config.bufferParallelism();
        SingleOutputStreamOperator<Drained> drained = events
                .keyBy(BufferEvent::topXid, Types.INT)
                // the operator around the function lists and drops prepared transactions at start-up
                .transform("transaction buffer", DrainedSerializer.typeInfo(),
                        new XactBufferOperator(new XactBuffer(config.pg(), true, config.bufferHeapBytes(),
                                config.bufferHeapFamilyBytes()).withOrderMarkers(), config.preparedDrop()))
                .uid(UID_BUFFER).setParallelism(buffers);
        drained.setMaxParallelism(BUFFER_MAX_PARALLELISM);
        // always there (chained at parallelism 1), so a savepoint of any parallelism restores at any other
        return drained.transform("commit order", DrainedSerializer.typeInfo(), new CommitOrderOperator(buffers))
                .uid(UID_COMMIT_ORDER).setParallelism(1);
    }
}
