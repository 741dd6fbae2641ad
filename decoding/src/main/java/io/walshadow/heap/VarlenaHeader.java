package io.walshadow.heap;

import io.walshadow.wal.Bytes;

/**
 * On-disk varlena headers (varatt.h, little-endian layout), as {@code VARATT_IS_*} and {@code VARSIZE_ANY} read
 * them. Datum slices of varlena attributes start at the header.
 */
public final class VarlenaHeader {
    /** The on-disk forms a varlena datum can take in a heap tuple. */
    public enum Kind {
        /** 1-byte header, uncompressed, up to 126 data bytes (VARATT_IS_1B and not 1B_E). */
        SHORT,
        /** 4-byte header, uncompressed (VARATT_IS_4B_U). */
        PLAIN,
        /** 4-byte header, compressed inline (VARATT_IS_4B_C): then va_tcinfo (raw size, method), then data. */
        COMPRESSED,
        /** TOAST pointer (VARATT_IS_EXTERNAL_ONDISK): 0x01, tag 18, varatt_external (16 bytes). */
        EXTERNAL_ONDISK
    }

    public static final int VARTAG_INDIRECT = 1;
    public static final int VARTAG_EXPANDED_RO = 2;
    public static final int VARTAG_EXPANDED_RW = 3;
    public static final int VARTAG_ONDISK = 18;
    /** VARHDRSZ_EXTERNAL + sizeof(varatt_external). */
    public static final int EXTERNAL_ONDISK_SIZE = 2 + 16;

    private VarlenaHeader() {}

    /**
     * The kind of the varlena at {@code b[off]}, or null when it cannot be one in a stored tuple (an in-memory
     * indirect/expanded pointer, or an external pointer with an unknown tag).
     */
    public static Kind kind(byte[] b, int off) {
        int b0 = b[off] & 0xFF;
        if (b0 == 0x01) {
            return off + 1 < b.length && (b[off + 1] & 0xFF) == VARTAG_ONDISK ? Kind.EXTERNAL_ONDISK : null;
        }
        if ((b0 & 0x01) == 0x01) {
            return Kind.SHORT;
        }
        return (b0 & 0x03) == 0x02 ? Kind.COMPRESSED : (b0 & 0x03) == 0x00 ? Kind.PLAIN : null;
    }

    /**
     * VARSIZE_ANY of the varlena at {@code b[off]} (header included), or -1 if the header is not a stored form
     * (see {@link #kind}) or claims more than {@code avail} bytes or less than its own header.
     */
    public static int size(byte[] b, int off, int avail) {
        if (avail < 1) {
            return -1;
        }
        int b0 = b[off] & 0xFF;
        int size;
        if (b0 == 0x01) {
            if (avail < 2 || (b[off + 1] & 0xFF) != VARTAG_ONDISK) {
                return -1;
            }
            size = EXTERNAL_ONDISK_SIZE;
        } else if ((b0 & 0x01) == 0x01) {
            size = (b0 >>> 1) & 0x7F;
            if (size < 1) {
                return -1;
            }
        } else {
            if (avail < 4) {
                return -1;
            }
            size = (Bytes.int32(b, off) >>> 2) & 0x3FFFFFFF;
            if (size < 4 || ((b0 & 0x03) == 0x02 && size < 8)) {
                return -1;
            }
        }
        return size <= avail ? size : -1;
    }

    /** Header bytes before the payload of an inline varlena: 1 (SHORT), 4 (PLAIN), 8 (COMPRESSED: + va_tcinfo). */
    public static int headerSize(Kind kind) {
        return switch (kind) {
            case SHORT -> 1;
            case PLAIN -> 4;
            case COMPRESSED -> 8;
            case EXTERNAL_ONDISK -> 2;
        };
    }
}
