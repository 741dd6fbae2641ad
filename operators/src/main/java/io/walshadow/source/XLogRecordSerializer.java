package io.walshadow.source;

import io.walshadow.wal.WalFormat;
import io.walshadow.wal.XLogRecord;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer for verified WAL records: the raw record bytes plus their position. Block references are
 * re-derived on read (cheap, and keeps one source of truth for the layout). Records are immutable, so copies
 * between chained operators are free.
 */
public final class XLogRecordSerializer extends TypeSerializerSingleton<XLogRecord> {
    public static final XLogRecordSerializer INSTANCE = new XLogRecordSerializer();

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public XLogRecord createInstance() {
        return null;
    }

    @Override
    public XLogRecord copy(XLogRecord from) {
        return from;
    }

    @Override
    public XLogRecord copy(XLogRecord from, XLogRecord reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(XLogRecord r, DataOutputView out) throws IOException {
        out.writeByte(r.format().major);
        out.writeLong(r.lsn());
        out.writeLong(r.endLsn());
        byte[] b = r.rawBytes();
        out.writeInt(b.length);
        out.write(b);
    }

    @Override
    public XLogRecord deserialize(DataInputView in) throws IOException {
        WalFormat format = WalFormat.forMajor(in.readByte());
        long lsn = in.readLong();
        long end = in.readLong();
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return XLogRecord.fromVerifiedBytes(format, lsn, end, b);
    }

    @Override
    public XLogRecord deserialize(XLogRecord reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        out.writeByte(in.readByte());
        out.writeLong(in.readLong());
        out.writeLong(in.readLong());
        int n = in.readInt();
        out.writeInt(n);
        out.write(in, n);
    }

    @Override
    public TypeSerializerSnapshot<XLogRecord> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Serializer snapshot; bump its version when the serialized form changes. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<XLogRecord> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
