package io.walshadow.wal;

import static io.walshadow.wal.WalDecodeException.Kind.INVALID_BLOCK_REFERENCE;
import static io.walshadow.wal.WalDecodeException.Kind.TRUNCATED_RECORD;

import java.util.Collections;
import java.util.List;

/**
 * Splits a record's payload into block references, origin, top-level xid and main data, with the consistency
 * checks of {@code DecodeXLogRecord} in xlogreader.c. The CRC has been verified before this runs, so a failure
 * here means a record PostgreSQL would also refuse (or a writer bug), never a torn read.
 */
final class XLogRecordDecoder {
    static final int BLCKSZ = 8192;
    static final int XLR_MAX_BLOCK_ID = 32;
    static final int XLR_BLOCK_ID_DATA_SHORT = 255;
    static final int XLR_BLOCK_ID_DATA_LONG = 254;
    static final int XLR_BLOCK_ID_ORIGIN = 253;
    static final int XLR_BLOCK_ID_TOPLEVEL_XID = 252;

    private XLogRecordDecoder() {}

    /**
     * Per-reader scratch space for the block headers of one record, so that decoding allocates only what the
     * record keeps (its {@link BlockRef}s). Not thread-safe: one per {@link XLogStreamReader}.
     */
    static final class Scratch {
        static final int FIELDS = 8;
        // per block: {id, forkFlags, dataLen, bimgLen, holeOffset, holeLength, bimgInfo, blkno}
        final int[] headers = new int[(XLR_MAX_BLOCK_ID + 1) * FIELDS];
        final RelFileLocator[] rels = new RelFileLocator[XLR_MAX_BLOCK_ID + 1];
        /**
         * Relations seen recently, by relfilenode modulo the size: records keep naming the same few relations (a
         * table and its indexes), and RelFileLocator is immutable, so they can share one object each.
         */
        final RelFileLocator[] recentRels = new RelFileLocator[16];

