package io.walshadow.heap;

import io.walshadow.wal.BlockRef;
import io.walshadow.wal.Bytes;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.XLogRecord;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/** Assembles raw PostgreSQL 15 WAL records (header, block references, main data) for synthetic tests. */
final class RecordBuilder {
    static final long LSN = 0x1_2345_6788L;

    private record Block(int id, RelFileLocator rel, int blkno, byte[] data, byte[] image) {
    }

    private final int rmid;
    private final int info;
    private int xid = 777;
    private final List<Block> blocks = new ArrayList<>();
    private byte[] main;

    RecordBuilder(int rmid, int info) {
        this.rmid = rmid;
        this.info = info;
    }

    RecordBuilder xid(int x) {
        xid = x;
        return this;
    }

    RecordBuilder block(int id, RelFileLocator rel, int blkno, byte[] data) {
        blocks.add(new Block(id, rel, blkno, data, null));
        return this;
    }

    /** A block with an uncompressed, hole-less full-page image (8192 bytes) and optional data. */
    RecordBuilder imageBlock(int id, RelFileLocator rel, int blkno, byte[] page, byte[] data) {
        blocks.add(new Block(id, rel, blkno, data, page));
        return this;
    }

    RecordBuilder main(byte[] m) {
        main = m;
        return this;
    }

    XLogRecord build() {
        ByteArrayOutputStream h = new ByteArrayOutputStream();
        RelFileLocator last = null;
        for (Block b : blocks) {
            h.write(b.id());
            int flags = BlockRef.FORK_MAIN | (b.data() != null ? BlockRef.BKPBLOCK_HAS_DATA : 0)
                    | (b.image() != null ? BlockRef.BKPBLOCK_HAS_IMAGE : 0)
                    | (b.rel().equals(last) ? BlockRef.BKPBLOCK_SAME_REL : 0);
            h.write(flags);
            u16(h, b.data() == null ? 0 : b.data().length);
            if (b.image() != null) {
                u16(h, 8192);
                u16(h, 0);
                h.write(WalFormat.PG15.bkpImageApply);
            }
            if (!b.rel().equals(last)) {
                u32(h, b.rel().spcOid());
                u32(h, b.rel().dbOid());
                u32(h, b.rel().relNumber());
                last = b.rel();
            }
            u32(h, b.blkno());
        }
        if (main != null) {
            if (main.length < 256) {
                h.write(255);
                h.write(main.length);
            } else {
                h.write(254);
                u32(h, main.length);
            }
        }
        for (Block b : blocks) {
            if (b.image() != null) {
                h.writeBytes(b.image());
            }
            if (b.data() != null) {
                h.writeBytes(b.data());
            }
        }
        if (main != null) {
            h.writeBytes(main);
        }
        byte[] body = h.toByteArray();
        byte[] rec = new byte[XLogRecord.SIZE_OF_HEADER + body.length];
        Bytes.putInt32(rec, 0, rec.length);
        Bytes.putInt32(rec, 4, xid);
        Bytes.putInt64(rec, 8, LSN - 0x100);
        rec[16] = (byte) info;
        rec[17] = (byte) rmid;
        System.arraycopy(body, 0, rec, XLogRecord.SIZE_OF_HEADER, body.length);
        return XLogRecord.fromVerifiedBytes(WalFormat.PG15, LSN, (LSN + rec.length + 7) & ~7L, rec);
    }

    static void u16(ByteArrayOutputStream o, int v) {
        o.write(v & 0xFF);
        o.write((v >>> 8) & 0xFF);
    }

    static void u32(ByteArrayOutputStream o, int v) {
        u16(o, v & 0xFFFF);
        u16(o, v >>> 16);
    }

    /** Little-endian bytes from a list of (value, width) pairs, for hand-made structs. */
    static byte[] le(long... valueWidthPairs) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (int i = 0; i < valueWidthPairs.length; i += 2) {
            long v = valueWidthPairs[i];
            for (int k = 0; k < valueWidthPairs[i + 1]; k++) {
                o.write((int) (v >>> (8 * k)) & 0xFF);
            }
        }
        return o.toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }
}
