package io.walshadow.types;

import io.walshadow.wal.Bytes;

/**
 * An on-disk external TOAST pointer ({@code varatt_external}, vartag {@code VARTAG_ONDISK}): the value lives in the
 * TOAST relation {@code toastRelOid} as chunks with {@code chunk_id = valueId}. Decoding returns this instead of a
 * value; the TOAST stage fetches the chunks, concatenates them in {@code chunk_seq} order, and decodes
 * {@link #toVarlena(byte[])} of the result.
 *
 * @param valueId va_valueid (an oid: compare unsigned)
 * @param toastRelOid va_toastrelid, the TOAST table's pg_class oid (the table's reltoastrelid when written)
 * @param rawSize va_rawsize: size of the original, uncompressed value including its 4-byte varlena header
 * @param externalSize the number of bytes stored in the TOAST table (low 30 bits of va_extinfo)
 * @param compression how the stored bytes are compressed
 */
public record ToastPointer(int valueId, int toastRelOid, int rawSize, int externalSize, Compression compression) {
    /** VARTAG_ONDISK. */
    public static final int VARTAG_ONDISK = 18;
    /** Bytes of an on-disk TOAST pointer datum: 0x01, the vartag, and the 16-byte varatt_external. */
    public static final int DATUM_SIZE = 2 + 16;

    public enum Compression {
        NONE, PGLZ, LZ4
    }

    public boolean isCompressed() {
        return compression != Compression.NONE;
    }

    /** Size of the value's payload once detoasted and decompressed (rawSize minus the 4-byte header). */
    public int payloadSize() {
        return rawSize - 4;
    }

    /**
     * Rebuilds the in-line datum the TOAST chunks stand for, ready for {@link ValueDecoder#decode}: a 4-byte varlena
     * header (flagged compressed when the value is) followed by the concatenated chunk data, which for a compressed
     * value begins with its va_tcinfo word.
     *
     * @throws MalformedDatumException if the data is not {@link #externalSize()} bytes long
     */
    public byte[] toVarlena(byte[] chunkData) {
        if (chunkData.length != externalSize) {
            throw new MalformedDatumException("TOAST value " + Integer.toUnsignedString(valueId) + " in relation "
                    + Integer.toUnsignedString(toastRelOid) + ": chunks hold " + chunkData.length
                    + " bytes, the pointer says " + externalSize);
        }
        byte[] out = new byte[4 + chunkData.length];
        int size = out.length;
        Bytes.putInt32(out, 0, isCompressed() ? (size << 2) | 0x02 : size << 2);
        System.arraycopy(chunkData, 0, out, 4, chunkData.length);
        return out;
    }

    /** Parses the 18-byte pointer datum at {@code off} (its first byte is 0x01). */
    static ToastPointer parse(byte[] b, int off, int avail) {
        if (avail < 2) {
            throw new MalformedDatumException("truncated external varlena: " + avail + " byte(s)");
        }
        int tag = b[off + 1] & 0xFF;
        if (tag != VARTAG_ONDISK) {
            throw new MalformedDatumException("external varlena with vartag " + tag
                    + " (only VARTAG_ONDISK=18 appears on disk; indirect/expanded pointers are in-memory only)");
        }
        if (avail < DATUM_SIZE) {
            throw new MalformedDatumException("truncated TOAST pointer: " + avail + " of " + DATUM_SIZE + " bytes");
        }
        int p = off + 2;
        int rawSize = Bytes.int32(b, p);
        int extInfo = Bytes.int32(b, p + 4);
        int valueId = Bytes.int32(b, p + 8);
        int toastRelOid = Bytes.int32(b, p + 12);
        int extSize = extInfo & 0x3FFFFFFF;
        if (rawSize < 4 || extSize < 0) {
            throw new MalformedDatumException("TOAST pointer with va_rawsize " + rawSize);
        }
        Compression c = Compression.NONE;
        // VARATT_EXTERNAL_IS_COMPRESSED: stored size smaller than the raw payload
        if (extSize < rawSize - 4) {
            int method = extInfo >>> 30;
            c = switch (method) {
                case 0 -> Compression.PGLZ;
                case 1 -> Compression.LZ4;
                default -> throw new MalformedDatumException("TOAST pointer with compression method id " + method);
            };
        }
        return new ToastPointer(valueId, toastRelOid, rawSize, extSize, c);
    }
}
