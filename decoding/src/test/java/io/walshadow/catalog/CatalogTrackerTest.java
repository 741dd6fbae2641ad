package io.walshadow.catalog;

import static io.walshadow.catalog.FakeCatalog.intCol;
import static io.walshadow.catalog.FakeCatalog.loc;
import static io.walshadow.catalog.FakeCatalog.rel;
import static io.walshadow.catalog.FakeCatalog.textCol;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Lookup.NotCoveredReason;
import io.walshadow.catalog.Lookup.Outcome;
import io.walshadow.wal.RelFileLocator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Commit-boundary logic and the xmin rule, against a faked live catalog. */
class CatalogTrackerTest {
    static final long START = 0x1000;
    static final int HORIZON = 1000;
    static final int T = 16384; // the table's oid and first relfilenode

    FakeCatalog cat;
    CatalogTracker tracker;

    @BeforeEach
    void seedOneTable() throws CatalogReadException {
        cat = new FakeCatalog();
        cat.put(rel(T, "t").col(intCol(1, "id"), 500).col(textCol(2, "a"), 500).pk(T + 1, 500, 500, 1));
        tracker = CatalogTracker.seed(CatalogFilter.all(), cat, START, HORIZON);
    }

    DescriptorHistory h() {
        return tracker.history();
    }

    static CommitInfo commit(long lsn, int xid, Set<Integer> invals) {
        return new CommitInfo(lsn, xid, null, FakeCatalog.DB, invals, false, null, null);
    }

    static CommitInfo commit(long lsn, int xid, Set<Integer> invals, Set<RelFileLocator> dropped) {
        return new CommitInfo(lsn, xid, null, FakeCatalog.DB, invals, false, dropped, null);
    }

    static List<String> names(Lookup l) {
        return l.descriptor().columns().stream().map(Column::name).toList();
    }

    @Test
    void seedIsPresentFromStart() {
        Lookup l = h().lookup(loc(T), START);
        assertEquals(Outcome.PRESENT, l.outcome());
        assertEquals(List.of("id", "a"), names(l));
        assertEquals(List.of(1), l.descriptor().identityAttnums());
        assertEquals(NotCoveredReason.BEFORE_HISTORY, h().lookup(loc(T), START - 1).reason());
        assertEquals(Outcome.NOT_COVERED, h().lookup(loc(999), START).outcome());
        assertEquals(1, tracker.counters().catalogRefreshes());
    }

    @Test
    void aDeferredSeedLoadsWhenTheStreamReachesTheStart() throws CatalogReadException {
        FakeCatalog later = new FakeCatalog();
        later.put(rel(T, "t").col(intCol(1, "id"), 500).col(textCol(2, "a"), 500));
        CatalogTracker t = CatalogTracker.seedAt(CatalogFilter.all(), later, FakeCatalog.DB, START);
        assertTrue(t.reach(START - 8).isEmpty());
        assertEquals(0, later.loads, "nothing is read before the stream is at the start");
        assertEquals(NotCoveredReason.BEFORE_HISTORY, t.history().lookup(loc(T), START - 8).reason());
        // what the source says by the time the stream gets there is the catalog at the start
        later.put(rel(T, "t").col(intCol(1, "id"), 500).col(textCol(2, "a"), 500).col(intCol(3, "b"), 600));
        t.reach(START);
        assertEquals(1, later.loads);
        assertTrue(t.history().seeded());
        assertEquals(List.of("id", "a", "b"), names(t.history().lookup(loc(T), START)));
        t.reach(START + 8);
        assertEquals(1, later.loads, "seeded once");
    }

    @Test
    void commitWithoutInvalidationsLoadsNothing() throws CatalogReadException {
        int before = cat.loads;
        assertTrue(tracker.onCommit(CommitInfo.plain(0x2000, 1500, FakeCatalog.DB)).isEmpty());
        assertEquals(before, cat.loads);
        assertEquals(1, tracker.counters().commits());
    }

