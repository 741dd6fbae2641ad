package io.walshadow.buffer;

import io.walshadow.codec.FormatVersionSnapshot;
import io.walshadow.codec.ImmutableValueSerializer;
import io.walshadow.codec.SerializerTypeInfo;
import io.walshadow.codec.StateFormatException;
import io.walshadow.codec.TypeSetCodec;
import io.walshadow.codec.Wire;

import io.walshadow.change.XactEvent;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of the transaction buffer's output ({@link Drained}). It travels between operators only (never in
 * aligned checkpoint or savepoint state), so this build reads only its own format. Format version
 * {@value #FORMAT_VERSION}:
 * <pre>
 *   byte format version (4), byte kind, long commitSeq, long commitLsn, long fullXid, long commitTime, then by kind:
 *   1 DrainedChange: ChangeEvent as {@link ChangeEventSerializer} writes it (own version byte first)
 *   2 DrainedCommit: byte hasGid, [string gid], long changes, long firstLsn, count n, n x string relation,
 *       byte schemaChange
 *   3 DrainedCatalog: catalog changes as a ChangeEventSerializer XactEvent without record (own version byte first),
 *     then (since 3) the types as {@link TypeSetCodec} writes them (its version 1 in format 3, 2 since 4)
 * </pre>
 * Version 1 (before 2) had an int xid and the catalog changes on the commit.
 */
public final class DrainedSerializer extends ImmutableValueSerializer<Drained> {
    private static final long serialVersionUID = 1L;
    public static final int FORMAT_VERSION = 4;
    public static final int OLDEST_READABLE_FORMAT_VERSION = 2;
    static final int CHANGE = 1;
    static final int COMMIT = 2;
    static final int CATALOG = 3;

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
        out.writeByte(d instanceof DrainedChange ? CHANGE : d instanceof DrainedCommit ? COMMIT : CATALOG);
        out.writeLong(d.commitSeq());
        out.writeLong(d.commitLsn());
        out.writeLong(d.fullXid());
        out.writeLong(d.commitTime());
        if (d instanceof DrainedChange c) {
            events.serialize(c.change(), out);
        } else if (d instanceof DrainedCommit c) {
            out.writeBoolean(c.gid() != null);
            if (c.gid() != null) {
                Wire.writeString(out, c.gid());
            }
            out.writeLong(c.changes());
            out.writeLong(c.firstLsn());
            Wire.writeCount(out, c.relations().size());
            for (String r : c.relations()) {
                Wire.writeString(out, r);
            }
            out.writeBoolean(c.schemaChange());
        } else {
            events.serialize(new XactEvent(null, ((DrainedCatalog) d).changes()), out);
            TypeSetCodec.write(out, ((DrainedCatalog) d).types());
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
        long fullXid = in.readLong();
        long time = in.readLong();
        switch (kind) {
            case CHANGE:
                return new DrainedChange(seq, lsn, fullXid, time, events.deserialize(in));
            case COMMIT: {
                String gid = in.readBoolean() ? Wire.readString(in) : null;
                long changes = in.readLong();
                long firstLsn = in.readLong();
                int n = Wire.readCount(in, "relations");
                List<String> relations = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    relations.add(Wire.readString(in));
                }
                return new DrainedCommit(seq, lsn, fullXid, time, gid, changes, firstLsn, relations, in.readBoolean());
            }
            case CATALOG: {
                if (!(events.deserialize(in) instanceof XactEvent x)) {
                    throw new StateFormatException("DrainedCatalog without its catalog changes");
                }
                return new DrainedCatalog(seq, lsn, fullXid, time, x.catalogChanges(),
                        version >= 3 ? TypeSetCodec.read(in, version >= 4 ? 2 : 1) : null);
            }
            default:
                throw new StateFormatException("Drained of unknown kind " + kind);
        }
    }

    @Override
    public TypeSerializerSnapshot<Drained> snapshotConfiguration() {
        return new Snapshot();
    }

    public static class Snapshot extends FormatVersionSnapshot<Drained> {
        public Snapshot() {
            super("Drained", FORMAT_VERSION, OLDEST_READABLE_FORMAT_VERSION);
        }

        @Override
        protected TypeSerializer<Drained> createSerializer() {
            return new DrainedSerializer();
        }
    }
}
