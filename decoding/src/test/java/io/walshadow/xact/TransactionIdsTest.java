package io.walshadow.xact;

import static io.walshadow.xact.TransactionIds.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class TransactionIdsTest {
    private static final int HALF = 1 << 31; // 2^31 as an int bit pattern

    @Test
    void normalXidsCompareModulo2To32() {
        assertTrue(precedes(100, 200));
        assertTrue(follows(200, 100));
        assertFalse(precedes(200, 100));
        assertFalse(precedes(100, 100));
        assertTrue(precedesOrEquals(100, 100));
        assertTrue(followsOrEquals(100, 100));
        // across wraparound: 4294967280 is 21 xids before 5
        assertTrue(precedes(0xFFFFFFF0, 5));
        assertTrue(follows(5, 0xFFFFFFF0));
        assertFalse(precedes(5, 0xFFFFFFF0));
        // 2^31 - 1 ahead still follows; at exactly 2^31 both "precede" each other (int32 difference is INT_MIN)
        assertTrue(precedes(3, 3 + HALF - 1));
        assertTrue(follows(3, 3 + HALF + 1)); // 2^31 + 1 ahead means behind
        assertTrue(precedes(3, 3 + HALF));
        assertTrue(precedes(3 + HALF, 3));
    }

    @Test
    void specialXidsCompareUnsignedAndPrecedeNormalOnes() {
        for (int special : new int[] {INVALID, BOOTSTRAP, FROZEN}) {
            assertFalse(isNormal(special));
            assertTrue(precedes(special, FIRST_NORMAL));
            assertTrue(precedes(special, 0xFFFFFFFF));
            assertTrue(precedes(special, 3 + HALF));
            assertTrue(follows(0xFFFFFFFF, special));
            assertFalse(follows(special, 0xFFFFFFFF));
        }
        assertTrue(precedes(BOOTSTRAP, FROZEN));
        assertTrue(precedes(INVALID, BOOTSTRAP));
        assertFalse(isValid(INVALID));
        assertTrue(isValid(BOOTSTRAP));
        assertTrue(isNormal(3) && isNormal(0xFFFFFFFF) && isNormal(HALF));
    }

    @Test
    void advanceAndRetreatSkipSpecialXids() {
        assertEquals(FIRST_NORMAL, advance(0xFFFFFFFF));
        assertEquals(4, advance(3));
        assertEquals(0xFFFFFFFF, retreat(FIRST_NORMAL));
        assertEquals(3, retreat(4));
    }

    @Test
    void fullXidRelativeToPicksTheNearestEpoch() {
        long rel = fullXid(5, 100);
        assertEquals(5, epoch(rel));
        assertEquals(100, xid(rel));
        assertEquals("5:100", fullToEpochString(rel));
        assertEquals(Long.toString(5L * (1L << 32) + 100), fullToString(rel));
        assertEquals(fullXid(5, 50), fullXidRelativeTo(rel, 50));
        assertEquals(fullXid(5, 100), fullXidRelativeTo(rel, 100));
        assertEquals(fullXid(4, 0xFFFFFF00), fullXidRelativeTo(rel, 0xFFFFFF00));
        assertEquals(fullXid(6, 10), fullXidRelativeTo(fullXid(5, 0xFFFFFF00), 10));
        assertEquals(fullXid(5, 100 + HALF - 1), fullXidRelativeTo(rel, 100 + HALF - 1));
        assertEquals(fullXid(4, 100 + HALF), fullXidRelativeTo(rel, 100 + HALF)); // (int32) INT_MIN: behind
        for (int special : new int[] {INVALID, BOOTSTRAP, FROZEN}) {
            assertEquals(special, fullXidRelativeTo(rel, special));
        }
        assertEquals(fullXid(0, 3), fullXidRelativeTo(fullXid(0, 3), 3));
        assertThrows(IllegalArgumentException.class, () -> fullXidRelativeTo(fullXid(0, 100), 0xFFFFFF00));
        assertThrows(IllegalArgumentException.class, () -> fullXidRelativeTo(-1L, 5));
        assertTrue(compareFull(fullXid(1, 0), fullXid(0, 0xFFFFFFFF)) > 0);
    }

    @Test
    void fullXidRelativeToAgreesWithPrecedesForRandomPairs() {
        Random rnd = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            long rel = fullXid(1 + rnd.nextInt(1000), rnd.nextInt());
            int x = rnd.nextInt();
            if (!isNormal(x) || !isNormal(xid(rel))) {
                continue;
            }
            long full = fullXidRelativeTo(rel, x);
            assertEquals(x, xid(full));
            assertTrue(Math.abs(full - rel) <= (1L << 31));
            if (full != rel && Math.abs(full - rel) < (1L << 31)) {
                assertEquals(full < rel, precedes(x, xid(rel)), () -> x + " vs " + rel);
            }
        }
    }
}
