package io.walshadow.catalog;

import static io.walshadow.catalog.FakeCatalog.intCol;
import static io.walshadow.catalog.FakeCatalog.loc;
import static io.walshadow.catalog.FakeCatalog.rel;
import static io.walshadow.catalog.FakeCatalog.textCol;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Lookup.NotCoveredReason;
import io.walshadow.catalog.Lookup.Outcome;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A restore with another filter: the change takes effect where it was scheduled, not before, and survives state. */
class CatalogFilterChangeTest {
    static final long START = 0x1000;
    static final long AT = 0x3000; // where the restore scheduled the change
    static final int T = 16384;
    static final int U = 16400;
    static final int U_TOAST = 16410;
    static final CatalogFilter ONLY_T = CatalogFilter.parse("public.t", null);
    static final CatalogFilter BOTH = CatalogFilter.parse("public.t,public.u", null);
    static final CatalogSnapshot.Xids NONE_RUNNING = CatalogSnapshot.Xids.parse("1600:1600:");

    FakeCatalog cat;
    DescriptorHistory seeded;

    @BeforeEach
    void seedWithT() throws CatalogReadException {
        cat = new FakeCatalog();
        cat.put(rel(T, "t").col(intCol(1, "id"), 500).pk(T + 1, 500, 500, 1));
        FakeCatalog.Rel toast = rel(U_TOAST, "pg_toast_" + U).name("pg_toast", "pg_toast_" + U)
                .col(intCol(1, "chunk_id"), 500);
        toast.relkind = 't';
        cat.put(toast);
        cat.put(rel(U, "u").toast(U_TOAST, 500).col(intCol(1, "id"), 500).col(textCol(2, "body"), 500)
                .pk(U + 1, 500, 500, 1));
        seeded = CatalogTracker.seed(ONLY_T, cat.withFilter(ONLY_T), START, 1000).history();
        assertEquals(Outcome.NOT_COVERED, seeded.lookup(loc(U), START).outcome());
    }

    private DescriptorHistory roundTrip(DescriptorHistory h) throws Exception {
        return CatalogHistorySerializer.fromBytes(CatalogHistorySerializer.toBytes(h));
    }

    @Test
    void newlyIncludedRelationStartsAtTheChangeNotBefore() throws Exception {
        DescriptorHistory h = roundTrip(seeded);
        CatalogTracker t = CatalogTracker.restore(BOTH, cat, h, new FilterChange(BOTH.spec(), AT, NONE_RUNNING));
        // WAL re-read before the change: the old filter is in force, even for a load of every relation
        t.onCommit(new CommitInfo(0x2000, 1500, null, FakeCatalog.DB, Set.of(), true, null, null));
        assertTrue(t.reach(AT - 1).isEmpty());
        assertEquals(Outcome.NOT_COVERED, h.lookup(loc(U), 0x2000).outcome());

        List<CatalogChange> changes = t.reach(AT + 0x40);
        assertEquals(Set.of(U, U_TOAST), Set.copyOf(changes.stream().map(CatalogChange::relOid).toList()));
        assertTrue(changes.stream().allMatch(CatalogChange::added));
        assertEquals(Outcome.PRESENT, h.lookup(loc(U), AT).outcome());
        assertEquals(Outcome.PRESENT, h.lookup(loc(U_TOAST), AT).outcome());
        assertEquals(Outcome.NOT_COVERED, h.lookup(loc(U), AT - 1).outcome());
        assertEquals(Outcome.PRESENT, h.lookup(loc(T), AT - 1).outcome(), "T unaffected");
        assertEquals(BOTH.spec(), h.filterSpec());
        assertTrue(h.pendingFilters().isEmpty());
        assertTrue(t.reach(AT + 0x80).isEmpty(), "applied once");
        assertEquals(1, t.counters().filterChangesApplied());
        assertEquals(2, t.counters().relationsEnteredFilter());
        // a commit record at exactly the change's position still applies (it follows the change)
        cat.put(rel(U, "u").classXmin(1700).toast(U_TOAST, 500).col(intCol(1, "id"), 500)
                .col(textCol(2, "body"), 500).col(intCol(3, "extra"), 1700).pk(U + 1, 500, 500, 1));
        t.onCommit(new CommitInfo(AT, 1700, null, FakeCatalog.DB, Set.of(U), false, null, null));
        assertEquals(3, h.lookup(loc(U), AT).descriptor().natts());
    }

