package io.walshadow.catalog;

import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

/**
 * What the stream has established about transaction completion, for deciding whether a catalog row (by its
 * {@code xmin}) is part of the catalog state at a WAL position the stream has reached.
 *
 * <p>An xid is visible when it is {@link #BOOTSTRAP} or {@link #FROZEN}, precedes the horizon, is in the set of
 * xids whose commit records the stream has passed, or is complete in the start snapshot (when one was given). The horizon is an xid such that every xid preceding it had
 * completed (committed or aborted) by the stream position where it was set: at startup, the caller supplies one
 * valid at the start LSN (e.g. the {@code oldestRunningXid} of an {@code XLOG_RUNNING_XACTS} record at or before
 * the start position, or {@code pg_snapshot_xmin(pg_current_snapshot())} read before the start LSN was read);
 * later {@code XLOG_RUNNING_XACTS} records advance it when the stream reaches them. Committed xids that precede
 * the horizon are dropped from the set (the horizon covers them). Aborted xids need no tracking: an aborted
 * transaction leaves no live catalog rows.
 *
 * <p>Comparisons are modulo 2^32 like {@code TransactionIdPrecedes}. Not thread-safe.
 */
public final class XidVisibility {
    public static final int INVALID = 0;
    public static final int BOOTSTRAP = 1;
    public static final int FROZEN = 2;
    public static final int FIRST_NORMAL = 3;

    private boolean hasHorizon;
    private int horizon;
    private final Set<Integer> committed = new HashSet<>();
    /** Start snapshot: xids preceding startXmax and not in startXip had completed by the start; null when none. */
    private int[] startXip;
    private int startXmax;

    public static boolean isNormal(int xid) {
        return Integer.compareUnsigned(xid, FIRST_NORMAL) >= 0;
    }

    /** {@code TransactionIdPrecedes}: a &lt; b, modulo 2^32 for normal xids; permanent xids precede normal ones. */
    public static boolean precedes(int a, int b) {
        if (!isNormal(a) || !isNormal(b)) {
            return Integer.compareUnsigned(a, b) < 0;
        }
        return a - b < 0;
    }

    public boolean isVisible(int xid) {
        if (xid == BOOTSTRAP || xid == FROZEN) {
            return true;
        }
        if (!isNormal(xid)) {
            return false;
        }
        return (hasHorizon && precedes(xid, horizon)) || committed.contains(xid) || completedAtStart(xid);
    }

    private boolean completedAtStart(int xid) {
        if (startXip == null || !precedes(xid, startXmax)) {
            return false;
        }
        for (int x : startXip) {
            if (x == xid) {
                return false;
            }
        }
        return true;
    }

    /**
     * Sets what was complete at the stream start from a snapshot ({@code pg_current_snapshot()}) taken before the
     * start LSN was read: its xmin becomes the horizon, and xids between xmin and xmax that are not in xip count as
     * complete too (until the horizon passes xmax).
     */
    void setStartSnapshot(CatalogSnapshot.Xids s) {
        advanceHorizon((int) s.xmin());
        int xmax = (int) s.xmax();
        if (xmax != horizon) {
            startXmax = xmax;
            startXip = new int[s.xip().length];
            for (int i = 0; i < startXip.length; i++) {
                startXip[i] = (int) s.xip()[i];
            }
        }
    }

    /** The start snapshot's xmax and xip (32-bit), or null when there is none (or the horizon passed it). */
    int[] startSnapshotXmaxAndXip() {
        if (startXip == null) {
            return null;
        }
        int[] out = new int[startXip.length + 1];
        out[0] = startXmax;
        System.arraycopy(startXip, 0, out, 1, startXip.length);
        return out;
    }

    public boolean hasHorizon() {
        return hasHorizon;
    }

    /** Meaningful only when {@link #hasHorizon()}. */
    public int horizon() {
        return horizon;
    }

    public int committedCount() {
        return committed.size();
    }

    Set<Integer> committedXids() {
        return committed;
    }

    void markCommitted(int xid, int[] subxids) {
        add(xid);
        if (subxids != null) {
            for (int s : subxids) {
                add(s);
            }
        }
    }

    private void add(int xid) {
        if (isNormal(xid) && !(hasHorizon && precedes(xid, horizon))) {
            committed.add(xid);
        }
    }

    /** Moves the horizon forward (never back); returns whether it moved. Prunes committed xids it covers. */
    boolean advanceHorizon(int newHorizon) {
        if (!isNormal(newHorizon)) {
            throw new IllegalArgumentException("horizon must be a normal xid, got " + Integer.toUnsignedString(newHorizon));
        }
        if (hasHorizon && !precedes(horizon, newHorizon)) {
            return false;
        }
        hasHorizon = true;
        horizon = newHorizon;
        if (startXip != null && !precedes(horizon, startXmax)) {
            startXip = null;
        }
        for (Iterator<Integer> it = committed.iterator(); it.hasNext(); ) {
            if (precedes(it.next(), horizon)) {
                it.remove();
            }
        }
        return true;
    }

    void restore(boolean hasHorizon, int horizon, Set<Integer> committed, int[] startXmaxAndXip) {
        this.hasHorizon = hasHorizon;
        this.horizon = horizon;
        this.committed.clear();
        this.committed.addAll(committed);
        if (startXmaxAndXip == null) {
            startXip = null;
        } else {
            startXmax = startXmaxAndXip[0];
            startXip = java.util.Arrays.copyOfRange(startXmaxAndXip, 1, startXmaxAndXip.length);
        }
    }
}
