package io.walshadow.catalog;

import io.walshadow.catalog.DescriptorHistory.Version;
import io.walshadow.wal.RelFileLocator;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * Works out a relation's descriptor as of a boundary from the live catalog, which may already hold changes of
 * later transactions (the "xmin rule"). A catalog row is visible at the boundary when its xmin is
 * {@link Boundary#visible}; a row with any other xmin was written by a transaction the stream has not reached,
 * and the row it replaced (if any) is gone. Where the shape at the boundary follows from what is visible (plus
 * the previous version and the commit record), the result is exact; otherwise it is ambiguous.
 *
 * <p>Rules, in order (prev = the relation's PRESENT version just before the boundary, if any):
 * <ol>
 *   <li>Storage (relfilenode): the live one when pg_class.xmin is visible; else the live one when it equals
 *       prev's, equals the relation oid (a relation's first relfilenode is its oid and every rewrite assigns a
 *       fresh one, so it was never rewritten), or was created by the committing transaction; else prev's, when the
 *       commit record does not drop prev's relfilenode (the commit did not rewrite it: a later one did);
 *       else unknown (ambiguous: prev's, the live one and every relfilenode created and not yet settled, since
 *       the storage at the boundary may be one of those).
 *   <li>Replica identity setting and TOAST table: from the live row when pg_class.xmin is visible, or when equal
 *       to prev's; a new relation's default identity ({@code d}) and absent TOAST table are taken as is; a TOAST
 *       table whose own pg_class row is visible existed, unchanged, at the boundary. Otherwise ambiguous.
 *   <li>Names (schema, table) are taken from the live catalog even when their rows are newer: a rename by a later
 *       transaction only shows the new name early; it never changes how values decode.
 *   <li>Columns: the attnums that existed at the boundary are 1..N, N = relnatts when pg_class.xmin is visible,
 *       else at least prev's column count and the highest visible attnum. A visible attribute row is exact.
 *       An invisible one within 1..N was rewritten later (DROP / RENAME / ALTER TYPE / SET DEFAULT ...): prev's
 *       column when the storage at the boundary is prev's (the tuple layout is prev's: a change that keeps the
 *       relfilenode keeps it) or prev's column has the same decoding-relevant fields; else ambiguous. An invisible one past
 *       N was added later (ADD COLUMN inserts a new row, and updates pg_class in the same transaction): it is
 *       left out, exactly, when pg_class.xmin is visible or equals the row's xmin; else ambiguous.
 *       (The deformer must fail closed on a tuple with more attributes than its descriptor: PostgreSQL never
 *       writes one, so it catches any column this rule left out wrongly.) When no column at all is visible, the
 *       relation was created by a transaction not reached yet, or every column was rewritten since: ambiguous.
 *   <li>Identity columns: the primary key index (the REPLICA IDENTITY index when relreplident is {@code i}).
 *       Visible pg_index rows are exact; an invisible row whose index's pg_class row has the same invisible xmin
 *       was created later and is ignored; an invisible row of an index that is (or was) the identity index is
 *       ambiguous unless it still matches prev. Prev's identity index missing from the live catalog is fine when
 *       the commit invalidated it (the commit dropped it), else ambiguous.
 * </ol>
 */
final class RelationResolver {
    private RelationResolver() {}

    /**
     * @param lsn the boundary
     * @param visible xmin visibility at the boundary
     * @param dropped relfilenodes the commit record drops; null when unknown (the seed)
     * @param created relfilenodes known to be created by the committing transaction (a hint; may be empty)
     * @param invalidated relation oids the commit invalidates
     */
    record Boundary(long lsn, IntPredicate visible, Set<RelFileLocator> dropped, Set<RelFileLocator> created,
                    Set<Integer> invalidated) {
    }

    sealed interface Resolution permits Present, Ambiguous, NotLogged {
        /** Xids of the catalog rows that were not visible (what the relation's state waits for). */
        Set<Integer> aheadXids();
    }

    record Present(RelationDescriptor descriptor, int identityIndexOid, Set<Integer> aheadXids) implements Resolution {
    }