    @Test
    void addColumnInStepStartsNewVersionAtCommit() throws CatalogReadException {
        cat.put(rel(T, "t").classXmin(1500).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .col(intCol(3, "c"), 1500).pk(T + 1, 500, 500, 1));
        List<CatalogChange> ch = tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        assertEquals(1, ch.size());
        assertEquals(2, ch.get(0).before().natts());
        assertEquals(3, ch.get(0).after().natts());
        assertFalse(ch.get(0).storageChanged());
        assertEquals(List.of("id", "a"), names(h().lookup(loc(T), 0x1FFF)));
        assertEquals(List.of("id", "a", "c"), names(h().lookup(loc(T), 0x2000)));
        assertEquals(0, tracker.counters().catalogAheadDetected());
        // no change: no new version
        assertTrue(tracker.onCommit(commit(0x3000, 1501, Set.of(T))).isEmpty());
        assertEquals(0x2000, h().lookup(loc(T), 0x3000).validFrom());
    }

    @Test
    void laggingAddColumnIsExcludedUntilItsCommit() throws CatalogReadException {
        // live catalog already has b (xid 1500, being applied) and c (xid 1501, not reached); ADD COLUMN updates
        // pg_class in the same transaction, so pg_class.xmin is 1501
        cat.put(rel(T, "t").classXmin(1501).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .col(intCol(3, "b"), 1500).col(intCol(4, "c"), 1501).pk(T + 1, 500, 500, 1));
        tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        Lookup at1 = h().lookup(loc(T), 0x2000);
        assertEquals(Outcome.PRESENT, at1.outcome());
        assertEquals(List.of("id", "a", "b"), names(at1));
        assertEquals(1, tracker.counters().catalogAheadDetected());
        assertEquals(1, tracker.counters().catalogAheadExact());
        assertEquals(0, tracker.counters().catalogAheadAmbiguous());
        // the awaited xid's commit refreshes even without an invalidation
        tracker.onCommit(commit(0x3000, 1501, Set.of()));
        assertEquals(List.of("id", "a", "b", "c"), names(h().lookup(loc(T), 0x3000)));
        assertEquals(List.of("id", "a", "b"), names(h().lookup(loc(T), 0x2FFF)));
    }

    @Test
    void laggingRenameDecodesWithThePreviousShapeUntilItsCommit() throws CatalogReadException {
        // xid 1500 added b (and updated pg_class); xid 1501 renamed a to z (rewrote the attribute row only): the
        // storage is unchanged, so a's row as prev knew it is what the tuples between the two commits have
        cat.put(rel(T, "t").classXmin(1500).col(intCol(1, "id"), 500).col(textCol(2, "z"), 1501)
                .col(intCol(3, "b"), 1500).pk(T + 1, 500, 500, 1));
        List<CatalogChange> ch = tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        assertEquals(1, ch.size());
        assertEquals(null, ch.get(0).ambiguity());
        assertEquals(List.of("id", "a", "b"), names(h().lookup(loc(T), 0x2100)), "old name until the rename commits");
        assertEquals(List.of("id", "a"), names(h().lookup(loc(T), 0x1FFF)));
        assertEquals(0, tracker.counters().catalogAheadAmbiguous());
        assertEquals(1, tracker.counters().catalogAheadExact());

        tracker.onCommit(commit(0x3000, 1501, Set.of(T)));
        assertEquals(List.of("id", "z", "b"), names(h().lookup(loc(T), 0x3000)));
        assertEquals(List.of("id", "a", "b"), names(h().lookup(loc(T), 0x2FFF)), "history before is immutable");
    }

    @Test
    void laggingRewriteOfAColumnFailsClosedWhenTheStorageIsNotPrevs() throws CatalogReadException {
        // xid 1500 rewrote t (ALTER TYPE: new relfilenode, pg_class row visible) and xid 1501 later renamed the
        // rewritten column: its row at 1500 (the new type) is lost, and the tuples on the new storage need it
        cat.put(rel(T, "t").classXmin(1500).relNumber(T + 7).col(intCol(1, "id"), 500).col(textCol(2, "z"), 1501)
                .pk(T + 1, 500, 500, 1));
        List<CatalogChange> ch = tracker.onCommit(commit(0x2000, 1500, Set.of(T), Set.of(loc(T))));
        assertEquals(1, ch.size());
        assertTrue(ch.get(0).ambiguity() != null, ch.toString());
        CatalogAheadException e = assertThrows(CatalogAheadException.class,
                () -> h().lookup(new RelFileLocator(loc(T).spcOid(), loc(T).dbOid(), T + 7), 0x2100).descriptorOrSkip());
        assertEquals(List.of(1501), e.awaitedXids());
        assertTrue(e.getMessage().contains("1501"), e.getMessage());
    }

