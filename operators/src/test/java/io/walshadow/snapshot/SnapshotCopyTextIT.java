package io.walshadow.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import io.walshadow.types.TextValues;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Against the local PostgreSQL: a chunk read by COPY gives, row for row and column for column, the TID and the text
 * a SELECT of the same columns gives through pgjdbc in the same snapshot (the read path before COPY, and the oracle),
 * on values that COPY's text format escapes or could confuse: tabs, newlines, carriage returns, other control
 * characters, backslashes (also before {@code N} and at the end), NULLs, empty strings, arrays and composites
 * quoting them, multi-byte UTF-8, bytea; resuming after a TID gives exactly the rows after it.
 */
class SnapshotCopyTextIT {
    private static final PgConnectionConfig PG = FlinkTestJobs.localPg();

    @Test
    void copyRowsEqualSelectRows() throws Exception {
        String s = "snapcopy_" + Long.toString(System.nanoTime(), 36);
        String awkward = "ARRAY['tab' || chr(9) || 'here', 'lines' || chr(10) || 'two' || chr(13) || chr(10),"
                + " 'back' || chr(92) || 'slash ' || chr(92) || 'N ' || chr(92) || 't', chr(92) || 'N', '',"
                + " 'Grüße 日本語 🎉 ' || chr(1234), chr(1) || chr(8) || chr(11) || chr(12) || chr(27) || chr(31),"
                + " 'ends in ' || chr(92), 'q\"uote, {brace}', chr(92) || chr(92) || chr(9) || chr(92)]";
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE SCHEMA " + s, "CREATE TYPE " + s + ".pair AS (x text, y int)",
                    "CREATE TABLE " + s + ".t (id int, v text, b bytea, arr text[], ints int[], j jsonb, at timestamptz,"
                            + " n numeric, f float8, p " + s + ".pair, e text, ch char(3))",
                    // every awkward value in each text-like column, a NULL row, and enough rows for several pages
                    "INSERT INTO " + s + ".t SELECT i, (" + awkward + ")[i], convert_to((" + awkward + ")[i], 'UTF8'),"
                            + " ARRAY[(" + awkward + ")[i], NULL, ''], ARRAY[i, NULL, -i],"
                            + " jsonb_build_object('k', (" + awkward + ")[i]), timestamptz '2024-02-29 23:59:59.123456+00',"
                            + " i / 7.0, i / 3.0, ROW((" + awkward + ")[i], i)::" + s + ".pair, '', chr(9)"
                            + " FROM generate_series(1, 10) i",
                    "INSERT INTO " + s + ".t (id) VALUES (0)",
                    "INSERT INTO " + s + ".t SELECT g, repeat(chr(1 + g % 126) || chr(92) || chr(9) || chr(10), g % 5)"
                            + " || md5(g::text), decode(md5(g::text), 'hex'), ARRAY[chr(32 + g % 90), NULL],"
                            + " ARRAY[g], NULL, now(), g, g * 1.5, NULL, chr(92), NULL FROM generate_series(11, 3000) g");
            String columns = "id, v, b, arr, ints, j, at, n, f, p, e, ch";
            try (ExportedSnapshot snap = ExportedSnapshot.export(PG);
                 SnapshotChunkReader r = SnapshotChunkReader.open(PG, snap.id(), TextValues.SESSION_SETTINGS)) {
                long pages = r.relPages(s + ".t");
                assertTrue(pages > 3, pages + " pages");
                TidRange range = new TidRange(0, pages);
                List<SnapshotChunkReader.Row> copied = new ArrayList<>();
                assertEquals(3001, r.read(s + ".t", columns, range, copied::add));
                List<SnapshotChunkReader.Row> selected = select(r.connection(), s + ".t", columns, range);
                assertEquals(selected.size(), copied.size());
                for (int i = 0; i < selected.size(); i++) {
                    SnapshotChunkReader.Row a = selected.get(i);
                    SnapshotChunkReader.Row b = copied.get(i);
                    assertEquals(a.block() + "," + a.offset(), b.block() + "," + b.offset(), "TID of row " + i);
                    assertArrayEquals(a.values(), b.values(), "values of the row at (" + a.block() + "," + a.offset()
                            + ")");
                }
                // the text[] column's elements, parsed from the copied text, are the ones unnest gives
                TextValues.Parser textArray = new TextValues(io.walshadow.pg.TypeCatalogLoader.load(r.connection()))
                        .parser(1009);
                List<String> unnested = new ArrayList<>();
                try (Statement st = r.connection().createStatement();
                     ResultSet rs = st.executeQuery("SELECT id, cardinality(arr), x FROM " + s + ".t,"
                             + " unnest(arr) WITH ORDINALITY u(x, k) ORDER BY ctid, k")) {
                    while (rs.next()) {
                        unnested.add(rs.getInt(1) + ":" + rs.getInt(2) + ":" + rs.getString(3));
                    }
                }
                List<String> parsed = new ArrayList<>();
                for (SnapshotChunkReader.Row x : copied) {
                    if (x.values()[3] != null) {
                        io.walshadow.types.PgArray a = (io.walshadow.types.PgArray) textArray.parse(x.values()[3]);
                        for (Object e : a.elements()) {
                            parsed.add(x.values()[0] + ":" + a.size() + ":" + e);
                        }
                    }
                }
                assertEquals(unnested, parsed, "elements of the text[] column");
                assertTrue(copied.stream().anyMatch(x -> x.values()[1] == null), "a NULL was read");
                assertTrue(copied.stream().anyMatch(x -> "\\N".equals(x.values()[1])), "a text \\N was read");

                // resuming after the 1,000th row's TID
                SnapshotChunkReader.Row last = copied.get(999);
                List<SnapshotChunkReader.Row> rest = new ArrayList<>();
                try (SnapshotChunkReader.Cursor cur = r.cursor(s + ".t", columns, range, last.block(), last.offset())) {
                    for (SnapshotChunkReader.Row x = cur.next(); x != null; x = cur.next()) {
                        rest.add(x);
                    }
                }
                assertEquals(copied.size() - 1000, rest.size());
                assertEquals(copied.get(1000).block() + "," + copied.get(1000).offset(),
                        rest.get(0).block() + "," + rest.get(0).offset());

                // a cursor closed before its end closes the connection (no statement can follow on it)
                try (SnapshotChunkReader.Cursor cur = r.cursor(s + ".t", columns, range, -1, 0)) {
                    cur.next();
                }
                assertTrue(r.connection().isClosed());
                try (SnapshotChunkReader again = SnapshotChunkReader.open(PG, snap.id())) {
                    assertEquals(3001, again.read(s + ".t", "id", range, x -> {}));
                }
            } finally {
                LocalPg.exec(c, "DROP SCHEMA " + s + " CASCADE");
            }
        }
    }

    /** The read path before COPY: a SELECT of the TID's parts and the columns, each value by getString. */
    private static List<SnapshotChunkReader.Row> select(Connection c, String table, String columns, TidRange range)
            throws Exception {
        List<SnapshotChunkReader.Row> rows = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT (ctid::text::point)[0]::bigint, (ctid::text::point)[1]::int, "
                     + columns + " FROM " + table + " WHERE " + range.predicate())) {
            int width = rs.getMetaData().getColumnCount() - 2;
            while (rs.next()) {
                String[] v = new String[width];
                for (int i = 0; i < width; i++) {
                    v[i] = rs.getString(i + 3);
                }
                rows.add(new SnapshotChunkReader.Row(rs.getLong(1), rs.getInt(2), v));
            }
        }
        return rows;
    }
}
