package io.walshadow.source;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** Version 1: count, then each split as {@link WalSplitSerializer} version 1 writes it. */
public final class WalEnumeratorStateSerializer implements SimpleVersionedSerializer<WalEnumeratorState> {
    public static final WalEnumeratorStateSerializer INSTANCE = new WalEnumeratorStateSerializer();
    static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(WalEnumeratorState state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeInt(state.unassigned().size());
        for (WalSplit s : state.unassigned()) {
            WalSplitSerializer.write(s, out);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public WalEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION) {
            throw new IOException("unknown WalEnumeratorState serializer version " + version + " (this build reads " + VERSION + ")");
        }
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        int n = in.readInt();
        List<WalSplit> splits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            splits.add(WalSplitSerializer.read(in));
        }
        return new WalEnumeratorState(splits);
    }
}
