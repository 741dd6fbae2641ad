package io.walshadow.buffer;

import io.walshadow.codec.StateFormatException;
import io.walshadow.testing.Deep;
import io.walshadow.testing.Samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.change.BufferEvent;
import io.walshadow.change.ChangeEvent;
import io.walshadow.change.RowChange;
import io.walshadow.change.TruncateChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class BufferAndDrainedSerializerTest {
    private static <T> T roundTrip(TypeSerializer<T> s, T v) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        s.serialize(v, out);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        T back = s.deserialize(in);
        assertEquals(0, in.available(), "trailing bytes");
        return back;
    }

    @Test
    void bufferEventsRoundTrip() throws IOException {
        BufferEventSerializer s = new BufferEventSerializer();
        for (ChangeEvent e : Samples.events()) {
            BufferEvent be = new BufferEvent(123456, 0, 0, e, Map.of());
            Deep.assertDeepEquals(be, roundTrip(s, be));
        }
        BufferEvent commit = new BufferEvent(-5, Long.MAX_VALUE - 1, (7L << 32) | 0xFFFF_FFFBL, Samples.events().get(0),
                Map.of(Samples.LOC, Samples.descriptor(), Samples.LOC2, Samples.descriptor2()));
        BufferEvent back = roundTrip(s, commit);
        assertEquals(commit.topXid(), back.topXid());
        assertEquals(commit.commitSeq(), back.commitSeq());
        assertEquals(commit.fullXid(), back.fullXid());
        Deep.assertDeepEquals(commit.event(), back.event());
        assertEquals(commit.deferredDescriptors().keySet(), back.deferredDescriptors().keySet());
        for (var e : commit.deferredDescriptors().entrySet()) {
            Deep.assertDeepEquals(e.getValue(), back.deferredDescriptors().get(e.getKey()));
        }
        assertEquals(io.walshadow.catalog.TypeSet.EMPTY, back.types());

        // with the types the deferred rows need: an enum, an array of it, a domain, a composite (high oids unsigned)
        var mood = new io.walshadow.catalog.PgType((int) 3_000_000_001L, "s", "mood", 4, true, 'i', 'e', 'E', 0, 0, -1,
                0, Map.of(16390, "happy", (int) 3_000_000_005L, "sad é"));
        var moods = new io.walshadow.catalog.PgType(16391, "s", "_mood", -1, false, 'i', 'b', 'A', mood.oid(), 0, -1, 0,
                Map.of());
        var dom = new io.walshadow.catalog.PgType(16392, "s", "posint", 4, true, 'i', 'd', 'N', 0, 23, -1, 0, Map.of());
        var pair = new io.walshadow.catalog.PgType(16393, "s", "pair", -1, false, 'd', 'c', 'C', 0, 0, -1, 16394,
                Map.of());
        var typed = new io.walshadow.catalog.TypeSet(Map.of(mood.oid(), mood, moods.oid(), moods, dom.oid(), dom,
                pair.oid(), pair), Map.of(16394, Samples.descriptor().columns().subList(0, 4)));
        BufferEvent withTypes = new BufferEvent(9, 3, 9, Samples.events().get(0),
                Map.of(Samples.LOC, Samples.descriptor()), typed);
        Deep.assertDeepEquals(typed, roundTrip(s, withTypes).types());
    }

    @Test
    void drainedRoundTrip() throws IOException {
        DrainedSerializer s = new DrainedSerializer();
        List<Drained> all = new ArrayList<>();
        for (ChangeEvent e : Samples.events()) {
            if (e instanceof RowChange || e instanceof TruncateChange) {
                all.add(new DrainedChange(7, 0x1_0000_0000L, (3L << 32) | 42, 1234567L, e));
            }
        }
        assertTrue(all.size() >= 2);
        all.add(new DrainedCommit(7, 0x1_0000_0000L, 42, 1234567L, null, 12, 99, List.of(), false));
        all.add(new DrainedCatalog(8, 5, 0xFFFF_FFFFL, -2, Samples.catalogChanges()));
        all.add(new DrainedCatalog(9, 6, 7, -2, Samples.catalogChanges(), new io.walshadow.catalog.TypeSet(Map.of(16400,
                new io.walshadow.catalog.PgType(16400, "s", "posint", 4, true, 'i', 'd', 'N', 0, 23, -1, 0, Map.of())),
                Map.of())));
        all.add(new DrainedCommit(8, 5, 0xFFFF_FFFFL, -2, "gid é", 0, 0, List.of("public.a", "s.b é"), true));
        for (Drained d : all) {
            Deep.assertDeepEquals(d, roundTrip(s, d));
        }
    }

    @Test
    void unknownFormatVersionFailsClearly() {
        DataInputDeserializer in = new DataInputDeserializer(new byte[] {9, 0, 0, 0, 0});
        StateFormatException e = assertThrows(StateFormatException.class, () -> new DrainedSerializer().deserialize(in));
        assertTrue(e.getMessage().contains("format version 9"), e.getMessage());
        assertThrows(StateFormatException.class, () -> new BufferEventSerializer.Snapshot()
                .readSnapshot(BufferEventSerializer.FORMAT_VERSION + 1, new DataInputDeserializer(new byte[0]),
                        getClass().getClassLoader()));
    }
}
