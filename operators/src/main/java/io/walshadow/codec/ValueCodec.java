package io.walshadow.codec;

import io.walshadow.types.PgArray;
import io.walshadow.types.PgBitString;
import io.walshadow.types.PgDate;
import io.walshadow.types.PgInet;
import io.walshadow.types.PgInterval;
import io.walshadow.types.PgJsonb;
import io.walshadow.types.PgMacaddr;
import io.walshadow.types.PgMoney;
import io.walshadow.types.PgNumeric;
import io.walshadow.types.PgRecord;
import io.walshadow.types.PgTid;
import io.walshadow.types.PgTime;
import io.walshadow.types.PgTimeTz;
import io.walshadow.types.PgTimestamp;
import io.walshadow.types.ToastPointer;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Compact tagged binary form of the column values the type decoders produce (see {@code io.walshadow.types}), for
 * Flink state and the network: one tag byte per value, then the value's payload. Every value decodes on its own
 * (no dictionary, no context), and round trips exactly: {@code equals} holds (byte arrays byte for byte), a
 * BigDecimal keeps its scale, floats keep their raw bits (NaN payloads, -0.0, infinities).
 *
 * <p>Format version {@value #FORMAT_VERSION}; tags (never renumber one, never reuse a retired one; a new value class
 * takes a new tag and a new format version):
 * <pre>
 *   0 null                        1 false              2 true
 *   3 Short: 2 bytes              4 Integer: varint    5 Long: varint
 *   6 Float: 4 raw bits           7 Double: 8 raw bits
 *   8 String: string              9 byte[]: uvarint length, bytes
 *  10 Byte: 1 byte               11 UUID: 8 bytes msb, 8 bytes lsb
 *  12 PgNumeric finite, unscaled value fits a long: varint scale, varint unscaled
 *  13 PgNumeric finite, big: varint scale, uvarint length, two's-complement big-endian unscaled bytes
 *  14 PgNumeric NaN              15 PgNumeric Infinity   16 PgNumeric -Infinity
 *  17 PgMoney: varint cents      18 PgJsonb: string      19 PgDate: varint pgDays
 *  20 PgTime: 8 bytes micros     21 PgTimeTz: 8 bytes micros, varint zoneSecondsWest
 *  22 PgTimestamp without time zone: 8 bytes micros      23 PgTimestamp with time zone: 8 bytes micros
 *  24 PgInterval: varint months, varint days, 8 bytes micros
 *  25 PgInet: byte flags (1 cidr, 2 IPv6), byte bits, 4 or 16 address bytes
 *  26 PgMacaddr: byte length (6 or 8), bytes
 *  27 PgBitString: uvarint bit length, (length + 7) / 8 bytes
 *  28 PgTid: uvarint block, uvarint offset
 *  29 PgArray: uvarint elementTypeOid, uvarint ndim, ndim x varint dim, ndim x varint lower bound,
 *     uvarint element count, elements (each a tagged value)
 *  30 PgRecord: uvarint typeOid, uvarint field count, fields: string name, uvarint typeOid, varint typmod, value
 *  31 ToastPointer: 4 bytes valueId, uvarint toastRelOid, uvarint rawSize, uvarint externalSize,
 *     byte compression (0 none, 1 pglz, 2 lz4)
 * </pre>
 * Primitive encodings (varint, uvarint, string) are described in {@link Wire}; fixed-width numbers are big-endian.
 * An unknown tag on read fails with a {@link StateFormatException} naming it.
 */
public final class ValueCodec {
    /** Version of the byte format above; bump it (keeping the old reader) for any change. */
    public static final int FORMAT_VERSION = 1;
    /** Deepest nesting of arrays and records written or read (PostgreSQL itself nests far less). */
    public static final int MAX_DEPTH = 100;

    public static final int NULL = 0;
    public static final int FALSE = 1;
    public static final int TRUE = 2;
    public static final int SHORT = 3;
    public static final int INT = 4;
    public static final int LONG = 5;
    public static final int FLOAT = 6;
    public static final int DOUBLE = 7;
    public static final int STRING = 8;
    public static final int BYTES = 9;
    public static final int BYTE = 10;
    public static final int UUID_TAG = 11;
    public static final int NUMERIC = 12;
    public static final int NUMERIC_BIG = 13;
    public static final int NUMERIC_NAN = 14;
    public static final int NUMERIC_POS_INF = 15;
    public static final int NUMERIC_NEG_INF = 16;
    public static final int MONEY = 17;
    public static final int JSONB = 18;
    public static final int DATE = 19;
    public static final int TIME = 20;
    public static final int TIMETZ = 21;
    public static final int TIMESTAMP = 22;
    public static final int TIMESTAMPTZ = 23;
    public static final int INTERVAL = 24;
    public static final int INET = 25;
    public static final int MACADDR = 26;
    public static final int BIT_STRING = 27;
    public static final int TID = 28;
    public static final int ARRAY = 29;
    public static final int RECORD = 30;
    public static final int TOAST_POINTER = 31;

