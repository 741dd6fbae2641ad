package io.walshadow.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class XidVisibilityTest {
    @Test
    void precedesIsModular() {
        assertTrue(XidVisibility.precedes(100, 200));
        assertFalse(XidVisibility.precedes(200, 100));
        int nearWrap = 0xFFFF_FFF0; // 4294967280
        assertTrue(XidVisibility.precedes(nearWrap, 5), "an xid just before the wrap precedes one just after");
        assertFalse(XidVisibility.precedes(5, nearWrap));
        assertTrue(XidVisibility.precedes(XidVisibility.FROZEN, 3));
        assertTrue(XidVisibility.precedes(XidVisibility.FROZEN, nearWrap));
    }

    @Test
    void visibility() {
        XidVisibility v = new XidVisibility();
        assertTrue(v.isVisible(XidVisibility.FROZEN));
        assertTrue(v.isVisible(XidVisibility.BOOTSTRAP));
        assertFalse(v.isVisible(XidVisibility.INVALID));
        assertFalse(v.isVisible(50));
        v.advanceHorizon(0xFFFF_FFF0);
        assertTrue(v.isVisible(0xFFFF_FF00));
        assertFalse(v.isVisible(7), "after the wrap, not yet complete");
        v.markCommitted(7, new int[] {9});
        assertTrue(v.isVisible(7));
        assertTrue(v.isVisible(9));
        assertFalse(v.isVisible(8));
        assertTrue(v.advanceHorizon(8));
        assertEquals(1, v.committedCount(), "7 is covered by the horizon now, 9 is not");
        assertFalse(v.advanceHorizon(5), "never backwards");
        assertTrue(v.isVisible(7));
        assertTrue(v.isVisible(9));
    }

    @Test
    void snapshotXids() {
        CatalogSnapshot.Xids s = CatalogSnapshot.Xids.parse("100:110:103,105");
        assertTrue(s.completed(99));
        assertTrue(s.completed(104));
        assertFalse(s.completed(103));
        assertFalse(s.completed(110));
        // epoch 1: 32-bit xids are mapped into the epoch of xmax
        CatalogSnapshot.Xids e = CatalogSnapshot.Xids.parse(((1L << 32) + 10) + ":" + ((1L << 32) + 20) + ":");
        assertTrue(e.completed(15));
        assertFalse(e.completed(25));
        assertTrue(e.completed(0xFFFF_FFF0), "previous epoch");
    }

    @Test
    void startSnapshot() {
        XidVisibility v = new XidVisibility();
        v.setStartSnapshot(CatalogSnapshot.Xids.parse("100:110:103,105"));
        assertEquals(100, v.horizon());
        assertTrue(v.isVisible(99));
        assertTrue(v.isVisible(104));
        assertFalse(v.isVisible(103));
        assertFalse(v.isVisible(105));
        assertFalse(v.isVisible(110));
        v.advanceHorizon(104);
        assertFalse(v.isVisible(105), "still in the start snapshot's xip");
        assertTrue(v.isVisible(106));
        v.advanceHorizon(111);
        assertEquals(null, v.startSnapshotXmaxAndXip(), "the horizon covers the start snapshot now");
        assertTrue(v.isVisible(105));
    }
}
