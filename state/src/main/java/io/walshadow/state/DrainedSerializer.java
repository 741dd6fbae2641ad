package io.walshadow.state;

import io.walshadow.change.ChangeEvent;
import io.walshadow.change.Drained;
import io.walshadow.change.DrainedChange;
import io.walshadow.change.DrainedCommit;
import io.walshadow.change.XactEvent;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of the transaction buffer's output ({@link Drained}). Format version {@value #FORMAT_VERSION}:
 * <pre>
 *   byte format version (1), byte kind, long commitSeq, long commitLsn, int xid, long commitTime, then by kind:
 *   1 DrainedChange: ChangeEvent as {@link ChangeEventSerializer} writes it (own version byte first)
 *   2 DrainedCommit: byte hasGid, [string gid], long changes, long firstLsn, catalog changes as a
 *       ChangeEventSerializer XactEvent without record (own version byte first)
 * </pre>
 */
public final class DrainedSerializer extends ImmutableValueSerializer<Drained> {
    private static final long serialVersionUID = 1L;
    public static final int FORMAT_VERSION = 1;
    public static final int OLDEST_READABLE_FORMAT_VERSION = 1;
    static final int CHANGE = 1;
    static final int COMMIT = 2;

    private final ChangeEventSerializer events = new ChangeEventSerializer();

    public static SerializerTypeInfo<Drained> typeInfo() {
        return new SerializerTypeInfo<>(Drained.class, new DrainedSerializer());
    }

    @Override
    public DrainedSerializer duplicate() {
        return new DrainedSerializer();
    }

    @Override
    public void serialize(Drained d, DataOutputView out) throws IOException {
        out.writeByte(FORMAT_VERSION);
        out.writeByte(d instanceof DrainedChange ? CHANGE : COMMIT);
        out.writeLong(d.commitSeq());
        out.writeLong(d.commitLsn());
        out.writeInt(d.xid());
        out.writeLong(d.commitTime());
        if (d instanceof DrainedChange c) {
            events.serialize(c.change(), out);
        } else {
            DrainedCommit c = (DrainedCommit) d;
            out.writeBoolean(c.gid() != null);
            if (c.gid() != null) {
                Wire.writeString(out, c.gid());
            }
            out.writeLong(c.changes());
            out.writeLong(c.firstLsn());
            events.serialize(new XactEvent(null, c.catalogChanges()), out);
        }
    }

    @Override
    public Drained deserialize(DataInputView in) throws IOException {
        int version = in.readUnsignedByte();
        if (version < OLDEST_READABLE_FORMAT_VERSION || version > FORMAT_VERSION) {
            throw new StateFormatException("Drained with format version " + version + ": this build reads "
                    + OLDEST_READABLE_FORMAT_VERSION + " to " + FORMAT_VERSION);
        }
        int kind = in.readUnsignedByte();
        long seq = in.readLong();
        long lsn = in.readLong();
        int xid = in.readInt();
        long time = in.readLong();
        switch (kind) {
            case CHANGE: {
                ChangeEvent e = events.deserialize(in);
                return new DrainedChange(seq, lsn, xid, time, e);
            }
            case COMMIT: {
                String gid = in.readBoolean() ? Wire.readString(in) : null;
                long changes = in.readLong();
                long firstLsn = in.readLong();
                if (!(events.deserialize(in) instanceof XactEvent x)) {
                    throw new StateFormatException("DrainedCommit without its catalog changes");
                }
                return new DrainedCommit(seq, lsn, xid, time, gid, changes, firstLsn, x.catalogChanges());
            }
            default:
                throw new StateFormatException("Drained of unknown kind " + kind);
        }
    }

    @Override
    public TypeSerializerSnapshot<Drained> snapshotConfiguration() {
        return new Snapshot();
    }

    public static final class Snapshot extends FormatVersionSnapshot<Drained> {
        public Snapshot() {
            super("Drained", FORMAT_VERSION, OLDEST_READABLE_FORMAT_VERSION);
        }

        @Override
        protected TypeSerializer<Drained> createSerializer() {
            return new DrainedSerializer();
        }
    }
}