    /** Value class to its tag (the finite-numeric and timestamp tags are refined by the value). */
    private static final Map<Class<?>, Integer> TAGS = new IdentityHashMap<>();
    private static final Integer STRING_TAG = STRING;
    private static final Integer LONG_TAG = LONG;
    private static final Integer INT_TAG = INT;

    static {
        TAGS.put(Boolean.class, TRUE);
        TAGS.put(Short.class, SHORT);
        TAGS.put(Integer.class, INT);
        TAGS.put(Long.class, LONG);
        TAGS.put(Float.class, FLOAT);
        TAGS.put(Double.class, DOUBLE);
        TAGS.put(String.class, STRING);
        TAGS.put(byte[].class, BYTES);
        TAGS.put(Byte.class, BYTE);
        TAGS.put(UUID.class, UUID_TAG);
        TAGS.put(PgNumeric.class, NUMERIC);
        TAGS.put(PgMoney.class, MONEY);
        TAGS.put(PgJsonb.class, JSONB);
        TAGS.put(PgDate.class, DATE);
        TAGS.put(PgTime.class, TIME);
        TAGS.put(PgTimeTz.class, TIMETZ);
        TAGS.put(PgTimestamp.class, TIMESTAMP);
        TAGS.put(PgInterval.class, INTERVAL);
        TAGS.put(PgInet.class, INET);
        TAGS.put(PgMacaddr.class, MACADDR);
        TAGS.put(PgBitString.class, BIT_STRING);
        TAGS.put(PgTid.class, TID);
        TAGS.put(PgArray.class, ARRAY);
        TAGS.put(PgRecord.class, RECORD);
        TAGS.put(ToastPointer.class, TOAST_POINTER);
    }

    private ValueCodec() {}

    /** Whether {@link #write} accepts values of this class (null aside). */
    public static boolean supports(Class<?> c) {
        return TAGS.containsKey(c);
    }

    /**
     * Writes one value (null allowed).
     *
     * @throws IllegalArgumentException for a value of a class this codec does not know, or nested too deeply
     */
    public static void write(DataOutput out, Object value) throws IOException {
        writeValue(out, value, 0);
    }

    /** Reads one value written by this build's {@link #write}. */
    public static Object read(DataInput in) throws IOException {
        return read(in, FORMAT_VERSION);
    }

    /** Reads one value written in format {@code version}. */
    public static Object read(DataInput in, int version) throws IOException {
        checkVersion(version);
        return readValue(in, 0);
    }

    /** Writes a row of values (the array itself may be null): a count (null-aware), then each value. */
    public static void writeRow(DataOutput out, Object[] row) throws IOException {
        if (row == null) {
            Wire.writeNullableCount(out, -1);
            return;
        }
        Wire.writeNullableCount(out, row.length);
        for (Object v : row) {
            writeValue(out, v, 0);
        }
    }

    public static Object[] readRow(DataInput in) throws IOException {
        return readRow(in, FORMAT_VERSION);
    }

    public static Object[] readRow(DataInput in, int version) throws IOException {
        checkVersion(version);
        int n = Wire.readNullableCount(in, "row length");
        if (n < 0) {
            return null;
        }
        if (n <= 1024) {
            Object[] row = new Object[n];
            for (int i = 0; i < n; i++) {
                row[i] = readValue(in, 0);
            }
            return row;
        }
        List<Object> row = new ArrayList<>(1024);
        for (int i = 0; i < n; i++) {
            row.add(readValue(in, 0));
        }
        return row.toArray();
    }

    private static void checkVersion(int version) throws StateFormatException {
        if (version != 1) {
            throw new StateFormatException("value format version " + version + " is not readable by this build"
                    + " (it reads version 1 to " + FORMAT_VERSION + ")");
        }
    }

