package io.walshadow.sink;

import io.walshadow.codec.RelationDescriptorCodec;
import io.walshadow.codec.StateFormatException;
import io.walshadow.codec.TypeSetCodec;
import io.walshadow.codec.Wire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Versioned form of {@link SinkWriterState}. Version {@value #VERSION} (primitives as in {@link Wire}):
 * <pre>
 *   string sinkId, uvarlong nextBatch, count n, n x table, count m, m x string mirror to retire
 * table: string destName, byte keyedByTid, count k, k x uvarint key attnum,
 *   RelationDescriptorCodec v1 (the shape), then per shape column: nullable string chName, nullable string chType
 * </pre>
 *   (version 3) per table: byte tids
 *   (version 4) count d, d x uvarint relation oid the stream dropped; the stream's types as {@link TypeSetCodec}
 *   writes them
 *   (version 5) count q, q x (uvarint relation oid, string schema, string name, uvarlong lsn, string reason): the
 *   tables in quarantine
 *   (version 6) the same, the types in TypeSetCodec format 2 (with the range fields and the extension; format 1
 *   before)
 *   (version 7) count p, p x (uvarint partition oid, uvarint root oid): partitions that left that root
 *   (version 8) count a, a x (uvarint partition oid, long lsn): the latest attach of a table with rows the WAL does
 *   not hold
 *   (version 9) count m, m x (uvarint partition oid, uvarint root oid): partitions that left their root under a
 *   partitioned table that became a root itself (a sub-partition detached), with that new root
 *   (version 10) uvarlong the newest batch with staged work (earlier versions: read as nextBatch - 1)
 * Version 1 is version 2 without the mirrors (read as none); version 2 has no TID flag (a table has TID columns
 * exactly when keyed by TID).
 */
public final class SinkWriterStateSerializer implements SimpleVersionedSerializer<SinkWriterState>,
        java.io.Serializable {
    private static final long serialVersionUID = 1L;
    public static final SinkWriterStateSerializer INSTANCE = new SinkWriterStateSerializer();
    static final int VERSION = 10;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(SinkWriterState s) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        Wire.writeString(out, s.sinkId());
        Wire.writeUVarLong(out, s.nextBatch());
        Wire.writeCount(out, s.tables().size());
        for (DestTable t : s.tables()) {
            Wire.writeString(out, t.destName());
            out.writeBoolean(t.keyedByTid());
            Wire.writeCount(out, t.keyAttnums().size());
            for (int a : t.keyAttnums()) {
                Wire.writeUVarInt(out, a);
            }
            RelationDescriptorCodec.write(out, t.shape());
            for (int i = 0; i < t.shape().natts(); i++) {
                writeNullable(out, t.chNames().get(i));
                writeNullable(out, t.chTypes().get(i));
            }
        }
        Wire.writeCount(out, s.retireMirrors().size());
        for (String m : s.retireMirrors()) {
            Wire.writeString(out, m);
        }
        for (DestTable t : s.tables()) {
            out.writeBoolean(t.tids());
        }
        Wire.writeCount(out, s.droppedRelations().size());
        for (int oid : s.droppedRelations()) {
            Wire.writeUVarInt(out, oid);
        }
        TypeSetCodec.write(out, s.types());
        Wire.writeCount(out, s.quarantined().size());
        for (QuarantinedTable q : s.quarantined()) {
            Wire.writeUVarInt(out, q.relOid());
            Wire.writeString(out, q.schema());
            Wire.writeString(out, q.name());
            Wire.writeUVarLong(out, q.lsn());
            Wire.writeString(out, q.reason());
        }
        var left = new java.util.TreeMap<>(s.leftRoots()); // deterministic bytes
        Wire.writeCount(out, left.size());
        for (var e : left.entrySet()) {
            Wire.writeUVarInt(out, e.getKey());
            Wire.writeUVarInt(out, e.getValue());
        }
        var attached = new java.util.TreeMap<>(s.attachedAt());
        Wire.writeCount(out, attached.size());
        for (var e : attached.entrySet()) {
            Wire.writeUVarInt(out, e.getKey());
            out.writeLong(e.getValue());
        }
        var moved = new java.util.TreeMap<>(s.movedRoots());
        Wire.writeCount(out, moved.size());
        for (var e : moved.entrySet()) {
            Wire.writeUVarInt(out, e.getKey());
            Wire.writeUVarInt(out, e.getValue());
        }
        Wire.writeUVarLong(out, s.stagedBatch());
        return out.getCopyOfBuffer();
    }

    @Override
    public SinkWriterState deserialize(int version, byte[] bytes) throws IOException {
        if (version < 1 || version > VERSION) {
            throw new StateFormatException("sink writer state of version " + version + ": this build reads 1 to "
                    + VERSION);
        }
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        String sinkId = Wire.readString(in);
        long next = Wire.readUVarLong(in, "next batch");
        int n = Wire.readCount(in, "tables");
        List<DestTable> tables = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String dest = Wire.readString(in);
            boolean byTid = in.readBoolean();
            int k = Wire.readCount(in, "key");
            List<Integer> key = new ArrayList<>(k);
            for (int j = 0; j < k; j++) {
                key.add(Wire.readUVarInt(in, "key attnum"));
            }
            var shape = RelationDescriptorCodec.read(in, RelationDescriptorCodec.FORMAT_VERSION);
            List<String> names = new ArrayList<>();
            List<String> types = new ArrayList<>();
            for (int c = 0; c < shape.natts(); c++) {
                names.add(readNullable(in));
                types.add(readNullable(in));
            }
            tables.add(new DestTable(dest, shape, names, types, byTid, key));
        }
        List<String> retire = new ArrayList<>();
        if (version >= 2) {
            int m = Wire.readCount(in, "mirrors to retire");
            for (int i = 0; i < m; i++) {
                retire.add(Wire.readString(in));
            }
        }
        if (version >= 3) {
            for (int i = 0; i < tables.size(); i++) {
                DestTable t = tables.get(i);
                tables.set(i, new DestTable(t.destName(), t.shape(), t.chNames(), t.chTypes(), t.keyedByTid(),
                        t.keyAttnums(), in.readBoolean()));
            }
        }
        List<Integer> dropped = new ArrayList<>();
        if (version >= 4) {
            int d = Wire.readCount(in, "dropped relations");
            for (int i = 0; i < d; i++) {
                dropped.add(Wire.readUVarInt(in, "dropped relation"));
            }
        }
        var types = version >= 4 ? TypeSetCodec.read(in, version >= 6 ? 2 : 1) : null;
        List<QuarantinedTable> quarantined = new ArrayList<>();
        if (version >= 5) {
            int q = Wire.readCount(in, "quarantined tables");
            for (int i = 0; i < q; i++) {
                quarantined.add(new QuarantinedTable(Wire.readUVarInt(in, "quarantined relation"),
                        Wire.readString(in), Wire.readString(in), Wire.readUVarLong(in, "quarantine lsn"),
                        Wire.readString(in)));
            }
        }
        java.util.Map<Integer, Integer> left = new java.util.HashMap<>();
        if (version >= 7) {
            int p = Wire.readCount(in, "partitions that left their roots");
            for (int i = 0; i < p; i++) {
                left.put(Wire.readUVarInt(in, "partition oid"), Wire.readUVarInt(in, "root oid"));
            }
        }
        java.util.Map<Integer, Long> attached = new java.util.HashMap<>();
        if (version >= 8) {
            int a = Wire.readCount(in, "partitions attached with rows");
            for (int i = 0; i < a; i++) {
                attached.put(Wire.readUVarInt(in, "partition oid"), in.readLong());
            }
        }
        java.util.Map<Integer, Integer> moved = new java.util.HashMap<>();
        if (version >= 9) {
            int m = Wire.readCount(in, "partitions moved under another root");
            for (int i = 0; i < m; i++) {
                moved.put(Wire.readUVarInt(in, "partition oid"), Wire.readUVarInt(in, "root oid"));
            }
        }
        long staged = version >= 10 ? Wire.readUVarLong(in, "newest staged batch") : next - 1;
        return new SinkWriterState(sinkId, next, tables, retire, dropped, types, quarantined, left, attached, moved,
                staged);
    }

    private static void writeNullable(DataOutputSerializer out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            Wire.writeString(out, s);
        }
    }

    private static String readNullable(DataInputDeserializer in) throws IOException {
        return in.readBoolean() ? Wire.readString(in) : null;
    }
}
