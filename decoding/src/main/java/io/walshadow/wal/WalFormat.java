package io.walshadow.wal;

/**
 * The WAL layout facts that differ between PostgreSQL major versions. Only versions whose layouts were checked
 * against that version's sources are listed; anything else is refused rather than guessed, because a wrong
 * guess here would turn into silently wrong rows downstream.
 *
 * <p>Adding 16 or 17 means adding an entry after reading that branch's {@code xlog_internal.h},
 * {@code xlogrecord.h} and {@code heapam_xlog.h}: the page magic changes every major version.
 */
public enum WalFormat {
    PG15(15, 0xD110, 21, 0x01, 0x02, 0x04, 0x08, 0x10);

    /** WAL page magics of majors we recognise but do not decode, so the error can name the version. */
    private static final int[][] KNOWN_UNSUPPORTED_MAGICS = {
        {12, 0xD101}, {13, 0xD106}, {14, 0xD10D}, {16, 0xD113}, {17, 0xD116}
    };

    public final int major;
    public final int pageMagic;
    /** Highest built-in resource manager id; ids above it up to 127 are invalid, 128..255 are custom rmgrs. */
    public final int maxBuiltinRmgrId;
    // bimg_info bits (xlogrecord.h)
    public final int bkpImageHasHole;
    public final int bkpImageApply;
    public final int bkpImageCompressPglz;
    public final int bkpImageCompressLz4;
    public final int bkpImageCompressZstd;

    WalFormat(int major, int pageMagic, int maxBuiltinRmgrId, int hasHole, int apply, int pglz, int lz4, int zstd) {
        this.major = major;
        this.pageMagic = pageMagic;
        this.maxBuiltinRmgrId = maxBuiltinRmgrId;
        this.bkpImageHasHole = hasHole;
        this.bkpImageApply = apply;
        this.bkpImageCompressPglz = pglz;
        this.bkpImageCompressLz4 = lz4;
        this.bkpImageCompressZstd = zstd;
    }

    public boolean isCompressed(int bimgInfo) {
        return (bimgInfo & (bkpImageCompressPglz | bkpImageCompressLz4 | bkpImageCompressZstd)) != 0;
    }

    public boolean isValidRmgr(int rmid) {
        return rmid <= maxBuiltinRmgrId || rmid >= 128;
    }

    /** From {@code server_version_num} (e.g. 150018). */
    public static WalFormat forServerVersionNum(int serverVersionNum) {
        int major = serverVersionNum / 10000;
        for (WalFormat f : values()) {
            if (f.major == major) {
                return f;
            }
        }
        throw new UnsupportedServerVersionException("PostgreSQL server_version_num " + serverVersionNum
                + " (major " + major + ") is not supported; supported majors: " + supportedMajors());
    }

    /** From a major version number (as stored in state and serialized records). */
    public static WalFormat forMajor(int major) {
        for (WalFormat f : values()) {
            if (f.major == major) {
                return f;
            }
        }
        throw new UnsupportedServerVersionException("PostgreSQL major " + major
                + " is not supported; supported majors: " + supportedMajors());
    }

    /** From the magic of a WAL page header; {@code lsn} names the page for the error. */
    public static WalFormat forPageMagic(int magic, long lsn) {
        for (WalFormat f : values()) {
            if (f.pageMagic == magic) {
                return f;
            }
        }
        for (int[] known : KNOWN_UNSUPPORTED_MAGICS) {
            if (known[1] == magic) {
                throw new WalDecodeException(WalDecodeException.Kind.UNSUPPORTED_VERSION, lsn, String.format(
                        "WAL page magic 0x%04X is PostgreSQL %d, which is not supported; supported majors: %s",
                        magic, known[0], supportedMajors()));
            }
        }
        throw new WalDecodeException(WalDecodeException.Kind.INVALID_PAGE_HEADER, lsn,
                String.format("invalid WAL page magic 0x%04X", magic));
    }

    public static String supportedMajors() {
        StringBuilder sb = new StringBuilder();
        for (WalFormat f : values()) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(f.major);
        }
        return sb.toString();
    }

    /** A server major version the decoder has no verified layout for. */
    public static final class UnsupportedServerVersionException extends RuntimeException {
        public UnsupportedServerVersionException(String message) {
            super(message);
        }
    }
}
