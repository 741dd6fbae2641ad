package io.walshadow.wal;

/**
 * The WAL layout facts that differ between PostgreSQL major versions, for READING WAL: page magic, the record and
 * block headers' flag bits, the built-in resource managers (their record type names per major are in
 * {@link Rmgrs}). Only versions whose layouts were checked against that version's sources and real WAL
 * ({@code WalinspectParityIT}) are listed; anything else is refused rather than guessed.
 *
 * <p>Per major, from each {@code REL_NN_STABLE} branch: {@code XLOG_PAGE_MAGIC} in
 * {@code src/include/access/xlog_internal.h}; the {@code XLogRecord} / {@code XLogRecordBlockHeader} /
 * {@code XLogRecordBlockImageHeader} layout and the {@code BKPIMAGE_*} bits in
 * {@code src/include/access/xlogrecord.h}; the rmgr ids in {@code src/include/access/rmgrlist.h}. The record and
 * block header layouts (24-byte XLogRecord, block ids 0..32, 252 toplevel xid, 253 origin, 254/255 main data,
 * the 12-byte RelFileNode of 14/15 renamed RelFileLocator in 16 with the same three oids) and the rmgr ids
 * (LogicalMessage = 21, the last, since 14) are the same in 14..18. What differs: the page magic, and 14's
 * {@code bimg_info} (one {@code BKPIMAGE_IS_COMPRESSED} bit, pglz only, and {@code BKPIMAGE_APPLY} at 0x04;
 * 15 made it per-method bits with APPLY at 0x02).
 *
 * <p>Reading is not replicating: the job decodes row changes only from the majors {@link #replicated}
 * ({@link #forReplication}), each proven on a server of its own by the catalog-shadow, value-decoder and end-to-end
 * tests ({@code deploy/local/test-majors.sh}); record bodies that differ between majors are read per major where
 * they are parsed ({@code XLogRecord.format()}). All of 14..18 are replicated. 14's row and catalog records are 15's
 * (REL_14_STABLE heapam_xlog.h: the same xl_heap_insert / _delete / _update / _multi_insert / _inplace, and 14
 * introduced the PRUNE {latestRemovedXid, nredirected, ndead} / VACUUM {nunused} pair 15 kept); what differs is
 * parsed per major: 14's xact records carry no dropped-stats items ({@code XactRecordParser}), its catalogs' columns
 * are read by name from its own pg_attribute ({@code CatalogLayout}).
 */
public enum WalFormat {
    // major, XLOG_PAGE_MAGIC, last built-in rmgr, BKPIMAGE_HAS_HOLE, _APPLY, pglz, lz4, zstd, replicated
    PG14(14, 0xD10D, 21, 0x01, 0x04, 0x02, 0, 0, true),
    PG15(15, 0xD110, 21, 0x01, 0x02, 0x04, 0x08, 0x10, true),
    PG16(16, 0xD113, 21, 0x01, 0x02, 0x04, 0x08, 0x10, true),
    PG17(17, 0xD116, 21, 0x01, 0x02, 0x04, 0x08, 0x10, true),
    PG18(18, 0xD118, 21, 0x01, 0x02, 0x04, 0x08, 0x10, true);

    /** WAL page magics of majors we recognise but do not read, so the error can name the version. */
    private static final int[][] KNOWN_UNSUPPORTED_MAGICS = {{12, 0xD101}, {13, 0xD106}};

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
    /** The job replicates this major (heap decode, catalog and types checked on it), not only reads its WAL. */
    public final boolean replicated;

    WalFormat(int major, int pageMagic, int maxBuiltinRmgrId, int hasHole, int apply, int pglz, int lz4, int zstd,
              boolean replicated) {
        this.major = major;
        this.pageMagic = pageMagic;
        this.maxBuiltinRmgrId = maxBuiltinRmgrId;
        this.bkpImageHasHole = hasHole;
        this.bkpImageApply = apply;
        this.bkpImageCompressPglz = pglz;
        this.bkpImageCompressLz4 = lz4;
        this.bkpImageCompressZstd = zstd;
        this.replicated = replicated;
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

    /**
     * As {@link #forServerVersionNum}, for the job: also refuses, by name, a major whose WAL can be read but whose
     * row changes the job does not decode yet.
     */
    public static WalFormat forReplication(int serverVersionNum) {
        WalFormat f = forServerVersionNum(serverVersionNum);
        if (!f.replicated) {
            throw new UnsupportedServerVersionException("PostgreSQL " + f.major + " (server_version_num "
                    + serverVersionNum + "): reading its WAL is supported, replicating it is not yet; the job"
                    + " replicates PostgreSQL " + replicatedMajors());
        }
        return f;
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

    public static String replicatedMajors() {
        StringBuilder sb = new StringBuilder();
        for (WalFormat f : values()) {
            if (f.replicated) {
                sb.append(sb.length() > 0 ? ", " : "").append(f.major);
            }
        }
        return sb.toString();
    }

    /** A server major version the decoder has no verified layout for, or that the job does not replicate. */
    public static final class UnsupportedServerVersionException extends RuntimeException {
        public UnsupportedServerVersionException(String message) {
            super(message);
        }
    }
}
