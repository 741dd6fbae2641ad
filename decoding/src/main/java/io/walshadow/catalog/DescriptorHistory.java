package io.walshadow.catalog;

import io.walshadow.catalog.Lookup.NotCoveredReason;
import io.walshadow.catalog.Lookup.Outcome;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which relation each relfilenode of the configured database is, over WAL positions: per relfilenode
 * ({@link RelFileLocator}) a sequence of versions with validity intervals {@code [validFrom, validTo)}, each either
 * PRESENT (a {@link RelationDescriptor}) or AMBIGUOUS (an {@link Ambiguity}: decoding must fail closed); outside
 * every version a relfilenode is NOT_COVERED, and relfilenodes of other databases are FOREIGN_DB.
 *
 * <p>A version that starts at a boundary (commit record LSN {@code C}) answers for every LSN {@code >= C}; records
 * of the committing transaction itself precede {@code C}, so a relfilenode first seen inside the transaction that
 * created it reads NOT_COVERED at its record LSNs and PRESENT at {@code C}: such records are resolved with
 * {@code lookup(locator, C)} once the tracker has applied the commit. Versions are only ever added or closed at
 * the newest boundary, so an answer for an LSN before it never changes.
 *
 * <p>Besides the intervals, the history holds what the tracker needs to continue after a restart: the
 * {@link XidVisibility} state, the last boundary applied, and for each relation what its current state waits
 * for (xids whose commits make a refresh necessary; relfilenodes whose drop ends an ambiguity). It is serialized
 * by {@link CatalogHistorySerializer}. Mutated only by {@link CatalogTracker}; not thread-safe.
 */
public final class DescriptorHistory {
    /** {@code validTo} of a version still open (the largest unsigned LSN). */
    public static final long OPEN = -1L;
    private static final Comparator<Long> UNSIGNED = Long::compareUnsigned;

    private final int dbOid;
    private String filterSpec;
    /** Filter changes a restore scheduled and the stream has not reached yet, in LSN order. */
    private final List<FilterChange> pendingFilters = new ArrayList<>();
    private long historyStart;
    private long lastBoundaryLsn = Lsn.INVALID;
    /** False while the history waits for the stream to reach its start to be seeded there. */
    private boolean seeded = true;
    private final XidVisibility visibility = new XidVisibility();
    private final Map<RelFileLocator, TreeMap<Long, Version>> byLocator = new HashMap<>();
    private final Map<Integer, List<Version>> byRelOid = new HashMap<>();
    private final Map<Integer, Awaits> awaits = new HashMap<>();
    private final Map<Integer, Set<Integer>> relsByXid = new HashMap<>();
    private final Map<RelFileLocator, Set<Integer>> relsByDrop = new HashMap<>();

    /**
     * @param dbOid the configured database
     * @param filterSpec {@link CatalogFilter#spec()} of the filter the history is built with
     * @param historyStart the first LSN the history answers for (the stream's start)
     */
    public DescriptorHistory(int dbOid, String filterSpec, long historyStart) {
        this.dbOid = dbOid;
        this.filterSpec = filterSpec;
        this.historyStart = historyStart;
    }

    /** One interval of one relation on one relfilenode. */
    static final class Version {
        final int relOid;
        final RelFileLocator locator;
        final long from;
        long to = OPEN;
        /** PRESENT: the descriptor (null for AMBIGUOUS). */
        final RelationDescriptor descriptor;
        /** PRESENT: pg_index oid the identity columns come from, 0 if none. */
        final int identityIndexOid;
        /** AMBIGUOUS: why (null for PRESENT). */
        final Ambiguity ambiguity;
        /** Once closed: what lookups at or after {@code to} answer, unless a later version starts there. */
        NotCoveredReason closeReason;

        Version(int relOid, RelFileLocator locator, long from, RelationDescriptor descriptor, int identityIndexOid,
                Ambiguity ambiguity) {
            this.relOid = relOid;
            this.locator = locator;
            this.from = from;
            this.descriptor = descriptor;
            this.identityIndexOid = identityIndexOid;
            this.ambiguity = ambiguity;
        }