    @Test
    void laterRewriteOfAnUnchangedColumnIsExactWhenNothingDecodingRelevantDiffers() throws CatalogReadException {
        // xid 1501 (not reached) did ALTER COLUMN a SET DEFAULT: the row is rewritten, its shape is the same
        cat.put(rel(T, "t").classXmin(500).col(intCol(1, "id"), 500).col(textCol(2, "a"), 1501)
                .pk(T + 1, 500, 500, 1));
        tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        assertEquals(Outcome.PRESENT, h().lookup(loc(T), 0x2000).outcome());
        assertEquals(1, tracker.counters().catalogAheadExact());
    }

    @Test
    void laterTruncateKeepsTheStorageTheCommitDidNotDrop() throws CatalogReadException {
        int f2 = 20000;
        // 1500 added b; 1501 (not reached) truncated: new relfilenode, pg_class.xmin 1501
        cat.put(rel(T, "t").classXmin(1501).relNumber(f2).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .col(intCol(3, "b"), 1500).pk(T + 1, 500, 500, 1));
        tracker.onCommit(commit(0x2000, 1500, Set.of(T), Set.of()));
        Lookup l = h().lookup(loc(T), 0x2000);
        assertEquals(List.of("id", "a", "b"), names(l));
        assertEquals(Outcome.NOT_COVERED, h().lookup(loc(f2), 0x2000).outcome());
        tracker.onCommit(commit(0x3000, 1501, Set.of(T), Set.of(loc(T))));
        assertEquals(NotCoveredReason.REPLACED, h().lookup(loc(T), 0x3000).reason());
        assertEquals(List.of("id", "a", "b"), names(h().lookup(loc(f2), 0x3000)));
        assertEquals(loc(f2), h().lookupRelation(T, 0x3000).locator());
        assertEquals(loc(T), h().lookupRelation(T, 0x2FFF).locator());
    }

    @Test
    void storageUnknownWhenTheCommitRewroteAndALaterOneRewroteAgain() throws CatalogReadException {
        // 1500 rewrote (drops T's first file, new relfilenode unknown now), 1501 rewrote again into 30000
        cat.put(rel(T, "t").classXmin(1501).relNumber(30000).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .pk(T + 1, 500, 500, 1));
        tracker.onCommit(commit(0x2000, 1500, Set.of(T), Set.of(loc(T))));
        assertEquals(Outcome.AMBIGUOUS, h().lookup(loc(T), 0x2000).outcome());
        assertEquals(Outcome.AMBIGUOUS, h().lookup(loc(30000), 0x2000).outcome());
        tracker.onCommit(commit(0x3000, 1501, Set.of(T), Set.of(loc(25000))));
        assertEquals(Outcome.PRESENT, h().lookup(loc(30000), 0x3000).outcome());
        assertEquals(Outcome.AMBIGUOUS, h().lookup(loc(30000), 0x2FFF).outcome());
        assertEquals(NotCoveredReason.REPLACED, h().lookup(loc(T), 0x3000).reason());
    }

    @Test
    void createdRelfilenodeHintMakesARewriteExact() throws CatalogReadException {
        cat.put(rel(T, "t").classXmin(1501).relNumber(30000).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .pk(T + 1, 500, 500, 1));
        tracker.onCommit(new CommitInfo(0x2000, 1500, null, FakeCatalog.DB, Set.of(T), false, Set.of(loc(T)),
                Set.of(loc(30000))));
        assertEquals(Outcome.PRESENT, h().lookup(loc(30000), 0x2000).outcome());
        assertEquals(NotCoveredReason.REPLACED, h().lookup(loc(T), 0x2000).reason());
    }

    @Test
    void relationCreatedInTheCommittingTransactionResolvesAtTheCommit() throws CatalogReadException {
        int n = 17000;
        cat.put(rel(n, "n").classXmin(1500).col(intCol(1, "x"), 1500));
        List<CatalogChange> ch = tracker.onCommit(commit(0x2000, 1500, Set.of(n)));
        assertTrue(ch.get(0).added());
        assertEquals(Outcome.NOT_COVERED, h().lookup(loc(n), 0x1F00).outcome(), "record LSNs inside the transaction");
        assertEquals(NotCoveredReason.UNKNOWN, h().lookup(loc(n), 0x1F00).reason());
        assertEquals(Outcome.PRESENT, h().lookup(loc(n), 0x2000).outcome(), "resolved at the commit");
    }

