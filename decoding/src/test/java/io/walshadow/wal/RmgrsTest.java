package io.walshadow.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Spot checks of the PG15 rmgr names; {@code PgWaldumpParityIT} checks every slot against pg_waldump itself. */
class RmgrsTest {

    @Test
    void rmgrNames() {
        assertEquals("XLOG", Rmgrs.name(0));
        assertEquals("Transaction", Rmgrs.name(1));
        assertEquals("Heap2", Rmgrs.name(9));
        assertEquals("Heap", Rmgrs.name(10));
        assertEquals("ReplicationOrigin", Rmgrs.name(19));
        assertEquals("LogicalMessage", Rmgrs.name(21));
        assertEquals("custom128", Rmgrs.name(128));
        assertEquals("custom255", Rmgrs.name(255));
        assertThrows(IllegalArgumentException.class, () -> Rmgrs.name(22));
        assertThrows(IllegalArgumentException.class, () -> Rmgrs.name(127));
        assertTrue(Rmgrs.isValid(21) && Rmgrs.isValid(128) && !Rmgrs.isValid(22) && !Rmgrs.isValid(-1));
    }

    @Test
    void heapMasksLowBitsAndNamesInitPage() {
        assertEquals("INSERT", Rmgrs.identify(Rmgrs.RM_HEAP_ID, 0x00));
        assertEquals("INSERT", Rmgrs.identify(Rmgrs.RM_HEAP_ID, 0x03)); // XLR_INFO_MASK bits ignored
        assertEquals("INSERT+INIT", Rmgrs.identify(Rmgrs.RM_HEAP_ID, 0x80));
        assertEquals("HOT_UPDATE", Rmgrs.identify(Rmgrs.RM_HEAP_ID, 0x40));
        assertEquals("HOT_UPDATE+INIT", Rmgrs.identify(Rmgrs.RM_HEAP_ID, 0xC0));
        assertEquals("LOCK", Rmgrs.identify(Rmgrs.RM_HEAP_ID, 0x60));
        assertEquals("HEAP_CONFIRM", Rmgrs.identify(Rmgrs.RM_HEAP_ID, 0x50));
        assertNull(Rmgrs.identify(Rmgrs.RM_HEAP_ID, 0x90)); // DELETE has no +INIT variant
        assertEquals("MULTI_INSERT+INIT", Rmgrs.identify(Rmgrs.RM_HEAP2_ID, 0xD0));
        assertEquals("REWRITE", Rmgrs.identify(Rmgrs.RM_HEAP2_ID, 0x00));
        assertEquals("FREEZE_PAGE", Rmgrs.identify(Rmgrs.RM_HEAP2_ID, 0x30));
    }

    @Test
    void transactionUsesOpmask() {
        assertEquals("COMMIT", Rmgrs.identify(Rmgrs.RM_XACT_ID, 0x00));
        assertEquals("COMMIT", Rmgrs.identify(Rmgrs.RM_XACT_ID, 0x80)); // XLOG_XACT_HAS_INFO
        assertEquals("COMMIT_PREPARED", Rmgrs.identify(Rmgrs.RM_XACT_ID, 0xB0));
        assertEquals("ABORT_PREPARED", Rmgrs.identify(Rmgrs.RM_XACT_ID, 0x40));
        assertEquals("ASSIGNMENT", Rmgrs.identify(Rmgrs.RM_XACT_ID, 0x50));
        assertEquals("INVALIDATION", Rmgrs.identify(Rmgrs.RM_XACT_ID, 0x60));
        assertNull(Rmgrs.identify(Rmgrs.RM_XACT_ID, 0x70));
        assertNull(Rmgrs.identify(Rmgrs.RM_XACT_ID, 0xF0));
    }

    @Test
    void xlogAndOthers() {
        assertEquals("CHECKPOINT_SHUTDOWN", Rmgrs.identify(0, 0x00));
        assertEquals("SWITCH", Rmgrs.identify(0, 0x40));
        assertEquals("FPI_FOR_HINT", Rmgrs.identify(0, 0xA0));
        assertEquals("FPI", Rmgrs.identify(0, 0xB0));
        assertNull(Rmgrs.identify(0, 0xC0));
        assertEquals("OVERWRITE_CONTRECORD", Rmgrs.identify(0, 0xD0));
        assertEquals("CREATE_WAL_LOG", Rmgrs.identify(Rmgrs.RM_DBASE_ID, 0x10));
        assertEquals("SPLIT_R", Rmgrs.identify(Rmgrs.RM_BTREE_ID, 0x40));
        assertEquals("META_CLEANUP", Rmgrs.identify(Rmgrs.RM_BTREE_ID, 0xE0));
        assertEquals("PAGE_SPLIT", Rmgrs.identify(Rmgrs.RM_GIST_ID, 0x30));
        assertNull(Rmgrs.identify(Rmgrs.RM_GIN_ID, 0x00));
        assertEquals("UPDATE+INIT", Rmgrs.identify(Rmgrs.RM_BRIN_ID, 0xA0));
        assertEquals("Generic", Rmgrs.identify(Rmgrs.RM_GENERIC_ID, 0x70));
        assertEquals("MESSAGE", Rmgrs.identify(Rmgrs.RM_LOGICALMSG_ID, 0x01));
        assertNull(Rmgrs.identify(200, 0x00));
    }

