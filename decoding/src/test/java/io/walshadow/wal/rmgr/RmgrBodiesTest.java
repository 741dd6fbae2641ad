package io.walshadow.wal.rmgr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.WalDecodeException;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.XLogRecord;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** The typed record bodies read the fields where PostgreSQL writes them, and refuse a body too short to hold them. */
class RmgrBodiesTest {
    private static final long LSN = 0x1_0000_0028L;

    /** A record of {@code rmid}/{@code info} whose main data is {@code main} (header, short main-data block). */
    static XLogRecord record(int rmid, int info, byte[] main) {
        ByteBuffer b = ByteBuffer.allocate(24 + 2 + main.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(b.capacity()).putInt(0).putLong(LSN - 0x28).put((byte) info).put((byte) rmid).putShort((short) 0)
                .putInt(0);
        b.put((byte) 255).put((byte) main.length).put(main);
        return XLogRecord.fromVerifiedBytes(WalFormat.forMajor(15), LSN, LSN + 0x48, b.array());
    }

    static byte[] le(int size, java.util.function.Consumer<ByteBuffer> fill) {
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        fill.accept(b);
        return b.array();
    }

    @Test
    void runningXacts() {
        XLogRecord r = record(Rmgrs.RM_STANDBY_ID, 0x10, le(32, b -> b.putInt(2).putInt(1).put((byte) 1)
                .position(12).putInt(0xFFFF_FFF0).putInt(742).putInt(0xFFFF_FFEF).putInt(800).putInt(801)));
        assertTrue(RunningXacts.is(r));
        assertEquals(new RunningXacts(2, 1, true, 0xFFFF_FFF0, 742, 0xFFFF_FFEF), RunningXacts.of(r));
        assertFalse(RunningXacts.is(record(Rmgrs.RM_STANDBY_ID, 0x00, new byte[24]))); // XLOG_STANDBY_LOCK
    }

    @Test
    void checkpoint() {
        XLogRecord r = record(Rmgrs.RM_XLOG_ID, 0x10, le(88, b -> b.putLong(0x2_0000_1000L).putInt(3).putInt(2)
                .put((byte) 1).position(24).putLong((7L << 32) | 1234)));
        assertTrue(Checkpoint.is(r));
        assertEquals(new Checkpoint(0x2_0000_1000L, 3, 2, true, (7L << 32) | 1234), Checkpoint.of(r));
        assertTrue(Checkpoint.is(record(Rmgrs.RM_XLOG_ID, 0x00, new byte[88]))); // shutdown
        assertFalse(Checkpoint.is(record(Rmgrs.RM_XLOG_ID, 0xD0, new byte[16]))); // overwrite contrecord
    }

    @Test
    void smgrCreate() {
        XLogRecord r = record(Rmgrs.RM_SMGR_ID, 0x10, le(16, b -> b.putInt(1663).putInt(16384).putInt(0x9000_0001)
                .putInt(0)));
        SmgrCreate c = SmgrCreate.of(r);
        assertEquals(16384, c.locator().dbOid());
        assertEquals(0x9000_0001, c.locator().relNumber());
        assertTrue(c.mainFork());
    }

    @Test
    void aBodyShorterThanItsFixedPartIsRefusedNamingTheRecord() {
        XLogRecord r = record(Rmgrs.RM_STANDBY_ID, 0x10, new byte[20]);
        WalDecodeException e = assertThrows(WalDecodeException.class, () -> RunningXacts.of(r));
        assertEquals(WalDecodeException.Kind.TRUNCATED_RECORD, e.kind());
        assertTrue(e.getMessage().contains("xl_running_xacts of 20 bytes"), e.getMessage());
        assertEquals(LSN, e.lsn());
        assertThrows(WalDecodeException.class, () -> SmgrCreate.of(record(Rmgrs.RM_SMGR_ID, 0x10, new byte[12])));
        assertThrows(WalDecodeException.class, () -> Checkpoint.of(record(Rmgrs.RM_XLOG_ID, 0x10, new byte[24])));
    }
}
