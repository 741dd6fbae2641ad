package io.walshadow.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.pg.TypeCatalogLoader;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Types without a decoder fail with a typed exception that names them, before any bytes are looked at. */
class UnsupportedTypeIT {
    private static final byte[] SOME_BYTES = {0x05, 1, 2};

    private static UnsupportedTypeException unsupported(ValueDecoder dec, int oid) {
        assertFalse(dec.supports(oid));
        UnsupportedTypeException e = assertThrows(UnsupportedTypeException.class,
                () -> dec.decode(oid, -1, SOME_BYTES, 0, SOME_BYTES.length));
        assertEquals(oid, e.typeOid());
        return e;
    }

    private static int oid(PgOracle pg, String type) throws SQLException {
        return (int) Long.parseLong(pg.query("SELECT '" + type + "'::regtype::oid"));
    }

    @Test
    void builtinTypesWithoutDecoder() throws SQLException {
        try (PgOracle pg = new PgOracle()) {
            ValueDecoder dec = new ValueDecoder(TypeCatalogLoader.load(pg.c));
            for (String t : new String[] {"jsonpath", "refcursor"}) {
                UnsupportedTypeException e = unsupported(dec, oid(pg, t));
                assertTrue(e.getMessage().contains("pg_catalog." + t), e.getMessage());
                assertEquals("pg_catalog." + t, e.typeName());
            }
            assertTrue(dec.supports(oid(pg, "int4range")) && dec.supports(oid(pg, "tstzrange[]")));
            assertTrue(dec.supports(oid(pg, "int4multirange")) && dec.supports(oid(pg, "datemultirange[]")));
            assertTrue(unsupported(dec, oid(pg, "jsonpath")).getMessage().contains("pg_catalog.jsonpath"));
            assertTrue(unsupported(dec, oid(pg, "anyelement")).getMessage().contains("pseudo"));
            // arrays of them, too, even though an empty array would need no element decoder
            UnsupportedTypeException e = unsupported(dec, oid(pg, "jsonpath[]"));
            assertTrue(e.getMessage().contains("pg_catalog._jsonpath") && e.getMessage().contains("pg_catalog.jsonpath"),
                    e.getMessage());
            unsupported(dec, oid(pg, "jsonpath[]"));
            assertTrue(dec.supports(oid(pg, "int4[]")));
            assertTrue(dec.supports(oid(pg, "point[]")));
            for (String t : new String[] {"tsquery[]", "regclass", "regrole[]", "aclitem[]"}) {
                assertTrue(dec.supports(oid(pg, t)), t);
            }
        }
    }

    @Test
    void containersOfUnsupportedTypes() throws SQLException {
        try (PgOracle pg = new PgOracle()) {
            String ct = pg.name("uc", "TYPE");
            String d = pg.name("ud", "DOMAIN");
            pg.exec("CREATE TYPE " + ct + " AS (a int4, p jsonpath)", "CREATE DOMAIN " + d + " AS jsonpath");
            ValueDecoder dec = new ValueDecoder(TypeCatalogLoader.load(pg.c));
            UnsupportedTypeException e = unsupported(dec, oid(pg, ct));
            assertTrue(e.getMessage().contains("attribute p") && e.getMessage().contains("pg_catalog.jsonpath"),
                    e.getMessage());
            e = unsupported(dec, oid(pg, d));
            assertTrue(e.getMessage().contains("domain") && e.getMessage().contains("jsonpath"), e.getMessage());
            unsupported(dec, oid(pg, ct + "[]"));
        }
    }

    @Test
    void unknownOids() {
        ValueDecoder noCatalog = new ValueDecoder(null);
        assertTrue(unsupported(noCatalog, 1007).getMessage().contains("no catalog")); // int4[] needs the catalog
        assertTrue(noCatalog.supports(Oids.INT4));
        ValueDecoder empty = new ValueDecoder(new MapTypeCatalog(java.util.Map.of(), java.util.Map.of()));
        UnsupportedTypeException e = unsupported(empty, -5); // oid 4294967291
        assertTrue(e.getMessage().contains("4294967291") && e.getMessage().contains("unknown"), e.getMessage());
    }
}
