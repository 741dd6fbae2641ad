package io.walshadow.catalog.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.shadow.CatalogRow.ExtensionRow;
import io.walshadow.catalog.shadow.CatalogRow.NamespaceRow;
import io.walshadow.catalog.shadow.CatalogRow.TypeRow;
import io.walshadow.wal.RelFileLocator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shadow's state format: version 2 carries pg_extension; a version 1 state (without it) still reads. */
class ShadowCatalogSerializerTest {
    private static final int PUBLIC = 2200;
    private static final int HSTORE = 16500;

    /** A shadow holding the public namespace and a type named hstore there, with pg_extension or without. */
    private static ShadowCatalog shadow(boolean withExtensions) {
        EnumMap<SystemCatalog, CatalogLayout> layouts = new EnumMap<>(SystemCatalog.class);
        for (SystemCatalog c : SystemCatalog.values()) {
            if (withExtensions || c != SystemCatalog.PG_EXTENSION) {
                layouts.put(c, new CatalogLayout(c, List.of()));
            }
        }
        ShadowCatalog s = new ShadowCatalog(5, 1663, 0x100, 0x200, layouts, EnumSet.noneOf(SystemCatalog.class));
        for (SystemCatalog c : layouts.keySet()) {
            RelationMirror m = new RelationMirror(c, new RelFileLocator(1663, 5, c.oid()));
            if (c == SystemCatalog.PG_NAMESPACE) {
                m.put(RelationMirror.tid(0, 1), new ShadowTuple(2, true, 0, 0, 0, null, new NamespaceRow(PUBLIC,
                        "public")));
            } else if (c == SystemCatalog.PG_TYPE) {
                m.put(RelationMirror.tid(0, 1), new ShadowTuple(2, true, 0, 0, 0, null, new TypeRow(HSTORE, "hstore",
                        PUBLIC, -1, false, 'i', 'b', 'U', 0, 0, -1, 0)));
            } else if (c == SystemCatalog.PG_EXTENSION) {
                m.put(RelationMirror.tid(0, 1), new ShadowTuple(2, true, 0, 0, 0, null, new ExtensionRow(16400,
                        "hstore", PUBLIC)));
            }
            s.addMirror(m, true);
        }
        return s;
    }

    @Test
    void extensionsRoundTrip() throws Exception {
        ShadowCatalog s = ShadowCatalogSerializer.fromBytes(ShadowCatalogSerializer.toBytes(shadow(true)));
        assertEquals(List.of(new ExtensionRow(16400, "hstore", PUBLIC)), s.rows(SystemCatalog.PG_EXTENSION));
        assertEquals("hstore", new ShadowTypes(s).type(HSTORE).extension());
    }

    @Test
    void aVersion1StateReadsAsAShadowWithoutExtensions() throws Exception {
        byte[] b = ShadowCatalogSerializer.toBytes(shadow(false));
        assertEquals(2, b[7], "written as version 2");
        b[7] = 1; // version 1 is this format without pg_extension's layout and mirror
        ShadowCatalog s = ShadowCatalogSerializer.fromBytes(b);
        assertTrue(s.rows(SystemCatalog.PG_EXTENSION).isEmpty());
        assertEquals("hstore", new ShadowTypes(s).type(HSTORE).name());
        assertNull(new ShadowTypes(s).type(HSTORE).extension(), "no extension known: undecodable as before");
    }
}
