package io.walshadow.sink;

import io.walshadow.codec.StateFormatException;
import io.walshadow.codec.Wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Versioned form of the sink's committable ({@link SinkBatch}), kept in the committer's checkpointed state until
 * committed. Version {@value #VERSION} (primitives as in {@link Wire}):
 * <pre>
 *   string sinkId, uvarlong batch, uvarlong commits, uvarlong rows, long lastCommitSeq, long lastCommitLsn,
 *   long lastFullXid, long lastCommitTime, long attempt, count k, k x long commitTime (the sample),
 *   count n, n x step
 * step: byte kind, string table, then by kind
 *   1 CreateTable: string sql          2 AddColumn: string column, type, defaultExpr
 *   3 DropColumn: string column        4 RenameColumn: string from, to, type
 *   5 ModifyColumn: string column, type   6 Truncate   7 DropTable   8 RenameTable: string to
 *   9 Insert: string stage, count m, m x string column, uvarint segment, uvarlong rows
 *   10 ToastBarrier: long bornFrom, long lsn
 *   11 CopyLive: string to, count m, m x string column
 *   12 PartitionBarrier: uvarint partition, count m, m x string key column, long below, long lsn
 *   13 CopyPartition out of the root, 14 into it: string to, uvarint partition, count m,
 *      m x (string from column, string into column)
 *   15 RequestCopy: string sink, uvarint relation, uvarint root, long attachLsn
 * </pre>
 * Version 1 is version 2 without kind 10; version 2 is version 3 without kind 11; version 3 is version 4 without
 * the attempt (read as 0: no filter); version 4 is version 5 without kinds 12 to 14; version 5 is version 6 without
 * kind 15; version 6 is version 7 without the sample of commit times (read as none: the last commit's time stands
 * for the batch).
 */
public final class SinkBatchSerializer implements SimpleVersionedSerializer<SinkBatch>, java.io.Serializable {
    private static final long serialVersionUID = 1L;
    public static final SinkBatchSerializer INSTANCE = new SinkBatchSerializer();
    static final int VERSION = 7;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(SinkBatch b) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        Wire.writeString(out, b.sinkId());
        Wire.writeUVarLong(out, b.batch());
        Wire.writeUVarLong(out, b.commits());
        Wire.writeUVarLong(out, b.rows());
        out.writeLong(b.lastCommitSeq());
        out.writeLong(b.lastCommitLsn());
        out.writeLong(b.lastFullXid());
        out.writeLong(b.lastCommitTime());
        out.writeLong(b.attempt());
        Wire.writeCount(out, b.commitTimes().size());
        for (long t : b.commitTimes()) {
            out.writeLong(t);
        }
        Wire.writeCount(out, b.steps().size());
        for (SinkStep s : b.steps()) {
            writeStep(out, s);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public SinkBatch deserialize(int version, byte[] bytes) throws IOException {
        if (version < 1 || version > VERSION) {
            throw new StateFormatException("sink committable of version " + version + ": this build reads 1 to "
                    + VERSION);
        }
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        String sinkId = Wire.readString(in);
        long batch = Wire.readUVarLong(in, "batch");
        long commits = Wire.readUVarLong(in, "commits");
        long rows = Wire.readUVarLong(in, "rows");
        long seq = in.readLong();
        long lsn = in.readLong();
        long xid = in.readLong();
        long time = in.readLong();
        long attempt = version >= 4 ? in.readLong() : 0;
        List<Long> times = new ArrayList<>();
        if (version >= 7) {
            int k = Wire.readCount(in, "sampled commit times");
            for (int i = 0; i < k; i++) {
                times.add(in.readLong());
            }
        }
        int n = Wire.readCount(in, "steps");
        List<SinkStep> steps = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            steps.add(readStep(in));
        }
        return new SinkBatch(sinkId, batch, steps, commits, rows, seq, lsn, xid, time, attempt, times);
    }

    static void writeStep(DataOutput out, SinkStep s) throws IOException {
        out.writeByte(kind(s));
        Wire.writeString(out, s.table());
        if (s instanceof SinkStep.CreateTable c) {
            Wire.writeString(out, c.sql());
        } else if (s instanceof SinkStep.AddColumn a) {
            Wire.writeString(out, a.column());
            Wire.writeString(out, a.type());
            Wire.writeString(out, a.defaultExpr());
        } else if (s instanceof SinkStep.DropColumn d) {
            Wire.writeString(out, d.column());
        } else if (s instanceof SinkStep.RenameColumn r) {
            Wire.writeString(out, r.from());
            Wire.writeString(out, r.to());
            Wire.writeString(out, r.type());
        } else if (s instanceof SinkStep.ModifyColumn m) {
            Wire.writeString(out, m.column());
            Wire.writeString(out, m.type());
        } else if (s instanceof SinkStep.RenameTable r) {
            Wire.writeString(out, r.to());
        } else if (s instanceof SinkStep.Insert i) {
            Wire.writeString(out, i.stage());
            Wire.writeCount(out, i.columns().size());
            for (String c : i.columns()) {
                Wire.writeString(out, c);
            }
            Wire.writeUVarInt(out, i.segment());
            Wire.writeUVarLong(out, i.rows());
        } else if (s instanceof SinkStep.ToastBarrier b) {
            out.writeLong(b.bornFrom());
            out.writeLong(b.lsn());
        } else if (s instanceof SinkStep.CopyLive c) {
            Wire.writeString(out, c.to());
            Wire.writeCount(out, c.columns().size());
            for (String col : c.columns()) {
                Wire.writeString(out, col);
            }
        } else if (s instanceof SinkStep.PartitionBarrier b) {
            Wire.writeUVarInt(out, b.partition());
            Wire.writeCount(out, b.key().size());
            for (String k : b.key()) {
                Wire.writeString(out, k);
            }
            out.writeLong(b.below());
            out.writeLong(b.lsn());
        } else if (s instanceof SinkStep.CopyPartition c) {
            Wire.writeString(out, c.to());
            Wire.writeUVarInt(out, c.partition());
            Wire.writeCount(out, c.from().size());
            for (int i = 0; i < c.from().size(); i++) {
                Wire.writeString(out, c.from().get(i));
                Wire.writeString(out, c.into().get(i));
            }
        } else if (s instanceof SinkStep.RequestCopy r) {
            Wire.writeString(out, r.sink());
            Wire.writeUVarInt(out, r.relation());
            Wire.writeUVarInt(out, r.root());
            out.writeLong(r.attachLsn());
        } // Truncate, DropTable: the table only
    }

    private static int kind(SinkStep s) {
        if (s instanceof SinkStep.CreateTable) {
            return 1;
        } else if (s instanceof SinkStep.AddColumn) {
            return 2;
        } else if (s instanceof SinkStep.DropColumn) {
            return 3;
        } else if (s instanceof SinkStep.RenameColumn) {
            return 4;
        } else if (s instanceof SinkStep.ModifyColumn) {
            return 5;
        } else if (s instanceof SinkStep.Truncate) {
            return 6;
        } else if (s instanceof SinkStep.DropTable) {
            return 7;
        } else if (s instanceof SinkStep.RenameTable) {
            return 8;
        } else if (s instanceof SinkStep.ToastBarrier) {
            return 10;
        } else if (s instanceof SinkStep.CopyLive) {
            return 11;
        } else if (s instanceof SinkStep.PartitionBarrier) {
            return 12;
        } else if (s instanceof SinkStep.CopyPartition c) {
            return c.intoRoot() ? 14 : 13;
        } else if (s instanceof SinkStep.RequestCopy) {
            return 15;
        }
        return 9; // Insert
    }

    static SinkStep readStep(DataInput in) throws IOException {
        int kind = in.readUnsignedByte();
        String table = Wire.readString(in);
        switch (kind) {
            case 1: return new SinkStep.CreateTable(table, Wire.readString(in));
            case 2: return new SinkStep.AddColumn(table, Wire.readString(in), Wire.readString(in), Wire.readString(in));
            case 3: return new SinkStep.DropColumn(table, Wire.readString(in));
            case 4: return new SinkStep.RenameColumn(table, Wire.readString(in), Wire.readString(in), Wire.readString(in));
            case 5: return new SinkStep.ModifyColumn(table, Wire.readString(in), Wire.readString(in));
            case 6: return new SinkStep.Truncate(table);
            case 7: return new SinkStep.DropTable(table);
            case 8: return new SinkStep.RenameTable(table, Wire.readString(in));
            case 9: {
                String stage = Wire.readString(in);
                int m = Wire.readCount(in, "insert columns");
                List<String> cols = new ArrayList<>(m);
                for (int i = 0; i < m; i++) {
                    cols.add(Wire.readString(in));
                }
                return new SinkStep.Insert(table, stage, cols, Wire.readUVarInt(in, "segment"),
                        Wire.readUVarLong(in, "rows"));
            }
            case 10: return new SinkStep.ToastBarrier(table, in.readLong(), in.readLong());
            case 11: {
                String to = Wire.readString(in);
                int m = Wire.readCount(in, "copied columns");
                List<String> cols = new ArrayList<>(m);
                for (int i = 0; i < m; i++) {
                    cols.add(Wire.readString(in));
                }
                return new SinkStep.CopyLive(table, to, cols);
            }
            case 12: {
                int partition = Wire.readUVarInt(in, "partition oid");
                int m = Wire.readCount(in, "key columns");
                List<String> key = new ArrayList<>(m);
                for (int i = 0; i < m; i++) {
                    key.add(Wire.readString(in));
                }
                return new SinkStep.PartitionBarrier(table, partition, key, in.readLong(), in.readLong());
            }
            case 13:
            case 14: {
                String to = Wire.readString(in);
                int partition = Wire.readUVarInt(in, "partition oid");
                int m = Wire.readCount(in, "copied columns");
                List<String> from = new ArrayList<>(m);
                List<String> into = new ArrayList<>(m);
                for (int i = 0; i < m; i++) {
                    from.add(Wire.readString(in));
                    into.add(Wire.readString(in));
                }
                return new SinkStep.CopyPartition(table, to, partition, kind == 14, from, into);
            }
            case 15:
                return new SinkStep.RequestCopy(table, Wire.readString(in), Wire.readUVarInt(in, "relation oid"),
                        Wire.readUVarInt(in, "root oid"), in.readLong());
            default:
                throw new StateFormatException("sink step of unknown kind " + kind);
        }
    }
}
