package io.walshadow.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.change.RowChange;
import org.junit.jupiter.api.Test;

/** The buffer's in-flight diagnostics that need no cluster: the bytes estimate and the summary line. */
class XactBufferDiagnosticsTest {
    @Test
    void bytesEstimateGrowsWithValues() {
        RowChange small = new RowChange(1, 5, RowChange.Op.INSERT, null, null, null, null,
                new Object[] {1, "a"}, null, false);
        RowChange large = new RowChange(2, 5, RowChange.Op.INSERT, null, null, null, null,
                new Object[] {1, "a".repeat(10_000)}, null, false);
        RowChange update = new RowChange(3, 5, RowChange.Op.UPDATE, null, null, null, null,
                new Object[] {1, "a"}, new Object[] {1, null}, false);
        long s = XactBuffer.estimateBytes(small);
        assertTrue(s > 0, "estimate " + s);
        assertTrue(XactBuffer.estimateBytes(large) >= s + 9_999, "large value counted");
        assertTrue(XactBuffer.estimateBytes(update) > s, "old key counted");
    }

    @Test
    void summaryLine() {
        assertEquals("in-flight transactions: 3 (2 tracked since open), 1201 buffered changes, ~98765 bytes;"
                        + " oldest xid 4294967295 first LSN 3/250D3C70 age 45000 ms",
                InFlightIndex.summary(3, 2, 1201, 98765, -1, 0x3_250D3C70L, 45_000));
        assertTrue(InFlightIndex.summary(1, 0, 0, 0, 0, 0, -1).endsWith("first LSN 0/00000000 age unknown"));
    }
}
