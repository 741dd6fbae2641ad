package io.walshadow.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CatalogFilterTest {
    @Test
    void includeAndExclude() {
        CatalogFilter f = CatalogFilter.parse("public.*, sales.orders", "public.tmp_*,*.audit_?");
        assertTrue(f.includes("public", "users"));
        assertTrue(f.includes("sales", "orders"));
        assertFalse(f.includes("sales", "orders2"));
        assertFalse(f.includes("sales", "Orders"), "case-sensitive, as stored");
        assertFalse(f.includes("public", "tmp_x"));
        assertFalse(f.includes("public", "audit_1"));
        assertTrue(f.includes("public", "audit_12"));
        assertFalse(f.includes("other", "users"));
    }

    @Test
    void emptyIncludeMeansEverythingButSystemSchemas() {
        CatalogFilter f = CatalogFilter.all();
        assertTrue(f.includes("x", "y"));
        assertFalse(f.includes("pg_catalog", "pg_class"));
        assertFalse(f.includes("information_schema", "tables"));
        assertFalse(f.includes("pg_toast", "pg_toast_1"));
        assertFalse(f.includes("pg_temp_3", "t"));
        assertFalse(f.includes("pg_toast_temp_3", "t"));
        assertFalse(CatalogFilter.parse("*.*", null).includes("pg_catalog", "pg_class"));
    }

    @Test
    void escapes() {
        CatalogFilter f = CatalogFilter.of(List.of("my\\.schema.t\\*"), List.of());
        assertTrue(f.includes("my.schema", "t*"));
        assertFalse(f.includes("myxschema", "t*"));
        assertFalse(f.includes("my.schema", "tx"));
    }

    @Test
    void badPatterns() {
        assertThrows(IllegalArgumentException.class, () -> CatalogFilter.parse("orders", null));
        assertThrows(IllegalArgumentException.class, () -> CatalogFilter.parse("a.b.c", null));
        assertThrows(IllegalArgumentException.class, () -> CatalogFilter.parse(".b", null));
    }

    @Test
    void spec() {
        assertEquals("include=public.*;exclude=", CatalogFilter.parse(" public.* ", "").spec());
    }
}
