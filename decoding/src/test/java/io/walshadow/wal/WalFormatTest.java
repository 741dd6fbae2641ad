package io.walshadow.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Which majors are read and which are replicated. The page magics were read from each server's own WAL
 * ({@code WalinspectParityIT} reads every page of a workload on each major); here: the lookups and the refusals.
 */
class WalFormatTest {

    @Test
    void readsFourteenToEighteen() {
        assertSame(WalFormat.PG14, WalFormat.forServerVersionNum(140023));
        assertSame(WalFormat.PG15, WalFormat.forServerVersionNum(150018));
        assertSame(WalFormat.PG16, WalFormat.forServerVersionNum(160014));
        assertSame(WalFormat.PG17, WalFormat.forServerVersionNum(170010));
        assertSame(WalFormat.PG18, WalFormat.forServerVersionNum(180004));
        assertEquals("14, 15, 16, 17, 18", WalFormat.supportedMajors());
        int[] magics = {0xD10D, 0xD110, 0xD113, 0xD116, 0xD118};
        for (int i = 0; i < magics.length; i++) {
            assertEquals(14 + i, WalFormat.forPageMagic(magics[i], 0).major);
        }
    }

    @Test
    void refusesOtherMajorsByName() {
        var e = assertThrows(WalFormat.UnsupportedServerVersionException.class,
                () -> WalFormat.forServerVersionNum(130012));
        assertTrue(e.getMessage().contains("major 13") && e.getMessage().contains("14, 15, 16, 17, 18"), e.getMessage());
        assertThrows(WalFormat.UnsupportedServerVersionException.class, () -> WalFormat.forServerVersionNum(190000));
        WalDecodeException w = assertThrows(WalDecodeException.class, () -> WalFormat.forPageMagic(0xD106, 8192));
        assertEquals(WalDecodeException.Kind.UNSUPPORTED_VERSION, w.kind());
        assertTrue(w.getMessage().contains("PostgreSQL 13"), w.getMessage());
        w = assertThrows(WalDecodeException.class, () -> WalFormat.forPageMagic(0xD119, 8192));
        assertEquals(WalDecodeException.Kind.INVALID_PAGE_HEADER, w.kind());
    }

    /** The majors the job replicates, each proven end to end on a server of its own (deploy/local/test-majors.sh). */
    private static final int[] REPLICATED = {140023, 150018, 160014, 170010, 180004};

    @Test
    void theJobReplicatesTheProvenMajorsOnly() {
        for (int v : REPLICATED) {
            assertEquals(v / 10000, WalFormat.forReplication(v).major);
        }
        assertSame(WalFormat.PG14, WalFormat.forReplication(140023));
        assertSame(WalFormat.PG15, WalFormat.forReplication(150018));
        assertEquals("14, 15, 16, 17, 18", WalFormat.replicatedMajors());
        // a major outside the range, before or after it, is refused by name
        for (int v : new int[] {130000, 130022, 190000}) {
            var e = assertThrows(WalFormat.UnsupportedServerVersionException.class, () -> WalFormat.forReplication(v));
            assertTrue(e.getMessage().startsWith("PostgreSQL server_version_num " + v + " (major " + v / 10000
                    + ") is not supported; supported majors: 14, 15, 16, 17, 18"), e.getMessage());
        }
    }

    /** 14 has one "compressed" bit (pglz) and APPLY at 0x04; 15 on: a bit per method, APPLY at 0x02. */
    @Test
    void blockImageBitsPerMajor() {
        assertTrue(WalFormat.PG14.isCompressed(0x02));
        assertFalse(WalFormat.PG14.isCompressed(0x04 | 0x01));
        assertEquals(0x04, WalFormat.PG14.bkpImageApply);
        for (WalFormat f : new WalFormat[] {WalFormat.PG15, WalFormat.PG16, WalFormat.PG17, WalFormat.PG18}) {
            assertEquals(0x02, f.bkpImageApply);
            assertTrue(f.isCompressed(0x04) && f.isCompressed(0x08) && f.isCompressed(0x10) && !f.isCompressed(0x03));
        }
    }
}
