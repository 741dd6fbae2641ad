package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.buffer.DrainedSerializer;
import io.walshadow.buffer.XactBuffer;
import io.walshadow.buffer.XactBufferOperator;
import io.walshadow.change.BufferEvent;
import io.walshadow.buffer.BufferEventSerializer;
import io.walshadow.decoder.WalDecoderFunction;
import io.walshadow.job.JobConfig;
import io.walshadow.sink.ClickHouseSink;
import io.walshadow.snapshot.StartPoint;
import io.walshadow.source.WalSource;
import io.walshadow.testing.LocalPg;
import io.walshadow.toast.ToastOperator;
import io.walshadow.toast.ToastStage;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * An upgrade from a build before the commit order, as a user does it: the earlier topology (buffer → TOAST → sink,
 * no commit-order operator, the buffer's key groups derived) runs with an open transaction and is stopped with a
 * savepoint. This build refuses to restore it on two buffer subtasks, at once and saying how; restores it on one;
 * and its own savepoint then restores on two. Every row arrives once.
 */
class CommitOrderUpgradeIT {
    @Test
    void aSavepointOfTheEarlierTopologyRestoresOnOneSubtaskThenRescales() throws Exception {
        try (E2e e = new E2e("e2e_upgrade")) {
            String t = e.schema + ".t";
            LocalPg.exec(e.pg, "CREATE TABLE " + t + " (id int PRIMARY KEY, v text)",
                    "INSERT INTO " + t + " SELECT g, 'before' FROM generate_series(1, 100) g");
            JobClient job = e.start(e.config("--snapshot.mode", "never"), null, 0, CommitOrderUpgradeIT::earlierTopology);
            e.awaitCaughtUp(Duration.ofMinutes(2));
            LocalPg.exec(e.pg, "INSERT INTO " + t + " SELECT g, 'streamed' FROM generate_series(101, 200) g");
            try (Connection open = LocalPg.connect()) {
                LocalPg.exec(open, "BEGIN", "INSERT INTO " + t + " SELECT g, 'open' FROM generate_series(201, 300) g");
                e.awaitCaughtUp(Duration.ofMinutes(2));
                Path earlier = E2e.stopWithSavepoint(job);

                e.start(e.config("--snapshot.mode", "never", "--xact.buffer.parallelism", "2"), earlier, 5);
                String failure = e.awaitJobFailure(Duration.ofMinutes(2));
                assertTrue(failure.contains("--xact.buffer.parallelism 1"), failure);
                e.cancelJobs();

                job = e.start(e.config("--snapshot.mode", "never"), earlier, 0);
                LocalPg.exec(open, "COMMIT");
            }
            LocalPg.exec(e.pg, "UPDATE " + t + " SET v = 'after upgrade' WHERE id % 10 = 0");
            e.awaitCaughtUp(Duration.ofMinutes(2));
            Path ours = E2e.stopWithSavepoint(job);
            e.start(e.config("--snapshot.mode", "never", "--xact.buffer.parallelism", "2"), ours, 0);
            LocalPg.exec(e.pg, "DELETE FROM " + t + " WHERE id % 7 = 0", "INSERT INTO " + t + " SELECT g, 'rescaled'"
                    + " FROM generate_series(301, 350) g");
            e.awaitCaughtUp(Duration.ofMinutes(2));
            // the 100 rows before the job are not copied (no snapshot; the UPDATE brings some of them): ids above 100
            assertEquals(Long.parseLong(LocalPg.queryString(e.pg, "SELECT count(*) FROM " + t + " WHERE id > 100")),
                    Long.parseLong(e.ch.queryString("SELECT count() FROM `" + e.chDatabase + "`.`" + e.schema
                            + "__t` FINAL WHERE NOT _is_deleted AND id > 100")), "rows streamed, each once");
            assertEquals(LocalPg.queryString(e.pg, "SELECT sum(id) || ' ' || sum(length(v)) FROM " + t
                    + " WHERE id > 100"), e.ch.queryString("SELECT toString(sum(id)) || ' ' || toString(sum(length(v)))"
                    + " FROM `" + e.chDatabase + "`.`" + e.schema + "__t` FINAL WHERE NOT _is_deleted AND id > 100"));
            e.assertEachCommitOnce();
        }
    }

    /** The job as the build before the commit order built it (same uids, the buffer's key groups derived). */
    private static void earlierTopology(StreamExecutionEnvironment env, JobConfig config) {
        StartPoint.Bootstrapped boot;
        try {
            boot = StartPoint.bootstrap(config.pg(), config.source().slotName(), config.source().createSlot());
        } catch (java.sql.SQLException ex) {
            throw new IllegalStateException(ex);
        }
        env.getConfig().enableObjectReuse();
        var ch = config.requireClickHouse();
        var buffer = env.fromSource(new WalSource(config.pg(), config.source()), WatermarkStrategy.noWatermarks(),
                        "WAL source").uid("wal-source").setParallelism(1)
                .process(new WalDecoderFunction(config.pg(), config.include(), config.exclude(), boot.start(),
                        boot.catalog())).returns(BufferEventSerializer.typeInfo()).uid("wal-decoder").setParallelism(1)
                .keyBy(BufferEvent::topXid, Types.INT)
                .transform("transaction buffer", DrainedSerializer.typeInfo(), new XactBufferOperator(
                        new XactBuffer(config.pg(), true, config.bufferHeapBytes(), config.bufferHeapFamilyBytes()),
                        config.preparedDrop()))
                .uid("xact-buffer").setParallelism(1);
        DataStreamUtils.reinterpretAsKeyedStream(buffer, d -> ToastStage.KEY, Types.INT)
                .transform("TOAST", DrainedSerializer.typeInfo(), new ToastOperator(new ToastStage(config.toastMode(),
                        config.toastMissing(), config.toastValueMaxBytes(), config.toastFetchBatchBytes(), ch,
                        config.pg(), 0)))
                .uid("toast").setParallelism(1)
                .sinkTo(new ClickHouseSink(ch, config.pg())).uid("clickhouse-sink").setParallelism(1);
    }
}
