package io.walshadow.catalog;

import io.walshadow.catalog.DescriptorHistory.Version;
import io.walshadow.catalog.Lookup.NotCoveredReason;
import io.walshadow.catalog.RelationResolver.Ambiguous;
import io.walshadow.catalog.RelationResolver.Boundary;
import io.walshadow.catalog.RelationResolver.NotLogged;
import io.walshadow.catalog.RelationResolver.Present;
import io.walshadow.catalog.RelationResolver.Resolution;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntPredicate;

/**
 * Keeps a {@link DescriptorHistory} current at transaction boundaries, from the live catalog.
 *
 * <p>Call, in WAL order: {@link #onCommit} for every commit record (of every database; it is cheap when there is
 * nothing to refresh) and {@link #onRunningXacts} for every {@code XLOG_RUNNING_XACTS} record, before any later
 * record is looked up. A commit refreshes the relations it invalidates, the relations whose storage it drops, and
 * the relations waiting for its xid (see below); the refresh reads one snapshot of the live catalog
 * ({@link CatalogSource}) and the new versions start at the commit's LSN. Records of the committing transaction
 * that were deferred to its commit (relfilenodes it created: CREATE TABLE + COPY, TRUNCATE + INSERT, rewrites)
 * then resolve with {@code history().lookup(locator, commitLsn)}.
 *
 * <p><b>The live catalog may be ahead.</b> When the job lags, the catalog read at commit C can already hold DDL of
 * later transactions. Each catalog row the descriptor is built from carries its xmin; a row is visible at C when
 * its xmin is C's xid or one of its subxids, a commit the stream has already passed, precedes the horizon, or is
 * frozen ({@link XidVisibility}). {@link RelationResolver} derives the descriptor at C from the visible rows
 * where that is exact (e.g. columns added later are left out) and otherwise marks the relation AMBIGUOUS from C:
 * lookups there fail closed with {@link CatalogAheadException}. Relations with invisible rows wait for those
 * xids: when the stream reaches their commits (or the horizon passes them) they are refreshed again. Counted as
 * {@code catalog_ahead_detected}, {@code _exact}, {@code _ambiguous}.
 *
 * <p><b>The live catalog may be behind</b> (a lagging standby, or the commit's backend still in the proc array):
 * the load is retried a few times, then {@link CatalogBehindException}.
 *
 * <p><b>The filter may change at a restore</b> ({@link #restore(CatalogFilter, CatalogSource, DescriptorHistory,
 * FilterChange)}): the history keeps the old filter up to the position the change was scheduled at, and there
 * ({@link #reach}) loads every relation the new filter includes, as of that position. Relations it newly includes
 * start their history there (their earlier records are NOT_COVERED); relations it no longer includes are closed
 * EXCLUDED. Counted as {@code catalog_filter_changes_applied}, {@code catalog_relations_entered_filter}, {@code _left_filter}.
 *
 * <p>A boundary is applied atomically: the load happens before anything changes, so a failed call ({@link CatalogReadException})
 * can be repeated. Boundaries at or before the last one applied are ignored (WAL re-read after a restart). Not
 * thread-safe.
 */
public final class CatalogTracker {
    private CatalogFilter filter;
    private CatalogSource source;
    private final DescriptorHistory history;
    private final CatalogCounters counters = new CatalogCounters();
    private int behindRetries = 50;
    private long behindRetrySleepMillis = 20;

    private CatalogTracker(CatalogFilter filter, CatalogSource source, DescriptorHistory history) {
        this.filter = filter;
        this.source = source;
        this.history = history;
    }

    /**
     * Starts a history from the live catalog.
     *
     * @param startLsn where the stream starts: the first LSN the history answers for. Must not be past the load's
     *     snapshot (commits in between would be missed); commits between them are re-applied from the stream.
     * @param horizonXid every xid preceding it had completed by {@code startLsn}: e.g. the
     *     {@code oldestRunningXid} of an {@code XLOG_RUNNING_XACTS} record at or before {@code startLsn}, or
     *     {@code pg_snapshot_xmin(pg_current_snapshot())} taken before {@code startLsn} was read from
     *     {@code pg_current_wal_insert_lsn()}. Catalog rows of later xids are treated as not yet reached, so
     *     their relations stay exact-or-ambiguous until the stream passes their commits.
     */
    public static CatalogTracker seed(CatalogFilter filter, CatalogSource source, long startLsn, int horizonXid)
            throws CatalogReadException {
        long h = Integer.toUnsignedLong(horizonXid);
        return seed(filter, source, startLsn, new CatalogSnapshot.Xids(h, h, new long[0]));
    }

