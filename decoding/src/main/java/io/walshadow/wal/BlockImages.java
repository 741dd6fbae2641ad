package io.walshadow.wal;

import static io.walshadow.wal.WalDecodeException.Kind.IMAGE_DECOMPRESSION;

import io.walshadow.compress.Pglz;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/** Restores full-page images to whole 8 kB pages (RestoreBlockImage): decompression, then the zeroed hole. */
public final class BlockImages {
    private static final LZ4SafeDecompressor LZ4 = LZ4Factory.fastestInstance().safeDecompressor();

    private BlockImages() {}

    /** True if the image must be applied on replay (not only kept for wal_consistency_checking). */
    public static boolean isApply(WalFormat format, BlockRef block) {
        return (block.bimgInfo() & format.bkpImageApply) != 0;
    }

    /** Compression method name as pg_waldump prints it: "pglz", "lz4", "zstd" or "none". */
    public static String compression(WalFormat format, BlockRef block) {
        int i = block.bimgInfo();
        if ((i & format.bkpImageCompressPglz) != 0) {
            return "pglz";
        } else if ((i & format.bkpImageCompressLz4) != 0) {
            return "lz4";
        } else if ((i & format.bkpImageCompressZstd) != 0) {
            return "zstd";
        }
        return "none";
    }

    /** The page as it was written, {@value XLogRecordDecoder#BLCKSZ} bytes. {@code lsn} names the record for errors. */
    public static byte[] restore(WalFormat format, long lsn, BlockRef block) {
        if (!block.hasImage()) {
            throw new IllegalArgumentException("block " + block.id() + " of " + Lsn.format(lsn) + " has no image");
        }
        byte[] src = block.recordBytes();
        int stored = XLogRecordDecoder.BLCKSZ - block.holeLength();
        byte[] body;
        int bodyOff;
        String method = compression(format, block);
        switch (method) {
            case "none" -> {
                body = src;
                bodyOff = block.imageOffset();
            }
            case "pglz" -> {
                body = new byte[stored];
                bodyOff = 0;
                try {
                    Pglz.decompress(src, block.imageOffset(), block.imageLength(), body, 0, stored, true);
                } catch (Pglz.CorruptDataException e) {
                    throw new WalDecodeException(IMAGE_DECOMPRESSION, lsn, "block " + block.id() + ": " + e.getMessage(), e);
                }
            }
            case "lz4" -> {
                body = new byte[stored];
                bodyOff = 0;
                int n;
                try {
                    n = LZ4.decompress(src, block.imageOffset(), block.imageLength(), body, 0, stored);
                } catch (LZ4Exception e) {
                    throw new WalDecodeException(IMAGE_DECOMPRESSION, lsn, "block " + block.id() + ": invalid lz4 image", e);
                }
                if (n != stored) {
                    throw new WalDecodeException(IMAGE_DECOMPRESSION, lsn, "block " + block.id()
                            + ": lz4 image decompressed to " + n + " bytes, expected " + stored);
                }
            }
            default -> throw new WalDecodeException(IMAGE_DECOMPRESSION, lsn, "block " + block.id()
                    + ": image compressed with " + method + ", which this build cannot decompress"
                    + " (no zstd library among the project's dependencies); use wal_compression=lz4 or pglz");
        }
        byte[] page = new byte[XLogRecordDecoder.BLCKSZ];
        int holeOff = block.holeOffset();
        int holeLen = block.holeLength();
        if (holeLen == 0) {
            System.arraycopy(body, bodyOff, page, 0, XLogRecordDecoder.BLCKSZ);
        } else {
            System.arraycopy(body, bodyOff, page, 0, holeOff);
            System.arraycopy(body, bodyOff + holeOff, page, holeOff + holeLen, XLogRecordDecoder.BLCKSZ - holeOff - holeLen);
        }
        return page;
    }
}
