package io.walshadow.codec;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PgType;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.catalog.TypeSet;
import io.walshadow.wal.RelFileLocator;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Wire form of a {@link TypeSet} (primitives as in {@link Wire}):
 * <pre>
 *   count n, n x type: uvarint oid, string schema, string name, varint typlen, byte typbyval, uvarint typalign,
 *     uvarint typtype, uvarint typcategory, uvarint elemOid, uvarint baseTypeOid, varint baseTypmod, uvarint relOid,
 *     count l, l x (uvarint enum value oid, string label), (format 2) uvarint rangeSubtype, uvarint rangeType,
 *     string extension (null: none)
 *   count m, m x composite: RelationDescriptorCodec v1 of a descriptor whose relOid is the typrelid and whose
 *     columns are the attributes
 * </pre>
 * It has no version of its own: the state that holds it says which format it was written in (format 1, without the
 * range fields and the extension, reads them as 0 and none: ranges of one's own then fail closed as types without
 * their pg_range row, extension types as types without a decoder).
 */
public final class TypeSetCodec {
    /** The format {@link #write} writes. */
    public static final int FORMAT = 2;

    private TypeSetCodec() {}

    public static void write(DataOutput out, TypeSet s) throws IOException {
        if (s.types().isEmpty() && s.composites().isEmpty()) { // nearly every event's: no sorted copies to make
            Wire.writeCount(out, 0);
            Wire.writeCount(out, 0);
            return;
        }
        Wire.writeCount(out, s.types().size());
        // sorted by oid (and labels, composites likewise): the same set always writes the same bytes
        for (PgType t : new TreeMap<>(s.types()).values()) {
            Wire.writeUVarInt(out, t.oid());
            Wire.writeString(out, t.schema());
            Wire.writeString(out, t.name());
            Wire.writeVarInt(out, t.typlen());
            out.writeBoolean(t.typbyval());
            Wire.writeUVarInt(out, t.typalign());
            Wire.writeUVarInt(out, t.typtype());
            Wire.writeUVarInt(out, t.typcategory());
            Wire.writeUVarInt(out, t.elemOid());
            Wire.writeUVarInt(out, t.baseTypeOid());
            Wire.writeVarInt(out, t.baseTypmod());
            Wire.writeUVarInt(out, t.relOid());
            Map<Integer, String> labels = t.enumLabels() == null ? Map.of() : t.enumLabels();
            Wire.writeCount(out, labels.size());
            for (Map.Entry<Integer, String> l : new TreeMap<>(labels).entrySet()) {
                Wire.writeUVarInt(out, l.getKey());
                Wire.writeString(out, l.getValue());
            }
            Wire.writeUVarInt(out, t.rangeSubtype());
            Wire.writeUVarInt(out, t.rangeType());
            Wire.writeString(out, t.extension());
        }
        Wire.writeCount(out, s.composites().size());
        for (Map.Entry<Integer, List<Column>> c : new TreeMap<>(s.composites()).entrySet()) {
            RelationDescriptorCodec.write(out, new RelationDescriptor(c.getKey(), new RelFileLocator(0, 0, 0), "", "",
                    'c', 'p', 'n', 0, c.getValue(), List.of()));
        }
    }

    /** Reads a type set written in {@code format} (1 or {@link #FORMAT}). */
    public static TypeSet read(DataInput in, int format) throws IOException {
        if (format < 1 || format > FORMAT) {
            throw new StateFormatException("type set of format " + format + ": this build reads 1 to " + FORMAT);
        }
        int n = Wire.readCount(in, "types");
        Map<Integer, PgType> types = new HashMap<>();
        for (int i = 0; i < n; i++) {
            int oid = Wire.readUVarInt(in, "type oid");
            String schema = Wire.readString(in);
            String name = Wire.readString(in);
            int typlen = Wire.readVarInt(in, "typlen");
            boolean byval = in.readBoolean();
            char align = RelationDescriptorCodec.readChar(in, "typalign");
            char typtype = RelationDescriptorCodec.readChar(in, "typtype");
            char category = RelationDescriptorCodec.readChar(in, "typcategory");
            int elem = Wire.readUVarInt(in, "typelem");
            int base = Wire.readUVarInt(in, "typbasetype");
            int baseTypmod = Wire.readVarInt(in, "typtypmod");
            int rel = Wire.readUVarInt(in, "typrelid");
            int l = Wire.readCount(in, "enum labels");
            Map<Integer, String> labels = new HashMap<>();
            for (int j = 0; j < l; j++) {
                labels.put(Wire.readUVarInt(in, "enum value oid"), Wire.readString(in));
            }
            int rangeSubtype = format >= 2 ? Wire.readUVarInt(in, "range subtype") : 0;
            int rangeType = format >= 2 ? Wire.readUVarInt(in, "range type") : 0;
            String extension = format >= 2 ? Wire.readString(in) : null;
            types.put(oid, new PgType(oid, schema, name, typlen, byval, align, typtype, category, elem, base,
                    baseTypmod, rel, Map.copyOf(labels), rangeSubtype, rangeType, extension));
        }
        int m = Wire.readCount(in, "composites");
        Map<Integer, List<Column>> composites = new HashMap<>();
        for (int i = 0; i < m; i++) {
            RelationDescriptor d = RelationDescriptorCodec.read(in, RelationDescriptorCodec.FORMAT_VERSION);
            composites.put(d.relOid(), d.columns());
        }
        return types.isEmpty() && composites.isEmpty() ? TypeSet.EMPTY : new TypeSet(types, composites);
    }
}