    private static void writeValue(DataOutput out, Object v, int depth) throws IOException {
        if (v == null) {
            out.writeByte(NULL);
            return;
        }
        Class<?> c = v.getClass();
        // the commonest classes by identity first: a map lookup per value was 5% of a snapshot reader's time
        Integer tag = c == String.class ? STRING_TAG : c == Long.class ? LONG_TAG : c == Integer.class ? INT_TAG
                : TAGS.get(c);
        if (tag == null) {
            throw new IllegalArgumentException("ValueCodec cannot encode a value of class " + v.getClass().getName()
                    + " (not one of the io.walshadow.types value classes)");
        }
        switch (tag) {
            case TRUE -> out.writeByte((Boolean) v ? TRUE : FALSE);
            case SHORT -> {
                out.writeByte(SHORT);
                out.writeShort((Short) v);
            }
            case INT -> {
                out.writeByte(INT);
                Wire.writeVarInt(out, (Integer) v);
            }
            case LONG -> {
                out.writeByte(LONG);
                Wire.writeVarLong(out, (Long) v);
            }
            case FLOAT -> {
                out.writeByte(FLOAT);
                out.writeInt(Float.floatToRawIntBits((Float) v));
            }
            case DOUBLE -> {
                out.writeByte(DOUBLE);
                out.writeLong(Double.doubleToRawLongBits((Double) v));
            }
            case STRING -> {
                out.writeByte(STRING);
                Wire.writeString(out, (String) v);
            }
            case BYTES -> {
                out.writeByte(BYTES);
                Wire.writeBytes(out, (byte[]) v);
            }
            case BYTE -> {
                out.writeByte(BYTE);
                out.writeByte((Byte) v);
            }
            case UUID_TAG -> {
                UUID u = (UUID) v;
                out.writeByte(UUID_TAG);
                out.writeLong(u.getMostSignificantBits());
                out.writeLong(u.getLeastSignificantBits());
            }
            case NUMERIC -> writeNumeric(out, (PgNumeric) v);
            case MONEY -> {
                out.writeByte(MONEY);
                Wire.writeVarLong(out, ((PgMoney) v).cents());
            }
            case JSONB -> {
                out.writeByte(JSONB);
                Wire.writeString(out, ((PgJsonb) v).text());
            }
            case DATE -> {
                out.writeByte(DATE);
                Wire.writeVarInt(out, ((PgDate) v).pgDays());
            }
            case TIME -> {
                out.writeByte(TIME);
                out.writeLong(((PgTime) v).micros());
            }
            case TIMETZ -> {
                PgTimeTz t = (PgTimeTz) v;
                out.writeByte(TIMETZ);
                out.writeLong(t.micros());
                Wire.writeVarInt(out, t.zoneSecondsWest());
            }
            case TIMESTAMP -> {
                PgTimestamp t = (PgTimestamp) v;
                out.writeByte(t.withTimeZone() ? TIMESTAMPTZ : TIMESTAMP);
                out.writeLong(t.pgMicros());
            }
            case INTERVAL -> {
                PgInterval i = (PgInterval) v;
                out.writeByte(INTERVAL);
                Wire.writeVarInt(out, i.months());
                Wire.writeVarInt(out, i.days());
                out.writeLong(i.micros());
            }
            case INET -> {
                PgInet i = (PgInet) v;
                out.writeByte(INET);
                out.writeByte((i.cidr() ? 1 : 0) | (i.isIpv6() ? 2 : 0));
                out.writeByte(i.bits());
                out.write(i.address());
            }
            case MACADDR -> {
                byte[] b = ((PgMacaddr) v).bytes();
                out.writeByte(MACADDR);
                out.writeByte(b.length);
                out.write(b);
            }
            case BIT_STRING -> {
                PgBitString b = (PgBitString) v;
                out.writeByte(BIT_STRING);
                Wire.writeCount(out, b.length());
                out.write(b.bytes());
            }
            case TID -> {
                PgTid t = (PgTid) v;
                out.writeByte(TID);
                Wire.writeUVarLong(out, t.block());
                Wire.writeUVarInt(out, t.offset());
            }
            case ARRAY -> writeArray(out, (PgArray) v, depth);
            case RECORD -> writeRecord(out, (PgRecord) v, depth);
            case TOAST_POINTER -> {
                ToastPointer p = (ToastPointer) v;
                out.writeByte(TOAST_POINTER);
                out.writeInt(p.valueId());
                Wire.writeUVarInt(out, p.toastRelOid());
                Wire.writeUVarInt(out, p.rawSize());
                Wire.writeUVarInt(out, p.externalSize());
                out.writeByte(switch (p.compression()) {
                    case NONE -> 0;
                    case PGLZ -> 1;
                    case LZ4 -> 2;
                });
            }
            default -> throw new AssertionError("tag " + tag);
        }
    }

