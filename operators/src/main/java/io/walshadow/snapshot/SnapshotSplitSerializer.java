package io.walshadow.snapshot;

import io.walshadow.codec.RelationDescriptorCodec;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Versioned form of {@link SnapshotSplit}. Version 1: descriptor format version and descriptor ({@link RelationDescriptorCodec}), toast
 * flag, version, from and to block, resume block and offset, rows done.
 */
public final class SnapshotSplitSerializer implements SimpleVersionedSerializer<SnapshotSplit> {
    public static final SnapshotSplitSerializer INSTANCE = new SnapshotSplitSerializer();
    static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(SnapshotSplit split) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        write(split, out);
        return out.getCopyOfBuffer();
    }

    @Override
    public SnapshotSplit deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION) {
            throw new IOException("unknown SnapshotSplit serializer version " + version + " (this build reads " + VERSION + ")");
        }
        return read(new DataInputDeserializer(serialized));
    }

    static void write(SnapshotSplit s, DataOutputSerializer out) throws IOException {
        out.writeInt(RelationDescriptorCodec.FORMAT_VERSION);
        RelationDescriptorCodec.write(out, s.descriptor());
        out.writeBoolean(s.toast());
        out.writeLong(s.version());
        out.writeLong(s.fromBlock());
        out.writeLong(s.toBlock());
        out.writeLong(s.resumeBlock());
        out.writeInt(s.resumeOffset());
        out.writeLong(s.rowsDone());
    }

    static SnapshotSplit read(DataInputDeserializer in) throws IOException {
        return new SnapshotSplit(RelationDescriptorCodec.read(in, in.readInt()), in.readBoolean(),
                in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readInt(), in.readLong());
    }
}
