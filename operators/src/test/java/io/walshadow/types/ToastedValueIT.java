package io.walshadow.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.walshadow.pg.TypeCatalogLoader;
import java.io.ByteArrayOutputStream;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Values the toaster touched: inline-compressed (pglz and lz4, {@code STORAGE MAIN}) decode to the value;
 * external ones ({@code STORAGE EXTERNAL}, or too big even compressed) decode to a {@link ToastPointer} that
 * points at the value's chunks in the table's TOAST relation, and those chunks, reassembled with
 * {@link ToastPointer#toVarlena}, decode to the value.
 */
class ToastedValueIT {
    /** @param storage the column's STORAGE (PostgreSQL 15 takes it only in ALTER TABLE), or null for the default */
    private record Case(String column, String ddl, String storage, String value, String form, String compression) {}

    private static final List<Case> CASES = List.of(
            new Case("m", "text COMPRESSION pglz", "MAIN", "repeat('abcdefgh', 1000)", "inline", "pglz"),
            new Case("l", "text COMPRESSION lz4", "MAIN", "repeat('ijklmnop', 1000)", "inline", "lz4"),
            new Case("u", "text COMPRESSION pglz", "MAIN",
                    "(SELECT string_agg(md5(g::text), ' ') FROM generate_series(1, 40) g)", "inline", null),
            new Case("e", "text", "EXTERNAL", "repeat('q', 5000) || 'ü'", "external", null),
            new Case("x", "text COMPRESSION pglz", null, "repeat('abc', 100000)", "external", "pglz"),
            new Case("xl", "text COMPRESSION lz4", null,
                    "(SELECT string_agg(md5((g % 500)::text), '') FROM generate_series(1, 20000) g)", "external", "lz4"),
            new Case("j", "jsonb", "MAIN",
                    "jsonb_build_object('k', repeat('xyz', 3000), 'a', (SELECT jsonb_agg(g % 7) FROM generate_series(1, 300) g))",
                    "inline", "pglz"),
            new Case("je", "jsonb", "EXTERNAL", "(SELECT jsonb_object_agg('k' || g, g) FROM generate_series(1, 500) g)",
                    "external", null),
            new Case("ai", "int4[] COMPRESSION lz4", "MAIN", "array_fill(7, ARRAY[60, 50])", "inline", "lz4"),
            new Case("n", "numeric", "MAIN", "(10::numeric ^ 3000) + 1", "inline", "pglz"),
            new Case("b", "bytea", "EXTERNAL", "decode(repeat('00ff', 3000), 'hex')", "external", null));

    @Test
    void compressedAndExternalValues() throws SQLException {
        try (PgOracle pg = new PgOracle()) {
            String t = pg.name("toast", "TABLE");
            StringBuilder ddl = new StringBuilder("CREATE TABLE " + t + " (id int4");
            StringBuilder values = new StringBuilder("INSERT INTO " + t + " VALUES (1");
            for (Case c : CASES) {
                ddl.append(", ").append(c.column()).append(' ').append(c.ddl());
            }
            for (Case c : CASES) {
                values.append(", ").append(c.value());
            }
            pg.exec(ddl.append(')').toString());
            for (Case c : CASES) {
                if (c.storage() != null) {
                    pg.exec("ALTER TABLE " + t + " ALTER COLUMN " + c.column() + " SET STORAGE " + c.storage());
                }
            }
            pg.exec(values.append(')').toString());
            int toastRelOid = (int) Long.parseLong(pg.query("SELECT reltoastrelid FROM pg_class WHERE oid = '" + t
                    + "'::regclass"));
            String toastRel = pg.query("SELECT reltoastrelid::regclass FROM pg_class WHERE oid = '" + t + "'::regclass");
            ValueDecoder dec = new ValueDecoder(TypeCatalogLoader.load(pg.c));
            List<PgOracle.Col> cols = pg.columns(t);
            PgOracle.Row row = pg.rows(t, cols).get(0);
            for (PgOracle.Col col : cols) {
                if (col.name().equals("id")) {
                    continue;
                }
                Case c = CASES.stream().filter(k -> k.column().equals(col.name())).findFirst().orElseThrow();
                byte[] raw = row.raw()[col.attnum()];
                String expected = row.text()[col.attnum()];
                String where = c.column() + " (" + c.ddl() + " storage " + c.storage() + ")";
                assertEquals(c.compression(), pg.query("SELECT pg_column_compression(" + c.column() + ") FROM " + t),
                        where + ": test premise");
                Object v = dec.decode(col.typeOid(), col.typmod(), raw, 0, raw.length);
                if (c.form().equals("inline")) {
                    assertEquals(c.compression() != null, (raw[0] & 0x03) == 0x02, where + ": header " + raw[0]);
                    assertEquals(expected, dec.toText(col.typeOid(), col.typmod(), v), where);
                    continue;
                }
                assertEquals(0x01, raw[0], where + ": test premise, an external pointer");
                ToastPointer p = assertInstanceOf(ToastPointer.class, v, where);
                assertEquals(toastRelOid, p.toastRelOid(), where);
                if (col.typeOid() != Oids.JSONB) { // octet_length: text and bytea
                    assertEquals(Long.parseLong(pg.query("SELECT octet_length(" + c.column() + ") FROM " + t)) + 4,
                            p.rawSize(), where);
                }
                assertEquals(Long.parseLong(pg.query("SELECT pg_column_size(" + c.column() + ") FROM " + t)),
                        p.externalSize(), where);
                assertEquals(c.compression() == null ? ToastPointer.Compression.NONE
                        : ToastPointer.Compression.valueOf(c.compression().toUpperCase()), p.compression(), where);
                // the chunks the pointer names
                ByteArrayOutputStream chunks = new ByteArrayOutputStream();
                try (Statement st = pg.c.createStatement(); ResultSet rs = st.executeQuery("SELECT chunk_data FROM "
                        + toastRel + " WHERE chunk_id = " + Integer.toUnsignedString(p.valueId())
                        + " ORDER BY chunk_seq")) {
                    while (rs.next()) {
                        chunks.writeBytes(rs.getBytes(1));
                    }
                }
                assertEquals(p.externalSize(), chunks.size(), where + ": bytes in " + toastRel);
                byte[] datum = p.toVarlena(chunks.toByteArray());
                assertEquals(p.payloadSize(), ((Datum) Varlena.payload(datum, 0, datum.length)).len(), where);
                Object value = dec.decode(col.typeOid(), col.typmod(), datum, 0, datum.length);
                assertEquals(expected, dec.toText(col.typeOid(), col.typmod(), value), where + ": detoasted");
            }
        }
    }
}