    private static void writeNumeric(DataOutput out, PgNumeric n) throws IOException {
        switch (n.kind()) {
            case NAN -> out.writeByte(NUMERIC_NAN);
            case POSITIVE_INFINITY -> out.writeByte(NUMERIC_POS_INF);
            case NEGATIVE_INFINITY -> out.writeByte(NUMERIC_NEG_INF);
            case FINITE -> {
                BigDecimal d = n.value();
                BigInteger unscaled = d.unscaledValue();
                if (unscaled.bitLength() < 64) {
                    out.writeByte(NUMERIC);
                    Wire.writeVarInt(out, d.scale());
                    Wire.writeVarLong(out, unscaled.longValue());
                } else {
                    out.writeByte(NUMERIC_BIG);
                    Wire.writeVarInt(out, d.scale());
                    Wire.writeBytes(out, unscaled.toByteArray());
                }
            }
            default -> throw new AssertionError(n.kind());
        }
    }

    private static void writeArray(DataOutput out, PgArray a, int depth) throws IOException {
        checkDepth(depth);
        out.writeByte(ARRAY);
        Wire.writeUVarInt(out, a.elementTypeOid());
        int[] dims = a.dims();
        int[] lbs = a.lowerBounds();
        Wire.writeCount(out, dims.length);
        for (int d : dims) {
            Wire.writeVarInt(out, d);
        }
        for (int lb : lbs) {
            Wire.writeVarInt(out, lb);
        }
        Object[] elements = a.elements();
        Wire.writeCount(out, elements.length);
        for (Object e : elements) {
            writeValue(out, e, depth + 1);
        }
    }

    private static void writeRecord(DataOutput out, PgRecord r, int depth) throws IOException {
        checkDepth(depth);
        out.writeByte(RECORD);
        Wire.writeUVarInt(out, r.typeOid());
        List<PgRecord.Field> fields = r.fields();
        Wire.writeCount(out, fields.size());
        for (PgRecord.Field f : fields) {
            if (f.name() == null) {
                throw new IllegalArgumentException("record field without a name in " + r);
            }
            Wire.writeString(out, f.name());
            Wire.writeUVarInt(out, f.typeOid());
            Wire.writeVarInt(out, f.typmod());
            writeValue(out, f.value(), depth + 1);
        }
    }

    private static void checkDepth(int depth) {
        if (depth >= MAX_DEPTH) {
            throw new IllegalArgumentException("value nested more than " + MAX_DEPTH + " levels deep");
        }
    }

