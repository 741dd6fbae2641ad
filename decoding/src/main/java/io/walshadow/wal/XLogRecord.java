package io.walshadow.wal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * A complete, CRC-verified WAL record with its block references decoded ({@code DecodedXLogRecord}). Immutable:
 * it owns its bytes (header included), and block data, images and main data are ranges of them.
 */
public final class XLogRecord {
    public static final int SIZE_OF_HEADER = 24;
    /** Low four bits of xl_info belong to the WAL machinery, the high four to the rmgr. */
    public static final int XLR_INFO_MASK = 0x0F;
    public static final int XLR_RMGR_INFO_MASK = 0xF0;
    public static final int INVALID_ORIGIN = 0;

    private final WalFormat format;
    private final long lsn;
    private final long endLsn;
    private final byte[] bytes;
    private final int xid;
    private final long prev;
    private final int info;
    private final int rmid;
    private final List<BlockRef> blocks;
    private final int mainDataOffset;
    private final int mainDataLength;
    private final int origin;
    private final int toplevelXid;
    private final int fpiLength;

    XLogRecord(WalFormat format, long lsn, long endLsn, byte[] bytes, List<BlockRef> blocks, int mainDataOffset, int mainDataLength,
               int origin, int toplevelXid, int fpiLength) {
        this.format = format;
        this.lsn = lsn;
        this.endLsn = endLsn;
        this.bytes = bytes;
        this.xid = Bytes.int32(bytes, 4);
        this.prev = Bytes.int64(bytes, 8);
        this.info = bytes[16] & 0xFF;
        this.rmid = bytes[17] & 0xFF;
        this.blocks = blocks;
        this.mainDataOffset = mainDataOffset;
        this.mainDataLength = mainDataLength;
        this.origin = origin;
        this.toplevelXid = toplevelXid;
        this.fpiLength = fpiLength;
    }

    /**
     * Re-creates a record from bytes this process (or a serializer) already verified: block references are decoded
     * again, the CRC is not re-checked.
     */
    public static XLogRecord fromVerifiedBytes(WalFormat format, long lsn, long endLsn, byte[] bytes) {
        return XLogRecordDecoder.decode(format, lsn, endLsn, bytes);
    }

    /** The layout (server major version) the record was decoded with. */
    public WalFormat format() {
        return format;
    }

    /** Start of the record (ReadRecPtr). */
    public long lsn() {
        return lsn;
    }

    /**
     * Where the next record may start (EndRecPtr, as xlogreader.c sets it): the first byte after the record,
     * MAXALIGNed; after an XLOG_SWITCH record, the start of the next segment. A page header that follows is not
     * skipped, so this may be a page boundary.
     */
    public long endLsn() {
        return endLsn;
    }

    /** {@code xl_tot_len}. */
    public int totalLength() {
        return bytes.length;
    }

    /** {@code xl_xid}, unsigned 32-bit; 0 when the record has no transaction. */
    public int xid() {
        return xid;
    }

    public long prev() {
        return prev;
    }

    public int info() {
        return info;
    }

    /** The rmgr's part of {@code xl_info}: the record type. */
    public int rmgrInfo() {
        return info & XLR_RMGR_INFO_MASK;
    }

    public int rmid() {
        return rmid;
    }

    public int crc() {
        return Bytes.int32(bytes, 20);
    }

    public List<BlockRef> blocks() {
        return blocks;
    }

    /** The block reference with this block id, or null. */
    public BlockRef block(int blockId) {
        for (BlockRef b : blocks) {
            if (b.id() == blockId) {
                return b;
            }
        }
        return null;
    }

    public ByteBuffer mainData() {
        return view(bytes, mainDataOffset, mainDataLength);
    }

    public int mainDataOffset() {
        return mainDataOffset;
    }

    public int mainDataLength() {
        return mainDataLength;
    }

    /** Replication origin id, or {@link #INVALID_ORIGIN}. */
    public int origin() {
        return origin;
    }

    /** Top-level xid logged with a subtransaction's first record (XLR_BLOCK_ID_TOPLEVEL_XID), or 0. */
    public int toplevelXid() {
        return toplevelXid;
    }

    /** Sum of stored full-page image lengths: pg_waldump's {@code fpi_len}. */
    public int fpiLength() {
        return fpiLength;
    }

    /** The record's raw bytes, header included. Do not modify. */
    public byte[] rawBytes() {
        return bytes;
    }

    @Override
    public String toString() {
        return "XLogRecord{lsn=" + Lsn.format(lsn) + ", rmid=" + rmid + ", info=0x" + Integer.toHexString(info)
                + ", xid=" + Integer.toUnsignedString(xid) + ", len=" + bytes.length + ", blocks=" + blocks.size()
                + "}";
    }

    static ByteBuffer view(byte[] bytes, int offset, int length) {
        // order() must come last: asReadOnlyBuffer(), like slice() and duplicate(), returns a BIG_ENDIAN buffer
        // whatever the source's order, which made getShort/getInt on main and block data byte-swapped.
        return ByteBuffer.wrap(bytes, offset, length).slice().asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }
}