    @Test
    void newRelationWithALaterGrantIsExact() throws CatalogReadException {
        int n = 17000;
        // pg_class row rewritten by a later GRANT (1501); relfilenode == oid proves it was never rewritten
        cat.put(rel(n, "n").classXmin(1501).col(intCol(1, "x"), 1500));
        tracker.onCommit(commit(0x2000, 1500, Set.of(n)));
        assertEquals(Outcome.PRESENT, h().lookup(loc(n), 0x2000).outcome());
        assertEquals(1, tracker.counters().catalogAheadExact());
    }

    @Test
    void newRelationWithALaterAddColumnIsExact() throws CatalogReadException {
        int n = 17000;
        cat.put(rel(n, "n").classXmin(1501).col(intCol(1, "x"), 1500).col(intCol(2, "y"), 1501));
        tracker.onCommit(commit(0x2000, 1500, Set.of(n)));
        assertEquals(List.of("x"), names(h().lookup(loc(n), 0x2000)));
    }

    @Test
    void columnAddedByTheCommitAndRewrittenLaterIsAmbiguous() throws CatalogReadException {
        // 1500 added b; 1501 renamed it (b's row now has xmin 1501); 1502 touched pg_class. b is past prev's column
        // count, so it would read as "added later" only if its xmin matched pg_class.xmin: it does not, so the
        // column cannot be placed
        cat.put(rel(T, "t").classXmin(1502).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .col(intCol(3, "bb"), 1501).pk(T + 1, 500, 500, 1));
        tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        Lookup l = h().lookup(loc(T), 0x2000);
        assertEquals(Outcome.AMBIGUOUS, l.outcome());
        assertEquals(Set.of(1501, 1502), Set.copyOf(l.ambiguity().awaitedXids()));
    }

    @Test
    void dropTableClosesTheRelation() throws CatalogReadException {
        cat.relations.remove(T);
        List<CatalogChange> ch = tracker.onCommit(commit(0x2000, 1500, Set.of(T), Set.of(loc(T))));
        assertEquals(NotCoveredReason.DROPPED, ch.get(0).closedAs());
        assertEquals(NotCoveredReason.DROPPED, h().lookup(loc(T), 0x2000).reason());
        assertEquals(Outcome.PRESENT, h().lookup(loc(T), 0x1FFF).outcome());
        assertEquals(NotCoveredReason.DROPPED, h().lookupRelation(T, 0x2000).reason());
    }

    @Test
    void relationDroppedByALaterTransactionIsAmbiguousUntilThatDrop() throws CatalogReadException {
        cat.relations.remove(T);
        tracker.onCommit(commit(0x2000, 1500, Set.of(T), Set.of()));
        Lookup l = h().lookup(loc(T), 0x2000);
        assertEquals(Outcome.AMBIGUOUS, l.outcome());
        assertTrue(l.ambiguity().awaitedXids().isEmpty());
        assertEquals(1, tracker.counters().relationsVanished());
        tracker.onCommit(commit(0x2800, 1501, Set.of(T), Set.of()));
        assertEquals(0x2000, h().lookup(loc(T), 0x2800).validFrom(), "same ambiguity continues");
        // the drop of its storage ends it, even without naming the relation
        tracker.onCommit(commit(0x3000, 1502, Set.of(), Set.of(loc(T))));
        assertEquals(NotCoveredReason.DROPPED, h().lookup(loc(T), 0x3000).reason());
        assertEquals(1, tracker.counters().relationsVanished());
    }

    @Test
    void relationLeavingTheFilterIsExcluded() throws CatalogReadException {
        cat.put(rel(T, "t").classXmin(1500).name("archive", "t").excluded());
        List<CatalogChange> ch = tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        assertEquals(NotCoveredReason.EXCLUDED, ch.get(0).closedAs());
        assertEquals(NotCoveredReason.EXCLUDED, h().lookup(loc(T), 0x2000).reason());
    }

