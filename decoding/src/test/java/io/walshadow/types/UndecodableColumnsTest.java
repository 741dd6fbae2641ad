package io.walshadow.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.types.UndecodableColumns.Action;
import io.walshadow.wal.RelFileLocator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The undecodable-columns policy: its settings, the descriptors it shapes, and the raw stand-in types' values. */
class UndecodableColumnsTest {
    /** A type oid no decoder knows (without a catalog, only built-ins decode). */
    private static final int NO_DECODER = 99_999;
    private static final ValueDecoder BUILTINS = new ValueDecoder(null);

    private static Column col(int attnum, String name, int type, int attlen, boolean notNull) {
        return new Column(attnum, name, type, -1, attlen, attlen == -1 ? 'i' : 'c', attlen > 0, 'x', false, notNull,
                null);
    }

    private static RelationDescriptor table(List<Integer> identity) {
        return new RelationDescriptor(16_400, new RelFileLocator(1663, 5, 16_400), "app", "docs", 'r', 'p', 'd', 0,
                List.of(col(1, "id", Oids.INT4, 4, true), col(2, "q", NO_DECODER, -1, true),
                        col(3, "acl", NO_DECODER, 12, false)), identity);
    }

    @Test
    void settingsAreCheckedAndNameTheOption() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> UndecodableColumns.parse("ignore", null));
        assertTrue(e.getMessage().startsWith("setting --types.undecodable: "), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> UndecodableColumns.parse("fail", "app.docs=skip"));
        assertTrue(e.getMessage().contains("--types.undecodable.columns") && e.getMessage().contains("'app.docs'"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> UndecodableColumns.parse("fail", "app.docs.q"));
        assertTrue(e.getMessage().contains("schema.table.column=action"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> UndecodableColumns.parse("fail", "app.docs.q=drop"));
        assertTrue(e.getMessage().contains("'drop'"), e.getMessage());
    }

    @Test
    void theFirstMatchingEntryWinsOverTheDefault() {
        UndecodableColumns p = UndecodableColumns.parse("skip", "app.docs.q=raw, app.*.*=fail, we\\.ird.t.c=raw");
        assertEquals(Action.RAW, p.actionFor("app", "docs", "q"));
        assertEquals(Action.FAIL, p.actionFor("app", "docs", "acl"));
        assertEquals(Action.SKIP, p.actionFor("public", "docs", "q"));
        assertEquals(Action.RAW, p.actionFor("we.ird", "t", "c"));
        assertEquals(Action.SKIP, p.actionFor("weXird", "t", "c"), "an escaped dot is a dot, not any character");
        assertFalse(p.failsAll());
        assertTrue(UndecodableColumns.parse(null, " ").failsAll());
        assertTrue(UndecodableColumns.parse("fail", "a.b.c=fail").failsAll());
    }

    @Test
    void failLeavesTheDescriptorAsItIs() {
        RelationDescriptor d = table(List.of(1));
        assertSame(d, UndecodableColumns.FAIL.apply(d, BUILTINS::supports));
        assertSame(d, UndecodableColumns.parse("fail", "other.t.*=skip").apply(d, BUILTINS::supports));
    }

    @Test
    void skipLeavesColumnsOutAndRawGivesThemAStandInType() {
        RelationDescriptor d = table(List.of(1));
        RelationDescriptor s = UndecodableColumns.parse("skip", "app.docs.acl=raw").apply(d, BUILTINS::supports);
        assertEquals(d.columns().get(0), s.columns().get(0), "a decodable column is untouched");
        Column q = s.column(2);
        assertTrue(q.dropped() && UndecodableColumns.isSkipped(q) && q.attlen() == -1, "skipped, same storage");
        assertFalse(UndecodableColumns.isSkipped(col(9, "x", 0, 4, false)));
        Column acl = s.column(3);
        assertEquals(Oids.RAW_FIXED, acl.typeOid());
        assertEquals(12, acl.attlen());
        assertFalse(acl.notNull());
        RelationDescriptor again = UndecodableColumns.parse("skip", "app.docs.acl=raw").apply(s, BUILTINS::supports);
        assertEquals(s, again, "applying it to its own output changes nothing");

        RelationDescriptor r = UndecodableColumns.parse("raw", null).apply(d, BUILTINS::supports);
        assertEquals(Oids.RAW_VARLENA, r.column(2).typeOid());
        assertFalse(r.column(2).notNull(), "nullable: the initial snapshot cannot give raw bytes");
    }

    @Test
    void aKeyColumnIsNeverLeftOut() {
        RelationDescriptor keyed = table(List.of(2));
        RelationDescriptor s = UndecodableColumns.parse("skip", null).apply(keyed, BUILTINS::supports);
        assertEquals(Oids.RAW_VARLENA, s.column(2).typeOid());
        assertTrue(s.column(3).dropped());
    }

    @Test
    void rawValuesAreTheStoredBytesInHex() {
        // a short-header varlena of two bytes: header (2 + 1) << 1 | 1
        byte[] varlena = {7, (byte) 0xde, (byte) 0xad};
        assertEquals("\\xdead", BUILTINS.decode(Oids.RAW_VARLENA, -1, varlena, 0, varlena.length));
        byte[] fixed = {0, 1, 2, (byte) 0xff, 9};
        assertEquals("\\x0102ff", BUILTINS.decode(Oids.RAW_FIXED, -1, fixed, 1, 3));
        assertEquals("\\x0102ff", BUILTINS.toText(Oids.RAW_FIXED, -1, "\\x0102ff"));
        assertTrue(BUILTINS.supports(Oids.RAW_VARLENA) && Oids.isRaw(Oids.RAW_FIXED) && !Oids.isRaw(NO_DECODER));
    }
}
