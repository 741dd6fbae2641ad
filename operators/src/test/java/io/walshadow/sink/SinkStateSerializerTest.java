package io.walshadow.sink;

import io.walshadow.codec.StateFormatException;
import io.walshadow.testing.Deep;
import io.walshadow.testing.Samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The sink's committable and writer state: every step kind round-trips; a version-1 form (what the previous build
 * wrote: no TOAST barrier kind, no mirrors to retire) is still read.
 */
class SinkStateSerializerTest {
    private static final List<SinkStep> STEPS = List.of(
            new SinkStep.CreateTable("t", "CREATE TABLE t (a Int32) ENGINE = Memory"),
            new SinkStep.AddColumn("t", "b", "Nullable(String)", "'x'"), new SinkStep.DropColumn("t", "b"),
            new SinkStep.RenameColumn("t", "a", "c", "Int32"), new SinkStep.ModifyColumn("t", "c", "Int64"),
            new SinkStep.Truncate("t"), new SinkStep.DropTable("u"), new SinkStep.RenameTable("t", "t2"),
            new SinkStep.Insert("t2", "stage", List.of("c", "_lsn"), 3, 99),
            new SinkStep.ToastBarrier("pg_toast_16390", 0x1_0000_0010L, 0xFFFF_FFFF_FFFF_FFF0L),
            new SinkStep.CopyLive("t2", "t2__rekey", List.of("c", "_lsn", "_tid_block")));

    @Test
    void batchesRoundTrip() throws IOException {
        SinkBatch b = new SinkBatch("sink", 12, STEPS, 3, 99, 41, 0x2_0000_0000L, (1L << 32) | 7, 123456789L,
                0x8000_0000_0000_0001L, List.of(123456000L, -5L, Long.MIN_VALUE, 123456789L));
        SinkBatch back = SinkBatchSerializer.INSTANCE.deserialize(SinkBatchSerializer.VERSION,
                SinkBatchSerializer.INSTANCE.serialize(b));
        assertEquals(b, back);
        assertEquals(List.of(123456000L, -5L, Long.MIN_VALUE, 123456789L), back.latencySample());
    }

    @Test
    void aVersion6BatchHasNoSampleAndItsLastCommitStandsForIt() throws IOException {
        SinkBatch v6 = new SinkBatch("sink", 12, STEPS, 3, 99, 41, 5, 6, 777L, 0x8000_0000_0000_0001L);
        SinkBatch read = SinkBatchSerializer.INSTANCE.deserialize(6, withoutSample(v6));
        assertEquals(v6, read);
        assertEquals(List.of(), read.commitTimes());
        assertEquals(List.of(777L), read.latencySample(), "the last commit's time, as the gauge visible_lag_ms has it");
        SinkBatch ddlOnly = new SinkBatch("sink", 13, STEPS, 0, 0, 0, 0, 0, 0, 1);
        assertEquals(List.of(), SinkBatchSerializer.INSTANCE.deserialize(6, withoutSample(ddlOnly)).latencySample(),
                "a batch without commits has no latency");
    }

    /** The version-6 bytes of {@code b} (no sample): its empty sample's count, the byte before the step count. */
    private static byte[] withoutSample(SinkBatch b) throws IOException {
        byte[] header = SinkBatchSerializer.INSTANCE.serialize(new SinkBatch(b.sinkId(), b.batch(), List.of(),
                b.commits(), b.rows(), b.lastCommitSeq(), b.lastCommitLsn(), b.lastFullXid(), b.lastCommitTime(),
                b.attempt()));
        int at = header.length - 2;
        byte[] full = SinkBatchSerializer.INSTANCE.serialize(b);
        assertEquals(0, full[at], "an empty sample");
        byte[] out = new byte[full.length - 1];
        System.arraycopy(full, 0, out, 0, at);
        System.arraycopy(full, at + 1, out, at, full.length - at - 1);
        return out;
    }

    @Test
    void earlierBatchVersionsAreReadWithoutAnAttempt() throws IOException {
        SinkBatch v1 = new SinkBatch("sink", 12, STEPS.subList(0, STEPS.size() - 2), 3, 99, 41, 5, 6, 7);
        // version 4 without the attempt is version 3's layout; without kinds 10 and 11 version 1's, without 11 version 2's
        assertEquals(v1, SinkBatchSerializer.INSTANCE.deserialize(1, withoutAttempt(v1)));
        SinkBatch v2 = new SinkBatch("sink", 12, STEPS.subList(0, STEPS.size() - 1), 3, 99, 41, 5, 6, 7);
        assertEquals(v2, SinkBatchSerializer.INSTANCE.deserialize(2, withoutAttempt(v2)));
        SinkBatch v3 = new SinkBatch("sink", 12, STEPS, 3, 99, 41, 5, 6, 7);
        SinkBatch read = SinkBatchSerializer.INSTANCE.deserialize(3, withoutAttempt(v3));
        assertEquals(v3, read);
        assertEquals(0, read.attempt(), "no attempt: inserts take every staged row, as before");
        assertThrows(StateFormatException.class, () -> SinkBatchSerializer.INSTANCE.deserialize(8, new byte[0]));
    }