        RelFileLocator rel(int spc, int db, int rel) {
            int slot = rel & (recentRels.length - 1);
            RelFileLocator r = recentRels[slot];
            if (r == null || r.relNumber() != rel || r.dbOid() != db || r.spcOid() != spc) {
                r = new RelFileLocator(spc, db, rel);
                recentRels[slot] = r;
            }
            return r;
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    static XLogRecord decode(WalFormat format, long lsn, long endLsn, byte[] rec) {
        return decode(format, lsn, endLsn, rec, SCRATCH.get());
    }

    static XLogRecord decode(WalFormat format, long lsn, long endLsn, byte[] rec, Scratch scratch) {
        final int total = rec.length;
        int pos = XLogRecord.SIZE_OF_HEADER;
        int dataTotal = 0;
        int mainDataLen = 0;
        int origin = XLogRecord.INVALID_ORIGIN;
        int toplevelXid = 0;
        int maxBlockId = -1;
        RelFileLocator lastRel = null;

        // Block headers in order; their payloads follow all headers, in the same order. Block ids strictly
        // increase and are at most XLR_MAX_BLOCK_ID, so there are at most XLR_MAX_BLOCK_ID + 1 of them.
        final int[] headers = scratch.headers;
        final RelFileLocator[] rels = scratch.rels;
        int nblocks = 0;

        while (total - pos > dataTotal) {
            int blockId = need(rec, pos, 1, lsn, "block id", -1);
            pos += 1;
            if (blockId == XLR_BLOCK_ID_DATA_SHORT) {
                need(rec, pos, 1, lsn, "short main data length", -1);
                mainDataLen = Bytes.uint8(rec, pos);
                pos += 1;
                dataTotal += mainDataLen;
                break; // main data is always last
            } else if (blockId == XLR_BLOCK_ID_DATA_LONG) {
                need(rec, pos, 4, lsn, "long main data length", -1);
                mainDataLen = Bytes.int32(rec, pos);
                pos += 4;
                if (mainDataLen < 0) {
                    throw new WalDecodeException(TRUNCATED_RECORD, lsn, "main data length " + Integer.toUnsignedString(mainDataLen) + " exceeds record");
                }
                dataTotal += mainDataLen;
                break;
            } else if (blockId == XLR_BLOCK_ID_ORIGIN) {
                need(rec, pos, 2, lsn, "origin", -1);
                origin = Bytes.uint16(rec, pos);
                pos += 2;
            } else if (blockId == XLR_BLOCK_ID_TOPLEVEL_XID) {
                need(rec, pos, 4, lsn, "toplevel xid", -1);
                toplevelXid = Bytes.int32(rec, pos);
                pos += 4;
            } else if (blockId <= XLR_MAX_BLOCK_ID) {
                if (blockId <= maxBlockId) {
                    throw new WalDecodeException(INVALID_BLOCK_REFERENCE, lsn, "out-of-order block_id " + blockId);
                }
                maxBlockId = blockId;
                need(rec, pos, 3, lsn, "header", blockId);
                int forkFlags = Bytes.uint8(rec, pos);
                int dataLen = Bytes.uint16(rec, pos + 1);
                pos += 3;
                boolean hasData = (forkFlags & BlockRef.BKPBLOCK_HAS_DATA) != 0;
                if (hasData && dataLen == 0) {
                    throw new WalDecodeException(INVALID_BLOCK_REFERENCE, lsn, "BKPBLOCK_HAS_DATA set, but no data included");
                }
                if (!hasData && dataLen != 0) {
                    throw new WalDecodeException(INVALID_BLOCK_REFERENCE, lsn, "BKPBLOCK_HAS_DATA not set, but data length is " + dataLen);
                }
                dataTotal += dataLen;
                int bimgLen = 0, holeOffset = 0, holeLength = 0, bimgInfo = 0;
                if ((forkFlags & BlockRef.BKPBLOCK_HAS_IMAGE) != 0) {
                    need(rec, pos, 5, lsn, "image header", blockId);
                    bimgLen = Bytes.uint16(rec, pos);
                    holeOffset = Bytes.uint16(rec, pos + 2);
                    bimgInfo = Bytes.uint8(rec, pos + 4);
                    pos += 5;
                    boolean hasHole = (bimgInfo & format.bkpImageHasHole) != 0;
                    boolean compressed = format.isCompressed(bimgInfo);
                    if (compressed) {
                        if (hasHole) {
                            need(rec, pos, 2, lsn, "hole length", blockId);
                            holeLength = Bytes.uint16(rec, pos);
                            pos += 2;
                        }
                    } else {
                        holeLength = BLCKSZ - bimgLen;
                    }
                    dataTotal += bimgLen;
                    if (hasHole && (holeOffset == 0 || holeLength == 0 || bimgLen == BLCKSZ)) {
                        throw new WalDecodeException(INVALID_BLOCK_REFERENCE, lsn, String.format(
                                "BKPIMAGE_HAS_HOLE set, but hole offset %d length %d block image length %d",
                                holeOffset, holeLength, bimgLen));
                    }
                    if (!hasHole && (holeOffset != 0 || holeLength != 0)) {
                        throw new WalDecodeException(INVALID_BLOCK_REFERENCE, lsn, String.format(
                                "BKPIMAGE_HAS_HOLE not set, but hole offset %d length %d", holeOffset, holeLength));
                    }
                    if (compressed && bimgLen == BLCKSZ) {
                        throw new WalDecodeException(INVALID_BLOCK_REFERENCE, lsn,
                                "BKPIMAGE_COMPRESSED set, but block image length " + bimgLen);
                    }
                    if (!hasHole && !compressed && bimgLen != BLCKSZ) {
                        throw new WalDecodeException(INVALID_BLOCK_REFERENCE, lsn,
                                "neither BKPIMAGE_HAS_HOLE nor BKPIMAGE_COMPRESSED set, but block image length is " + bimgLen);
                    }
                }
                RelFileLocator rel;
                if ((forkFlags & BlockRef.BKPBLOCK_SAME_REL) == 0) {
                    need(rec, pos, 12, lsn, "relfilelocator", blockId);
                    rel = scratch.rel(Bytes.int32(rec, pos), Bytes.int32(rec, pos + 4), Bytes.int32(rec, pos + 8));
                    pos += 12;
                    lastRel = rel;
                } else {
                    if (lastRel == null) {
                        throw new WalDecodeException(INVALID_BLOCK_REFERENCE, lsn, "BKPBLOCK_SAME_REL set but no previous rel");
                    }
                    rel = lastRel;
                }
                need(rec, pos, 4, lsn, "block number", blockId);
                int blkno = Bytes.int32(rec, pos);
                pos += 4;
                int h = nblocks * Scratch.FIELDS;
                headers[h] = blockId;
                headers[h + 1] = forkFlags;
                headers[h + 2] = dataLen;
                headers[h + 3] = bimgLen;
                headers[h + 4] = holeOffset;
                headers[h + 5] = holeLength;
                headers[h + 6] = bimgInfo;
                headers[h + 7] = blkno;
                rels[nblocks] = rel;
                nblocks++;
            } else {
                throw new WalDecodeException(INVALID_BLOCK_REFERENCE, lsn, "invalid block_id " + blockId);
            }
        }
        if (total - pos != dataTotal) {
            throw new WalDecodeException(TRUNCATED_RECORD, lsn, String.format(
                    "record length %d leaves %d bytes after headers, but headers announce %d",
                    total, total - pos, dataTotal));
        }

        List<BlockRef> blocks;
        int fpiLen = 0;
        if (nblocks == 0) {
            blocks = Collections.emptyList();
        } else if (nblocks == 1) { // the common case: no array
            int imageOffset = 0;
            if ((headers[1] & BlockRef.BKPBLOCK_HAS_IMAGE) != 0) {
                imageOffset = pos;
                pos += headers[3];
                fpiLen = headers[3];
            }
            int dataOffset = pos;
            pos += headers[2];
            blocks = List.of(new BlockRef(rec, headers[0], headers[1], rels[0], headers[7], dataOffset, headers[2],
                    imageOffset, headers[3], headers[4], headers[5], headers[6]));
        } else {
            BlockRef[] arr = new BlockRef[nblocks];
            for (int i = 0; i < nblocks; i++) {
                int h = i * Scratch.FIELDS;
                int imageOffset = 0;
                if ((headers[h + 1] & BlockRef.BKPBLOCK_HAS_IMAGE) != 0) {
                    imageOffset = pos;
                    pos += headers[h + 3];
                    fpiLen += headers[h + 3];
                }
                int dataOffset = pos;
                pos += headers[h + 2];
                arr[i] = new BlockRef(rec, headers[h], headers[h + 1], rels[i], headers[h + 7], dataOffset,
                        headers[h + 2], imageOffset, headers[h + 3], headers[h + 4], headers[h + 5], headers[h + 6]);
            }
            blocks = List.of(arr);
        }
        return new XLogRecord(format, lsn, endLsn, rec, blocks, pos, mainDataLen, origin, toplevelXid, fpiLen);
    }

    /**
     * COPY_HEADER_FIELD's length check: returns the first byte for convenience. The message is only built on
     * failure ({@code blockId} >= 0 prefixes "block N").
     */
    private static int need(byte[] rec, int pos, int n, long lsn, String what, int blockId) {
        if (rec.length - pos < n) {
            throw new WalDecodeException(TRUNCATED_RECORD, lsn, "record ends inside "
                    + (blockId >= 0 ? "block " + blockId + " " + what : what)
                    + " (offset " + pos + ", record length " + rec.length + ")");
        }
        return rec[pos] & 0xFF;
    }
}