    @Test
    void relationNoLongerIncludedIsClosedAtTheChange() throws Exception {
        CatalogFilter onlyU = CatalogFilter.parse("public.u", null);
        DescriptorHistory h = roundTrip(seeded);
        CatalogTracker t = CatalogTracker.restore(onlyU, cat, h, new FilterChange(onlyU.spec(), AT, NONE_RUNNING));
        t.reach(AT);
        assertEquals(Outcome.PRESENT, h.lookup(loc(T), AT - 1).outcome());
        Lookup after = h.lookup(loc(T), AT);
        assertEquals(Outcome.NOT_COVERED, after.outcome());
        assertEquals(NotCoveredReason.EXCLUDED, after.reason());
        assertEquals(Outcome.PRESENT, h.lookup(loc(U), AT).outcome());
        assertEquals(1, t.counters().relationsLeftFilter());
    }

    @Test
    void catalogRowsOfTransactionsRunningAtTheChangeAreNotYetVisible() throws Exception {
        // column 3 added by 1650, which was running when the change was scheduled and commits after it
        cat.put(rel(U, "u").classXmin(1650).toast(U_TOAST, 500).col(intCol(1, "id"), 500)
                .col(textCol(2, "body"), 500).col(intCol(3, "late"), 1650).pk(U + 1, 500, 500, 1));
        DescriptorHistory h = roundTrip(seeded);
        CatalogTracker t = CatalogTracker.restore(BOTH, cat, h,
                new FilterChange(BOTH.spec(), AT, CatalogSnapshot.Xids.parse("1650:1651:1650")));
        t.reach(AT);
        assertEquals(2, h.lookup(loc(U), AT).descriptor().natts(), "as of the change: without 1650's column");
        t.onCommit(new CommitInfo(0x4000, 1650, null, FakeCatalog.DB, Set.of(U), false, null, null));
        assertEquals(3, h.lookup(loc(U), 0x4000).descriptor().natts());
    }

    @Test
    void scheduledChangeSurvivesACheckpointAndALaterRestoreKeepsIt() throws Exception {
        DescriptorHistory h = roundTrip(seeded);
        CatalogTracker.restore(BOTH, cat, h, new FilterChange(BOTH.spec(), AT, NONE_RUNNING));
        DescriptorHistory again = roundTrip(h); // checkpointed before the stream reached the change
        assertEquals(ONLY_T.spec(), again.filterSpec());
        assertEquals(BOTH.spec(), again.finalFilterSpec());
        // restored again with the same filter: the change stays where it was first scheduled
        CatalogTracker t = CatalogTracker.restore(BOTH, cat, again,
                new FilterChange(BOTH.spec(), AT + 0x1000, NONE_RUNNING));
        assertEquals(1, again.pendingFilters().size());
        t.reach(AT);
        assertEquals(Outcome.PRESENT, again.lookup(loc(U), AT).outcome());
    }

    @Test
    void twoChangesBeforeTheStreamReachesEitherApplyInOrder() throws Exception {
        CatalogFilter onlyU = CatalogFilter.parse("public.u", null);
        DescriptorHistory h = roundTrip(seeded);
        CatalogTracker.restore(BOTH, cat, h, new FilterChange(BOTH.spec(), AT, NONE_RUNNING));
        DescriptorHistory again = roundTrip(h);
        CatalogTracker t = CatalogTracker.restore(onlyU, cat, again,
                new FilterChange(onlyU.spec(), AT + 0x1000, NONE_RUNNING));
        t.reach(AT + 0x2000);
        assertEquals(Outcome.PRESENT, again.lookup(loc(T), AT).outcome());
        assertEquals(NotCoveredReason.EXCLUDED, again.lookup(loc(T), AT + 0x1000).reason());
        assertEquals(Outcome.PRESENT, again.lookup(loc(U), AT + 0x1000).outcome());
        assertEquals(onlyU.spec(), again.filterSpec());
        assertEquals(2, t.counters().filterChangesApplied());
    }

    @Test
    void changeNotPastTheLastBoundaryIsRefused() throws Exception {
        DescriptorHistory h = roundTrip(seeded);
        CatalogTracker t = CatalogTracker.restore(ONLY_T, cat, h);
        t.onCommit(CommitInfo.plain(0x5000, 1500, FakeCatalog.DB));
        assertThrows(IllegalStateException.class, () -> CatalogTracker.restore(BOTH, cat, h,
                new FilterChange(BOTH.spec(), 0x4000, NONE_RUNNING)));
        assertThrows(IllegalStateException.class, () -> CatalogTracker.restore(BOTH, cat, h, null),
                "no change point: a changed filter is refused as before");
    }

    @Test
    void specRoundTrips() {
        CatalogFilter f = CatalogFilter.parse("public.a\\,b,sales.*", "sales.tmp?");
        assertEquals(f.spec(), CatalogFilter.fromSpec(f.spec()).spec());
        assertEquals(CatalogFilter.all().spec(), CatalogFilter.fromSpec(CatalogFilter.all().spec()).spec());
        assertThrows(IllegalArgumentException.class, () -> CatalogFilter.fromSpec("public.*"));
    }
}
