package io.walshadow.xact;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.RandomAccess;

/**
 * An immutable list of 32-bit transaction ids (unsigned values held in {@code int}s) without boxing the storage;
 * {@link #getInt} reads one without boxing at all. Equality is list equality.
 */
public final class XidList extends AbstractList<Integer> implements RandomAccess {
    private static final XidList EMPTY = new XidList(new int[0]);

    private final int[] xids;

    private XidList(int[] xids) {
        this.xids = xids;
    }

    public static XidList of(int... xids) {
        return xids.length == 0 ? EMPTY : new XidList(xids.clone());
    }

    /** Takes ownership of the array. */
    static XidList wrap(int[] xids) {
        return xids.length == 0 ? EMPTY : new XidList(xids);
    }

    public static XidList empty() {
        return EMPTY;
    }

    public int getInt(int index) {
        return xids[index];
    }

    @Override
    public Integer get(int index) {
        return xids[index];
    }

    @Override
    public int size() {
        return xids.length;
    }

    public int[] toIntArray() {
        return xids.clone();
    }

    public boolean containsXid(int xid) {
        for (int x : xids) {
            if (x == xid) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < xids.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(Integer.toUnsignedString(xids[i]));
        }
        return sb.append(']').toString();
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(xids); // same as AbstractList's for Integer elements
    }
}
