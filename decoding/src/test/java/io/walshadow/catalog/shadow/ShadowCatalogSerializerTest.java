package io.walshadow.catalog.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.shadow.CatalogRow.ExtensionRow;
import io.walshadow.catalog.shadow.CatalogRow.InheritsRow;
import io.walshadow.catalog.shadow.CatalogRow.NamespaceRow;
import io.walshadow.catalog.shadow.CatalogRow.RangeRow;
import io.walshadow.catalog.shadow.CatalogRow.TypeRow;
import io.walshadow.types.UnsupportedTypeException;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.RelFileLocator;
import java.io.IOException;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shadow's state format across versions: pg_range, pg_extension and pg_inherits rows round-trip, and an older
 * state (written before the shadow kept some of them) still reads, as a shadow without those: its ranges of one's own
 * and extension types fail closed (version 1), its partitions have no parent (versions 1 and 2).
 */
class ShadowCatalogSerializerTest {
    private static final int PUBLIC = 2200;
    private static final int RANGE = 16500;
    private static final int MULTIRANGE = 16501;
    private static final int HSTORE = 16502;
    private static final int ROOT = 16600;
    private static final int LEAF = 16601;
    private static final int CHILD = 16602;
    private static final int OTHER_PARENT = 16603;

    /**
     * A shadow holding a namespace, a range type and its multirange, a type named hstore; the catalogs a state of
     * {@code stateVersion} holds (with their rows): pg_range, pg_extension (2 on), pg_inherits (3 on: a partition
     * pending detach, a legacy child of two parents stored out of inhseqno order).
     */
    private static ShadowCatalog shadow(int stateVersion) {
        EnumMap<SystemCatalog, CatalogLayout> layouts = new EnumMap<>(SystemCatalog.class);
        for (SystemCatalog c : SystemCatalog.values()) {
            if (c.sinceStateVersion() <= stateVersion) {
                layouts.put(c, new CatalogLayout(c, List.of()));
            }
        }
        ShadowCatalog s = new ShadowCatalog(5, 1663, 0x100, 0x200, layouts, EnumSet.noneOf(SystemCatalog.class));
        for (SystemCatalog c : layouts.keySet()) {
            s.addMirror(new RelationMirror(c, new RelFileLocator(1663, 5, c.oid())), true);
        }
        put(s, SystemCatalog.PG_NAMESPACE, new NamespaceRow(PUBLIC, "public"));
        put(s, SystemCatalog.PG_TYPE, new TypeRow(RANGE, "floatrange", PUBLIC, -1, false, 'd', 'r', 'R', 0, 0, -1, 0));
        put(s, SystemCatalog.PG_TYPE, new TypeRow(MULTIRANGE, "floatmultirange", PUBLIC, -1, false, 'd', 'm', 'R', 0,
                0, -1, 0));
        put(s, SystemCatalog.PG_TYPE, new TypeRow(HSTORE, "hstore", PUBLIC, -1, false, 'i', 'b', 'U', 0, 0, -1, 0));
        if (s.holds(SystemCatalog.PG_RANGE)) {
            put(s, SystemCatalog.PG_RANGE, new RangeRow(RANGE, 701, MULTIRANGE));
        }
        if (s.holds(SystemCatalog.PG_EXTENSION)) {
            put(s, SystemCatalog.PG_EXTENSION, new ExtensionRow(16400, "hstore", PUBLIC));
        }
        if (s.holds(SystemCatalog.PG_INHERITS)) {
            put(s, SystemCatalog.PG_INHERITS, new InheritsRow(LEAF, ROOT, 1, true));
            put(s, SystemCatalog.PG_INHERITS, new InheritsRow(CHILD, OTHER_PARENT, 2, false));
            put(s, SystemCatalog.PG_INHERITS, new InheritsRow(CHILD, ROOT, 1, false));
        }
        return s;
    }

    private static void put(ShadowCatalog s, SystemCatalog c, CatalogRow row) {
        RelationMirror m = s.mirror(c);
        m.put(RelationMirror.tid(0, m.size() + 1), new ShadowTuple(100, true, 0, 0, 0, null, row));
    }

