package io.walshadow.buffer;

import io.walshadow.codec.FormatVersionSnapshot;
import io.walshadow.codec.ImmutableValueSerializer;
import io.walshadow.codec.RelationDescriptorCodec;
import io.walshadow.codec.SerializerTypeInfo;
import io.walshadow.codec.StateFormatException;
import io.walshadow.codec.TypeSetCodec;
import io.walshadow.codec.Wire;

import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.BufferEvent;
import io.walshadow.change.ChangeEvent;
import io.walshadow.wal.RelFileLocator;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link BufferEvent} (decoder to transaction buffer, across the keyBy). Format version
 * {@value #FORMAT_VERSION}:
 * <pre>
 *   byte format version (4), int topXid, long commitSeq, long fullXid (since 2), ChangeEvent as
 *   {@link ChangeEventSerializer} writes it (its own version byte first), count n, n x (relfilenode: uvarint
 *   spcOid, dbOid, relNumber; uvarint length, RelationDescriptorCodec v1 bytes), (since 3) the deferred types
 *   as {@link TypeSetCodec} writes them (its version 1 in format 3, 2 since 4)
 * </pre>
 * Version 1 lacks fullXid (read as 0, unknown); versions 1 and 2 lack the types (read as none: the buffer then
 * decodes such a commit's deferred records with the live catalog, as the build that wrote them did).
 */
public final class BufferEventSerializer extends ImmutableValueSerializer<BufferEvent> {
    private static final long serialVersionUID = 1L;
    public static final int FORMAT_VERSION = 4;
    public static final int OLDEST_READABLE_FORMAT_VERSION = 1;

    private final ChangeEventSerializer events = new ChangeEventSerializer();

    public static SerializerTypeInfo<BufferEvent> typeInfo() {
        return new SerializerTypeInfo<>(BufferEvent.class, new BufferEventSerializer());
    }

    @Override
    public BufferEventSerializer duplicate() {
        return new BufferEventSerializer();
    }

    @Override
    public void serialize(BufferEvent e, DataOutputView out) throws IOException {
        out.writeByte(FORMAT_VERSION);
        out.writeInt(e.topXid());
        out.writeLong(e.commitSeq());
        out.writeLong(e.fullXid());
        events.serialize(e.event(), out);
        Map<RelFileLocator, RelationDescriptor> d = e.deferredDescriptors();
        Wire.writeCount(out, d.size());
        for (Map.Entry<RelFileLocator, RelationDescriptor> x : d.entrySet()) {
            RelationDescriptorCodec.writeLocator(out, x.getKey());
            byte[] b = RelationDescriptorCodec.toBytes(x.getValue());
            Wire.writeCount(out, b.length);
            out.write(b);
        }
        TypeSetCodec.write(out, e.types());
    }

    @Override
    public BufferEvent deserialize(DataInputView in) throws IOException {
        int version = in.readUnsignedByte();
        if (version < OLDEST_READABLE_FORMAT_VERSION || version > FORMAT_VERSION) {
            throw new StateFormatException("BufferEvent with format version " + version + ": this build reads "
                    + OLDEST_READABLE_FORMAT_VERSION + " to " + FORMAT_VERSION);
        }
        int top = in.readInt();
        long seq = in.readLong();
        long fullXid = version >= 2 ? in.readLong() : 0;
        ChangeEvent e = events.deserialize(in);
        int n = Wire.readCount(in, "deferred descriptors");
        Map<RelFileLocator, RelationDescriptor> d = n == 0 ? Map.of() : new HashMap<>();
        for (int i = 0; i < n; i++) {
            RelFileLocator rel = RelationDescriptorCodec.readLocator(in);
            d.put(rel, RelationDescriptorCodec.fromBytes(Wire.readBytes(in, "descriptor"), 1));
        }
        io.walshadow.catalog.TypeSet types = version >= 3
                ? TypeSetCodec.read(in, version >= 4 ? 2 : 1) : null;
        return new BufferEvent(top, seq, fullXid, e, d, types);
    }

    @Override
    public TypeSerializerSnapshot<BufferEvent> snapshotConfiguration() {
        return new Snapshot();
    }

    public static final class Snapshot extends FormatVersionSnapshot<BufferEvent> {
        public Snapshot() {
            super("BufferEvent", FORMAT_VERSION, OLDEST_READABLE_FORMAT_VERSION);
        }

        @Override
        protected TypeSerializer<BufferEvent> createSerializer() {
            return new BufferEventSerializer();
        }
    }
}
