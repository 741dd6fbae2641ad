package io.walshadow.wal;

import static io.walshadow.wal.WalDecodeException.Kind.INVALID_BLOCK_REFERENCE;
import static io.walshadow.wal.WalDecodeException.Kind.TRUNCATED_RECORD;

import java.util.ArrayList;
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

    static XLogRecord decode(WalFormat format, long lsn, long endLsn, byte[] rec) {
        final int total = rec.length;
        int pos = XLogRecord.SIZE_OF_HEADER;
        int dataTotal = 0;
        int mainDataLen = 0;
        int origin = XLogRecord.INVALID_ORIGIN;
        int toplevelXid = 0;
        int maxBlockId = -1;
        RelFileLocator lastRel = null;

        // Block headers in order; their payloads follow all headers, in the same order.
        List<int[]> headers = null; // {id, forkFlags, dataLen, bimgLen, holeOffset, holeLength, bimgInfo, blkno}
        List<RelFileLocator> rels = null;

        while (total - pos > dataTotal) {
            int blockId = need(rec, pos, 1, lsn, "block id");
            pos += 1;
            if (blockId == XLR_BLOCK_ID_DATA_SHORT) {
                need(rec, pos, 1, lsn, "short main data length");
                mainDataLen = Bytes.uint8(rec, pos);
                pos += 1;
                dataTotal += mainDataLen;
                break; // main data is always last
            } else if (blockId == XLR_BLOCK_ID_DATA_LONG) {
                need(rec, pos, 4, lsn, "long main data length");
                mainDataLen = Bytes.int32(rec, pos);
                pos += 4;
                if (mainDataLen < 0) {
                    throw new WalDecodeException(TRUNCATED_RECORD, lsn, "main data length " + Integer.toUnsignedString(mainDataLen) + " exceeds record");
                }
                dataTotal += mainDataLen;
                break;
            } else if (blockId == XLR_BLOCK_ID_ORIGIN) {
                need(rec, pos, 2, lsn, "origin");
                origin = Bytes.uint16(rec, pos);
                pos += 2;
            } else if (blockId == XLR_BLOCK_ID_TOPLEVEL_XID) {
                need(rec, pos, 4, lsn, "toplevel xid");
                toplevelXid = Bytes.int32(rec, pos);
                pos += 4;
            } else if (blockId <= XLR_MAX_BLOCK_ID) {
                if (blockId <= maxBlockId) {
                    throw new WalDecodeException(INVALID_BLOCK_REFERENCE, lsn, "out-of-order block_id " + blockId);
                }
                maxBlockId = blockId;
                need(rec, pos, 3, lsn, "block " + blockId + " header");
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
                    need(rec, pos, 5, lsn, "block " + blockId + " image header");
                    bimgLen = Bytes.uint16(rec, pos);
                    holeOffset = Bytes.uint16(rec, pos + 2);
                    bimgInfo = Bytes.uint8(rec, pos + 4);
                    pos += 5;
                    boolean hasHole = (bimgInfo & format.bkpImageHasHole) != 0;
                    boolean compressed = format.isCompressed(bimgInfo);
                    if (compressed) {
                        if (hasHole) {
                            need(rec, pos, 2, lsn, "block " + blockId + " hole length");
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
                    need(rec, pos, 12, lsn, "block " + blockId + " relfilelocator");
                    rel = new RelFileLocator(Bytes.int32(rec, pos), Bytes.int32(rec, pos + 4), Bytes.int32(rec, pos + 8));
                    pos += 12;
                    lastRel = rel;
                } else {
                    if (lastRel == null) {
                        throw new WalDecodeException(INVALID_BLOCK_REFERENCE, lsn, "BKPBLOCK_SAME_REL set but no previous rel");
                    }
                    rel = lastRel;
                }
                need(rec, pos, 4, lsn, "block " + blockId + " block number");
                int blkno = Bytes.int32(rec, pos);
                pos += 4;
                if (headers == null) {
                    headers = new ArrayList<>(4);
                    rels = new ArrayList<>(4);
                }
                headers.add(new int[] {blockId, forkFlags, dataLen, bimgLen, holeOffset, holeLength, bimgInfo, blkno});
                rels.add(rel);
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
        if (headers == null) {
            blocks = Collections.emptyList();
        } else {
            BlockRef[] arr = new BlockRef[headers.size()];
            for (int i = 0; i < arr.length; i++) {
                int[] h = headers.get(i);
                int imageOffset = 0;
                if ((h[1] & BlockRef.BKPBLOCK_HAS_IMAGE) != 0) {
                    imageOffset = pos;
                    pos += h[3];
                    fpiLen += h[3];
                }
                int dataOffset = pos;
                pos += h[2];
                arr[i] = new BlockRef(rec, h[0], h[1], rels.get(i), h[7], dataOffset, h[2], imageOffset, h[3],
                        h[4], h[5], h[6]);
            }
            blocks = List.of(arr);
        }
        return new XLogRecord(format, lsn, endLsn, rec, blocks, pos, mainDataLen, origin, toplevelXid, fpiLen);
    }

    /** COPY_HEADER_FIELD's length check: returns the first byte for convenience. */
    private static int need(byte[] rec, int pos, int n, long lsn, String what) {
        if (rec.length - pos < n) {
            throw new WalDecodeException(TRUNCATED_RECORD, lsn, "record ends inside " + what
                    + " (offset " + pos + ", record length " + rec.length + ")");
        }
        return rec[pos] & 0xFF;
    }
}
