package io.walshadow.catalog;

import static io.walshadow.catalog.FakeCatalog.intCol;
import static io.walshadow.catalog.FakeCatalog.loc;
import static io.walshadow.catalog.FakeCatalog.rel;
import static io.walshadow.catalog.FakeCatalog.textCol;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.CatalogHistorySerializer.StateFormatException;
import io.walshadow.wal.RelFileLocator;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CatalogHistorySerializerTest {
    static final int T = 16384;
    static final int U = 16500;
    static final int V = 16600;

    /** A history with present, closed, replaced and ambiguous versions, awaits, committed xids and missing values. */
    static CatalogTracker buildTracker() throws Exception {
        FakeCatalog cat = new FakeCatalog();
        Column withMissing = new Column(3, "d", 25, -1, -1, 'i', false, 'x', false, true,
                MissingValues.varlena4("dflt".getBytes()));
        Column unresolved = new Column(4, "j", 3802, -1, -1, 'i', false, 'x', false, false, Column.UNRESOLVED_MISSING);
        Column dropped = new Column(5, "........pg.dropped.5........", 0, -1, 4, 'i', true, 'p', true, false, null);
        cat.put(rel(T, "t").name("sales", "orders ü").col(intCol(1, "id"), 500).col(textCol(2, "a"), 500)
                .col(withMissing, 500).col(unresolved, 500).col(dropped, 500).pk(T + 1, 500, 500, 1));
        cat.put(rel(U, "u").col(intCol(1, "id"), 500));
        cat.put(rel(V, "v").col(intCol(1, "id"), 500).col(textCol(2, "a"), 500));
        CatalogTracker t = CatalogTracker.seed(CatalogFilter.parse("sales.*,public.*", "public.tmp*"), cat, 0x1000,
                CatalogSnapshot.Xids.parse("1000:1550:1300"));
        // T truncated by 1500 (new relfilenode), committed in the stream
        cat.put(rel(T, "t").name("sales", "orders ü").classXmin(1500).relNumber(20000).col(intCol(1, "id"), 500)
                .col(textCol(2, "a"), 500).col(withMissing, 500).col(unresolved, 500).col(dropped, 500)
                .pk(T + 1, 500, 500, 1));
        t.onCommit(new CommitInfo(0x2000, 1500, new int[] {1501}, FakeCatalog.DB, Set.of(T), false, Set.of(loc(T)),
                null));
        // U dropped
        cat.relations.remove(U);
        t.onCommit(new CommitInfo(0x3000, 1502, null, FakeCatalog.DB, Set.of(U), false, Set.of(loc(U)), null));
        // V renamed by 1601 (not reached) while 1600 is applied: ambiguous, awaiting 1601
        cat.put(rel(V, "v").classXmin(1600).col(intCol(1, "id"), 500).col(textCol(2, "z"), 1601)
                .col(intCol(3, "c"), 1600));
        t.onCommit(new CommitInfo(0x4000, 1600, null, FakeCatalog.DB, Set.of(V), false, null, null));
        t.onRunningXacts(0x4100, 1400);
        return t;
    }

    @Test
    void roundTripIsExactAndDeterministic() throws Exception {
        CatalogTracker t = buildTracker();
        DescriptorHistory h = t.history();
        byte[] bytes = CatalogHistorySerializer.toBytes(h);
        DescriptorHistory r = CatalogHistorySerializer.fromBytes(bytes);
        assertArrayEquals(bytes, CatalogHistorySerializer.toBytes(r), "re-encoding gives the same bytes");

        assertEquals(h.dbOid(), r.dbOid());
        assertEquals(h.filterSpec(), r.filterSpec());
        assertEquals(h.historyStart(), r.historyStart());
        assertEquals(0x4100, r.lastBoundaryLsn());
        assertEquals(1400, r.visibility().horizon());
        assertTrue(r.visibility().isVisible(1500) && r.visibility().isVisible(1501) && r.visibility().isVisible(1600));
        assertEquals(h.versionCount(), r.versionCount());
        assertEquals(Set.of(V), r.relationsAwaitingXid(1601));
        assertArrayEquals(new int[] {1550, 1300}, r.visibility().startSnapshotXmaxAndXip());
        assertTrue(r.visibility().isVisible(1549) && !r.visibility().isVisible(1551));

        RelFileLocator[] locs = {loc(T), loc(20000), loc(U), loc(V), loc(999)};
        long[] lsns = {0x0FFF, 0x1000, 0x1FFF, 0x2000, 0x2FFF, 0x3000, 0x3FFF, 0x4000, 0x9000};
        for (RelFileLocator l : locs) {
            for (long lsn : lsns) {
                Lookup a = h.lookup(l, lsn);
                Lookup b = r.lookup(l, lsn);
                assertEquals(a.outcome(), b.outcome(), l + "@" + lsn);
                assertEquals(a.reason(), b.reason());
                assertEquals(a.validFrom(), b.validFrom());
                assertEquals(a.validTo(), b.validTo());
                assertEquals(a.ambiguity(), b.ambiguity());
                if (a.descriptor() != null) {
                    assertTrue(Descriptors.sameContent(a.descriptor(), b.descriptor()), l + "@" + lsn);
                }
            }
        }
        RelationDescriptor d = r.lookup(loc(20000), 0x2000).descriptor();
        assertEquals("orders ü", d.name());
        assertArrayEquals(MissingValues.varlena4("dflt".getBytes()), d.column(3).missingValue());
        assertSame(Column.UNRESOLVED_MISSING, d.column(4).missingValue());
        assertTrue(d.column(5).dropped());

        // the restored history continues: the awaited commit resolves V
        FakeCatalog cat = new FakeCatalog();
        cat.put(rel(V, "v").classXmin(1600).col(intCol(1, "id"), 500).col(textCol(2, "z"), 1601)
                .col(intCol(3, "c"), 1600));
        CatalogTracker t2 = CatalogTracker.restore(CatalogFilter.parse("sales.*,public.*", "public.tmp*"), cat, r);
        t2.onCommit(new CommitInfo(0x5000, 1601, null, FakeCatalog.DB, Set.of(), false, null, null));
        assertEquals(List.of("id", "z", "c"),
                r.lookup(loc(V), 0x5000).descriptor().columns().stream().map(Column::name).toList());
    }

    @Test
    void partitionRoutesRoundTrip() throws Exception {
        DescriptorHistory h = new DescriptorHistory(FakeCatalog.DB, "include=;exclude=;partitions=root", 0x1000);
        RelationDescriptor root = new RelationDescriptor(T, PartitionOf.rootLocator(FakeCatalog.DB, T), "s", "root",
                'p', 'p', 'd', 0, List.of(intCol(1, "k"), textCol(2, "v")), List.of(1));
        // attached from a table of its own: another column order, a dropped column
        Column dropped = new Column(2, "........pg.dropped.2........", 0, -1, 4, 'i', true, 'p', true, false, null);
        RelationDescriptor leaf = new RelationDescriptor(U, loc(U), "s", "leaf", 'r', 'p', 'd', 0,
                List.of(textCol(1, "v"), dropped, intCol(3, "k")), List.of(3));
        leaf = leaf.withPartition(PartitionOf.of(root, leaf));
        assertArrayEquals(new int[] {2, 0, 1}, leaf.partition().rootAttnums());
        h.setPresent(root, T + 1, 0x1000);
        h.setPresent(leaf, U + 1, 0x1000);
        h.markSeeded();
        byte[] bytes = CatalogHistorySerializer.toBytes(h);
        DescriptorHistory r = CatalogHistorySerializer.fromBytes(bytes);
        assertArrayEquals(bytes, CatalogHistorySerializer.toBytes(r));
        RelationDescriptor back = r.lookup(loc(U), 0x1000).descriptor();
        assertTrue(Descriptors.sameContent(leaf, back));
        assertEquals("root", back.partition().root().name());
        assertEquals(1, back.partition().rootAttnum(3));
        assertTrue(r.lookupRelation(T, 0x1000).descriptor().isPartitionedTable());
        assertThrows(IllegalArgumentException.class, () -> CatalogHistorySerializer.toBytes(h, 3),
                "version 3 cannot hold a route");
        // a route to another root is another descriptor
        RelationDescriptor other = leaf.withPartition(PartitionOf.of(new RelationDescriptor(V, root.locator(), "s",
                "root2", 'p', 'p', 'd', 0, root.columns(), List.of(1)), leaf));
        assertTrue(!Descriptors.sameContent(leaf, other) && !Descriptors.sameContent(leaf, leaf.withPartition(null)));
    }

    @Test
    void unknownVersionFailsClearly() throws Exception {
        byte[] bytes = CatalogHistorySerializer.toBytes(buildTracker().history());
        ByteBuffer.wrap(bytes).putInt(4, 7);
        StateFormatException e = assertThrows(StateFormatException.class,
                () -> CatalogHistorySerializer.fromBytes(bytes));
        assertTrue(e.getMessage().contains("format version 7"), e.getMessage());
        assertTrue(e.getMessage().contains("reads versions 1 to 4"), e.getMessage());
    }

    @Test
    void versionOneAndTwoStatesAreStillRead() throws Exception {
        DescriptorHistory h = buildTracker().history();
        byte[] v3 = CatalogHistorySerializer.toBytes(h, 3);
        assertArrayEquals(CatalogHistorySerializer.toBytes(h), CatalogHistorySerializer.toBytes(
                CatalogHistorySerializer.fromBytes(v3)), "version 3 reads back as the same");
        // version 2 is version 3 without the seeded flag (1 byte) before the end marker; version 1 also lacks the
        // pending filter changes' count (0 here)
        for (int version : new int[] {1, 2}) {
            int cut = version == 2 ? 1 : 5;
            byte[] old = new byte[v3.length - cut];
            System.arraycopy(v3, 0, old, 0, v3.length - 4 - cut);
            System.arraycopy(v3, v3.length - 4, old, v3.length - 4 - cut, 4);
            ByteBuffer.wrap(old).putInt(4, version);
            DescriptorHistory r = CatalogHistorySerializer.fromBytes(old);
            assertArrayEquals(v3, CatalogHistorySerializer.toBytes(r, 3), "version " + version
                    + " reads back as the same");
            assertTrue(r.pendingFilters().isEmpty());
            assertTrue(r.seeded(), "an earlier build's history was seeded when written");
        }
    }

    @Test
    void aHistoryWaitingForItsSeedStaysWaiting() throws Exception {
        DescriptorHistory h = CatalogTracker.seedAt(CatalogFilter.parse("public.*", ""), new FakeCatalog(),
                FakeCatalog.DB, 0x7000).history();
        assertTrue(!h.seeded());
        DescriptorHistory r = CatalogHistorySerializer.fromBytes(CatalogHistorySerializer.toBytes(h));
        assertTrue(!r.seeded());
        assertEquals(0x7000, r.historyStart());
    }

    @Test
    void pendingFilterChangesRoundTrip() throws Exception {
        DescriptorHistory h = buildTracker().history();
        h.schedule(new FilterChange("include=a.*;exclude=", 0x9000, CatalogSnapshot.Xids.parse("1700:1710:1701,1705")));
        DescriptorHistory r = CatalogHistorySerializer.fromBytes(CatalogHistorySerializer.toBytes(h));
        assertEquals(1, r.pendingFilters().size());
        FilterChange f = r.pendingFilters().get(0);
        assertEquals("include=a.*;exclude=", f.filterSpec());
        assertEquals(0x9000, f.lsn());
        assertEquals("1700:1710:1701,1705", f.running().toString());
        assertEquals("include=a.*;exclude=", r.finalFilterSpec());
    }

    @Test
    void badMagicTruncationAndTrailingBytesFail() throws Exception {
        byte[] bytes = CatalogHistorySerializer.toBytes(buildTracker().history());
        byte[] bad = bytes.clone();
        bad[0] = 'X';
        assertThrows(StateFormatException.class, () -> CatalogHistorySerializer.fromBytes(bad));
        for (int cut : new int[] {3, 20, bytes.length / 2, bytes.length - 1}) {
            assertThrows(IOException.class, () -> CatalogHistorySerializer.fromBytes(Arrays.copyOf(bytes, cut)));
        }
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThrows(StateFormatException.class, () -> CatalogHistorySerializer.fromBytes(longer));
    }

    @Test
    void emptyHistory() throws Exception {
        DescriptorHistory h = new DescriptorHistory(5, "include=;exclude=", 0x10);
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        CatalogHistorySerializer.write(h, new DataOutputStream(bos));
        DescriptorHistory r = CatalogHistorySerializer.fromBytes(bos.toByteArray());
        assertEquals(0, r.versionCount());
        assertEquals(0x10, r.historyStart());
        assertTrue(!r.visibility().hasHorizon());
    }
}