    /**
     * Starts a history from the live catalog, with what was complete at the start given as a snapshot: the most
     * precise form. Take {@code pg_current_snapshot()}, then read {@code pg_current_wal_insert_lsn()} as
     * {@code startLsn}: every xid the snapshot shows as complete committed (or aborted) before {@code startLsn}.
     */
    public static CatalogTracker seed(CatalogFilter filter, CatalogSource source, long startLsn,
                                      CatalogSnapshot.Xids startSnapshot) throws CatalogReadException {
        CatalogSnapshot snap = source.load(Set.of(), true);
        if (snap.lsn() != Lsn.INVALID && Long.compareUnsigned(snap.lsn(), startLsn) < 0) {
            throw new IllegalArgumentException("the catalog snapshot (WAL position " + Lsn.format(snap.lsn())
                    + ") precedes the stream start " + Lsn.format(startLsn) + ": commits in between would be "
                    + "missed; start the stream at or before the snapshot");
        }
        DescriptorHistory h = new DescriptorHistory(snap.dbOid(), filter.spec(), startLsn);
        CatalogTracker t = new CatalogTracker(filter, source, h);
        XidVisibility v = h.visibility();
        v.setStartSnapshot(startSnapshot);
        t.counters.catalogRefreshes++;
        Boundary b = new Boundary(startLsn, v::isVisible, null, Set.of(), Set.of());
        List<CatalogChange> ignored = new ArrayList<>();
        for (int oid : new TreeSet<>(snap.relations().keySet())) {
            t.apply(oid, snap.relations().get(oid), b, ignored);
        }
        return t;
    }

    /**
     * A new history seeded from {@code source} when the stream reaches {@code startLsn} ({@link #reach}), not now:
     * the source is the catalog shadow, which gets to the catalog as of {@code startLsn} by reading the WAL below it.
     * Records before {@code startLsn} are BEFORE_HISTORY.
     */
    public static CatalogTracker seedAt(CatalogFilter filter, CatalogSource source, int dbOid, long startLsn) {
        DescriptorHistory h = new DescriptorHistory(dbOid, filter.spec(), startLsn);
        h.awaitSeed();
        return new CatalogTracker(filter, source, h);
    }

    /** Continues a history restored from state (built with the same filter). */
    public static CatalogTracker restore(CatalogFilter filter, CatalogSource source, DescriptorHistory history) {
        return restore(filter, source, history, null);
    }

    /**
     * Continues a history restored from state. When {@code filter} differs from the filter the history ends with,
     * the change is scheduled at {@code change} (whose spec must be {@code filter}'s; null: a changed filter is
     * refused). Until the stream reaches it, the history keeps the filter it had; changes scheduled by earlier
     * restores and not reached yet stay scheduled.
     *
     * @param source reads the live catalog; its own filter does not matter (the tracker sets the one in force)
     */
    public static CatalogTracker restore(CatalogFilter filter, CatalogSource source, DescriptorHistory history,
                                         FilterChange change) {
        if (!filter.spec().equals(history.finalFilterSpec())) {
            if (change == null) {
                throw new IllegalStateException("the catalog filter changed since the descriptor history was written ("
                        + history.finalFilterSpec() + " -> " + filter.spec() + "): relations it now includes have no "
                        + "history and their earlier rows are not in the WAL; re-seed from a fresh snapshot");
            }
            if (!change.filterSpec().equals(filter.spec())) {
                throw new IllegalArgumentException("filter change " + change + " is not to " + filter.spec());
            }
            history.schedule(change);
        }
        CatalogFilter current = CatalogFilter.fromSpec(history.filterSpec());
        return new CatalogTracker(current, source.withFilter(current), history);
    }

    /** How often, and how long apart, a load that does not show the boundary yet is retried. */
    public CatalogTracker withBehindRetries(int retries, long sleepMillis) {
        this.behindRetries = retries;
        this.behindRetrySleepMillis = sleepMillis;
        return this;
    }

