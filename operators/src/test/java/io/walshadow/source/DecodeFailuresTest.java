package io.walshadow.source;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.wal.WalDecodeException;
import io.walshadow.wal.WalDecodeException.Kind;
import org.junit.jupiter.api.Test;

/** The same decode failure at the same LSN stops the job on its third occurrence; anything else restarts. */
class DecodeFailuresTest {
    @Test
    void theThirdIdenticalFailureIsTheLast() {
        WalDecodeException crc = new WalDecodeException(Kind.CRC_MISMATCH, 0x1_0000_0028L, "incorrect checksum");
        assertFalse(DecodeFailures.exhausted("slot_a", crc));
        assertFalse(DecodeFailures.exhausted("slot_a", crc));
        // another slot, another LSN, another kind: counted apart
        assertFalse(DecodeFailures.exhausted("slot_b", crc));
        assertFalse(DecodeFailures.exhausted("slot_a",
                new WalDecodeException(Kind.CRC_MISMATCH, 0x1_0000_0030L, "incorrect checksum")));
        assertFalse(DecodeFailures.exhausted("slot_a",
                new WalDecodeException(Kind.PREV_LINK_BROKEN, 0x1_0000_0028L, "prev-link")));
        assertTrue(DecodeFailures.exhausted("slot_a", crc));
    }

    @Test
    void aStreamGapIsNeverTheWalsFault() {
        WalDecodeException gap = new WalDecodeException(Kind.STREAM_GAP, 0x2_0000_0000L, "received WAL at ...");
        for (int i = 0; i < 10; i++) {
            assertFalse(DecodeFailures.exhausted("slot_gap", gap));
        }
    }
}