    @Test
    void commitTsAndReplicationOriginDoNotMask() {
        assertEquals("TRUNCATE", Rmgrs.identify(Rmgrs.RM_COMMIT_TS_ID, 0x10));
        assertNull(Rmgrs.identify(Rmgrs.RM_COMMIT_TS_ID, 0x12));
        assertEquals("SET", Rmgrs.identify(Rmgrs.RM_REPLORIGIN_ID, 0x00));
        assertNull(Rmgrs.identify(Rmgrs.RM_REPLORIGIN_ID, 0x01));
        assertEquals("UNKNOWN (10)", Rmgrs.displayId(Rmgrs.RM_REPLORIGIN_ID, 0x11));
        // the stats row is named with the low bits cleared
        assertEquals("ReplicationOrigin/DROP", Rmgrs.statsName(Rmgrs.RM_REPLORIGIN_ID, 0x11));
    }

    @Test
    void statsNames() {
        assertEquals("Heap/INSERT+INIT", Rmgrs.statsName(Rmgrs.RM_HEAP_ID, 0x82));
        assertEquals("Heap/UNKNOWN (90)", Rmgrs.statsName(Rmgrs.RM_HEAP_ID, 0x90));
        assertEquals("Transaction/COMMIT", Rmgrs.statsName(Rmgrs.RM_XACT_ID, 0x80));
        assertEquals("Transaction/ABORT_PREPARED", Rmgrs.statsName(Rmgrs.RM_XACT_ID, 0xC0));
        assertEquals("Transaction/UNKNOWN (70)", Rmgrs.statsName(Rmgrs.RM_XACT_ID, 0xF0));
        assertEquals("XLOG/UNKNOWN (c0)", Rmgrs.statsName(0, 0xC0));
        assertEquals("custom130/UNKNOWN (0)", Rmgrs.statsName(130, 0x00));
        assertEquals(0, Rmgrs.statsSlot(Rmgrs.RM_XACT_ID, 0x80));
        assertEquals(8, Rmgrs.statsSlot(Rmgrs.RM_HEAP_ID, 0x80));
    }

    /** What the other majors renamed (their rm_identify; WalinspectParityIT checks the ones a workload makes). */
    @Test
    void namesPerMajor() {
        // 14: one CREATE (file copy); 15 on: CREATE_FILE_COPY, CREATE_WAL_LOG, DROP at 0x20
        assertEquals("CREATE", Rmgrs.identify(WalFormat.PG14, Rmgrs.RM_DBASE_ID, 0x00));
        assertEquals("DROP", Rmgrs.identify(WalFormat.PG14, Rmgrs.RM_DBASE_ID, 0x10));
        assertNull(Rmgrs.identify(WalFormat.PG14, Rmgrs.RM_DBASE_ID, 0x20));
        assertEquals("CREATE_WAL_LOG", Rmgrs.identify(WalFormat.PG16, Rmgrs.RM_DBASE_ID, 0x10));
        // 17 on: the combined prune / freeze records in Heap2's PRUNE / VACUUM / FREEZE_PAGE slots
        assertEquals("PRUNE", Rmgrs.identify(WalFormat.PG16, Rmgrs.RM_HEAP2_ID, 0x10));
        assertEquals("FREEZE_PAGE", Rmgrs.identify(WalFormat.PG16, Rmgrs.RM_HEAP2_ID, 0x30));
        assertEquals("PRUNE_ON_ACCESS", Rmgrs.identify(WalFormat.PG17, Rmgrs.RM_HEAP2_ID, 0x10));
        assertEquals("PRUNE_VACUUM_SCAN", Rmgrs.identify(WalFormat.PG18, Rmgrs.RM_HEAP2_ID, 0x20));
        assertEquals("PRUNE_VACUUM_CLEANUP", Rmgrs.identify(WalFormat.PG17, Rmgrs.RM_HEAP2_ID, 0x32));
        assertEquals("MULTI_INSERT+INIT", Rmgrs.identify(WalFormat.PG18, Rmgrs.RM_HEAP2_ID, 0xD0));
        assertEquals("Heap2/PRUNE_VACUUM_SCAN", Rmgrs.statsName(WalFormat.PG17, Rmgrs.RM_HEAP2_ID, 0x20));
        // 17 on: CHECKPOINT_REDO
        assertNull(Rmgrs.identify(WalFormat.PG16, Rmgrs.RM_XLOG_ID, 0xE0));
        assertEquals("UNKNOWN (e0)", Rmgrs.displayId(WalFormat.PG16, Rmgrs.RM_XLOG_ID, 0xE0));
        assertEquals("CHECKPOINT_REDO", Rmgrs.identify(WalFormat.PG17, Rmgrs.RM_XLOG_ID, 0xE0));
        assertEquals("CHECKPOINT_REDO", Rmgrs.identify(WalFormat.PG18, Rmgrs.RM_XLOG_ID, 0xE0));
        // the two-argument forms are 15's
        assertEquals("PRUNE", Rmgrs.identify(Rmgrs.RM_HEAP2_ID, 0x10));
    }
}
