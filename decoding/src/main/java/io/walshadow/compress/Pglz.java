package io.walshadow.compress;

/**
 * Decompressor for PostgreSQL's built-in LZ format (pg_lzcompress.c), used by full-page images and by
 * compressed varlena values. Written from the format's description: a control byte announces eight items, each
 * a literal byte (bit 0) or a back-reference (bit 1) of 2-3 bytes: length 3..273, offset 1..4095.
 */
public final class Pglz {
    private Pglz() {}

    /** Thrown for input that is not valid pglz data, or that does not decode to the expected size. */
    public static final class CorruptDataException extends RuntimeException {
        public CorruptDataException(String message) {
            super(message);
        }
    }

    /**
     * Decompresses {@code src[srcOff, srcOff+srcLen)} into {@code dst[dstOff, dstOff+rawSize)}.
     *
     * @param checkComplete require that the input is consumed exactly and the output filled exactly (full-page
     *     images and whole values); false allows a prefix decode (slices)
     * @return number of bytes written
     */
    public static int decompress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int rawSize,
                                 boolean checkComplete) {
        int sp = srcOff;
        final int srcEnd = srcOff + srcLen;
        int dp = dstOff;
        final int dstEnd = dstOff + rawSize;
        while (sp < srcEnd && dp < dstEnd) {
            int ctrl = src[sp++] & 0xFF;
            for (int bit = 0; bit < 8 && sp < srcEnd && dp < dstEnd; bit++, ctrl >>= 1) {
                if ((ctrl & 1) == 0) {
                    dst[dp++] = src[sp++];
                    continue;
                }
                if (srcEnd - sp < 2) {
                    throw new CorruptDataException("pglz back-reference truncated at input offset " + (sp - srcOff));
                }
                int b0 = src[sp] & 0xFF;
                int len = (b0 & 0x0F) + 3;
                int off = ((b0 & 0xF0) << 4) | (src[sp + 1] & 0xFF);
                sp += 2;
                if (len == 18) {
                    if (sp >= srcEnd) {
                        throw new CorruptDataException("pglz extended length truncated at input offset " + (sp - srcOff));
                    }
                    len += src[sp++] & 0xFF;
                }
                if (off == 0 || off > dp - dstOff) {
                    throw new CorruptDataException("pglz back-reference offset " + off + " outside the "
                            + (dp - dstOff) + " bytes written so far");
                }
                len = Math.min(len, dstEnd - dp);
                // Overlapping copy is intended: it repeats the last 'off' bytes.
                if (off >= len) {
                    System.arraycopy(dst, dp - off, dst, dp, len);
                    dp += len;
                } else {
                    for (int i = 0; i < len; i++, dp++) {
                        dst[dp] = dst[dp - off];
                    }
                }
            }
        }
        if (checkComplete && (dp != dstEnd || sp != srcEnd)) {
            throw new CorruptDataException("pglz data decoded to " + (dp - dstOff) + " of " + rawSize
                    + " bytes using " + (sp - srcOff) + " of " + srcLen + " input bytes");
        }
        return dp - dstOff;
    }
}