    public DescriptorHistory history() {
        return history;
    }

    public CatalogCounters counters() {
        return counters;
    }

    public CatalogFilter filter() {
        return filter;
    }

    /**
     * The stream is at {@code lsn}: applies the filter changes scheduled at or before it. Call before a record at
     * {@code lsn} is decoded. Returns the relations whose state changed (entered or left the filter).
     */
    public List<CatalogChange> reach(long lsn) throws CatalogReadException {
        if (!history.seeded()) {
            if (Long.compareUnsigned(lsn, history.historyStart()) < 0) {
                return List.of();
            }
            seedNow();
        }
        FilterChange due = history.dueFilter(lsn);
        if (due == null) {
            return List.of();
        }
        List<CatalogChange> changes = new ArrayList<>();
        for (; due != null; due = history.dueFilter(lsn)) {
            changes.addAll(applyFilter(due));
        }
        return changes;
    }

    /** The deferred seed ({@link #seedAt}): every relation the filter includes, as the source has it now. */
    private void seedNow() throws CatalogReadException {
        CatalogSnapshot snap = source.load(Set.of(), true);
        if (snap.dbOid() != history.dbOid()) {
            throw new IllegalStateException("the catalog source reads database oid "
                    + Integer.toUnsignedString(snap.dbOid()) + ", the descriptor history is for "
                    + Integer.toUnsignedString(history.dbOid()));
        }
        counters.catalogRefreshes++;
        Boundary b = new Boundary(history.historyStart(), x -> true, null, Set.of(), Set.of());
        List<CatalogChange> ignored = new ArrayList<>();
        for (int oid : rootsFirst(snap.relations().keySet(), snap)) {
            apply(oid, snap.relations().get(oid), b, ignored);
        }
        history.markSeeded();
    }

    /**
     * Every relation the new filter includes, as of the change's position: catalog rows of transactions running
     * there are not visible yet (as at a seed). The boundary is not recorded as applied: a commit record at exactly
     * that position still applies after it.
     */
    private List<CatalogChange> applyFilter(FilterChange f) throws CatalogReadException {
        CatalogFilter next = CatalogFilter.fromSpec(f.filterSpec());
        CatalogSource nextSource = source.withFilter(next);
        XidVisibility v = history.visibility();
        CatalogSnapshot.Xids running = f.running();
        IntPredicate vis = x -> v.isVisible(x) || running.completed(x);
        Boundary b = new Boundary(f.lsn(), vis, Set.of(), Set.of(), Set.of());
        Set<Integer> request = new TreeSet<>(history.trackedRelations());
        List<CatalogChange> changes = applyLoaded(request,
                loadShowing(nextSource, request, true, f.lsn(), XidVisibility.INVALID), b);
        filter = next;
        source = nextSource;
        history.appliedFilter(f);
        counters.filterChangesApplied++;
        for (CatalogChange c : changes) {
            if (c.added()) {
                counters.relationsEnteredFilter++;
            } else if (c.closedAs() == NotCoveredReason.EXCLUDED) {
                counters.relationsLeftFilter++;
            }
        }
        return changes;
    }

    /** Applies a commit record. Returns the relations whose state changed at it. */
    public List<CatalogChange> onCommit(CommitInfo c) throws CatalogReadException {
        if (alreadyApplied(c.lsn())) {
            return List.of();
        }
        counters.commits++;
        int db = history.dbOid();
        boolean ours = c.dbOid() == db || c.dbOid() == 0;
        Set<Integer> refresh = new TreeSet<>();
        Set<RelFileLocator> dropped = new HashSet<>();
        // this database's relfilenodes created and not yet settled (the set is the decoder's, not a copy)
        Set<RelFileLocator> created = ours ? c.createdLocators() : Set.of();
        if (ours) {
            refresh.addAll(c.relcacheInvalOids());
            for (RelFileLocator l : c.droppedLocators()) {
                if (l.dbOid() == db) {
                    dropped.add(l);
                    Integer r = history.openRelationOn(l);
                    if (r != null) {
                        refresh.add(r);
                    }
                    refresh.addAll(history.relationsAwaitingDrop(l));
                }
            }
        }
        refresh.addAll(history.relationsAwaitingXid(c.xid()));
        for (int s : c.subxids()) {
            refresh.addAll(history.relationsAwaitingXid(s));
        }
        boolean all = ours && c.refreshAll();
        List<CatalogChange> changes = List.of();
        if (all || !refresh.isEmpty()) {
            XidVisibility v = history.visibility();
            IntPredicate vis = x -> c.isOfTransaction(x) || v.isVisible(x);
            changes = refresh(refresh, all, new Boundary(c.lsn(), vis, dropped, created, c.relcacheInvalOids()),
                    c.xid());
        }
        history.visibility().markCommitted(c.xid(), c.subxids());
        history.setLastBoundaryLsn(c.lsn());
        return changes;
    }