    @Test
    void laterCatalogsRowsRoundTrip() throws IOException {
        ShadowCatalog s = ShadowCatalogSerializer.fromBytes(ShadowCatalogSerializer.toBytes(
                shadow(ShadowCatalogSerializer.VERSION)));
        for (SystemCatalog c : SystemCatalog.values()) {
            assertTrue(s.holds(c), c.relname());
        }
        assertEquals(List.of(new RangeRow(RANGE, 701, MULTIRANGE)), s.rows(SystemCatalog.PG_RANGE));
        assertEquals(List.of(new ExtensionRow(16400, "hstore", PUBLIC)), s.rows(SystemCatalog.PG_EXTENSION));
        ShadowTypes types = new ShadowTypes(s);
        assertEquals(701, types.type(RANGE).rangeSubtype());
        assertEquals(RANGE, types.type(MULTIRANGE).rangeType());
        assertTrue(new ValueDecoder(types).supports(MULTIRANGE));
        assertEquals("hstore", types.type(HSTORE).extension());
        assertEquals(List.of(new InheritsRow(LEAF, ROOT, 1, true)), s.parents(LEAF));
        assertEquals(List.of(new InheritsRow(CHILD, ROOT, 1, false), new InheritsRow(CHILD, OTHER_PARENT, 2, false)),
                s.parents(CHILD), "in inhseqno order");
        assertEquals(List.of(), s.parents(ROOT));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void anOlderStateReadsWithoutTheLaterCatalogs(int version) throws IOException {
        byte[] old = ShadowCatalogSerializer.toBytes(shadow(version));
        assertEquals(ShadowCatalogSerializer.VERSION, java.nio.ByteBuffer.wrap(old).getInt(4));
        // that version wrote exactly this: the same fields, without the layouts and storage of the later catalogs
        old[7] = (byte) version;
        ShadowCatalog s = ShadowCatalogSerializer.fromBytes(old);
        for (SystemCatalog c : SystemCatalog.values()) {
            assertEquals(c.sinceStateVersion() <= version, s.holds(c), c.relname());
            if (!s.holds(c)) {
                assertEquals(List.of(), s.rows(c), c.relname());
            }
        }
        assertEquals(List.of(), s.parents(LEAF), "no pg_inherits: a partition is a table of its own");
        assertEquals(List.of(), s.parents(CHILD));
        ShadowTypes types = new ShadowTypes(s);
        assertEquals('r', types.type(RANGE).typtype());
        assertEquals("hstore", types.type(HSTORE).name());
        if (version == 1) {
            assertEquals(0, types.type(RANGE).rangeSubtype());
            UnsupportedTypeException e = assertThrows(UnsupportedTypeException.class,
                    () -> new ValueDecoder(types).decode(MULTIRANGE, -1, new byte[] {3}, 0, 1));
            assertTrue(e.getMessage().contains("public.floatmultirange") && e.getMessage().contains("pg_range"),
                    e.getMessage());
            assertNull(types.type(HSTORE).extension(), "no extension known: undecodable as before");
        } else {
            assertEquals(701, types.type(RANGE).rangeSubtype());
            assertEquals("hstore", types.type(HSTORE).extension());
        }
        // written back (as the current version) and read again: still without them
        ShadowCatalog again = ShadowCatalogSerializer.fromBytes(ShadowCatalogSerializer.toBytes(s));
        for (SystemCatalog c : SystemCatalog.values()) {
            assertEquals(c.sinceStateVersion() <= version, again.holds(c), c.relname());
        }
        assertEquals(3, again.rows(SystemCatalog.PG_TYPE).size());
    }

    @Test
    void unknownVersionsAndHalfStatesAreRefused() {
        byte[] b = ShadowCatalogSerializer.toBytes(shadow(ShadowCatalogSerializer.VERSION));
        b[7] = (byte) (ShadowCatalogSerializer.VERSION + 1);
        assertThrows(IOException.class, () -> ShadowCatalogSerializer.fromBytes(b));
        byte[] v0 = ShadowCatalogSerializer.toBytes(shadow(ShadowCatalogSerializer.VERSION));
        v0[7] = 0;
        assertThrows(IOException.class, () -> ShadowCatalogSerializer.fromBytes(v0));
        // an older state cannot hold a later catalog: its rows would not be read as that version wrote them
        for (int version = 1; version < ShadowCatalogSerializer.VERSION; version++) {
            byte[] bogus = ShadowCatalogSerializer.toBytes(shadow(version + 1));
            bogus[7] = (byte) version;
            assertThrows(IOException.class, () -> ShadowCatalogSerializer.fromBytes(bogus), "version " + version);
        }
    }
}
