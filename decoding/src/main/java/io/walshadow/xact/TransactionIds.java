package io.walshadow.xact;

/**
 * 32-bit transaction ids (unsigned values in {@code int}s) and 64-bit "full" ones ({@code FullTransactionId}:
 * epoch in the high 32 bits, xid in the low 32), with PostgreSQL's comparison rules ({@code transam.c},
 * {@code transam.h}).
 *
 * <p>Normal xids (&gt;= 3) compare modulo 2^32: {@code a} precedes {@code b} when {@code (int32)(a - b) < 0}, so
 * each xid has 2^31 predecessors and 2^31 successors. The special xids 0 (invalid), 1 (bootstrap) and 2 (frozen)
 * compare as plain unsigned numbers and therefore precede every normal xid.
 */
public final class TransactionIds {
    public static final int INVALID = 0;
    public static final int BOOTSTRAP = 1;
    public static final int FROZEN = 2;
    public static final int FIRST_NORMAL = 3;
    /** Largest 32-bit xid, as an int. */
    public static final int MAX = 0xFFFFFFFF;

    private TransactionIds() {}

    public static boolean isValid(int xid) {
        return xid != INVALID;
    }

    /** {@code TransactionIdIsNormal}: not 0, 1 or 2. */
    public static boolean isNormal(int xid) {
        return Integer.compareUnsigned(xid, FIRST_NORMAL) >= 0;
    }

    /** {@code TransactionIdPrecedes(a, b)}. */
    public static boolean precedes(int a, int b) {
        if (!isNormal(a) || !isNormal(b)) {
            return Integer.compareUnsigned(a, b) < 0;
        }
        return a - b < 0;
    }

    /** {@code TransactionIdPrecedesOrEquals(a, b)}. */
    public static boolean precedesOrEquals(int a, int b) {
        if (!isNormal(a) || !isNormal(b)) {
            return Integer.compareUnsigned(a, b) <= 0;
        }
        return a - b <= 0;
    }

    /** {@code TransactionIdFollows(a, b)}. */
    public static boolean follows(int a, int b) {
        if (!isNormal(a) || !isNormal(b)) {
            return Integer.compareUnsigned(a, b) > 0;
        }
        return a - b > 0;
    }

    /** {@code TransactionIdFollowsOrEquals(a, b)}. */
    public static boolean followsOrEquals(int a, int b) {
        if (!isNormal(a) || !isNormal(b)) {
            return Integer.compareUnsigned(a, b) >= 0;
        }
        return a - b >= 0;
    }

    /** {@code TransactionIdAdvance}: the next normal xid, skipping 0..2 at wraparound. */
    public static int advance(int xid) {
        int next = xid + 1;
        return isNormal(next) ? next : FIRST_NORMAL;
    }

    /** {@code TransactionIdRetreat}: the previous normal xid, skipping 0..2 at wraparound. */
    public static int retreat(int xid) {
        int prev = xid - 1;
        return isNormal(prev) ? prev : MAX;
    }

    public static String toString(int xid) {
        return Integer.toUnsignedString(xid);
    }

    // ---------------------------------------------------------------------------------------------------------
    // FullTransactionId: epoch << 32 | xid, a plain unsigned 64-bit number (PostgreSQL's xid8); never negative
    // in practice (epochs stay below 2^31).
    // ---------------------------------------------------------------------------------------------------------

    /** {@code FullTransactionIdFromEpochAndXid}. */
    public static long fullXid(int epoch, int xid) {
        return ((long) epoch << 32) | (xid & 0xFFFFFFFFL);
    }

    /** {@code EpochFromFullTransactionId}. */
    public static int epoch(long fullXid) {
        return (int) (fullXid >>> 32);
    }

    /** {@code XidFromFullTransactionId}. */
    public static int xid(long fullXid) {
        return (int) fullXid;
    }

    /**
     * {@code FullXidRelativeTo(rel, xid)}: the full xid nearest to {@code relativeTo} whose low 32 bits are
     * {@code xid}, i.e. {@code relativeTo + (int32)(xid - xid(relativeTo))}. {@code relativeTo} is a full xid
     * known to be within 2^31 of the answer (the next full xid for a running or recently finished transaction,
     * a checkpoint's nextXid for records after it, ...). The special xids 0, 1 and 2 belong to no epoch and map
     * to themselves (epoch 0).
     *
     * @throws IllegalArgumentException if the answer would lie before full xid 0 (xid too far in the past for
     *     {@code relativeTo}'s epoch 0) or {@code relativeTo} is negative
     */
    public static long fullXidRelativeTo(long relativeTo, int xid) {
        if (relativeTo < 0) {
            throw new IllegalArgumentException("relative-to full xid " + Long.toUnsignedString(relativeTo)
                    + " is out of range");
        }
        if (!isNormal(xid)) {
            return xid & 0xFFFFFFFFL;
        }
        long full = relativeTo + (xid - xid(relativeTo));
        if (full < FIRST_NORMAL) {
            throw new IllegalArgumentException("xid " + toString(xid) + " lies before epoch 0 relative to full xid "
                    + relativeTo);
        }
        return full;
    }

    /** Full xid as PostgreSQL prints an xid8 (unsigned decimal). */
    public static String fullToString(long fullXid) {
        return Long.toUnsignedString(fullXid);
    }

    /** {@code epoch:xid}, handy in logs. */
    public static String fullToEpochString(long fullXid) {
        return epoch(fullXid) + ":" + toString(xid(fullXid));
    }

    /** Orders full xids (plain unsigned comparison: no wraparound at 64 bits). */
    public static int compareFull(long a, long b) {
        return Long.compareUnsigned(a, b);
    }
}
