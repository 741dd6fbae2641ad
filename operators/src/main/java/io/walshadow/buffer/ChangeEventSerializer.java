package io.walshadow.buffer;

import io.walshadow.codec.ImmutableValueSerializer;
import io.walshadow.codec.RelationDescriptorCodec;
import io.walshadow.codec.SerializerTypeInfo;
import io.walshadow.codec.StateFormatException;
import io.walshadow.codec.ValueCodec;
import io.walshadow.codec.Wire;
import io.walshadow.codec.XactRecordCodec;

import io.walshadow.catalog.Ambiguity;
import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.Lookup.NotCoveredReason;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.ChangeEvent;
import io.walshadow.change.DeferredRecord;
import io.walshadow.change.RowChange;
import io.walshadow.change.TruncateChange;
import io.walshadow.change.XactEvent;
import io.walshadow.heap.Tid;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.XLogRecord;
import io.walshadow.xact.XactRecord;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer for {@link ChangeEvent}s, so they can cross a keyBy and live in keyed state (RocksDB included).
 * Every serialized event stands alone (no dictionary shared between values) and starts with its format version, so
 * a later build reads events an earlier build wrote, whether from a savepoint or left in RocksDB.
 *
 * <p>Format version {@value #FORMAT_VERSION} (uses {@link ValueCodec}, {@link RelationDescriptorCodec} and
 * {@link XactRecordCodec}, each at their version 1; primitives as in {@link Wire}; fixed-width numbers big-endian):
 * <pre>
 *   byte format version (1), byte kind, then by kind:
 *   1 RowChange: long lsn, int xid, byte op (1 INSERT, 2 SPECULATIVE_INSERT, 3 SPECULATIVE_CONFIRM,
 *       4 SPECULATIVE_ABORT, 5 UPDATE, 6 DELETE), byte flags (1 newTid, 2 oldTid, 4 oldIsFullRow,
 *       8 rel written (differs from the descriptor's locator), 16 no descriptor, 32 no rel),
 *       [rel: uvarint spcOid, dbOid, relNumber], [descriptor], [tid newTid], [tid oldTid], row newValues,
 *       row oldValues
 *   2 TruncateChange: long lsn, int xid, byte flags (1 cascade, 2 restartSequences), nullable count n,
 *       n x descriptor (each non-null)
 *   3 DeferredRecord: long lsn, int xid, byte flags (1 no rel, 2 no record), [rel: int spcOid, dbOid, relNumber],
 *       [record as XLogRecordSerializer lays it out: byte PostgreSQL major, long lsn, long endLsn, int length,
 *       raw record bytes]
 *   4 XactEvent: byte flags (1 no record, 2 marker LSN), [XactRecordCodec record], [long marker LSN], nullable
 *       count n, n x catalog change
 *   descriptor: uvarint length, RelationDescriptorCodec bytes
 *   tid: uvarint block, uvarint offset
 *   row: ValueCodec row (nullable count, tagged values)
 *   catalog change: uvarint relOid, byte flags (1 before, 2 after, 4 ambiguity, 8 closedAs, 16 attachedWithRows:
 *       no field, added within version 1, which a build before it refuses as an unknown flag),
 *       [descriptor before], [descriptor after],
 *       [ambiguity: uvarint relOid, string qualifiedName, long since, count n, n x int xid, string reason],
 *       [byte closedAs (1 UNKNOWN, 2 BEFORE_HISTORY, 3 DROPPED, 4 EXCLUDED, 5 REPLACED, 6 NOT_LOGGED,
 *       7 SHARED_CATALOG)]
 * </pre>
 *
 * <p>Cost: a RowChange carries its relation's whole descriptor (about 10-25 bytes a column, plus the names), so for
 * narrow rows the descriptor dominates the size. It is the price of each value decoding alone; a per-instance
 * dictionary would not be safe in keyed state. CPU and heap are kept down by two small caches per serializer
 * instance that never change the bytes: a descriptor already encoded (same instance) reuses its bytes, and
 * identical descriptor bytes decode to one shared (immutable) descriptor instance. Both caches hold only immutable
 * entries, so even an accidental use from two threads can cost misses, never wrong results. Descriptors must not be
 * mutated after they are serialized (they never are: the catalog builds them immutable).
 *
 * <p>Events are treated as immutable ({@link #copy} returns its argument): do not modify a RowChange's value arrays
 * after emitting it.
 */
public final class ChangeEventSerializer extends ImmutableValueSerializer<ChangeEvent> {
    private static final long serialVersionUID = 1L;

    /** Format this build writes; bump for any change of the layout above or of a codec it uses. */
    public static final int FORMAT_VERSION = 1;
    /** Oldest format this build still reads (from savepoints and from values left in RocksDB). */
    public static final int OLDEST_READABLE_FORMAT_VERSION = 1;

    static final int ROW_CHANGE = 1;
    static final int TRUNCATE = 2;
    static final int DEFERRED = 3;
    static final int XACT = 4;

    private static final int MAX_DESCRIPTOR_BYTES = 64 << 20;

    /** The formats of the codecs an event format embeds. */
    record Formats(int value, int descriptor, int xact) {}

    /**
     * Codec formats embedded in event format {@code version}. The current one must be the codecs' current formats
     * (a test checks): bumping a codec's format means a new event format here.
     */
    static Formats formatsOf(int version) throws StateFormatException {
        if (version == 1) {
            return new Formats(1, 1, 1);
        }
        throw new StateFormatException("ChangeEvent with format version " + version + ": this build reads versions "
                + OLDEST_READABLE_FORMAT_VERSION + " to " + FORMAT_VERSION + " ("
                + (version > FORMAT_VERSION ? "written by a newer build" : "damaged data, or not a ChangeEvent") + ")");
    }

    private transient DescriptorCache cache = new DescriptorCache();

    public ChangeEventSerializer() {}

    /** The TypeInformation to declare change-event streams with (see also {@link ChangeEventTypeInfo}). */
    public static SerializerTypeInfo<ChangeEvent> typeInfo() {
        return new SerializerTypeInfo<>(ChangeEvent.class, new ChangeEventSerializer());
    }

    /** A new instance: the descriptor caches are per instance. */
    @Override
    public ChangeEventSerializer duplicate() {
        return new ChangeEventSerializer();
    }

    @Override
    public void serialize(ChangeEvent e, DataOutputView out) throws IOException {
        out.writeByte(FORMAT_VERSION);
        writeBody(e, out);
    }

    @Override
    public ChangeEvent deserialize(DataInputView in) throws IOException {
        return readBody(in.readUnsignedByte(), in);
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == ChangeEventSerializer.class;
    }

    @Override
    public int hashCode() {
        return ChangeEventSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<ChangeEvent> snapshotConfiguration() {
        return new ChangeEventSerializerSnapshot();
    }

    private Object readResolve() {
        return new ChangeEventSerializer();
    }

    // ---- format version 1

    void writeBody(ChangeEvent e, DataOutput out) throws IOException {
        if (e instanceof RowChange r) {
            writeRowChange(r, out);
        } else if (e instanceof TruncateChange t) {
            out.writeByte(TRUNCATE);
            out.writeLong(t.lsn());
            out.writeInt(t.xid());
            out.writeByte((t.cascade() ? 1 : 0) | (t.restartSequences() ? 2 : 0));
            List<RelationDescriptor> rels = t.relations();
            Wire.writeNullableCount(out, rels == null ? -1 : rels.size());
            if (rels != null) {
                for (RelationDescriptor d : rels) {
                    writeDescriptor(d, out);
                }
            }
        } else if (e instanceof DeferredRecord d) {
            out.writeByte(DEFERRED);
            out.writeLong(d.lsn());
            out.writeInt(d.xid());
            out.writeByte((d.rel() == null ? 1 : 0) | (d.record() == null ? 2 : 0));
            if (d.rel() != null) {
                out.writeInt(d.rel().spcOid());
                out.writeInt(d.rel().dbOid());
                out.writeInt(d.rel().relNumber());
            }
            if (d.record() != null) {
                XLogRecord r = d.record();
                out.writeByte(r.format().major);
                out.writeLong(r.lsn());
                out.writeLong(r.endLsn());
                byte[] b = r.rawBytes();
                out.writeInt(b.length);
                out.write(b);
            }
        } else if (e instanceof XactEvent x) {
            out.writeByte(XACT);
            boolean marker = x.xact() == null && x.markerLsn() != 0;
            out.writeByte((x.xact() == null ? 1 : 0) | (marker ? 2 : 0));
            if (x.xact() != null) {
                XactRecordCodec.write(out, x.xact());
            }
            if (marker) {
                out.writeLong(x.markerLsn());
            }
            List<CatalogChange> changes = x.catalogChanges();
            Wire.writeNullableCount(out, changes == null ? -1 : changes.size());
            if (changes != null) {
                for (CatalogChange c : changes) {
                    writeCatalogChange(c, out);
                }
            }
        } else {
            throw new IllegalArgumentException("not a known ChangeEvent: " + e);
        }
    }

    private void writeRowChange(RowChange r, DataOutput out) throws IOException {
        out.writeByte(ROW_CHANGE);
        out.writeLong(r.lsn());
        out.writeInt(r.xid());
        out.writeByte(switch (r.op()) {
            case INSERT -> 1;
            case SPECULATIVE_INSERT -> 2;
            case SPECULATIVE_CONFIRM -> 3;
            case SPECULATIVE_ABORT -> 4;
            case UPDATE -> 5;
            case DELETE -> 6;
        });
        RelationDescriptor d = r.descriptor();
        RelFileLocator rel = r.rel();
        boolean writeRel = rel != null && (d == null || !rel.equals(d.locator()));
        int flags = (r.newTid() != null ? 1 : 0) | (r.oldTid() != null ? 2 : 0) | (r.oldIsFullRow() ? 4 : 0)
                | (writeRel ? 8 : 0) | (d == null ? 16 : 0) | (rel == null ? 32 : 0);
        out.writeByte(flags);
        if (writeRel) {
            RelationDescriptorCodec.writeLocator(out, rel);
        }
        if (d != null) {
            writeDescriptor(d, out);
        }
        if (r.newTid() != null) {
            writeTid(r.newTid(), out);
        }
        if (r.oldTid() != null) {
            writeTid(r.oldTid(), out);
        }
        ValueCodec.writeRow(out, r.newValues());
        ValueCodec.writeRow(out, r.oldValues());
    }

    private void writeCatalogChange(CatalogChange c, DataOutput out) throws IOException {
        Wire.writeUVarInt(out, c.relOid());
        Ambiguity a = c.ambiguity();
        int flags = (c.before() != null ? 1 : 0) | (c.after() != null ? 2 : 0) | (a != null ? 4 : 0)
                | (c.closedAs() != null ? 8 : 0) | (c.attachedWithRows() ? 16 : 0);
        out.writeByte(flags);
        if (c.before() != null) {
            writeDescriptor(c.before(), out);
        }
        if (c.after() != null) {
            writeDescriptor(c.after(), out);
        }
        if (a != null) {
            Wire.writeUVarInt(out, a.relOid());
            Wire.writeString(out, a.qualifiedName());
            out.writeLong(a.since());
            Wire.writeCount(out, a.awaitedXids().size());
            for (int xid : a.awaitedXids()) {
                out.writeInt(xid);
            }
            Wire.writeString(out, a.reason());
        }
        if (c.closedAs() != null) {
            out.writeByte(switch (c.closedAs()) {
                case UNKNOWN -> 1;
                case BEFORE_HISTORY -> 2;
                case DROPPED -> 3;
                case EXCLUDED -> 4;
                case REPLACED -> 5;
                case NOT_LOGGED -> 6;
                case SHARED_CATALOG -> 7;
            });
        }
    }

    private void writeDescriptor(RelationDescriptor d, DataOutput out) throws IOException {
        if (d == null) {
            throw new IllegalArgumentException("null relation descriptor in a list of descriptors");
        }
        byte[] b = cache().encode(d);
        Wire.writeCount(out, b.length);
        out.write(b);
    }

    private static void writeTid(Tid t, DataOutput out) throws IOException {
        Wire.writeUVarLong(out, t.block());
        Wire.writeUVarInt(out, t.offset());
    }

    /** Reads the rest of an event whose format version byte was {@code version}. */
    ChangeEvent readBody(int version, DataInput in) throws IOException {
        Formats f = formatsOf(version);
        int kind = in.readUnsignedByte();
        try {
            return switch (kind) {
                case ROW_CHANGE -> readRowChange(in, f);
                case TRUNCATE -> readTruncate(in, f);
                case DEFERRED -> readDeferred(in);
                case XACT -> readXact(in, f);
                default -> throw new StateFormatException("unknown ChangeEvent kind " + kind + " (format version "
                        + version + " knows kinds 1.." + XACT + "): data from a newer build, or damaged");
            };
        } catch (RuntimeException e) {
            // a component's constructor refused what was read: damaged data
            throw new StateFormatException("cannot read ChangeEvent of kind " + kind + " (format version " + version
                    + "): " + e, e);
        }
    }

    private RowChange readRowChange(DataInput in, Formats f) throws IOException {
        long lsn = in.readLong();
        int xid = in.readInt();
        int opCode = in.readUnsignedByte();
        RowChange.Op op = switch (opCode) {
            case 1 -> RowChange.Op.INSERT;
            case 2 -> RowChange.Op.SPECULATIVE_INSERT;
            case 3 -> RowChange.Op.SPECULATIVE_CONFIRM;
            case 4 -> RowChange.Op.SPECULATIVE_ABORT;
            case 5 -> RowChange.Op.UPDATE;
            case 6 -> RowChange.Op.DELETE;
            default -> throw new StateFormatException("RowChange with unknown operation code " + opCode);
        };
        int flags = in.readUnsignedByte();
        if ((flags & ~63) != 0) {
            throw new StateFormatException("RowChange with unknown flags 0x" + Integer.toHexString(flags));
        }
        RelFileLocator rel = (flags & 8) != 0 ? RelationDescriptorCodec.readLocator(in) : null;
        RelationDescriptor d = (flags & 16) != 0 ? null : readDescriptor(in, f);
        if ((flags & (8 | 32)) == 0) {
            if (d == null) {
                throw new StateFormatException("RowChange without descriptor and without rel");
            }
            rel = d.locator();
        }
        Tid newTid = (flags & 1) != 0 ? readTid(in) : null;
        Tid oldTid = (flags & 2) != 0 ? readTid(in) : null;
        Object[] newValues = ValueCodec.readRow(in, f.value());
        Object[] oldValues = ValueCodec.readRow(in, f.value());
        return new RowChange(lsn, xid, op, rel, d, newTid, oldTid, newValues, oldValues, (flags & 4) != 0);
    }

    private TruncateChange readTruncate(DataInput in, Formats f) throws IOException {
        long lsn = in.readLong();
        int xid = in.readInt();
        int flags = in.readUnsignedByte();
        int n = Wire.readNullableCount(in, "truncated relation count");
        List<RelationDescriptor> rels = null;
        if (n >= 0) {
            List<RelationDescriptor> l = new ArrayList<>(Wire.capacity(n));
            for (int i = 0; i < n; i++) {
                l.add(readDescriptor(in, f));
            }
            rels = List.copyOf(l);
        }
        return new TruncateChange(lsn, xid, rels, (flags & 1) != 0, (flags & 2) != 0);
    }

    private static DeferredRecord readDeferred(DataInput in) throws IOException {
        long lsn = in.readLong();
        int xid = in.readInt();
        int flags = in.readUnsignedByte();
        RelFileLocator rel = (flags & 1) != 0 ? null : new RelFileLocator(in.readInt(), in.readInt(), in.readInt());
        XLogRecord record = null;
        if ((flags & 2) == 0) {
            WalFormat format = WalFormat.forMajor(in.readByte());
            long recLsn = in.readLong();
            long end = in.readLong();
            int len = in.readInt();
            if (len < XLogRecord.SIZE_OF_HEADER || len > Wire.MAX_LENGTH) {
                throw new StateFormatException("deferred WAL record of implausible length " + len);
            }
            record = XLogRecord.fromVerifiedBytes(format, recLsn, end, Wire.readFully(in, len));
        }
        return new DeferredRecord(lsn, xid, rel, record);
    }

    private XactEvent readXact(DataInput in, Formats f) throws IOException {
        int flags = in.readUnsignedByte();
        XactRecord x = (flags & 1) != 0 ? null : XactRecordCodec.read(in, f.xact());
        long markerLsn = (flags & 2) != 0 ? in.readLong() : 0;
        int n = Wire.readNullableCount(in, "catalog change count");
        List<CatalogChange> changes = null;
        if (n >= 0) {
            List<CatalogChange> l = new ArrayList<>(Wire.capacity(n));
            for (int i = 0; i < n; i++) {
                l.add(readCatalogChange(in, f));
            }
            changes = List.copyOf(l);
        }
        return new XactEvent(x, changes, markerLsn);
    }

    private CatalogChange readCatalogChange(DataInput in, Formats f) throws IOException {
        int relOid = Wire.readUVarInt(in, "catalog change relation oid");
        int flags = in.readUnsignedByte();
        if ((flags & ~31) != 0) {
            throw new StateFormatException("catalog change with unknown flags 0x" + Integer.toHexString(flags));
        }
        RelationDescriptor before = (flags & 1) != 0 ? readDescriptor(in, f) : null;
        RelationDescriptor after = (flags & 2) != 0 ? readDescriptor(in, f) : null;
        Ambiguity a = null;
        if ((flags & 4) != 0) {
            int aRel = Wire.readUVarInt(in, "ambiguity relation oid");
            String name = Wire.readString(in);
            long since = in.readLong();
            int n = Wire.readCount(in, "awaited xid count");
            List<Integer> xids = new ArrayList<>(Wire.capacity(n));
            for (int i = 0; i < n; i++) {
                xids.add(in.readInt());
            }
            a = new Ambiguity(aRel, name, since, xids, Wire.readString(in));
        }
        NotCoveredReason closedAs = null;
        if ((flags & 8) != 0) {
            int code = in.readUnsignedByte();
            closedAs = switch (code) {
                case 1 -> NotCoveredReason.UNKNOWN;
                case 2 -> NotCoveredReason.BEFORE_HISTORY;
                case 3 -> NotCoveredReason.DROPPED;
                case 4 -> NotCoveredReason.EXCLUDED;
                case 5 -> NotCoveredReason.REPLACED;
                case 6 -> NotCoveredReason.NOT_LOGGED;
                case 7 -> NotCoveredReason.SHARED_CATALOG;
                default -> throw new StateFormatException("catalog change with unknown closedAs code " + code);
            };
        }
        return new CatalogChange(relOid, before, after, a, closedAs, (flags & 16) != 0);
    }

    private RelationDescriptor readDescriptor(DataInput in, Formats f) throws IOException {
        int len = Wire.readCount(in, "relation descriptor length");
        if (len > MAX_DESCRIPTOR_BYTES) {
            throw new StateFormatException("relation descriptor of implausible length " + len);
        }
        return cache().decode(Wire.readFully(in, len), f.descriptor());
    }

    private static Tid readTid(DataInput in) throws IOException {
        return new Tid(Wire.readUVarLong(in, "tid block"), Wire.readUVarInt(in, "tid offset"));
    }

    private DescriptorCache cache() {
        DescriptorCache c = cache;
        if (c == null) { // only after Java deserialization without readResolve (not expected)
            c = new DescriptorCache();
            cache = c;
        }
        return c;
    }

    /**
     * Direct-mapped caches of immutable entries: descriptor instance to its bytes, and bytes to a decoded descriptor.
     * Entries are immutable objects with final fields, so a racy read sees a whole entry or an older one.
     */
    static final class DescriptorCache {
        private static final int SIZE = 64; // power of two
        private final Encoded[] encoded = new Encoded[SIZE];
        private final Decoded[] decoded = new Decoded[SIZE];
        private Decoded last;

        private record Encoded(RelationDescriptor descriptor, byte[] bytes) {}

        private record Decoded(int version, int hash, byte[] bytes, RelationDescriptor descriptor) {}

        byte[] encode(RelationDescriptor d) {
            int slot = System.identityHashCode(d) & (SIZE - 1);
            Encoded e = encoded[slot];
            if (e != null && e.descriptor == d) {
                return e.bytes;
            }
            byte[] b = RelationDescriptorCodec.toBytes(d);
            encoded[slot] = new Encoded(d, b);
            return b;
        }

        RelationDescriptor decode(byte[] b, int version) throws IOException {
            // rows in a row mostly share their descriptor: one comparison (vectorized) instead of hashing the bytes
            Decoded l = last;
            if (l != null && l.version == version && Arrays.equals(l.bytes, b)) {
                return l.descriptor;
            }
            l = lookup(b, version);
            last = l;
            return l.descriptor;
        }

        private Decoded lookup(byte[] b, int version) throws IOException {
            int h = Arrays.hashCode(b);
            int slot = (h ^ (h >>> 16)) & (SIZE - 1);
            Decoded e = decoded[slot];
            if (e != null && e.hash == h && e.version == version && Arrays.equals(e.bytes, b)) {
                return e;
            }
            e = new Decoded(version, h, b, RelationDescriptorCodec.fromBytes(b, version));
            decoded[slot] = e;
            return e;
        }
    }
}
