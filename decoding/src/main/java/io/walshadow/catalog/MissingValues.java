package io.walshadow.catalog;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Turns {@code array_send(pg_attribute.attmissingval)} into the on-disk datum bytes a tuple written before the
 * column existed reads for it ({@link Column#missingValue()}), for the types whose binary send format maps
 * one-to-one onto the stored form. Everything else is {@link Column#UNRESOLVED_MISSING}: the deformer then fails
 * closed if a tuple needs it.
 *
 * <p>On-disk forms (little-endian server, as every platform we read WAL from):
 * <ul>
 *   <li>fixed-width types (bool, "char", int2, int4, int8, oid, float4, float8, money, date, time, timetz,
 *       timestamp, timestamptz, interval): the big-endian send fields, each byte-swapped; uuid: the same 16 bytes;
 *   <li>text, varchar, bpchar, json, bytea: a 4-byte varlena header ({@code (len + 4) << 2}) and the bytes.
 *       Elements of an array are stored detoasted with 4-byte headers, so that is the form attmissingval holds
 *       (a tuple written later stores the same payload behind a 1-byte short header). The text-like types are
 *       resolved only when the server encoding is UTF8 or SQL_ASCII: the send format is in the client encoding;
 *   <li>numeric: NumericLong ({@code n_sign_dscale}, {@code n_weight}, base-10000 digits) behind a 4-byte header;
 *       NaN and the infinities as the 2-byte special header. PostgreSQL itself stores NumericShort when the value
 *       fits; readers accept both (numeric.c tests {@code NUMERIC_HEADER_IS_SHORT} on every read).
 * </ul>
 */
public final class MissingValues {
    static final int BOOL = 16;
    static final int BYTEA = 17;
    static final int CHAR = 18;
    static final int INT8 = 20;
    static final int INT2 = 21;
    static final int INT4 = 23;
    static final int TEXT = 25;
    static final int OID = 26;
    static final int JSON = 114;
    static final int FLOAT4 = 700;
    static final int FLOAT8 = 701;
    static final int MONEY = 790;
    static final int BPCHAR = 1042;
    static final int VARCHAR = 1043;
    static final int DATE = 1082;
    static final int TIME = 1083;
    static final int TIMESTAMP = 1114;
    static final int TIMESTAMPTZ = 1184;
    static final int INTERVAL = 1186;
    static final int TIMETZ = 1266;
    static final int NUMERIC = 1700;
    static final int UUID = 2950;

    private static final int NUMERIC_POS = 0x0000;
    private static final int NUMERIC_NEG = 0x4000;
    private static final int NUMERIC_NAN = 0xC000;
    private static final int NUMERIC_PINF = 0xD000;
    private static final int NUMERIC_NINF = 0xF000;
    private static final int NUMERIC_DSCALE_MASK = 0x3FFF;
    private static final int NBASE = 10000;

    private MissingValues() {}

    /**
     * @param arraySend {@code array_send(attmissingval)}, or null when the column has no missing value
     * @param typeOid the column's type, or the base type of a domain
     * @param attlen pg_attribute.attlen, to check fixed-width results
     * @param textSafe whether send-format text is the stored text (server encoding UTF8 or SQL_ASCII)
     * @return null (no missing value, or a NULL one), the on-disk bytes, or {@link Column#UNRESOLVED_MISSING}
     */
    public static byte[] toDisk(byte[] arraySend, int typeOid, int attlen, boolean textSafe) {
        if (arraySend == null) {
            return null;
        }
        byte[] elem;
        try {
            ByteBuffer b = ByteBuffer.wrap(arraySend).order(ByteOrder.BIG_ENDIAN);
            int ndim = b.getInt();
            b.getInt(); // has-nulls flag
            b.getInt(); // element type
            if (ndim != 1) {
                return Column.UNRESOLVED_MISSING;
            }
            int dim = b.getInt();
            b.getInt(); // lower bound
            if (dim != 1) {
                return Column.UNRESOLVED_MISSING;
            }
            int len = b.getInt();
            if (len == -1) {
                return null; // a NULL missing value reads as NULL, like no missing value
            }
            if (len < 0 || len != b.remaining()) {
                return Column.UNRESOLVED_MISSING;
            }
            elem = new byte[len];
            b.get(elem);
        } catch (RuntimeException e) {
            return Column.UNRESOLVED_MISSING;
        }
        byte[] out = convert(elem, typeOid, textSafe);
        if (out == null) {
            return Column.UNRESOLVED_MISSING;
        }
        if (attlen > 0 && out.length != attlen) {
            return Column.UNRESOLVED_MISSING;
        }
        return out;
    }

    /** The stored form of one element's send bytes, or null when the type is not handled. */
    static byte[] convert(byte[] send, int typeOid, boolean textSafe) {
        switch (typeOid) {
            case BOOL:
            case CHAR:
                return send.length == 1 ? send.clone() : null;
            case INT2:
                return swapFields(send, 2);
            case INT4:
            case OID:
            case DATE:
            case FLOAT4:
                return swapFields(send, 4);
            case INT8:
            case FLOAT8:
            case MONEY:
            case TIME:
            case TIMESTAMP:
            case TIMESTAMPTZ:
                return swapFields(send, 8);
            case TIMETZ:
                return swapFields(send, 8, 4);
            case INTERVAL:
                return swapFields(send, 8, 4, 4);
            case UUID:
                return send.length == 16 ? send.clone() : null;
            case BYTEA:
                return varlena4(send);
            case TEXT:
            case VARCHAR:
            case BPCHAR:
            case JSON:
                return textSafe ? varlena4(send) : null;
            case NUMERIC:
                return numeric(send);
            default:
                return null;
        }
    }

    private static byte[] swapFields(byte[] send, int... widths) {
        int total = 0;
        for (int w : widths) {
            total += w;
        }
        if (send.length != total) {
            return null;
        }
        byte[] out = new byte[total];
        int off = 0;
        for (int w : widths) {
            for (int i = 0; i < w; i++) {
                out[off + i] = send[off + w - 1 - i];
            }
            off += w;
        }
        return out;
    }

    static byte[] varlena4(byte[] payload) {
        byte[] out = new byte[payload.length + 4];
        ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).putInt((payload.length + 4) << 2);
        System.arraycopy(payload, 0, out, 4, payload.length);
        return out;
    }

    /** numeric_send (ndigits, weight, sign, dscale, digits[], all int16 big-endian) to NumericLong / special. */
    private static byte[] numeric(byte[] send) {
        if (send.length < 8) {
            return null;
        }
        ByteBuffer in = ByteBuffer.wrap(send).order(ByteOrder.BIG_ENDIAN);
        int ndigits = in.getShort();
        short weight = in.getShort();
        int sign = in.getShort() & 0xFFFF;
        int dscale = in.getShort();
        if (ndigits < 0 || send.length != 8 + 2 * ndigits) {
            return null;
        }
        if (sign == NUMERIC_NAN || sign == NUMERIC_PINF || sign == NUMERIC_NINF) {
            if (ndigits != 0) {
                return null;
            }
            ByteBuffer out = ByteBuffer.allocate(6).order(ByteOrder.LITTLE_ENDIAN);
            out.putInt(6 << 2).putShort((short) sign);
            return out.array();
        }
        if ((sign != NUMERIC_POS && sign != NUMERIC_NEG) || dscale < 0 || dscale > NUMERIC_DSCALE_MASK) {
            return null;
        }
        int size = 4 + 2 + 2 + 2 * ndigits;
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(size << 2);
        out.putShort((short) (sign | (dscale & NUMERIC_DSCALE_MASK)));
        out.putShort(ndigits == 0 ? 0 : weight);
        for (int i = 0; i < ndigits; i++) {
            short d = in.getShort();
            if (d < 0 || d >= NBASE) {
                return null;
            }
            out.putShort(d);
        }
        return out.array();
    }
}
