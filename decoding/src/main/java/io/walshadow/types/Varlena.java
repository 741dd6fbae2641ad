package io.walshadow.types;

import io.walshadow.compress.Pglz;
import io.walshadow.wal.Bytes;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Varlena headers (postgres.h / varatt.h): a 1-byte header ({@code (b & 1) == 1}, length {@code b >> 1} including
 * it), the external TOAST pointer ({@code b == 0x01}), or a 4-byte header ({@code (w & 3) == 0} plain, {@code == 2}
 * inline-compressed, length {@code w >>> 2}). Little-endian layout, as on x86-64 and arm64.
 */
public final class Varlena {
    private static final LZ4SafeDecompressor LZ4 = LZ4Factory.fastestInstance().safeDecompressor();
    /** Neither pglz nor lz4 expands by more than this factor; a larger raw size means a corrupt header. */
    private static final int MAX_EXPANSION = 256;

    private Varlena() {}

    /** Bytes the varlena at {@code off} occupies (VARSIZE_ANY), checked against {@code avail}. */
    static int sizeAny(byte[] b, int off, int avail) {
        if (avail < 1) {
            throw new MalformedDatumException("varlena expected, no bytes left");
        }
        int b0 = b[off] & 0xFF;
        int size;
        if (b0 == 0x01) {
            if (avail >= 2 && (b[off + 1] & 0xFF) != ToastPointer.VARTAG_ONDISK) {
                ToastPointer.parse(b, off, avail); // throws, naming the vartag
            }
            size = ToastPointer.DATUM_SIZE;
        } else if ((b0 & 0x01) == 0x01) {
            size = b0 >>> 1;
        } else {
            if (avail < 4) {
                throw new MalformedDatumException("truncated 4-byte varlena header: " + avail + " byte(s)");
            }
            size = Bytes.int32(b, off) >>> 2;
            if (size < 4) {
                throw new MalformedDatumException("4-byte varlena header with size " + size);
            }
        }
        if (size > avail) {
            throw new MalformedDatumException("varlena of " + size + " bytes but only " + avail + " available");
        }
        return size;
    }

    /**
     * The value's content: a {@link Datum} slice of its payload (header stripped; decompressed into a new buffer
     * when inline-compressed), or a {@link ToastPointer} for an external value.
     */
    public static Object payload(byte[] b, int off, int avail) {
        int size = sizeAny(b, off, avail);
        int b0 = b[off] & 0xFF;
        if (b0 == 0x01) {
            return ToastPointer.parse(b, off, avail);
        }
        if ((b0 & 0x01) == 0x01) {
            return new Datum(b, off + 1, size - 1);
        }
        if ((b0 & 0x03) == 0x00) {
            return new Datum(b, off + 4, size - 4);
        }
        // (b0 & 3) == 2: inline compressed, va_tcinfo follows the header
        if (size < 8) {
            throw new MalformedDatumException("compressed varlena of " + size + " bytes");
        }
        int tcinfo = Bytes.int32(b, off + 4);
        int rawSize = tcinfo & 0x3FFFFFFF;
        int method = tcinfo >>> 30;
        int srcLen = size - 8;
        if ((long) rawSize > (long) srcLen * MAX_EXPANSION + 64) {
            throw new MalformedDatumException("compressed varlena claims " + rawSize + " raw bytes from " + srcLen);
        }
        byte[] dst = new byte[rawSize];
        switch (method) {
            case 0 -> {
                try {
                    Pglz.decompress(b, off + 8, srcLen, dst, 0, rawSize, true);
                } catch (Pglz.CorruptDataException e) {
                    throw new MalformedDatumException("corrupt pglz-compressed value: " + e.getMessage(), e);
                }
            }
            case 1 -> {
                int n;
                try {
                    n = LZ4.decompress(b, off + 8, srcLen, dst, 0, rawSize);
                } catch (LZ4Exception e) {
                    throw new MalformedDatumException("corrupt lz4-compressed value: " + e.getMessage(), e);
                }
                if (n != rawSize) {
                    throw new MalformedDatumException("lz4-compressed value decoded to " + n + " of " + rawSize
                            + " bytes");
                }
            }
            default -> throw new MalformedDatumException("compressed varlena with method id " + method);
        }
        return new Datum(dst, 0, rawSize);
    }
}
