package io.walshadow.source;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** Versioned form of {@link WalSplit} in checkpoints and savepoints. Version 1: slot, resume LSN, last record LSN, timeline. */
public final class WalSplitSerializer implements SimpleVersionedSerializer<WalSplit> {
    public static final WalSplitSerializer INSTANCE = new WalSplitSerializer();
    static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(WalSplit split) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        write(split, out);
        return out.getCopyOfBuffer();
    }

    @Override
    public WalSplit deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION) {
            throw new IOException("unknown WalSplit serializer version " + version + " (this build reads " + VERSION + ")");
        }
        return read(new DataInputDeserializer(serialized));
    }

    static void write(WalSplit split, DataOutputSerializer out) throws IOException {
        out.writeUTF(split.slotName());
        out.writeLong(split.resumeLsn());
        out.writeLong(split.lastRecordLsn());
        out.writeInt(split.timeline());
    }

    static WalSplit read(DataInputDeserializer in) throws IOException {
        return new WalSplit(in.readUTF(), in.readLong(), in.readLong(), in.readInt());
    }
}
