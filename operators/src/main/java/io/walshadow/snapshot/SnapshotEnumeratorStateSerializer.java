package io.walshadow.snapshot;

import io.walshadow.codec.Wire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Versioned form of {@link SnapshotEnumeratorState}. Version 1: start LSN and running xids (Flink StringValue), planned, complete, chunks total and done, rows done,
 * the unassigned splits ({@link SnapshotSplitSerializer} version 1), the outstanding TOAST split ids (count, strings).
 * Version 2 appends the covered filter spec (bool present, string) and the start point's wait xid (long); version 3
 * the keys of the copy requests planned (count, strings).
 */
public final class SnapshotEnumeratorStateSerializer implements SimpleVersionedSerializer<SnapshotEnumeratorState> {
    public static final SnapshotEnumeratorStateSerializer INSTANCE = new SnapshotEnumeratorStateSerializer();
    static final int VERSION = 3;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(SnapshotEnumeratorState s) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        out.writeLong(s.startLsn());
        Wire.writeString(out, s.startXids()); // the xip list can pass writeUTF's 64 kB
        out.writeBoolean(s.planned());
        out.writeBoolean(s.complete());
        out.writeInt(s.chunksTotal());
        out.writeInt(s.chunksDone());
        out.writeLong(s.rowsDone());
        out.writeInt(s.unassigned().size());
        for (SnapshotSplit split : s.unassigned()) {
            SnapshotSplitSerializer.write(split, out);
        }
        out.writeInt(s.toastOutstanding().size());
        for (String id : s.toastOutstanding()) {
            out.writeUTF(id);
        }
        out.writeBoolean(s.coveredSpec() != null);
        if (s.coveredSpec() != null) {
            Wire.writeString(out, s.coveredSpec());
        }
        out.writeLong(s.startWaitXid());
        out.writeInt(s.copiesPlanned().size());
        for (String key : s.copiesPlanned()) {
            out.writeUTF(key);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public SnapshotEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        if (version < 1 || version > VERSION) {
            throw new IOException("unknown snapshot enumerator state version " + version + " (this build reads 1 to "
                    + VERSION + ")");
        }
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        long startLsn = in.readLong();
        String startXids = Wire.readString(in);
        boolean planned = in.readBoolean();
        boolean complete = in.readBoolean();
        int total = in.readInt();
        int done = in.readInt();
        long rows = in.readLong();
        int n = in.readInt();
        if (n < 0 || n > total) {
            throw new IOException("snapshot enumerator state: " + n + " unassigned of " + total + " chunks");
        }
        List<SnapshotSplit> unassigned = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            unassigned.add(SnapshotSplitSerializer.read(in));
        }
        int t = in.readInt();
        if (t < 0 || t > total) {
            throw new IOException("snapshot enumerator state: " + t + " outstanding TOAST chunks of " + total);
        }
        List<String> toast = new ArrayList<>(t);
        for (int i = 0; i < t; i++) {
            toast.add(in.readUTF());
        }
        String covered;
        long waitXid = 0;
        if (version >= 2) {
            covered = in.readBoolean() ? Wire.readString(in) : null;
            waitXid = in.readLong();
        } else {
            covered = planned ? SnapshotEnumeratorState.COVERED_UNKNOWN : null;
        }
        List<String> copies = new ArrayList<>();
        if (version >= 3) {
            int c = in.readInt();
            if (c < 0 || c > in.available()) {
                throw new IOException("snapshot enumerator state: " + c + " copy requests in " + in.available()
                        + " bytes");
            }
            for (int i = 0; i < c; i++) {
                copies.add(in.readUTF());
            }
        }
        return new SnapshotEnumeratorState(startLsn, startXids, planned, unassigned, total, done, rows, complete, toast,
                covered, waitXid, copies);
    }
}