        boolean present() {
            return descriptor != null;
        }

        boolean open() {
            return to == OPEN;
        }

        boolean covers(long lsn) {
            return Long.compareUnsigned(from, lsn) <= 0 && Long.compareUnsigned(lsn, to) < 0;
        }

        Lookup toLookup(RelFileLocator loc, long lsn) {
            return present()
                    ? new Lookup(Outcome.PRESENT, loc, lsn, descriptor, from, to, null, null)
                    : new Lookup(Outcome.AMBIGUOUS, loc, lsn, null, from, to, null, ambiguity);
        }
    }

    /** What a relation's current state waits for. */
    record Awaits(Set<Integer> xids, Set<RelFileLocator> drops) {
        boolean isEmpty() {
            return xids.isEmpty() && drops.isEmpty();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Queries
    // ---------------------------------------------------------------------------------------------------------

    public int dbOid() {
        return dbOid;
    }

    /** Whether the relations of the start are in (false: the stream has not reached the start yet). */
    public boolean seeded() {
        return seeded;
    }

    /** The history is to be seeded when the stream reaches its start ({@link CatalogTracker#reach}). */
    void awaitSeed() {
        seeded = false;
    }

    void markSeeded() {
        seeded = true;
    }

    /** The filter in force at the newest boundary applied. */
    public String filterSpec() {
        return filterSpec;
    }

    /** Filter changes scheduled at WAL positions the stream has not reached yet, in LSN order. */
    public List<FilterChange> pendingFilters() {
        return List.copyOf(pendingFilters);
    }

    /** The filter in force once every pending change is applied: what a restart compares its own filter with. */
    public String finalFilterSpec() {
        return pendingFilters.isEmpty() ? filterSpec : pendingFilters.get(pendingFilters.size() - 1).filterSpec();
    }

    public long historyStart() {
        return historyStart;
    }

    /** LSN of the last boundary applied, or {@link Lsn#INVALID} before the first. */
    public long lastBoundaryLsn() {
        return lastBoundaryLsn;
    }

    public XidVisibility visibility() {
        return visibility;
    }

    /** Which relation {@code locator} is at {@code lsn}. Never throws; see {@link Lookup#descriptorOrSkip()}. */
    public Lookup lookup(RelFileLocator locator, long lsn) {
        if (locator.dbOid() != dbOid) {
            return locator.dbOid() == 0
                    ? Lookup.notCovered(locator, lsn, NotCoveredReason.SHARED_CATALOG)
                    : new Lookup(Outcome.FOREIGN_DB, locator, lsn, null, 0, 0, null, null);
        }
        if (Long.compareUnsigned(lsn, historyStart) < 0) {
            return Lookup.notCovered(locator, lsn, NotCoveredReason.BEFORE_HISTORY);
        }
        TreeMap<Long, Version> versions = byLocator.get(locator);
        Map.Entry<Long, Version> e = versions == null ? null : versions.floorEntry(lsn);
        if (e == null) {
            return Lookup.notCovered(locator, lsn, NotCoveredReason.UNKNOWN);
        }
        Version v = e.getValue();
        if (Long.compareUnsigned(lsn, v.to) < 0) {
            return v.toLookup(locator, lsn);
        }
        return Lookup.notCovered(locator, lsn, v.closeReason);
    }

    /**
     * Which relfilenode and descriptor the relation with pg_class oid {@code relOid} has at {@code lsn} (for records
     * that name relations by oid: TRUNCATE, TOAST pointers). The lookup's locator is the relation's relfilenode
     * then (null when NOT_COVERED).
     */
    public Lookup lookupRelation(int relOid, long lsn) {
        if (Long.compareUnsigned(lsn, historyStart) < 0) {
            return Lookup.notCovered(null, lsn, NotCoveredReason.BEFORE_HISTORY);
        }
        List<Version> versions = byRelOid.get(relOid);
        if (versions == null) {
            return Lookup.notCovered(null, lsn, NotCoveredReason.UNKNOWN);
        }
        Version present = null;
        Version lastClosed = null;
        for (Version v : versions) {
            if (v.covers(lsn)) {
                if (!v.present()) {
                    return v.toLookup(v.locator, lsn);
                }
                present = v;
            } else if (!v.open() && Long.compareUnsigned(v.to, lsn) <= 0
                    && (lastClosed == null || Long.compareUnsigned(lastClosed.to, v.to) <= 0)) {
                lastClosed = v;
            }
        }
        if (present != null) {
            return present.toLookup(present.locator, lsn);
        }
        return Lookup.notCovered(null, lsn, lastClosed == null ? NotCoveredReason.UNKNOWN : lastClosed.closeReason);
    }

    /** The relation's current (open) state: PRESENT, AMBIGUOUS, or NOT_COVERED when it has none. */
    public Lookup current(int relOid) {
        List<Version> open = openVersions(relOid);
        for (Version v : open) {
            if (!v.present()) {
                return v.toLookup(v.locator, v.from);
            }
        }
        return open.isEmpty() ? Lookup.notCovered(null, lastBoundaryLsn, NotCoveredReason.UNKNOWN)
                : open.get(0).toLookup(open.get(0).locator, open.get(0).from);
    }

    /** Oids of the relations that currently have a PRESENT or AMBIGUOUS state. */
    public Set<Integer> trackedRelations() {
        Set<Integer> out = new TreeSet<>();
        for (Map.Entry<Integer, List<Version>> e : byRelOid.entrySet()) {
            for (Version v : e.getValue()) {
                if (v.open()) {
                    out.add(e.getKey());
                    break;
                }
            }
        }
        return out;
    }

    /** Number of versions held (open and closed). */
    public int versionCount() {
        int n = 0;
        for (List<Version> l : byRelOid.values()) {
            n += l.size();
        }
        return n;
    }

    List<Version> openVersions(int relOid) {
        List<Version> out = new ArrayList<>(1);
        List<Version> versions = byRelOid.get(relOid);
        if (versions != null) {
            for (Version v : versions) {
                if (v.open()) {
                    out.add(v);
                }
            }
        }
        return out;
    }

    /** The relation whose open version is on {@code locator}, or null. */
    Integer openRelationOn(RelFileLocator locator) {
        TreeMap<Long, Version> versions = byLocator.get(locator);
        if (versions == null || versions.isEmpty()) {
            return null;
        }
        Version last = versions.lastEntry().getValue();
        return last.open() ? last.relOid : null;
    }

    Set<Integer> relationsAwaitingXid(int xid) {
        return relsByXid.getOrDefault(xid, Set.of());
    }

    Set<Integer> relationsAwaitingDrop(RelFileLocator locator) {
        return relsByDrop.getOrDefault(locator, Set.of());
    }

    Set<Integer> awaitedXids() {
        return relsByXid.keySet();
    }

    Map<Integer, Awaits> awaits() {
        return awaits;
    }

    Map<Integer, List<Version>> versionsByRelation() {
        return byRelOid;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Mutation (CatalogTracker)
    // ---------------------------------------------------------------------------------------------------------

    void setLastBoundaryLsn(long lsn) {
        lastBoundaryLsn = lsn;
    }

    /** Schedules a filter change; it must come after the last boundary and after every change already scheduled. */
    void schedule(FilterChange change) {
        if (Long.compareUnsigned(change.lsn(), historyStart) < 0) {
            throw new IllegalStateException("the filter change " + change + " precedes the history's start "
                    + Lsn.format(historyStart));
        }
        long after = pendingFilters.isEmpty() ? lastBoundaryLsn : pendingFilters.get(pendingFilters.size() - 1).lsn();
        if (after != Lsn.INVALID && Long.compareUnsigned(change.lsn(), after) <= 0) {
            throw new IllegalStateException("the filter change " + change + " is not past "
                    + (pendingFilters.isEmpty() ? "the last boundary applied" : "the change scheduled before it")
                    + " (" + Lsn.format(after) + ")");
        }
        pendingFilters.add(change);
    }

    /** The first pending change when it is at or before {@code lsn}, else null. */
    FilterChange dueFilter(long lsn) {
        return pendingFilters.isEmpty() || Long.compareUnsigned(pendingFilters.get(0).lsn(), lsn) > 0 ? null
                : pendingFilters.get(0);
    }

    /** The first pending change took effect. */
    void appliedFilter(FilterChange change) {
        if (pendingFilters.isEmpty() || pendingFilters.get(0) != change) {
            throw new IllegalStateException("filter change " + change + " is not the first one pending");
        }
        pendingFilters.remove(0);
        filterSpec = change.filterSpec();
    }

    /** Makes {@code d} the relation's state from {@code at} on; earlier open versions end there. */
    void setPresent(RelationDescriptor d, int identityIndexOid, long at) {
        closeOpen(d.relOid(), at, NotCoveredReason.REPLACED);
        open(new Version(d.relOid(), d.locator(), at, d, identityIndexOid, null));
    }

    /** Marks the relation ambiguous from {@code at} on, on each of {@code locators}. */
    void setAmbiguous(int relOid, Collection<RelFileLocator> locators, Ambiguity ambiguity, long at) {
        closeOpen(relOid, at, NotCoveredReason.REPLACED);
        for (RelFileLocator loc : new LinkedHashSet<>(locators)) {
            open(new Version(relOid, loc, at, null, 0, ambiguity));
        }
    }

    /** Ends the relation's open versions at {@code at}; lookups from there answer NOT_COVERED({@code reason}). */
    void close(int relOid, long at, NotCoveredReason reason) {
        closeOpen(relOid, at, reason);
        setAwaits(relOid, Set.of(), Set.of());
    }

    /** Replaces what the relation's current state waits for. */
    void setAwaits(int relOid, Collection<Integer> xids, Collection<RelFileLocator> drops) {
        Awaits old = awaits.remove(relOid);
        if (old != null) {
            for (int x : old.xids()) {
                removeIndex(relsByXid, x, relOid);
            }
            for (RelFileLocator l : old.drops()) {
                removeIndex(relsByDrop, l, relOid);
            }
        }
        Awaits a = new Awaits(Set.copyOf(xids), Set.copyOf(drops));
        if (a.isEmpty()) {
            return;
        }
        awaits.put(relOid, a);
        for (int x : a.xids()) {
            relsByXid.computeIfAbsent(x, k -> new TreeSet<>()).add(relOid);
        }
        for (RelFileLocator l : a.drops()) {
            relsByDrop.computeIfAbsent(l, k -> new TreeSet<>()).add(relOid);
        }
    }

    /**
     * Forgets versions that ended at or before {@code lsn} (no record before it will be looked up again, e.g. the
     * oldest LSN a restart can re-read from). Lookups before {@code lsn} answer BEFORE_HISTORY afterwards.
     */
    public void pruneBefore(long lsn) {
        if (Long.compareUnsigned(lsn, historyStart) <= 0) {
            return;
        }
        historyStart = lsn;
        for (Iterator<Map.Entry<Integer, List<Version>>> it = byRelOid.entrySet().iterator(); it.hasNext(); ) {
            List<Version> list = it.next().getValue();
            list.removeIf(v -> !v.open() && Long.compareUnsigned(v.to, lsn) <= 0);
            if (list.isEmpty()) {
                it.remove();
            }
        }
        for (Iterator<Map.Entry<RelFileLocator, TreeMap<Long, Version>>> it = byLocator.entrySet().iterator();
                it.hasNext(); ) {
            TreeMap<Long, Version> m = it.next().getValue();
            m.values().removeIf(v -> !v.open() && Long.compareUnsigned(v.to, lsn) <= 0);
            if (m.isEmpty()) {
                it.remove();
            }
        }
    }

    private void closeOpen(int relOid, long at, NotCoveredReason reason) {
        List<Version> versions = byRelOid.get(relOid);
        if (versions == null) {
            return;
        }
        for (Version v : new ArrayList<>(versions)) {
            if (v.open()) {
                end(v, at, reason);
            }
        }
    }

    /** Ends {@code v} at {@code at}; a version that would be empty is removed instead. */
    private void end(Version v, long at, NotCoveredReason reason) {
        int cmp = Long.compareUnsigned(at, v.from);
        if (cmp < 0) {
            throw new IllegalStateException("boundary " + Lsn.format(at) + " precedes the start "
                    + Lsn.format(v.from) + " of the open version of relation " + Integer.toUnsignedString(v.relOid)
                    + " on " + v.locator + ": boundaries must be applied in WAL order");
        }
        if (cmp == 0) {
            TreeMap<Long, Version> m = byLocator.get(v.locator);
            m.remove(v.from);
            Map.Entry<Long, Version> prev = m.lastEntry();
            if (prev != null && prev.getValue().to == at) {
                prev.getValue().closeReason = reason;
            }
            if (m.isEmpty()) {
                byLocator.remove(v.locator);
            }
            List<Version> list = byRelOid.get(v.relOid);
            list.remove(v);
            if (list.isEmpty()) {
                byRelOid.remove(v.relOid);
            }
            return;
        }
        v.to = at;
        v.closeReason = reason;
    }

    private void open(Version v) {
        TreeMap<Long, Version> m = byLocator.get(v.locator);
        if (m != null && !m.isEmpty()) {
            Version last = m.lastEntry().getValue();
            if (last.open()) {
                // another relation's version still open on this relfilenode: the number was reused
                end(last, v.from, NotCoveredReason.REPLACED);
            } else if (Long.compareUnsigned(last.to, v.from) > 0) {
                throw new IllegalStateException("version of relation " + Integer.toUnsignedString(v.relOid)
                        + " at " + Lsn.format(v.from) + " on " + v.locator + " overlaps one ending at "
                        + Lsn.format(last.to));
            }
        }
        byLocator.computeIfAbsent(v.locator, k -> new TreeMap<>(UNSIGNED)).put(v.from, v);
        byRelOid.computeIfAbsent(v.relOid, k -> new ArrayList<>(2)).add(v);
    }

    private static <K> void removeIndex(Map<K, Set<Integer>> index, K key, int relOid) {
        Set<Integer> s = index.get(key);
        if (s != null) {
            s.remove(relOid);
            if (s.isEmpty()) {
                index.remove(key);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Restore (CatalogHistorySerializer)
    // ---------------------------------------------------------------------------------------------------------

    void restoreBoundary(long historyStart, long lastBoundaryLsn) {
        this.historyStart = historyStart;
        this.lastBoundaryLsn = lastBoundaryLsn;
    }

    /** Adds a decoded version; versions of one relfilenode must come in LSN order and must not overlap. */
    void restoreVersion(Version v) {
        TreeMap<Long, Version> m = byLocator.computeIfAbsent(v.locator, k -> new TreeMap<>(UNSIGNED));
        Map.Entry<Long, Version> last = m.lastEntry();
        if (last != null && (last.getValue().open() || Long.compareUnsigned(last.getValue().to, v.from) > 0)) {
            throw new IllegalStateException("overlapping versions on " + v.locator + " at " + Lsn.format(v.from));
        }
        if (Long.compareUnsigned(v.from, v.to) >= 0) {
            throw new IllegalStateException("empty version interval on " + v.locator + " at " + Lsn.format(v.from));
        }
        m.put(v.from, v);
        byRelOid.computeIfAbsent(v.relOid, k -> new ArrayList<>(2)).add(v);
    }
}