    record Ambiguous(List<RelFileLocator> locators, Set<Integer> aheadXids, List<String> reasons) implements Resolution {
    }

    record NotLogged(Set<Integer> aheadXids) implements Resolution {
    }

    static Resolution resolve(LiveRelation live, List<Version> prior, Boundary b) {
        IntPredicate vis = b.visible();
        Set<Integer> ahead = new LinkedHashSet<>();
        List<String> why = new ArrayList<>();
        Version prevVersion = prior.size() == 1 && prior.get(0).present() ? prior.get(0) : null;
        RelationDescriptor prev = prevVersion == null ? null : prevVersion.descriptor;
        RelFileLocator prevLoc = prior.size() == 1 ? prior.get(0).locator : null;

        boolean pcVis = vis.test(live.classXmin());
        if (!pcVis) {
            ahead.add(live.classXmin());
        }
        if (!vis.test(live.nspXmin())) {
            ahead.add(live.nspXmin());
        }

        // 1. storage
        RelFileLocator liveLoc = live.locator();
        RelFileLocator loc;
        boolean storageFromPrev = false;
        if (pcVis || liveLoc.equals(prevLoc) || liveLoc.relNumber() == live.oid() || b.created().contains(liveLoc)) {
            loc = liveLoc;
        } else if (prevLoc != null && b.dropped() != null && !b.dropped().contains(prevLoc)) {
            loc = prevLoc;
            storageFromPrev = true;
        } else {
            loc = null;
            why.add("relfilenode " + liveLoc + " was assigned by xid " + Integer.toUnsignedString(live.classXmin())
                    + " and the one in use at this boundary is unknown");
        }
        char persistence = storageFromPrev && prev != null ? prev.relpersistence() : live.relpersistence();
        boolean sameStorage = loc != null && prev != null && loc.equals(prev.locator());

        // 2. replica identity setting, TOAST table
        char replident = live.replident();
        if (!pcVis && !(prev != null && prev.replicaIdentity() == replident) && !(prev == null && replident == 'd')) {
            why.add("replica identity setting '" + replident + "' may have been changed by xid "
                    + Integer.toUnsignedString(live.classXmin()));
        }
        int toast = live.toastRelOid();
        if (toast != 0 && !vis.test(live.toastClassXmin())) {
            ahead.add(live.toastClassXmin());
        }
        if (!pcVis) {
            boolean ok = (prev != null && prev.toastRelOid() == toast)
                    || (!storageFromPrev && toast != 0 && vis.test(live.toastClassXmin()))
                    || (!storageFromPrev && toast == 0 && prev == null);
            if (!ok) {
                why.add("TOAST table " + Integer.toUnsignedString(toast) + " may have been replaced by xid "
                        + Integer.toUnsignedString(live.classXmin()));
            }
        }

        // 4. columns
        int bound;
        if (pcVis) {
            bound = live.relnatts();
        } else {
            bound = prev == null ? 0 : prev.natts();
            for (LiveRelation.Attribute a : live.attributes()) {
                if (vis.test(a.xmin())) {
                    bound = Math.max(bound, a.column().attnum());
                }
            }
        }
        List<Column> columns = new ArrayList<>(live.attributes().size());
        for (LiveRelation.Attribute a : live.attributes()) {
            Column c = a.column();
            if (vis.test(a.xmin())) {
                if (c.attnum() > bound) {
                    why.add("column " + c.attnum() + " is visible but past relnatts " + bound);
                }
                columns.add(c);
                continue;
            }
            ahead.add(a.xmin());
            String xid = Integer.toUnsignedString(a.xmin());
            if (c.attnum() <= bound) {
                Column p = prev != null && c.attnum() <= prev.natts() ? prev.column(c.attnum()) : null;
                if (p != null && (Descriptors.sameForDecoding(p, c) || sameStorage)) {
                    // Rewritten by a later transaction on the storage prev used: nothing between prev and this
                    // boundary changed the row (that commit would have refreshed prev), and any change here that
                    // kept the storage kept the tuple layout, so prev's column decodes this boundary's tuples
                    // exactly (its name or typmod may lag until the later commit publishes them).
                    columns.add(p);
                } else {
                    why.add("column " + c.attnum() + " (now \"" + c.name() + "\") was rewritten by xid " + xid);
                }
            } else if (!(pcVis || a.xmin() == live.classXmin())) {
                why.add("column " + c.attnum() + " (\"" + c.name() + "\") was added or rewritten by xid " + xid);
            }
            // else: added after the boundary; left out
        }
        for (int i = 0; i < columns.size() && why.isEmpty(); i++) {
            if (columns.get(i).attnum() != i + 1) {
                why.add("attribute rows are not contiguous at attnum " + (i + 1));
                break;
            }
        }
        if (columns.isEmpty() && !live.attributes().isEmpty() && why.isEmpty()) {
            why.add("no column is visible: the relation was created (or all its columns rewritten) by a transaction"
                    + " the stream has not reached");
        }
        if (pcVis && why.isEmpty() && columns.size() != live.relnatts()) {
            why.add(columns.size() + " attribute rows for relnatts " + live.relnatts());
        }

        // 5. identity
        int prevIdx = prevVersion == null ? 0 : prevVersion.identityIndexOid;
        List<LiveRelation.Index> usable = new ArrayList<>();
        boolean prevIdxLive = false;
        for (LiveRelation.Index ix : live.indexes()) {
            prevIdxLive |= ix.indexOid() == prevIdx;
            if (vis.test(ix.xmin())) {
                usable.add(ix);
                continue;
            }
            ahead.add(ix.xmin());
            boolean createdLater = !vis.test(ix.classXmin()) && ix.classXmin() == ix.xmin();
            boolean relevant = ix.primary() || ix.replident() || (prevIdx != 0 && ix.indexOid() == prevIdx);
            if ((createdLater && ix.indexOid() != prevIdx) || !relevant) {
                continue;
            }
            boolean stillSame = prev != null && ix.indexOid() == prevIdx && ix.attnums().equals(prev.identityAttnums())
                    && (replident == 'i' ? ix.replident() : ix.primary());
            if (stillSame) {
                usable.add(ix);
            } else {
                why.add("index " + Integer.toUnsignedString(ix.indexOid()) + " (primary key / replica identity) was "
                        + "changed by xid " + Integer.toUnsignedString(ix.xmin()));
            }
        }
        if (prevIdx != 0 && !prevIdxLive && !b.invalidated().contains(prevIdx)) {
            why.add("identity index " + Integer.toUnsignedString(prevIdx) + " was dropped by a later transaction");
        }
        LiveRelation.Index chosen = null;
        for (LiveRelation.Index ix : usable) {
            if (replident == 'i' ? ix.replident() : ix.primary()) {
                chosen = ix;
            }
        }

        if (!why.isEmpty()) {
            List<RelFileLocator> locs = new ArrayList<>();
            if (loc != null) {
                locs.add(loc);
            } else {
                for (Version v : prior) {
                    if (!locs.contains(v.locator)) {
                        locs.add(v.locator);
                    }
                }
                if (!locs.contains(liveLoc)) {
                    locs.add(liveLoc);
                }
                // The storage in use is unknown: it may be one the committing transaction created (a rewrite whose
                // relfilenode a later rewrite already replaced in the live catalog). Records on those must fail
                // closed too; left unattributed they would be skipped as "not replicated".
                for (RelFileLocator c : b.created()) {
                    if (!locs.contains(c)) {
                        locs.add(c);
                    }
                }
            }
            return new Ambiguous(locs, ahead, why);
        }
        if (persistence != 'p') {
            return new NotLogged(ahead);
        }
        RelationDescriptor d = new RelationDescriptor(live.oid(), loc, live.schema(), live.name(), live.relkind(),
                persistence, replident, toast, List.copyOf(columns),
                chosen == null ? List.of() : List.copyOf(chosen.attnums()));
        return new Present(d, chosen == null ? 0 : chosen.indexOid(), ahead);
    }
}
