package io.walshadow.snapshot;

import io.walshadow.testing.Samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The initial snapshot's checkpointed state: splits and the coordinator's state survive their serializers. */
class SnapshotStateSerializerTest {
    @Test
    void splitsRoundTripWithTheirProgressAndKind() throws IOException {
        SnapshotSplit table = SnapshotSplit.fresh(Samples.descriptor(), 0x1_0000_0000L, 4096, -1)
                .advanced(5000, 17, 123_456);
        SnapshotSplit toast = SnapshotSplit.toastChunk(Samples.descriptor(), 99, 0, 4096);
        for (SnapshotSplit s : List.of(table, toast)) {
            byte[] b = SnapshotSplitSerializer.INSTANCE.serialize(s);
            SnapshotSplit back = SnapshotSplitSerializer.INSTANCE.deserialize(SnapshotSplitSerializer.INSTANCE.getVersion(), b);
            // (records holding byte[] compare by identity: compare what they serialize to, and the fields)
            assertArrayEquals(b, SnapshotSplitSerializer.INSTANCE.serialize(back));
            assertEquals(s.splitId(), back.splitId());
            assertEquals(List.of(s.toast(), s.version(), s.fromBlock(), s.toBlock(), s.resumeBlock(), s.resumeOffset(),
                    s.rowsDone()), List.of(back.toast(), back.version(), back.fromBlock(), back.toBlock(),
                    back.resumeBlock(), back.resumeOffset(), back.rowsDone()));
        }
        assertTrue(table.started());
        assertEquals("16393@0", toast.splitId()); // the TOAST relation read, not the owner
    }

    @Test
    void enumeratorStateRoundTrips() throws IOException {
        SnapshotEnumeratorState s = new SnapshotEnumeratorState(0x2_0000_1000L, "834:840:835,836", true,
                List.of(SnapshotSplit.fresh(Samples.descriptor(), 7, 0, 64),
                        SnapshotSplit.toastChunk(Samples.descriptor(), 7, 64, -1)), 10, 8, 1_000_000, false,
                List.of("16400@64"), "include=public.*;exclude=", 841, List.of("16502@8589942784", "16503@1"));
        var ser = SnapshotEnumeratorStateSerializer.INSTANCE;
        SnapshotEnumeratorState back = ser.deserialize(ser.getVersion(), ser.serialize(s));
        assertEquals(s.copiesPlanned(), back.copiesPlanned());
        assertArrayEquals(ser.serialize(s), ser.serialize(back));
        assertEquals(List.of(s.startLsn(), s.startXids(), s.planned(), s.chunksTotal(), s.chunksDone(), s.rowsDone(),
                s.complete(), s.toastOutstanding(), s.unassigned().size(), s.coveredSpec(), s.startWaitXid()),
                List.of(back.startLsn(), back.startXids(), back.planned(), back.chunksTotal(), back.chunksDone(),
                back.rowsDone(), back.complete(), back.toastOutstanding(), back.unassigned().size(), back.coveredSpec(),
                back.startWaitXid()));
        assertTrue(back.unassigned().get(1).toast());
        assertEquals(SnapshotEnumeratorState.initial(), ser.deserialize(ser.getVersion(),
                ser.serialize(SnapshotEnumeratorState.initial())));
    }

    @Test
    void versionOneStateReadsWithItsFilterUnrecorded() throws IOException {
        var ser = SnapshotEnumeratorStateSerializer.INSTANCE;
        SnapshotEnumeratorState planned = new SnapshotEnumeratorState(0x1000, "5:9:", true, List.of(), 3, 3, 30, true,
                List.of(), null, 0);
        byte[] v3 = ser.serialize(planned);
        byte[] v2 = java.util.Arrays.copyOf(v3, v3.length - 4); // version 2 ends before the copy requests' count
        assertEquals(List.of(), ser.deserialize(2, v2).copiesPlanned());
        byte[] v1 = java.util.Arrays.copyOf(v2, v2.length - 9); // version 1 ends before the covered spec's flag
        assertEquals(SnapshotEnumeratorState.COVERED_UNKNOWN, ser.deserialize(1, v1).coveredSpec());
        SnapshotEnumeratorState unplanned = SnapshotEnumeratorState.initial();
        byte[] u3 = ser.serialize(unplanned);
        assertEquals(null, ser.deserialize(1, java.util.Arrays.copyOf(u3, u3.length - 13)).coveredSpec());
    }

    @Test
    void unknownVersionsAndImplausibleCountsAreRefused() throws IOException {
        var ser = SnapshotEnumeratorStateSerializer.INSTANCE;
        assertThrows(IOException.class, () -> ser.deserialize(ser.getVersion() + 1, new byte[0]));
        assertThrows(IOException.class, () -> SnapshotSplitSerializer.INSTANCE.deserialize(99, new byte[0]));
        // more unassigned chunks than planned: a corrupt state, not a plan to follow
        SnapshotEnumeratorState bad = new SnapshotEnumeratorState(1, "", true,
                List.of(SnapshotSplit.fresh(Samples.descriptor(), 0, 0, -1)), 0, 0, 0, false, List.of(), null, 0);
        assertThrows(IOException.class, () -> ser.deserialize(ser.getVersion(), ser.serialize(bad)));
    }
}