    @Test
    void relationBecomingUnloggedIsNotLogged() throws CatalogReadException {
        cat.put(rel(T, "t").classXmin(1500).relNumber(21000).persistence('u').col(intCol(1, "id"), 500)
                .col(textCol(2, "a"), 500).pk(T + 1, 500, 500, 1));
        tracker.onCommit(commit(0x2000, 1500, Set.of(T), Set.of(loc(T))));
        assertEquals(NotCoveredReason.NOT_LOGGED, h().lookup(loc(T), 0x2000).reason());
        assertEquals(Outcome.NOT_COVERED, h().lookup(loc(21000), 0x2000).outcome());
    }

    @Test
    void foreignDatabaseAndSharedCatalogs() throws CatalogReadException {
        assertEquals(Outcome.FOREIGN_DB, h().lookup(new RelFileLocator(1663, 77, T), START).outcome());
        assertNull(h().lookup(new RelFileLocator(1663, 77, T), START).descriptorOrSkip());
        assertEquals(NotCoveredReason.SHARED_CATALOG, h().lookup(new RelFileLocator(1664, 0, 1262), START).reason());
        int loads = cat.loads;
        // a commit of another database names oids of that database: nothing to load
        tracker.onCommit(new CommitInfo(0x2000, 1500, null, 77, Set.of(T), true, Set.of(loc(T)), null));
        assertEquals(loads, cat.loads);
        assertEquals(Outcome.PRESENT, h().lookup(loc(T), 0x2000).outcome());
    }

    @Test
    void boundariesAreAppliedOnce() throws CatalogReadException {
        cat.put(rel(T, "t").classXmin(1500).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .col(intCol(3, "c"), 1500).pk(T + 1, 500, 500, 1));
        tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        int loads = cat.loads;
        assertTrue(tracker.onCommit(commit(0x2000, 1500, Set.of(T))).isEmpty());
        assertTrue(tracker.onCommit(commit(0x1800, 1499, Set.of(T))).isEmpty());
        assertEquals(loads, cat.loads);
        assertEquals(2, tracker.counters().boundariesSkipped());
    }

    @Test
    void failedLoadLeavesStateUntouchedAndCanBeRepeated() throws CatalogReadException {
        cat.put(rel(T, "t").classXmin(1500).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .col(intCol(3, "c"), 1500).pk(T + 1, 500, 500, 1));
        byte[] before = CatalogHistorySerializer.toBytes(h());
        cat.failNext = new CatalogReadException("connection reset");
        assertThrows(CatalogReadException.class, () -> tracker.onCommit(commit(0x2000, 1500, Set.of(T))));
        assertEquals(java.util.Arrays.toString(before), java.util.Arrays.toString(CatalogHistorySerializer.toBytes(h())));
        tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        assertEquals(3, h().lookup(loc(T), 0x2000).descriptor().natts());
    }

    @Test
    void catalogBehindTheBoundaryIsRetriedThenRefused() throws CatalogReadException {
        tracker.withBehindRetries(3, 0);
        cat.lsn = 0x1500; // the snapshot precedes the commit
        assertThrows(CatalogBehindException.class, () -> tracker.onCommit(commit(0x2000, 1500, Set.of(T))));
        assertEquals(3, tracker.counters().catalogBehindRetries());
        cat.lsn = 0x9000;
        cat.xids = CatalogSnapshot.Xids.parse("1500:1502:1500"); // the committing xid still in the proc array
        assertThrows(CatalogBehindException.class, () -> tracker.onCommit(commit(0x2000, 1500, Set.of(T))));
        cat.xids = CatalogSnapshot.Xids.parse("1501:1502:");
        tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        assertEquals(Outcome.PRESENT, h().lookup(loc(T), 0x2000).outcome());
    }

    @Test
    void seedWithInFlightDdlWaitsForTheHorizon() throws CatalogReadException {
        FakeCatalog c = new FakeCatalog();
        // column b added by xid 1200 (after the horizon 1000): its commit preceded the stream start, so the stream
        // will not show it; a later RUNNING_XACTS whose oldest running xid passes 1200 resolves it
        c.put(rel(T, "t").classXmin(1200).col(intCol(1, "id"), 500).col(intCol(2, "b"), 1200));
        CatalogTracker t = CatalogTracker.seed(CatalogFilter.all(), c, START, HORIZON);
        assertEquals(List.of("id"), names(t.history().lookup(loc(T), START)));
        assertEquals(1, t.counters().catalogAheadExact());
        t.onRunningXacts(0x2000, 1100);
        assertEquals(List.of("id"), names(t.history().lookup(loc(T), 0x2000)));
        t.onRunningXacts(0x3000, 1300);
        assertEquals(List.of("id", "b"), names(t.history().lookup(loc(T), 0x3000)));
        assertEquals(2, t.counters().horizonAdvances());
        assertEquals(1300, t.history().visibility().horizon());
    }

