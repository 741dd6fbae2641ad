package io.walshadow.catalog;

import static io.walshadow.catalog.FakeCatalog.intCol;
import static io.walshadow.catalog.FakeCatalog.loc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Lookup.NotCoveredReason;
import io.walshadow.catalog.Lookup.Outcome;
import io.walshadow.wal.RelFileLocator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Interval semantics of the history itself. */
class DescriptorHistoryTest {
    static RelationDescriptor desc(int oid, int relNumber, int ncols) {
        List<Column> cols = new java.util.ArrayList<>();
        for (int i = 1; i <= ncols; i++) {
            cols.add(intCol(i, "c" + i));
        }
        return new RelationDescriptor(oid, loc(relNumber), "public", "t" + oid, 'r', 'p', 'd', 0, cols, List.of());
    }

    static DescriptorHistory history() {
        return new DescriptorHistory(FakeCatalog.DB, "f", 100);
    }

    @Test
    void halfOpenIntervals() {
        DescriptorHistory h = history();
        h.setPresent(desc(10, 10, 1), 0, 100);
        h.setPresent(desc(10, 10, 2), 0, 200);
        h.setPresent(desc(10, 11, 2), 0, 300);
        assertEquals(1, h.lookup(loc(10), 199).descriptor().natts());
        assertEquals(2, h.lookup(loc(10), 200).descriptor().natts());
        assertEquals(200, h.lookup(loc(10), 299).validFrom());
        assertEquals(300, h.lookup(loc(10), 299).validTo());
        assertEquals(NotCoveredReason.REPLACED, h.lookup(loc(10), 300).reason());
        assertEquals(Outcome.NOT_COVERED, h.lookup(loc(11), 299).outcome());
        assertEquals(DescriptorHistory.OPEN, h.lookup(loc(11), 300).validTo());
        assertEquals(loc(10), h.lookupRelation(10, 250).locator());
        assertEquals(loc(11), h.lookupRelation(10, 300).locator());
        assertEquals(Set.of(10), h.trackedRelations());
        assertEquals(3, h.versionCount());
    }

    @Test
    void unsignedLsns() {
        DescriptorHistory h = new DescriptorHistory(FakeCatalog.DB, "f", 0x7FFF_FFFF_FFFF_0000L);
        long high = 0x8000_0000_0000_0000L;
        h.setPresent(desc(10, 10, 1), 0, 0x7FFF_FFFF_FFFF_0000L);
        h.setPresent(desc(10, 10, 2), 0, high);
        assertEquals(1, h.lookup(loc(10), high - 1).descriptor().natts());
        assertEquals(2, h.lookup(loc(10), high + 5).descriptor().natts());
    }

    @Test
    void sameBoundaryReplacesInsteadOfLeavingAnEmptyInterval() {
        DescriptorHistory h = history();
        h.setPresent(desc(10, 10, 1), 0, 100);
        h.setPresent(desc(10, 10, 2), 0, 200);
        h.setPresent(desc(10, 10, 3), 0, 200);
        assertEquals(3, h.lookup(loc(10), 200).descriptor().natts());
        assertEquals(2, h.versionCount());
        h.close(10, 200, NotCoveredReason.DROPPED);
        assertEquals(NotCoveredReason.DROPPED, h.lookup(loc(10), 200).reason());
        assertEquals(1, h.lookup(loc(10), 199).descriptor().natts());
    }

    @Test
    void outOfOrderBoundaryIsABug() {
        DescriptorHistory h = history();
        h.setPresent(desc(10, 10, 1), 0, 200);
        assertThrows(IllegalStateException.class, () -> h.setPresent(desc(10, 10, 2), 0, 150));
    }

    @Test
    void reusedRelfilenodeEndsTheOldOwner() {
        DescriptorHistory h = history();
        h.setPresent(desc(10, 50, 1), 0, 100);
        h.setPresent(desc(20, 50, 4), 0, 300);
        assertEquals(10, h.lookup(loc(50), 299).descriptor().relOid());
        assertEquals(20, h.lookup(loc(50), 300).descriptor().relOid());
        assertEquals(Outcome.NOT_COVERED, h.lookupRelation(10, 300).outcome());
    }

    @Test
    void ambiguousOnTwoRelfilenodes() {
        DescriptorHistory h = history();
        h.setPresent(desc(10, 10, 1), 0, 100);
        Ambiguity a = new Ambiguity(10, "public.t10", 200, List.of(7), "test");
        h.setAmbiguous(10, List.of(loc(10), loc(12)), a, 200);
        assertEquals(Outcome.AMBIGUOUS, h.lookup(loc(10), 200).outcome());
        assertEquals(Outcome.AMBIGUOUS, h.lookup(loc(12), 250).outcome());
        assertEquals(Outcome.AMBIGUOUS, h.lookupRelation(10, 250).outcome());
        assertEquals(Outcome.AMBIGUOUS, h.current(10).outcome());
        CatalogAheadException e = assertThrows(CatalogAheadException.class,
                () -> h.lookup(loc(12), 250).descriptorOrSkip());
        assertEquals(loc(12), e.locator());
        h.setPresent(desc(10, 12, 2), 0, 300);
        assertEquals(Outcome.PRESENT, h.current(10).outcome());
        assertEquals(NotCoveredReason.REPLACED, h.lookup(loc(10), 300).reason());
        assertEquals(2, h.lookup(loc(12), 300).descriptor().natts());
    }

    @Test
    void awaitsIndexes() {
        DescriptorHistory h = history();
        h.setAwaits(10, List.of(7, 8), List.of(loc(10)));
        h.setAwaits(11, List.of(8), List.of());
        assertEquals(Set.of(10, 11), h.relationsAwaitingXid(8));
        assertEquals(Set.of(10), h.relationsAwaitingDrop(loc(10)));
        h.setAwaits(10, List.of(), List.of());
        assertEquals(Set.of(11), h.relationsAwaitingXid(8));
        assertTrue(h.relationsAwaitingXid(7).isEmpty());
        assertTrue(h.relationsAwaitingDrop(loc(10)).isEmpty());
    }

    @Test
    void otherDatabases() {
        DescriptorHistory h = history();
        assertEquals(Outcome.FOREIGN_DB, h.lookup(new RelFileLocator(1663, 6, 10), 100).outcome());
        assertEquals(NotCoveredReason.SHARED_CATALOG, h.lookup(new RelFileLocator(1664, 0, 1262), 100).reason());
    }
}
