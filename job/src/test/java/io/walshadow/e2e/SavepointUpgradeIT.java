package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.sink.ClickHouseSink;
import io.walshadow.sink.SinkBatch;
import io.walshadow.sink.SinkBatchSerializer;
import io.walshadow.sink.SinkStep;
import io.walshadow.sink.SinkWriterState;
import io.walshadow.sink.SinkWriterStateSerializer;
import io.walshadow.testing.LocalPg;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.junit.jupiter.api.Test;

/**
 * An upgrade across a state format change, as a user does it: the previous build runs and is stopped with a
 * savepoint, this build restores it. The previous build is the sink as it was before its writer state gained the
 * mirrors to retire and its committable the TOAST barrier step (both version 1; the later fields, quarantine and
 * attempt, are left out too); this build reads version 1 and writes its own. Rows written before, between and after the two runs must all arrive, once.
 */
class SavepointUpgradeIT {
    /** Version-1 writers, as the previous build had them (the layouts are version 2's without the new parts). */
    static final AtomicInteger V1_WRITER_STATES = new AtomicInteger();

    static final class V1WriterState implements SimpleVersionedSerializer<SinkWriterState>, java.io.Serializable {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(SinkWriterState s) throws IOException {
            if (!s.retireMirrors().isEmpty() || !s.droppedRelations().isEmpty() || !s.quarantined().isEmpty()) {
                throw new IOException("version 1 has no mirrors to retire, dropped relations nor quarantine");
            }
            // version 1's layout: this build's up to the end of the tables
            SinkWriterState bare = new SinkWriterState(s.sinkId(), s.nextBatch(), s.tables(), List.of(), List.of(),
                    io.walshadow.catalog.TypeSet.EMPTY, List.of(), java.util.Map.of(), java.util.Map.of(),
                    java.util.Map.of(), 0);
            byte[] now = SinkWriterStateSerializer.INSTANCE.serialize(bare);
            V1_WRITER_STATES.incrementAndGet();
            // without the (empty) mirror count, the per-table TID flags, the (empty) dropped relations, types,
            // quarantine, partitions that left their roots, attached with rows and moved under another root, and
            // the newest staged batch (0: one byte)
            return Arrays.copyOf(now, now.length - 9 - s.tables().size());
        }

        @Override
        public SinkWriterState deserialize(int version, byte[] serialized) throws IOException {
            return SinkWriterStateSerializer.INSTANCE.deserialize(version, serialized);
        }
    }

    static final class V1Batch implements SimpleVersionedSerializer<SinkBatch>, java.io.Serializable {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(SinkBatch b) throws IOException {
            if (b.steps().stream().anyMatch(s -> s instanceof SinkStep.ToastBarrier)) {
                throw new IOException("version 1 has no TOAST barrier step");
            }
            // version 1's layout: this build's without the attempt (8 bytes) and the sampled commit times (a count
            // and 8 bytes each) that follow it, before the step count
            byte[] now = SinkBatchSerializer.INSTANCE.serialize(b);
            byte[] bare = SinkBatchSerializer.INSTANCE.serialize(new SinkBatch(b.sinkId(), b.batch(), List.of(),
                    b.commits(), b.rows(), b.lastCommitSeq(), b.lastCommitLsn(), b.lastFullXid(),
                    b.lastCommitTime(), b.attempt(), b.commitTimes()));
            // without steps and times: the head, the attempt, two empty counts of one byte each
            int head = SinkBatchSerializer.INSTANCE.serialize(new SinkBatch(b.sinkId(), b.batch(), List.of(),
                    b.commits(), b.rows(), b.lastCommitSeq(), b.lastCommitLsn(), b.lastFullXid(),
                    b.lastCommitTime(), b.attempt())).length - 8 - 1 - 1;
            int cut = bare.length - 1 - head; // the attempt and the commit times
            byte[] v1 = new byte[now.length - cut];
            System.arraycopy(now, 0, v1, 0, head);
            System.arraycopy(now, head + cut, v1, head, now.length - head - cut);
            return v1;
        }

        @Override
        public SinkBatch deserialize(int version, byte[] serialized) throws IOException {
            return SinkBatchSerializer.INSTANCE.deserialize(version, serialized);
        }
    }

    @Test
    void savepointOfThePreviousStateFormatRestores() throws Exception {
        try (E2e e = new E2e("e2e_upgrade")) {
            String t = e.schema + ".t";
            LocalPg.exec(e.pg, "CREATE TABLE " + t + " (id int PRIMARY KEY, v text, doc text)");
            var config = e.config();
            ClickHouseSink previous = new ClickHouseSink(config.requireClickHouse(), config.pg(), new V1WriterState(),
                    new V1Batch());
            JobClient job = e.start(config, null, 0, previous);
            e.awaitCaughtUp(Duration.ofSeconds(120));
            LocalPg.exec(e.pg, "INSERT INTO " + t + " SELECT g, 'v' || g, repeat(md5(g::text), 200) FROM"
                    + " generate_series(1, 50) g");
            e.awaitCaughtUp(Duration.ofSeconds(120));
            LocalPg.exec(e.pg, "UPDATE " + t + " SET v = 'before the savepoint' WHERE id <= 10");
            Path savepoints = Files.createTempDirectory("walshadow-upgrade-sp");
            String savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(),
                    SavepointFormatType.CANONICAL).get();
            assertTrue(V1_WRITER_STATES.get() > 0, "the previous build wrote its state");
            LocalPg.exec(e.pg, "UPDATE " + t + " SET v = 'between the builds' WHERE id BETWEEN 11 AND 20",
                    "DELETE FROM " + t + " WHERE id = 50");

            int v1Before = V1_WRITER_STATES.get();
            e.start(config, Path.of(java.net.URI.create(savepoint)), 0); // this build
            LocalPg.exec(e.pg, "UPDATE " + t + " SET v = 'after the upgrade' WHERE id BETWEEN 21 AND 30");
            e.awaitCaughtUp(Duration.ofSeconds(120));
            assertEquals(v1Before, V1_WRITER_STATES.get(), "this build writes its own format");
            assertEquals(Map.of("t", 49), e.assertAllTablesEqual());
            assertEquals("0", e.ch.queryString("SELECT count() FROM (SELECT commit_seq FROM `" + e.chDatabase
                    + "`.`_walshadow_commit_log` GROUP BY commit_seq HAVING uniqExact(xid, commit_lsn, changes) > 1)"),
                    "each commit once in the commit log");
        }
    }
}