    @Test
    void seedRefusesASnapshotBeforeTheStart() {
        FakeCatalog c = new FakeCatalog();
        c.lsn = 0x500;
        assertThrows(IllegalArgumentException.class, () -> CatalogTracker.seed(CatalogFilter.all(), c, START, HORIZON));
    }

    @Test
    void identityIndexRules() throws CatalogReadException {
        // a primary key created later (index row and index pg_class row both by 1501) is ignored at 1500
        cat.put(rel(T, "t").classXmin(1500).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .pk(T + 1, 500, 500, 1).pk(T + 2, 1501, 1501, 2));
        tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        assertEquals(List.of(1), h().lookup(loc(T), 0x2000).descriptor().identityAttnums());

        // the committing transaction dropped the key index (its oid is among the invalidations)
        cat.put(rel(T, "t").classXmin(1500).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500));
        tracker.onCommit(commit(0x3000, 1502, Set.of(T, T + 1)));
        assertEquals(List.of(), h().lookup(loc(T), 0x3000).descriptor().identityAttnums());

        // key added back, then dropped by a transaction not reached yet: ambiguous
        cat.put(rel(T, "t").classXmin(1500).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .pk(T + 3, 1503, 1503, 1));
        tracker.onCommit(commit(0x4000, 1503, Set.of(T)));
        assertEquals(List.of(1), h().lookup(loc(T), 0x4000).descriptor().identityAttnums());
        cat.put(rel(T, "t").classXmin(1500).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500));
        tracker.onCommit(commit(0x5000, 1504, Set.of(T)));
        assertEquals(Outcome.AMBIGUOUS, h().lookup(loc(T), 0x5000).outcome());
    }

    @Test
    void replicaIdentityIndex() throws CatalogReadException {
        FakeCatalog.Rel r = rel(T, "t").classXmin(1500).replident('i').col(intCol(1, "id"), 500)
                .col(textCol(2, "a"), 500).pk(T + 1, 500, 500, 1);
        r.indexes.add(new LiveRelation.Index(T + 2, false, true, List.of(2, 1), 1500, 1500));
        cat.put(r);
        tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        RelationDescriptor d = h().lookup(loc(T), 0x2000).descriptor();
        assertEquals('i', d.replicaIdentity());
        assertEquals(List.of(2, 1), d.identityAttnums());
    }

    @Test
    void toastTableFollowsItsOwner() throws CatalogReadException {
        int toast = 16390;
        FakeCatalog.Rel tr = rel(toast, "pg_toast_" + T).name("pg_toast", "pg_toast_" + T).classXmin(1500)
                .col(new Column(1, "chunk_id", 26, -1, 4, 'i', true, 'p', false, false, null), 1500)
                .col(new Column(2, "chunk_seq", 23, -1, 4, 'i', true, 'p', false, false, null), 1500)
                .col(new Column(3, "chunk_data", 17, -1, -1, 'i', false, 'p', false, false, null), 1500);
        tr.relkind = 't';
        tr.replident = 'n';
        cat.put(tr);
        cat.put(rel(T, "t").classXmin(1500).toast(toast, 1500).col(intCol(1, "id"), 500)
                .col(textCol(2, "a"), 500).pk(T + 1, 500, 500, 1));
        tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        Lookup l = h().lookup(loc(toast), 0x2000);
        assertEquals('t', l.descriptor().relkind());
        assertEquals(toast, h().lookup(loc(T), 0x2000).descriptor().toastRelOid());
        assertEquals(Outcome.PRESENT, h().lookupRelation(toast, 0x2000).outcome());
    }

    @Test
    void refreshAllFindsNewRelations() throws CatalogReadException {
        cat.put(rel(17000, "n").classXmin(1500).col(intCol(1, "x"), 1500));
        tracker.onCommit(new CommitInfo(0x2000, 1500, null, FakeCatalog.DB, Set.of(), true, null, null));
        assertEquals(Outcome.PRESENT, h().lookup(loc(17000), 0x2000).outcome());
        assertTrue(cat.requests.get(cat.requests.size() - 1).contains(T), "tracked relations are reloaded too");
    }

    @Test
    void pruneForgetsClosedVersions() throws CatalogReadException {
        cat.relations.remove(T);
        tracker.onCommit(commit(0x2000, 1500, Set.of(T), Set.of(loc(T))));
        assertEquals(1, h().versionCount());
        h().pruneBefore(0x2000);
        assertEquals(0, h().versionCount());
        assertEquals(NotCoveredReason.BEFORE_HISTORY, h().lookup(loc(T), 0x1FFF).reason());
        assertEquals(NotCoveredReason.UNKNOWN, h().lookup(loc(T), 0x2000).reason());
    }

    @Test
    void missingValueUnresolvedIsKeptByIdentity() throws CatalogReadException {
        Column m = new Column(3, "j", 3802, -1, -1, 'i', false, 'x', false, false, Column.UNRESOLVED_MISSING);
        cat.put(rel(T, "t").classXmin(1500).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500).col(m, 1500)
                .pk(T + 1, 500, 500, 1));
        tracker.onCommit(commit(0x2000, 1500, Set.of(T)));
        assertSame(Column.UNRESOLVED_MISSING, h().lookup(loc(T), 0x2000).descriptor().column(3).missingValue());
    }

    @Test
    void restoreRefusesAChangedFilter() {
        assertThrows(IllegalStateException.class,
                () -> CatalogTracker.restore(CatalogFilter.parse("public.*", null), cat, h()));
        CatalogTracker.restore(CatalogFilter.all(), cat, h());
    }

    @Test
    void relationCreatedByAnUnreachedTransactionIsAmbiguousUntilItsCommit() throws CatalogReadException {
        FakeCatalog c = new FakeCatalog();
        // created by 1200, in progress at the start (its commit comes later in the stream); records on its
        // relfilenode before that commit can only be 1200's own, which wait for its commit
        c.put(rel(T, "t").classXmin(1200).col(intCol(1, "id"), 1200).col(intCol(2, "b"), 1200));
        CatalogTracker t = CatalogTracker.seed(CatalogFilter.all(), c, START,
                CatalogSnapshot.Xids.parse("1000:1300:1200"));
        Lookup l = t.history().lookup(loc(T), START);
        assertEquals(Outcome.AMBIGUOUS, l.outcome());
        assertEquals(List.of(1200), l.ambiguity().awaitedXids());
        t.onCommit(commit(0x2000, 1200, Set.of(T)));
        assertEquals(List.of("id", "b"), names(t.history().lookup(loc(T), 0x2000)));
    }

    @Test
    void startSnapshotMakesCompletedXidsVisible() throws CatalogReadException {
        FakeCatalog c = new FakeCatalog();
        // 1250 completed before the start although a transaction older than it (1200) was still running
        c.put(rel(T, "t").classXmin(1250).col(intCol(1, "id"), 1250).col(intCol(2, "b"), 1250));
        CatalogTracker t = CatalogTracker.seed(CatalogFilter.all(), c, START,
                CatalogSnapshot.Xids.parse("1200:1300:1200"));
        assertEquals(List.of("id", "b"), names(t.history().lookup(loc(T), START)));
        assertEquals(0, t.counters().catalogAheadDetected());
    }

    @Test
    void rowsWrittenBySubtransactionsAreVisibleAtTheirTopLevelCommit() throws CatalogReadException {
        // ADD COLUMN inside a savepoint: the rows carry the subxid
        cat.put(rel(T, "t").classXmin(1502).col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .col(intCol(3, "c"), 1502).pk(T + 1, 500, 500, 1));
        tracker.onCommit(new CommitInfo(0x2000, 1500, new int[] {1502}, FakeCatalog.DB, Set.of(T), false, null,
                null));
        assertEquals(List.of("id", "a", "c"), names(h().lookup(loc(T), 0x2000)));
        assertEquals(0, tracker.counters().catalogAheadDetected());
        assertTrue(h().visibility().isVisible(1502));
    }
}