    /**
     * Applies an {@code XLOG_RUNNING_XACTS} record: every xid preceding {@code oldestRunningXid} has completed by
     * {@code lsn}. Advances the horizon, and refreshes relations that waited for xids it now covers (a commit the
     * stream never showed, because it preceded the stream's start).
     */
    public List<CatalogChange> onRunningXacts(long lsn, int oldestRunningXid) throws CatalogReadException {
        if (alreadyApplied(lsn)) {
            return List.of();
        }
        XidVisibility v = history.visibility();
        boolean moves = XidVisibility.isNormal(oldestRunningXid)
                && (!v.hasHorizon() || XidVisibility.precedes(v.horizon(), oldestRunningXid));
        List<CatalogChange> changes = List.of();
        if (moves) {
            IntPredicate vis = x -> v.isVisible(x) || (XidVisibility.isNormal(x)
                    && XidVisibility.precedes(x, oldestRunningXid));
            Set<Integer> refresh = new TreeSet<>();
            for (int x : new ArrayList<>(history.awaitedXids())) {
                if (vis.test(x)) {
                    refresh.addAll(history.relationsAwaitingXid(x));
                }
            }
            if (!refresh.isEmpty()) {
                changes = refresh(refresh, false, new Boundary(lsn, vis, Set.of(), Set.of(), Set.of()),
                        XidVisibility.INVALID);
            }
            v.advanceHorizon(oldestRunningXid);
            counters.horizonAdvances++;
        }
        history.setLastBoundaryLsn(lsn);
        return changes;
    }

    private boolean alreadyApplied(long lsn) {
        long last = history.lastBoundaryLsn();
        if (Long.compareUnsigned(lsn, history.historyStart()) < 0
                || (last != Lsn.INVALID && Long.compareUnsigned(lsn, last) <= 0)) {
            counters.boundariesSkipped++;
            return true;
        }
        return false;
    }

    private List<CatalogChange> refresh(Set<Integer> oids, boolean all, Boundary b, int committingXid)
            throws CatalogReadException {
        Set<Integer> request = new TreeSet<>(oids);
        if (all) {
            request.addAll(history.trackedRelations());
        }
        for (int oid : new ArrayList<>(request)) {
            for (Version v : history.openVersions(oid)) {
                if (v.present() && v.descriptor.toastRelOid() != 0) {
                    request.add(v.descriptor.toastRelOid());
                }
            }
        }
        return applyLoaded(request, loadShowing(source, request, all, b.lsn(), committingXid), b);
    }

    /** Re-resolves the requested relations and every relation the load returned at the boundary. */
    private List<CatalogChange> applyLoaded(Set<Integer> request, CatalogSnapshot snap, Boundary b) {
        counters.catalogRefreshes++;
        Set<Integer> subjects = new TreeSet<>(request);
        subjects.addAll(snap.relations().keySet());
        List<CatalogChange> changes = new ArrayList<>();
        for (int oid : rootsFirst(subjects, snap)) {
            apply(oid, snap.relations().get(oid), b, changes);
        }
        return changes;
    }

    /** In oid order, partition roots first: a partition's descriptor is built on its root's at the same boundary. */
    private static List<Integer> rootsFirst(Set<Integer> oids, CatalogSnapshot snap) {
        List<Integer> out = new ArrayList<>(new TreeSet<>(oids));
        out.sort(java.util.Comparator.comparing(oid -> {
            LiveRelation l = snap.relations().get(oid);
            return l == null || l.relkind() != 'p';
        }));
        return out;
    }

