package io.walshadow.catalog.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.shadow.CatalogRow.ExtensionRow;
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

/**
 * The shadow's state format across versions: pg_range and pg_extension rows round-trip, and a version 1 state
 * (written before the shadow kept them) still reads, as a shadow without them whose ranges of one's own and extension
 * types fail closed.
 */
class ShadowCatalogSerializerTest {
    private static final int PUBLIC = 2200;
    private static final int RANGE = 16500;
    private static final int MULTIRANGE = 16501;
    private static final int HSTORE = 16502;

    /**
     * A shadow holding a namespace, a range type and its multirange, a type named hstore; pg_range and pg_extension
     * (with their rows) only if asked.
     */
    private static ShadowCatalog shadow(boolean withLaterCatalogs) {
        EnumMap<SystemCatalog, CatalogLayout> layouts = new EnumMap<>(SystemCatalog.class);
        for (SystemCatalog c : SystemCatalog.values()) {
            if (withLaterCatalogs || c.sinceStateVersion() == 1) {
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
        if (withLaterCatalogs) {
            put(s, SystemCatalog.PG_RANGE, new RangeRow(RANGE, 701, MULTIRANGE));
            put(s, SystemCatalog.PG_EXTENSION, new ExtensionRow(16400, "hstore", PUBLIC));
        }
        return s;
    }

    private static void put(ShadowCatalog s, SystemCatalog c, CatalogRow row) {
        RelationMirror m = s.mirror(c);
        m.put(RelationMirror.tid(0, m.size() + 1), new ShadowTuple(100, true, 0, 0, 0, null, row));
    }

    @Test
    void rangeAndExtensionRowsRoundTrip() throws IOException {
        ShadowCatalog s = ShadowCatalogSerializer.fromBytes(ShadowCatalogSerializer.toBytes(shadow(true)));
        assertTrue(s.holds(SystemCatalog.PG_RANGE) && s.holds(SystemCatalog.PG_EXTENSION));
        assertEquals(List.of(new RangeRow(RANGE, 701, MULTIRANGE)), s.rows(SystemCatalog.PG_RANGE));
        assertEquals(List.of(new ExtensionRow(16400, "hstore", PUBLIC)), s.rows(SystemCatalog.PG_EXTENSION));
        ShadowTypes types = new ShadowTypes(s);
        assertEquals(701, types.type(RANGE).rangeSubtype());
        assertEquals(RANGE, types.type(MULTIRANGE).rangeType());
        assertTrue(new ValueDecoder(types).supports(MULTIRANGE));
        assertEquals("hstore", types.type(HSTORE).extension());
    }

    @Test
    void aVersion1StateReadsWithoutPgRangeAndPgExtension() throws IOException {
        byte[] v1 = ShadowCatalogSerializer.toBytes(shadow(false));
        assertEquals(ShadowCatalogSerializer.VERSION, java.nio.ByteBuffer.wrap(v1).getInt(4));
        // version 1 wrote exactly this: the same fields, without the layouts and storage of the later catalogs
        v1[7] = 1;
        ShadowCatalog s = ShadowCatalogSerializer.fromBytes(v1);
        assertFalse(s.holds(SystemCatalog.PG_RANGE));
        assertEquals(List.of(), s.rows(SystemCatalog.PG_RANGE));
        assertTrue(s.rows(SystemCatalog.PG_EXTENSION).isEmpty());
        ShadowTypes types = new ShadowTypes(s);
        assertEquals('r', types.type(RANGE).typtype());
        assertEquals(0, types.type(RANGE).rangeSubtype());
        UnsupportedTypeException e = assertThrows(UnsupportedTypeException.class,
                () -> new ValueDecoder(types).decode(MULTIRANGE, -1, new byte[] {3}, 0, 1));
        assertTrue(e.getMessage().contains("public.floatmultirange") && e.getMessage().contains("pg_range"),
                e.getMessage());
        assertEquals("hstore", types.type(HSTORE).name());
        assertNull(types.type(HSTORE).extension(), "no extension known: undecodable as before");
        // written back (as the current version) and read again: still without them
        ShadowCatalog again = ShadowCatalogSerializer.fromBytes(ShadowCatalogSerializer.toBytes(s));
        assertFalse(again.holds(SystemCatalog.PG_RANGE));
        assertEquals(3, again.rows(SystemCatalog.PG_TYPE).size());
    }

    @Test
    void unknownVersionsAndHalfStatesAreRefused() {
        byte[] b = ShadowCatalogSerializer.toBytes(shadow(true));
        b[7] = (byte) (ShadowCatalogSerializer.VERSION + 1);
        assertThrows(IOException.class, () -> ShadowCatalogSerializer.fromBytes(b));
        byte[] v0 = ShadowCatalogSerializer.toBytes(shadow(true));
        v0[7] = 0;
        assertThrows(IOException.class, () -> ShadowCatalogSerializer.fromBytes(v0));
        // a version 1 state cannot hold pg_range: its rows would not be read as version 1 wrote them
        byte[] bogus = ShadowCatalogSerializer.toBytes(shadow(true));
        bogus[7] = 1;
        assertThrows(IOException.class, () -> ShadowCatalogSerializer.fromBytes(bogus));
    }
}
