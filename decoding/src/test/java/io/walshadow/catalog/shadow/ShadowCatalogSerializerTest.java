package io.walshadow.catalog.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * The shadow's state format across versions: pg_range rows round-trip, and a version 1 state (written before the
 * shadow kept pg_range) still reads, as a shadow without pg_range whose ranges of one's own fail closed.
 */
class ShadowCatalogSerializerTest {
    private static final int RANGE = 16500;
    private static final int MULTIRANGE = 16501;

    /** A shadow holding a namespace, a range type and its multirange; pg_range (with their row) only if asked. */
    private static ShadowCatalog shadow(boolean withRange) {
        EnumMap<SystemCatalog, CatalogLayout> layouts = new EnumMap<>(SystemCatalog.class);
        for (SystemCatalog c : SystemCatalog.values()) {
            if (withRange || c != SystemCatalog.PG_RANGE) {
                layouts.put(c, new CatalogLayout(c, List.of()));
            }
        }
        ShadowCatalog s = new ShadowCatalog(5, 1663, 0x100, 0x200, layouts, EnumSet.noneOf(SystemCatalog.class));
        for (SystemCatalog c : layouts.keySet()) {
            s.addMirror(new RelationMirror(c, new RelFileLocator(1663, 5, c.oid())), true);
        }
        put(s, SystemCatalog.PG_NAMESPACE, new NamespaceRow(2200, "public"));
        put(s, SystemCatalog.PG_TYPE, new TypeRow(RANGE, "floatrange", 2200, -1, false, 'd', 'r', 'R', 0, 0, -1, 0));
        put(s, SystemCatalog.PG_TYPE, new TypeRow(MULTIRANGE, "floatmultirange", 2200, -1, false, 'd', 'm', 'R', 0, 0,
                -1, 0));
        if (withRange) {
            put(s, SystemCatalog.PG_RANGE, new RangeRow(RANGE, 701, MULTIRANGE));
        }
        return s;
    }

    private static void put(ShadowCatalog s, SystemCatalog c, CatalogRow row) {
        RelationMirror m = s.mirror(c);
        m.put(RelationMirror.tid(0, m.size() + 1), new ShadowTuple(100, true, 0, 0, 0, null, row));
    }

    @Test
    void rangeRowsRoundTrip() throws IOException {
        ShadowCatalog s = ShadowCatalogSerializer.fromBytes(ShadowCatalogSerializer.toBytes(shadow(true)));
        assertTrue(s.holds(SystemCatalog.PG_RANGE));
        assertEquals(List.of(new RangeRow(RANGE, 701, MULTIRANGE)), s.rows(SystemCatalog.PG_RANGE));
        ShadowTypes types = new ShadowTypes(s);
        assertEquals(701, types.type(RANGE).rangeSubtype());
        assertEquals(RANGE, types.type(MULTIRANGE).rangeType());
        assertTrue(new ValueDecoder(types).supports(MULTIRANGE));
    }

    @Test
    void aVersion1StateReadsWithoutPgRange() throws IOException {
        byte[] v1 = ShadowCatalogSerializer.toBytes(shadow(false));
        assertEquals(ShadowCatalogSerializer.VERSION, java.nio.ByteBuffer.wrap(v1).getInt(4));
        // version 1 wrote exactly this: the same fields, without pg_range's layout and storage
        v1[7] = 1;
        ShadowCatalog s = ShadowCatalogSerializer.fromBytes(v1);
        assertFalse(s.holds(SystemCatalog.PG_RANGE));
        assertEquals(List.of(), s.rows(SystemCatalog.PG_RANGE));
        ShadowTypes types = new ShadowTypes(s);
        assertEquals('r', types.type(RANGE).typtype());
        assertEquals(0, types.type(RANGE).rangeSubtype());
        UnsupportedTypeException e = assertThrows(UnsupportedTypeException.class,
                () -> new ValueDecoder(types).decode(MULTIRANGE, -1, new byte[] {3}, 0, 1));
        assertTrue(e.getMessage().contains("public.floatmultirange") && e.getMessage().contains("pg_range"),
                e.getMessage());
        // written back (as the current version) and read again: still without pg_range
        ShadowCatalog again = ShadowCatalogSerializer.fromBytes(ShadowCatalogSerializer.toBytes(s));
        assertFalse(again.holds(SystemCatalog.PG_RANGE));
        assertEquals(2, again.rows(SystemCatalog.PG_TYPE).size());
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
