package io.walshadow.wal;

import java.nio.ByteBuffer;

/**
 * One block reference of a record ({@code DecodedBkpBlock}): which page it touches, its per-block data and its
 * full-page image, both as ranges of the owning record's bytes (no copies).
 */
public final class BlockRef {
    public static final int FORK_MAIN = 0;
    public static final int FORK_FSM = 1;
    public static final int FORK_VM = 2;
    public static final int FORK_INIT = 3;

    // fork_flags bits (xlogrecord.h)
    public static final int BKPBLOCK_FORK_MASK = 0x0F;
    public static final int BKPBLOCK_HAS_IMAGE = 0x10;
    public static final int BKPBLOCK_HAS_DATA = 0x20;
    public static final int BKPBLOCK_WILL_INIT = 0x40;
    public static final int BKPBLOCK_SAME_REL = 0x80;

    private final byte[] recordBytes;
    private final int id;
    private final int forkFlags;
    private final RelFileLocator rel;
    private final int blockNumber;
    private final int dataOffset;
    private final int dataLength;
    private final int imageOffset;
    private final int imageLength;
    private final int holeOffset;
    private final int holeLength;
    private final int bimgInfo;

    BlockRef(byte[] recordBytes, int id, int forkFlags, RelFileLocator rel, int blockNumber,
             int dataOffset, int dataLength, int imageOffset, int imageLength,
             int holeOffset, int holeLength, int bimgInfo) {
        this.recordBytes = recordBytes;
        this.id = id;
        this.forkFlags = forkFlags;
        this.rel = rel;
        this.blockNumber = blockNumber;
        this.dataOffset = dataOffset;
        this.dataLength = dataLength;
        this.imageOffset = imageOffset;
        this.imageLength = imageLength;
        this.holeOffset = holeOffset;
        this.holeLength = holeLength;
        this.bimgInfo = bimgInfo;
    }

    /** Block id within the record, 0..32. */
    public int id() {
        return id;
    }

    public RelFileLocator rel() {
        return rel;
    }

    public int forkNumber() {
        return forkFlags & BKPBLOCK_FORK_MASK;
    }

    /** Unsigned 32-bit block number. */
    public long blockNumber() {
        return Integer.toUnsignedLong(blockNumber);
    }

    public int forkFlags() {
        return forkFlags;
    }

    public boolean willInit() {
        return (forkFlags & BKPBLOCK_WILL_INIT) != 0;
    }

    public boolean hasData() {
        return (forkFlags & BKPBLOCK_HAS_DATA) != 0;
    }

    public boolean hasImage() {
        return (forkFlags & BKPBLOCK_HAS_IMAGE) != 0;
    }

    public int dataOffset() {
        return dataOffset;
    }

    public int dataLength() {
        return dataLength;
    }

    /** The block's data, a read-only little-endian view. Empty when the block has none. */
    public ByteBuffer data() {
        return XLogRecord.view(recordBytes, dataOffset, dataLength);
    }

    /** Stored (possibly compressed) image length, {@code bimg_len}. */
    public int imageLength() {
        return imageLength;
    }

    public int imageOffset() {
        return imageOffset;
    }

    public int holeOffset() {
        return holeOffset;
    }

    public int holeLength() {
        return holeLength;
    }

    public int bimgInfo() {
        return bimgInfo;
    }

    byte[] recordBytes() {
        return recordBytes;
    }
}
