package io.walshadow.buffer;

import io.walshadow.codec.StateFormatException;
import io.walshadow.source.XLogRecordSerializer;
import io.walshadow.testing.Samples;

import static io.walshadow.testing.Deep.assertDeepEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.change.ChangeEvent;
import io.walshadow.wal.XLogRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;
import org.junit.jupiter.api.Test;

/**
 * Savepoint compatibility: the snapshot written by one build, read back as Flink reads it at restore, and the
 * resulting schema compatibility. A later build is simulated by {@link V2Serializer}/{@link V2Snapshot}: format
 * version 2 (each event gains a trailing byte), still reading version 1.
 */
class ChangeEventSerializerSnapshotTest {
    private static final ClassLoader CL = ChangeEventSerializerSnapshotTest.class.getClassLoader();

    static byte[] writeSnapshot(TypeSerializerSnapshot<?> snapshot) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        return out.getCopyOfBuffer();
    }

    static List<byte[]> serializeAll(TypeSerializer<ChangeEvent> s) throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (ChangeEvent e : Samples.events()) {
            DataOutputSerializer o = new DataOutputSerializer(64);
            s.serialize(e, o);
            out.add(o.getCopyOfBuffer());
        }
        return out;
    }

    static void assertReadsAll(TypeSerializer<ChangeEvent> s, List<byte[]> encoded) throws IOException {
        List<ChangeEvent> expected = Samples.events();
        for (int i = 0; i < encoded.size(); i++) {
            DataInputDeserializer in = new DataInputDeserializer(encoded.get(i));
            assertDeepEquals(expected.get(i), s.deserialize(in));
            assertEquals(0, in.available());
        }
    }

    @Test
    void sameBuildRestoresCompatibleAsIs() throws IOException {
        ChangeEventSerializer s = new ChangeEventSerializer();
        List<byte[]> state = serializeAll(s);
        byte[] snap = writeSnapshot(s.snapshotConfiguration());

        TypeSerializerSnapshot<ChangeEvent> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(snap), CL);
        assertInstanceOf(ChangeEventSerializerSnapshot.class, restored);
        assertEquals(ChangeEventSerializer.FORMAT_VERSION, ((ChangeEventSerializerSnapshot) restored).formatVersion());
        TypeSerializerSchemaCompatibility<ChangeEvent> compat =
                new ChangeEventSerializer().snapshotConfiguration().resolveSchemaCompatibility(restored);
        assertTrue(compat.isCompatibleAsIs(), compat.toString());
        assertReadsAll(restored.restoreSerializer(), state);
        assertReadsAll(new ChangeEventSerializer(), state);
    }

    @Test
    void snapshotLayoutIsFlinksVersionedHeaderWithNoPayload() throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(writeSnapshot(new ChangeEventSerializerSnapshot()));
        assertEquals(ChangeEventSerializerSnapshot.class.getName(), in.readUTF());
        assertEquals(ChangeEventSerializer.FORMAT_VERSION, in.readInt());
        assertEquals(0, in.available());
    }

    /**
     * A savepoint of this build (version 1) restored by a later build that writes version 2 and reads 1 and 2. Flink
     * instantiates the later build's snapshot class of the same name; {@link V2Snapshot} stands in for it.
     */
    @Test
    void laterBuildRestoresThisBuildsSavepoint() throws IOException {
        ChangeEventSerializer v1 = new ChangeEventSerializer();
        List<byte[]> v1State = serializeAll(v1);
        DataInputDeserializer in = new DataInputDeserializer(writeSnapshot(v1.snapshotConfiguration()));
        assertEquals(ChangeEventSerializerSnapshot.class.getName(), in.readUTF());
        int version = in.readInt();
        V2Snapshot restored = new V2Snapshot();
        restored.readSnapshot(version, in, CL);
        assertEquals(1, restored.formatVersion());

        TypeSerializerSchemaCompatibility<ChangeEvent> compat = new V2Snapshot().resolveSchemaCompatibility(restored);
        assertTrue(compat.isCompatibleAsIs(), compat.toString());
        // version-1 values (as left in RocksDB) read by the version-2 serializer, and mixed with version-2 ones
        assertReadsAll(restored.restoreSerializer(), v1State);
        V2Serializer v2 = new V2Serializer();
        assertReadsAll(v2, v1State);
        List<byte[]> v2State = serializeAll(v2);
        assertEquals(2, v2State.get(0)[0]);
        assertReadsAll(v2, v2State);
        // copy() re-encodes an old value in the current format
        DataOutputSerializer out = new DataOutputSerializer(64);
        v2.copy(new DataInputDeserializer(v1State.get(0)), out);
        assertEquals(2, out.getCopyOfBuffer()[0]);

        // the later build's own savepoint restores in the later build as is
        TypeSerializerSnapshot<ChangeEvent> v2Restored =
                TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(writeSnapshot(new V2Snapshot())), CL);
        assertTrue(new V2Snapshot().resolveSchemaCompatibility(v2Restored).isCompatibleAsIs());
    }

    /** A savepoint of a newer build (format version 2) restored by this build: a clear error, before any state. */
    @Test
    void thisBuildRefusesANewerBuildsSavepoint() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeUTF(ChangeEventSerializerSnapshot.class.getName()); // what the newer build writes: same class name
        out.writeInt(ChangeEventSerializer.FORMAT_VERSION + 1);
        StateFormatException e = assertThrows(StateFormatException.class,
                () -> TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(out.getCopyOfBuffer()), CL));
        assertTrue(e.getMessage().contains("newer build") && e.getMessage().contains("format version 2")
                && e.getMessage().contains("reads versions 1 to 1"), e.getMessage());

        // and a newer build's value met anyway (e.g. on the network from a mixed deployment): a clear error too
        List<byte[]> v2State = serializeAll(new V2Serializer());
        e = assertThrows(StateFormatException.class,
                () -> new ChangeEventSerializer().deserialize(new DataInputDeserializer(v2State.get(0))));
        assertTrue(e.getMessage().contains("format version 2") && e.getMessage().contains("newer build"),
                e.getMessage());
    }

    @Test
    void aBuildThatDroppedTheOldReaderRefusesTheOldSavepoint() throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(writeSnapshot(new ChangeEventSerializerSnapshot()));
        in.readUTF();
        int version = in.readInt();
        StateFormatException e = assertThrows(StateFormatException.class,
                () -> new V3OnlySnapshot().readSnapshot(version, in, CL));
        assertTrue(e.getMessage().contains("older than this build still reads"), e.getMessage());
        // should such a snapshot reach compatibility resolution anyway, it is incompatible
        assertTrue(new V3OnlySnapshot().resolveSchemaCompatibility(new ChangeEventSerializerSnapshot()).isIncompatible());
    }

    @Test
    void anotherSerializersSnapshotIsIncompatible() {
        @SuppressWarnings({"unchecked", "rawtypes"})
        TypeSerializerSnapshot<ChangeEvent> other = (TypeSerializerSnapshot) new XLogRecordSerializer.Snapshot();
        assertTrue(new ChangeEventSerializerSnapshot().resolveSchemaCompatibility(other).isIncompatible());
        // and the other way round: XLogRecordSerializer's snapshot does not accept ours
        @SuppressWarnings({"unchecked", "rawtypes"})
        TypeSerializerSnapshot<XLogRecord> ours = (TypeSerializerSnapshot) new ChangeEventSerializerSnapshot();
        assertTrue(new XLogRecordSerializer.Snapshot().resolveSchemaCompatibility(ours).isIncompatible());
    }

    /** Stand-in for a later build's snapshot class: writes format 2, reads 1 and 2. */
    public static final class V2Snapshot extends ChangeEventSerializerSnapshot {
        public V2Snapshot() {
            super(2, 1);
        }

        @Override
        protected TypeSerializer<ChangeEvent> createSerializer() {
            return new V2Serializer();
        }
    }

    /** A build that reads format 3 only. */
    public static final class V3OnlySnapshot extends ChangeEventSerializerSnapshot {
        public V3OnlySnapshot() {
            super(3, 3);
        }
    }

    /** Format 2 = format 1's body plus a trailing byte; reads format 1 through this build's reader. */
    static final class V2Serializer extends TypeSerializer<ChangeEvent> {
        private final ChangeEventSerializer v1 = new ChangeEventSerializer();

        @Override
        public boolean isImmutableType() {
            return true;
        }

        @Override
        public TypeSerializer<ChangeEvent> duplicate() {
            return new V2Serializer();
        }

        @Override
        public ChangeEvent createInstance() {
            return null;
        }

        @Override
        public ChangeEvent copy(ChangeEvent from) {
            return from;
        }

        @Override
        public ChangeEvent copy(ChangeEvent from, ChangeEvent reuse) {
            return from;
        }

        @Override
        public int getLength() {
            return -1;
        }

        @Override
        public void serialize(ChangeEvent e, DataOutputView out) throws IOException {
            out.writeByte(2);
            v1.writeBody(e, out);
            out.writeByte(0x7E);
        }

        @Override
        public ChangeEvent deserialize(DataInputView in) throws IOException {
            int version = in.readUnsignedByte();
            if (version == 1) {
                return v1.readBody(1, in);
            }
            if (version != 2) {
                throw new StateFormatException("V2Serializer cannot read format version " + version);
            }
            ChangeEvent e = v1.readBody(1, in);
            if (in.readUnsignedByte() != 0x7E) {
                throw new StateFormatException("missing version 2 trailer");
            }
            return e;
        }

        @Override
        public ChangeEvent deserialize(ChangeEvent reuse, DataInputView in) throws IOException {
            return deserialize(in);
        }

        @Override
        public void copy(DataInputView in, DataOutputView out) throws IOException {
            serialize(deserialize(in), out);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof V2Serializer;
        }

        @Override
        public int hashCode() {
            return 2;
        }

        @Override
        public TypeSerializerSnapshot<ChangeEvent> snapshotConfiguration() {
            return new V2Snapshot();
        }
    }
}