    /** Loads, retrying while the snapshot does not show the boundary yet. */
    private CatalogSnapshot loadShowing(CatalogSource from, Set<Integer> request, boolean all, long lsn,
                                        int committingXid) throws CatalogReadException {
        for (int attempt = 0; ; attempt++) {
            CatalogSnapshot s = from.load(request, all);
            if (s.dbOid() != history.dbOid()) {
                throw new IllegalStateException("the catalog source reads database oid "
                        + Integer.toUnsignedString(s.dbOid()) + ", the descriptor history is for "
                        + Integer.toUnsignedString(history.dbOid()));
            }
            String problem = null;
            if (s.lsn() != Lsn.INVALID && Long.compareUnsigned(s.lsn(), lsn) <= 0) {
                problem = "its WAL position " + Lsn.format(s.lsn()) + " is not past the boundary";
            } else if (committingXid != XidVisibility.INVALID && s.xids() != null && !s.xids().completed(committingXid)) {
                problem = "xid " + Integer.toUnsignedString(committingXid) + " is still in progress in its snapshot "
                        + s.xids();
            }
            if (problem == null) {
                return s;
            }
            if (attempt >= behindRetries) {
                throw new CatalogBehindException("the live catalog does not show the boundary at " + Lsn.format(lsn)
                        + " after " + (attempt + 1) + " loads: " + problem
                        + " (is the catalog connection on a standby that replays behind the WAL being decoded?)");
            }
            counters.catalogBehindRetries++;
            try {
                Thread.sleep(behindRetrySleepMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CatalogReadException("interrupted while waiting for the live catalog to reach "
                        + Lsn.format(lsn), e);
            }
        }
    }

    /** Re-resolves one relation at the boundary; {@code live} null when the load did not return it. */
    private void apply(int oid, LiveRelation live, Boundary b, List<CatalogChange> changes) {
        long lsn = b.lsn();
        List<Version> prior = history.openVersions(oid);
        RelationDescriptor before = prior.size() == 1 && prior.get(0).present() ? prior.get(0).descriptor : null;
        Version priorAmbiguous = null;
        for (Version v : prior) {
            if (!v.present()) {
                priorAmbiguous = v;
            }
        }
        if (live == null) {
            if (prior.isEmpty()) {
                return;
            }
            counters.relationsRefreshed++;
            List<RelFileLocator> locs = new ArrayList<>();
            boolean droppedHere = false;
            for (Version v : prior) {
                locs.add(v.locator);
                droppedHere |= b.dropped() != null && b.dropped().contains(v.locator);
                // a partition root has no storage to drop; only the exact shadow tracks roots, so gone is dropped
                droppedHere |= PartitionOf.isRootLocator(v.locator);
            }
            if (droppedHere) {
                history.close(oid, lsn, NotCoveredReason.DROPPED);
                changes.add(new CatalogChange(oid, before, null, null, NotCoveredReason.DROPPED));
                return;
            }
            // Gone from the catalog, but this boundary does not drop its storage: a transaction the stream has not
            // reached dropped it. Its shape after this boundary is unknown until that drop is reached.
            String reason = "the relation is gone from the live catalog: a transaction the stream has not reached "
                    + "dropped it";
            if (priorAmbiguous == null || !priorAmbiguous.ambiguity.reason().equals(reason)) {
                counters.relationsVanished++;
                counters.catalogAheadDetected++;
                counters.catalogAheadAmbiguous++;
                String name = before != null ? before.qualifiedName()
                        : priorAmbiguous != null ? priorAmbiguous.ambiguity.qualifiedName() : "?";
                Ambiguity a = new Ambiguity(oid, name, lsn, List.of(), reason);
                history.setAmbiguous(oid, locs, a, lsn);
                changes.add(new CatalogChange(oid, before, null, a, null));
            }
            history.setAwaits(oid, Set.of(), locs);
            return;
        }
        if (!live.included()) {
            if (!prior.isEmpty()) {
                counters.relationsRefreshed++;
                history.close(oid, lsn, NotCoveredReason.EXCLUDED);
                changes.add(new CatalogChange(oid, before, null, null, NotCoveredReason.EXCLUDED));
            }
            return;
        }
        counters.relationsRefreshed++;
        Resolution r = RelationResolver.resolve(live, prior, b);
        boolean ahead = !r.aheadXids().isEmpty();
        if (ahead) {
            counters.catalogAheadDetected++;
        }
        if (r instanceof Present resolved) {
            Present p = live.partitionRoot() == 0 ? resolved : routed(live, resolved, lsn);
            boolean attachedWithRows = p != resolved && prior.isEmpty() && attachedHere(oid, b);
            if (attachedWithRows) {
                // a commit made an existing table, not followed until now, a partition: an ATTACH
                counters.partitionsAttachedWithoutHistory++;
                counters.lastPartitionAttachedWithoutHistory = p.descriptor().qualifiedName() + " -> "
                        + p.descriptor().partition().root().qualifiedName() + " at " + Lsn.format(lsn);
            }
            if (ahead) {
                counters.catalogAheadExact++;
            }
            boolean same = before != null && Descriptors.sameContent(before, p.descriptor())
                    && prior.get(0).identityIndexOid == p.identityIndexOid();
            if (!same) {
                history.setPresent(p.descriptor(), p.identityIndexOid(), lsn);
                counters.versionsCreated++;
                if (priorAmbiguous != null) {
                    counters.ambiguityResolved++;
                }
                changes.add(new CatalogChange(oid, before, p.descriptor(), null, null, attachedWithRows));
            }
            history.setAwaits(oid, p.aheadXids(), Set.of());
        } else if (r instanceof Ambiguous a) {
            List<Integer> xids = new ArrayList<>(new LinkedHashSet<>(a.aheadXids()));
            boolean same = priorAmbiguous != null && prior.size() == a.locators().size()
                    && locatorsOf(prior).equals(new HashSet<>(a.locators()))
                    && new HashSet<>(priorAmbiguous.ambiguity.awaitedXids()).equals(new HashSet<>(xids));
            if (!same) {
                counters.catalogAheadAmbiguous++;
                Ambiguity amb = new Ambiguity(oid, live.qualifiedName(), lsn, xids, String.join("; ", a.reasons()));
                history.setAmbiguous(oid, a.locators(), amb, lsn);
                changes.add(new CatalogChange(oid, before, null, amb, null));
            }
            history.setAwaits(oid, a.aheadXids(), Set.of());
        } else if (r instanceof NotLogged) {
            if (!prior.isEmpty()) {
                history.close(oid, lsn, NotCoveredReason.NOT_LOGGED);
                changes.add(new CatalogChange(oid, before, null, null, NotCoveredReason.NOT_LOGGED));
            }
        }
    }

    /**
     * Whether the boundary's commit made an existing table, not followed until now, a partition: an ATTACH of the
     * table itself (its pg_class row is older than the commit), or of a sub-partitioned table above it, which changes
     * that table's catalog rows only, not those of the partitions below it (unless the commit created them).
     */
    private boolean attachedHere(int oid, Boundary b) {
        if (b.invalidated().contains(oid) && source.existedBeforeLastCommit(oid)) {
            return true;
        }
        if (source.createdByLastCommit(oid)) {
            return false;
        }
        for (int above : source.partitionedAbove(oid)) {
            if (b.invalidated().contains(above) && source.existedBeforeLastCommit(above)) {
                return true;
            }
        }
        return false;
    }

    /** A partition's descriptor routed through its root, as the root is at this boundary (applied just before). */
    private Present routed(LiveRelation live, Present p, long lsn) {
        List<Version> root = history.openVersions(live.partitionRoot());
        if (root.size() != 1 || !root.get(0).present()) {
            throw new IllegalStateException("partition " + live.qualifiedName() + " at " + Lsn.format(lsn)
                    + ": its root, relation " + Integer.toUnsignedString(live.partitionRoot())
                    + ", has no known shape there");
        }
        RelationDescriptor d = p.descriptor().withPartition(PartitionOf.of(root.get(0).descriptor, p.descriptor()));
        return new Present(d, p.identityIndexOid(), p.aheadXids());
    }

    private static Set<RelFileLocator> locatorsOf(List<Version> versions) {
        Set<RelFileLocator> out = new HashSet<>();
        for (Version v : versions) {
            out.add(v.locator);
        }
        return out;
    }
}