    private static Object readValue(DataInput in, int depth) throws IOException {
        int tag = in.readUnsignedByte();
        try {
            return switch (tag) {
                case NULL -> null;
                case FALSE -> Boolean.FALSE;
                case TRUE -> Boolean.TRUE;
                case SHORT -> in.readShort();
                case INT -> Wire.readVarInt(in, "int4 value");
                case LONG -> Wire.readVarLong(in, "int8 value");
                case FLOAT -> Float.intBitsToFloat(in.readInt());
                case DOUBLE -> Double.longBitsToDouble(in.readLong());
                case STRING -> Wire.readString(in);
                case BYTES -> Wire.readBytes(in, "bytea value");
                case BYTE -> in.readByte();
                case UUID_TAG -> new UUID(in.readLong(), in.readLong());
                case NUMERIC -> {
                    int scale = Wire.readVarInt(in, "numeric scale");
                    yield PgNumeric.of(BigDecimal.valueOf(Wire.readVarLong(in, "numeric value"), scale));
                }
                case NUMERIC_BIG -> {
                    int scale = Wire.readVarInt(in, "numeric scale");
                    byte[] b = Wire.readBytes(in, "numeric value");
                    if (b.length == 0) {
                        throw new StateFormatException("numeric value of 0 bytes");
                    }
                    yield PgNumeric.of(new BigDecimal(new BigInteger(b), scale));
                }
                case NUMERIC_NAN -> PgNumeric.NAN;
                case NUMERIC_POS_INF -> PgNumeric.POSITIVE_INFINITY;
                case NUMERIC_NEG_INF -> PgNumeric.NEGATIVE_INFINITY;
                case MONEY -> new PgMoney(Wire.readVarLong(in, "money value"));
                case JSONB -> {
                    String s = Wire.readString(in);
                    if (s == null) {
                        throw new StateFormatException("jsonb value with null text");
                    }
                    yield new PgJsonb(s);
                }
                case DATE -> new PgDate(Wire.readVarInt(in, "date value"));
                case TIME -> new PgTime(in.readLong());
                case TIMETZ -> new PgTimeTz(in.readLong(), Wire.readVarInt(in, "timetz zone"));
                case TIMESTAMP -> new PgTimestamp(in.readLong(), false);
                case TIMESTAMPTZ -> new PgTimestamp(in.readLong(), true);
                case INTERVAL -> new PgInterval(Wire.readVarInt(in, "interval months"),
                        Wire.readVarInt(in, "interval days"), in.readLong());
                case INET -> {
                    int flags = in.readUnsignedByte();
                    if ((flags & ~3) != 0) {
                        throw new StateFormatException("inet value with flags 0x" + Integer.toHexString(flags));
                    }
                    int bits = in.readUnsignedByte();
                    yield new PgInet((flags & 1) != 0, bits, Wire.readFully(in, (flags & 2) != 0 ? 16 : 4));
                }
                case MACADDR -> {
                    int n = in.readUnsignedByte();
                    if (n != 6 && n != 8) {
                        throw new StateFormatException("MAC address of " + n + " bytes");
                    }
                    yield new PgMacaddr(Wire.readFully(in, n));
                }
                case BIT_STRING -> {
                    int bits = Wire.readCount(in, "bit string length");
                    yield new PgBitString(bits, Wire.readFully(in, (int) ((bits + 7L) / 8)));
                }
                case TID -> new PgTid(Wire.readUVarLong(in, "tid block"), Wire.readUVarInt(in, "tid offset"));
                case ARRAY -> readArray(in, depth);
                case RECORD -> readRecord(in, depth);
                case TOAST_POINTER -> {
                    int valueId = in.readInt();
                    int toastRel = Wire.readUVarInt(in, "TOAST relation oid");
                    int rawSize = Wire.readUVarInt(in, "TOAST raw size");
                    int extSize = Wire.readUVarInt(in, "TOAST external size");
                    int c = in.readUnsignedByte();
                    ToastPointer.Compression compression = switch (c) {
                        case 0 -> ToastPointer.Compression.NONE;
                        case 1 -> ToastPointer.Compression.PGLZ;
                        case 2 -> ToastPointer.Compression.LZ4;
                        default -> throw new StateFormatException("TOAST pointer with unknown compression code " + c);
                    };
                    yield new ToastPointer(valueId, toastRel, rawSize, extSize, compression);
                }
                default -> throw new StateFormatException("unknown value tag " + tag + " (value format version "
                        + FORMAT_VERSION + " knows tags 0.." + TOAST_POINTER + "): data from a newer build, or damaged");
            };
        } catch (IllegalArgumentException e) {
            // a value class refused the decoded components
            throw new StateFormatException("invalid value for tag " + tag + ": " + e.getMessage(), e);
        }
    }

    private static PgArray readArray(DataInput in, int depth) throws IOException {
        if (depth >= MAX_DEPTH) {
            throw new StateFormatException("value nested more than " + MAX_DEPTH + " levels deep");
        }
        int elemType = Wire.readUVarInt(in, "array element type");
        int ndim = Wire.readCount(in, "array dimension count");
        if (ndim > 1000) {
            throw new StateFormatException("array with " + ndim + " dimensions");
        }
        int[] dims = new int[ndim];
        int[] lbs = new int[ndim];
        for (int i = 0; i < ndim; i++) {
            dims[i] = Wire.readVarInt(in, "array dimension");
        }
        for (int i = 0; i < ndim; i++) {
            lbs[i] = Wire.readVarInt(in, "array lower bound");
        }
        int n = Wire.readCount(in, "array element count");
        List<Object> elements = new ArrayList<>(Wire.capacity(n));
        for (int i = 0; i < n; i++) {
            elements.add(readValue(in, depth + 1));
        }
        return new PgArray(elemType, dims, lbs, elements.toArray());
    }

    private static PgRecord readRecord(DataInput in, int depth) throws IOException {
        if (depth >= MAX_DEPTH) {
            throw new StateFormatException("value nested more than " + MAX_DEPTH + " levels deep");
        }
        int typeOid = Wire.readUVarInt(in, "record type");
        int n = Wire.readCount(in, "record field count");
        List<PgRecord.Field> fields = new ArrayList<>(Wire.capacity(n));
        for (int i = 0; i < n; i++) {
            String name = Wire.readString(in);
            if (name == null) {
                throw new StateFormatException("record field " + i + " without a name");
            }
            int ftype = Wire.readUVarInt(in, "record field type");
            int typmod = Wire.readVarInt(in, "record field typmod");
            fields.add(new PgRecord.Field(name, ftype, typmod, readValue(in, depth + 1)));
        }
        return new PgRecord(typeOid, fields);
    }
}