    /** The version-3 bytes of {@code b}: without its attempt and its empty sample, the 9 bytes before the step count. */
    private static byte[] withoutAttempt(SinkBatch b) throws IOException {
        byte[] header = SinkBatchSerializer.INSTANCE.serialize(new SinkBatch(b.sinkId(), b.batch(), List.of(),
                b.commits(), b.rows(), b.lastCommitSeq(), b.lastCommitLsn(), b.lastFullXid(), b.lastCommitTime()));
        int at = header.length - 2 - 8; // a zero count is one byte
        byte[] full = SinkBatchSerializer.INSTANCE.serialize(b);
        byte[] out = new byte[full.length - 9];
        System.arraycopy(full, 0, out, 0, at);
        System.arraycopy(full, at + 9, out, at, full.length - at - 9);
        return out;
    }

    @Test
    void writerStateRoundTripsAndVersion1HasNoMirrorsToRetire() throws IOException {
        DestTable t = new DestTable("s__t", Samples.descriptor(), names(), types(), false, List.of(1), true);
        SinkWriterState s = new SinkWriterState("sink", 8, List.of(t), List.of("pg_toast_1", "pg_toast_2"),
                List.of(16384, (int) 3_000_000_000L), // oids are unsigned
                new io.walshadow.catalog.TypeSet(java.util.Map.of(16400, new io.walshadow.catalog.PgType(16400, "s", "mood",
                        4, true, 'i', 'e', 'E', 0, 0, -1, 0, java.util.Map.of(16401, "ok"))), java.util.Map.of()),
                List.of(new QuarantinedTable((int) 3_000_000_001L, "s", "t", 0x1_0000_0010L,
                        "cannot write s.t.d of the change at 1/10: a date past 2105")));

        byte[] bytes = SinkWriterStateSerializer.INSTANCE.serialize(s);
        SinkWriterState back = SinkWriterStateSerializer.INSTANCE.deserialize(SinkWriterStateSerializer.VERSION, bytes);
        assertEquals(s.retireMirrors(), back.retireMirrors());
        assertEquals(s.droppedRelations(), back.droppedRelations());
        Deep.assertDeepEquals(s.types(), back.types());
        assertEquals(s.nextBatch(), back.nextBatch());
        Deep.assertDeepEquals(s.tables(), back.tables());
        assertEquals(s.quarantined(), back.quarantined());

        assertTrue(back.tables().get(0).tids(), "a keyed table's TID columns survive the round trip");

        DestTable earlier = new DestTable("s__t", Samples.descriptor(), names(), types(), false, List.of(1));
        SinkWriterState none = new SinkWriterState("sink", 8, List.of(earlier));
        byte[] v5 = SinkWriterStateSerializer.INSTANCE.serialize(none);
        byte[] v4 = Arrays.copyOf(v5, v5.length - 1); // version 4 ends before the (empty) quarantine count
        assertEquals(List.of(), SinkWriterStateSerializer.INSTANCE.deserialize(4, v4).quarantined());
        // version 3 ends before the (empty) dropped relations and (empty: two zero counts) types
        byte[] v3 = Arrays.copyOf(v4, v4.length - 3);
        byte[] v2 = Arrays.copyOf(v4, v4.length - 4); // version 2 also before the per-table TID flags
        byte[] v1 = Arrays.copyOf(v4, v4.length - 5); // version 1 also before the (empty) mirror count
        assertFalse(SinkWriterStateSerializer.INSTANCE.deserialize(3, v3).tables().get(0).tids());
        assertEquals(List.of(), SinkWriterStateSerializer.INSTANCE.deserialize(3, v3).droppedRelations());
        for (int version : new int[] {1, 2}) {
            SinkWriterState old = SinkWriterStateSerializer.INSTANCE.deserialize(version, version == 1 ? v1 : v2);
            assertEquals(List.of(), old.retireMirrors());
            assertEquals(List.of(), old.droppedRelations());
            Deep.assertDeepEquals(none.tables(), old.tables());
            assertFalse(old.tables().get(0).tids(), "an earlier build's keyed table has no TID columns");
        }
    }

    private static List<String> names() {
        return Samples.descriptor().columns().stream().map(c -> c.dropped() ? null : c.name()).toList();
    }

    private static List<String> types() {
        return Samples.descriptor().columns().stream().map(c -> c.dropped() ? null : "String").toList();
    }
}
