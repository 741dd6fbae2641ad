package io.walshadow.codec;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PartitionOf;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.wal.RelFileLocator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Compact binary form of a {@link RelationDescriptor} for Flink state and the network. Independent of
 * {@code io.walshadow.catalog.CatalogHistorySerializer}'s descriptor layout (that one is fixed-width and versioned
 * with the catalog history), so each format evolves under its own version.
 *
 * <p>Format version {@value #FORMAT_VERSION} (primitives as in {@link Wire}):
 * <pre>
 *   uvarint relOid, locator (uvarint spcOid, uvarint dbOid, uvarint relNumber), string schema, string name,
 *   uvarint relkind, uvarint relpersistence, uvarint replicaIdentity (chars), uvarint toastRelOid,
 *   count n, n x column, count m, m x varint identity attnum,
 *   [partition (relkind's bit 0x10000 set): descriptor root, count k, k x varint root attnum per column]
 * column: varint attnum, string name, uvarint typeOid, varint typmod, varint attlen, uvarint attalign,
 *   uvarint attstorage (chars), byte flags (1 attbyval, 2 dropped, 4 notNull, 8 missing bytes follow,
 *   16 missing value unresolved), [bytes missing value: uvarint length, bytes]
 * </pre>
 * {@link Column#UNRESOLVED_MISSING} reads back as that same marker instance. Output is deterministic: equal
 * descriptors encode to equal bytes.
 */
public final class RelationDescriptorCodec {
    /** Version of the byte format above; bump it (keeping the old reader) for any change. */
    public static final int FORMAT_VERSION = 1;

    private static final int BYVAL = 1;
    private static final int DROPPED = 2;
    private static final int NOT_NULL = 4;
    private static final int MISSING_BYTES = 8;
    private static final int MISSING_UNRESOLVED = 16;
    /**
     * Set in the relkind varint (above any char) when a partition section follows the identity list: an optional
     * section, so every descriptor without one keeps the version 1 bytes; a build before it refuses the bit as
     * "not a char" instead of misreading.
     */
    private static final int PARTITION_FOLLOWS = 0x10000;

    private RelationDescriptorCodec() {}

    public static void write(DataOutput out, RelationDescriptor d) throws IOException {
        Wire.writeUVarInt(out, d.relOid());
        writeLocator(out, d.locator());
        Wire.writeString(out, d.schema());
        Wire.writeString(out, d.name());
        Wire.writeUVarInt(out, d.relkind() | (d.partition() != null ? PARTITION_FOLLOWS : 0));
        Wire.writeUVarInt(out, d.relpersistence());
        Wire.writeUVarInt(out, d.replicaIdentity());
        Wire.writeUVarInt(out, d.toastRelOid());
        List<Column> cols = d.columns();
        Wire.writeCount(out, cols.size());
        for (Column c : cols) {
            Wire.writeVarInt(out, c.attnum());
            Wire.writeString(out, c.name());
            Wire.writeUVarInt(out, c.typeOid());
            Wire.writeVarInt(out, c.typmod());
            Wire.writeVarInt(out, c.attlen());
            Wire.writeUVarInt(out, c.attalign());
            Wire.writeUVarInt(out, c.attstorage());
            int flags = (c.attbyval() ? BYVAL : 0) | (c.dropped() ? DROPPED : 0) | (c.notNull() ? NOT_NULL : 0);
            if (c.missingValueUnresolved()) {
                flags |= MISSING_UNRESOLVED;
            } else if (c.missingValue() != null) {
                flags |= MISSING_BYTES;
            }
            out.writeByte(flags);
            if ((flags & MISSING_BYTES) != 0) {
                Wire.writeBytes(out, c.missingValue());
            }
        }
        List<Integer> ident = d.identityAttnums();
        Wire.writeCount(out, ident.size());
        for (int a : ident) {
            Wire.writeVarInt(out, a);
        }
        if (d.partition() != null) {
            write(out, d.partition().root());
            int[] map = d.partition().rootAttnums();
            Wire.writeCount(out, map.length);
            for (int a : map) {
                Wire.writeVarInt(out, a);
            }
        }
    }

    /** Reads a descriptor written by this build's {@link #write}. */
    public static RelationDescriptor read(DataInput in) throws IOException {
        return read(in, FORMAT_VERSION);
    }

    /** Reads a descriptor written in format {@code version}. */
    public static RelationDescriptor read(DataInput in, int version) throws IOException {
        if (version != 1) {
            throw new StateFormatException("relation descriptor format version " + version
                    + " is not readable by this build (it reads version 1 to " + FORMAT_VERSION + ")");
        }
        int relOid = Wire.readUVarInt(in, "relation oid");
        RelFileLocator loc = readLocator(in);
        String schema = Wire.readString(in);
        String name = Wire.readString(in);
        int kind = Wire.readUVarInt(in, "relkind");
        boolean partition = (kind & PARTITION_FOLLOWS) != 0;
        if ((kind & ~PARTITION_FOLLOWS) > Character.MAX_VALUE) {
            throw new StateFormatException("relkind " + Integer.toUnsignedString(kind) + " is not a char");
        }
        char relkind = (char) (kind & ~PARTITION_FOLLOWS);
        char persistence = readChar(in, "relpersistence");
        char replident = readChar(in, "relreplident");
        int toast = Wire.readUVarInt(in, "reltoastrelid");
        int n = Wire.readCount(in, "column count");
        List<Column> cols = new ArrayList<>(Wire.capacity(n));
        for (int i = 0; i < n; i++) {
            int attnum = Wire.readVarInt(in, "attnum");
            String cname = Wire.readString(in);
            int typeOid = Wire.readUVarInt(in, "atttypid");
            int typmod = Wire.readVarInt(in, "atttypmod");
            int attlen = Wire.readVarInt(in, "attlen");
            char align = readChar(in, "attalign");
            char storage = readChar(in, "attstorage");
            int flags = in.readUnsignedByte();
            if ((flags & ~(BYVAL | DROPPED | NOT_NULL | MISSING_BYTES | MISSING_UNRESOLVED)) != 0
                    || (flags & (MISSING_BYTES | MISSING_UNRESOLVED)) == (MISSING_BYTES | MISSING_UNRESOLVED)) {
                throw new StateFormatException("relation " + schema + "." + name + ": column " + cname
                        + " with unknown flags 0x" + Integer.toHexString(flags));
            }
            byte[] missing = null;
            if ((flags & MISSING_UNRESOLVED) != 0) {
                missing = Column.UNRESOLVED_MISSING;
            } else if ((flags & MISSING_BYTES) != 0) {
                missing = Wire.readBytes(in, "missing value");
            }
            cols.add(new Column(attnum, cname, typeOid, typmod, attlen, align, (flags & BYVAL) != 0, storage,
                    (flags & DROPPED) != 0, (flags & NOT_NULL) != 0, missing));
        }
        int m = Wire.readCount(in, "identity attnum count");
        List<Integer> ident = new ArrayList<>(Wire.capacity(m));
        for (int i = 0; i < m; i++) {
            ident.add(Wire.readVarInt(in, "identity attnum"));
        }
        PartitionOf p = null;
        if (partition) {
            RelationDescriptor root = read(in, version);
            if (root.partition() != null) {
                throw new StateFormatException("relation " + schema + "." + name + ": its partition root "
                        + root.qualifiedName() + " is itself routed through a root");
            }
            int[] map = new int[Wire.readCount(in, "partition column map length")];
            for (int i = 0; i < map.length; i++) {
                map[i] = Wire.readVarInt(in, "root attnum");
            }
            p = new PartitionOf(root, map);
        }
        return new RelationDescriptor(relOid, loc, schema, name, relkind, persistence, replident, toast,
                List.copyOf(cols), List.copyOf(ident), p);
    }

    /** The descriptor's encoding as a byte array. */
    public static byte[] toBytes(RelationDescriptor d) {
        ByteArrayOutputStream bos = new ByteArrayOutputStream(64 + 24 * d.columns().size());
        try (DataOutputStream out = new DataOutputStream(bos)) {
            write(out, d);
        } catch (IOException e) {
            throw new IllegalStateException(e); // not from a byte array
        }
        return bos.toByteArray();
    }

    /** Reads bytes of {@link #toBytes}; they must hold exactly one descriptor. */
    public static RelationDescriptor fromBytes(byte[] bytes, int version) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        RelationDescriptor d = read(in, version);
        if (in.available() != 0) {
            throw new StateFormatException("relation descriptor " + d.qualifiedName() + " followed by "
                    + in.available() + " unread bytes");
        }
        return d;
    }

    public static void writeLocator(DataOutput out, RelFileLocator l) throws IOException {
        Wire.writeUVarInt(out, l.spcOid());
        Wire.writeUVarInt(out, l.dbOid());
        Wire.writeUVarInt(out, l.relNumber());
    }

    public static RelFileLocator readLocator(DataInput in) throws IOException {
        return new RelFileLocator(Wire.readUVarInt(in, "tablespace oid"), Wire.readUVarInt(in, "database oid"),
                Wire.readUVarInt(in, "relfilenode"));
    }

    public static char readChar(DataInput in, String what) throws IOException {
        int c = Wire.readUVarInt(in, what);
        if (c < 0 || c > Character.MAX_VALUE) {
            throw new StateFormatException(what + " " + Integer.toUnsignedString(c) + " is not a char");
        }
        return (char) c;
    }
}
