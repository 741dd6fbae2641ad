package io.walshadow.catalog.shadow;

import io.walshadow.wal.RelFileLocator;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * The tuples of one storage (relfilenode) of a system catalog, by TID, plus which of its pages the WAL has shown
 * since the shadow's redo point ("known" pages: their tuples are exactly the page's, kept with their bytes). Pages
 * not known hold what the bootstrap read of them. Indexed by {@link CatalogRow#lookupKey()} for loads.
 */
final class RelationMirror {
    final SystemCatalog catalog;
    final RelFileLocator locator;
    private final TreeMap<Long, ShadowTuple> tuples = new TreeMap<>();
    private final BitSet known = new BitSet();
    private final Map<Integer, Set<Long>> byKey = new HashMap<>();

    RelationMirror(SystemCatalog catalog, RelFileLocator locator) {
        this.catalog = catalog;
        this.locator = locator;
    }

    static long tid(long block, int offset) {
        return (block << 16) | (offset & 0xFFFF);
    }

    static long block(long tid) {
        return tid >>> 16;
    }

    static int offset(long tid) {
        return (int) (tid & 0xFFFF);
    }

    static String format(long tid) {
        return "(" + block(tid) + "," + offset(tid) + ")";
    }

    ShadowTuple get(long tid) {
        return tuples.get(tid);
    }

    void put(long tid, ShadowTuple t) {
        ShadowTuple old = tuples.put(tid, t);
        if (old != null && old.row != null && (t.row == null || old.row.lookupKey() != t.row.lookupKey())) {
            unindex(tid, old);
        }
        if (t.row != null) {
            byKey.computeIfAbsent(t.row.lookupKey(), k -> new HashSet<>()).add(tid);
        }
    }

    ShadowTuple remove(long tid) {
        ShadowTuple old = tuples.remove(tid);
        if (old != null && old.row != null) {
            unindex(tid, old);
        }
        return old;
    }

    private void unindex(long tid, ShadowTuple old) {
        Set<Long> s = byKey.get(old.row.lookupKey());
        if (s != null) {
            s.remove(tid);
            if (s.isEmpty()) {
                byKey.remove(old.row.lookupKey());
            }
        }
    }

    boolean isKnown(long block) {
        return block <= Integer.MAX_VALUE && known.get((int) block);
    }

    void markKnown(long block) {
        if (block > Integer.MAX_VALUE) {
            throw new ShadowCatalogException(catalog.relname() + " block " + Long.toUnsignedString(block)
                    + " is beyond what the shadow can index");
        }
        known.set((int) block);
    }

    BitSet knownBlocks() {
        return known;
    }

    /** The tuples of one page, by TID (a live view). */
    NavigableMap<Long, ShadowTuple> page(long block) {
        return tuples.subMap(tid(block, 0), true, tid(block, 0xFFFF), true);
    }

    /** The tuples of pages at or past {@code block} (a live view). */
    NavigableMap<Long, ShadowTuple> from(long block) {
        return tuples.tailMap(tid(block, 0), true);
    }

    /** Visible rows under a lookup key. */
    List<CatalogRow> visible(int key) {
        Set<Long> s = byKey.get(key);
        if (s == null) {
            return List.of();
        }
        List<CatalogRow> out = new ArrayList<>(s.size());
        for (long tid : s) {
            ShadowTuple t = tuples.get(tid);
            if (t.visible()) {
                out.add(t.row);
            }
        }
        return out;
    }

    /** Every visible row. */
    List<CatalogRow> visibleRows() {
        List<CatalogRow> out = new ArrayList<>();
        for (ShadowTuple t : tuples.values()) {
            if (t.visible()) {
                out.add(t.row);
            }
        }
        return out;
    }

    Map<Long, ShadowTuple> all() {
        return Collections.unmodifiableMap(tuples);
    }

    Collection<Map.Entry<Long, ShadowTuple>> entries() {
        return tuples.entrySet();
    }

    int size() {
        return tuples.size();
    }
}
