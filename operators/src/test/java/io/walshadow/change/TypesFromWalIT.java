package io.walshadow.change;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.testing.LocalPg;
import io.walshadow.types.ToastPointer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every supported type end to end from the WAL: one table with a column of each type and an array column of
 * each (NULL elements, 2-D and 3-D, lower bounds other than 1, empty), plus inline-compressed (pglz, lz4) and
 * external values. Rows are inserted, updated (with and without a key change, twice in one transaction),
 * deleted, and one transaction rolls back; the WAL is decoded with {@link WalChangeDecoder}, the committed row
 * changes are applied in order to a map keyed by primary key, and the result is compared value by value with
 * PostgreSQL's own output of each column ({@code format('%s', col)}).
 */
class TypesFromWalIT {
    /** A column of {@code type} and an array column of it; row i (0-based) uses {@code lits[i % n]}. */
    private record T(String col, String type, List<String> lits) {
        String lit(int i) {
            return "(" + lits.get(Math.floorMod(i, lits.size())) + ")::" + type;
        }

        /** Array shapes by row: NULL elements, 2-D, empty, lower bounds -2, 3-D, one element. */
        String array(int i) {
            String at = type + "[]";
            return switch (i % 6) {
                case 0 -> "ARRAY[" + lit(i) + ", NULL, " + lit(i + 1) + "]::" + at;
                case 1 -> "ARRAY[[" + lit(i) + ", " + lit(i + 1) + "], [NULL, " + lit(i + 2) + "]]::" + at;
                case 2 -> "'{}'::" + at;
                case 3 -> "('[-2:-1]=' || ARRAY[" + lit(i) + ", " + lit(i + 1) + "]::text)::" + at;
                case 4 -> "ARRAY[[[" + lit(i) + "], [NULL]], [[" + lit(i + 1) + "], [" + lit(i + 2) + "]]]::" + at;
                default -> "ARRAY[" + lit(i) + "]::" + at;
            };
        }
    }

    private static List<T> types(String mood, String dnum, String comp, int major) {
        List<T> t = new ArrayList<>();
        t.add(new T("b", "bool", List.of("true", "false")));
        t.add(new T("i2", "int2", List.of("0", "-32768", "32767", "-1", "42")));
        t.add(new T("i4", "int4", List.of("0", "-2147483648", "2147483647", "7")));
        t.add(new T("i8", "int8", List.of("0", "-9223372036854775808", "9223372036854775807", "1234567890123")));
        t.add(new T("o", "oid", List.of("0", "4294967295", "2147483648", "12345")));
        t.add(new T("f4", "float4", List.of("'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "'1.17549435e-38'",
                "'3.4028235e38'", "'0.1'", "'1.4e-45'", "'16777217'")));
        t.add(new T("f8", "float8", List.of("'NaN'", "'-Infinity'", "'Infinity'", "'4.9e-324'",
                "'1.7976931348623157e308'", "'0.30000000000000004'", "'-0'", "'1e22'", "'123456789012345678'")));
        t.add(new T("n", "numeric", List.of("'NaN'", "'Infinity'", "'-Infinity'", "'0'", "'-0.000001'", "'1e-30'",
                "'123456789.123456789'", "'1.50'", "'-12345678901234567890.0000000000001'", "'9e1000'")));
        t.add(new T("t", "text", List.of("''", "'hello'", "'ümlaut ✓ 日本語'", "'quote'' \"dq\" \\back, {brace}'",
                "E'tab\\tnl\\n'", "'NULL'")));
        t.add(new T("vc", "varchar(12)", List.of("''", "'abc'", "'trail  '", "'é€'")));
        t.add(new T("bc", "char(5)", List.of("'ab'", "''", "'abcde'", "'é'")));
        t.add(new T("nm", "name", List.of("'a'", "''", "repeat('n', 63)", "'Ünï cödé'")));
        t.add(new T("by", "bytea", List.of("'\\x'", "'\\x00ff'", "'\\xdeadbeef'", "decode(repeat('ab', 100), 'hex')")));
        t.add(new T("d", "date", List.of("'infinity'", "'-infinity'", "'2000-01-01'", "'1999-12-31'",
                "'4713-01-01 BC'", "'5874897-12-31'", "'2024-02-29'")));
        t.add(new T("tm", "time", List.of("'00:00'", "'24:00:00'", "'23:59:59.999999'", "'12:34:56.789'")));
        t.add(new T("ttz", "timetz", List.of("'00:00+00'", "'24:00:00-15:59'", "'12:34:56.789+05:30'",
                "'23:59:59.999999+15:59'", "'01:02:03-00:00:30'")));
        t.add(new T("ts", "timestamp", List.of("'infinity'", "'-infinity'", "'2000-01-01 00:00'",
                "'1999-12-31 23:59:59.999999'", "'4713-01-01 00:00 BC'", "'294276-12-31 23:59:59.999999'",
                "'1970-01-01 00:00:00.5'")));
        t.add(new T("tstz", "timestamptz", List.of("'infinity'", "'-infinity'",
                "'2024-03-10 02:30:00 America/New_York'", "'1901-12-13 20:45:52+00'", "'0001-01-01 00:00:00+00'",
                "'2000-01-01 00:00:00.000001+14'", "'4714-11-24 00:00:00+00 BC'")));
        t.add(new T("iv", "interval", List.of("'0'", "'1 year 2 mons 3 days 04:05:06.789'", "'-1 days +02:00'",
                "'-178000000 years'", "'1 day -00:00:01'", "'2147483647 days'", "'@ 1 microsecond'",
                // the time part's extreme; 14 reads and prints at most int32 hours (struct pg_tm's tm_hour; 15's
                // pg_itm made it int64)
                major >= 15 ? "'-2562047788:00:54.775807'" : "'-2147483647:59:59.999999'")));
        t.add(new T("u", "uuid", List.of("'00000000-0000-0000-0000-000000000000'",
                "'ffffffff-ffff-ffff-ffff-ffffffffffff'", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'")));
        t.add(new T("j", "json", List.of("'{}'", "'[1, 2.50, \"x\"]'", "'{\"a\":  {\"b\": null}, \"a\": 1}'",
                "'\"\\u00e9\"'", "'null'", "'  [ ] '")));
        t.add(new T("jb", "jsonb", List.of("'{}'", "'{\"b\": 1, \"a\": [1, 2.50, null, true]}'", "'\"str\"'",
                "'123.4500'", "'[]'", "'{\"nested\": {\"deep\": [{\"k\": \"v\"}]}}'",
                "'{\"aa\": 1, \"a\": 2, \"b\": \"\\u00e9\\n\"}'", "'-0'", "'1e-5'")));
        t.add(new T("ip", "inet", List.of("'192.168.1.1'", "'10.0.0.0/8'", "'::1'", "'2001:db8::1/64'",
                "'0.0.0.0/0'", "'::ffff:1.2.3.4'", "'192.168.1.5/24'")));
        t.add(new T("cd", "cidr", List.of("'10.0.0.0/8'", "'192.168.0.0/24'", "'2001:db8::/32'", "'0.0.0.0/0'",
                "'::/0'", "'1.2.3.4/32'")));
        t.add(new T("mac", "macaddr", List.of("'08:00:2b:01:02:03'", "'00:00:00:00:00:00'",
                "'ff:ff:ff:ff:ff:ff'")));
        t.add(new T("m", "money", List.of("'0'", "'-92233720368547758.08'", "'92233720368547758.07'", "'1234.56'",
                "'-0.01'")));
        t.add(new T("en", mood, List.of("'sad'", "'ok'", "'happy'", "'mid'", "'with space, \"q\"'")));
        t.add(new T("dm", dnum, List.of("1.5", "0", "-12345.678", "'NaN'")));
        t.add(new T("cp", comp, List.of("ROW(1, 'x,y', 1.5, true, 'ok', '{1,NULL}', '2000-01-01 00:00+00')",
                "ROW(NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
                "ROW(-1, '', 'NaN', false, 'sad', '{}', 'infinity')",
                "ROW(2, 'q\"u\\o (x)', '1e-3', NULL, 'with space, \"q\"', '{{1,2},{3,4}}', NULL)")));
        return t;
    }

    /** Toasted columns: name, DDL, STORAGE, value for the toasted row (big), value for the others (# = id). */
    private static final String[][] TOASTED = {
        {"z_pglz", "text COMPRESSION pglz", "MAIN", "repeat('abcdefgh', 1000)", "'small #'"},
        {"z_lz4", "text COMPRESSION lz4", "MAIN", "repeat('ijklmnop', 1000)", "'small #'"},
        {"z_arr", "int4[] COMPRESSION lz4", "MAIN", "array_fill(7, ARRAY[60, 50])", "ARRAY[#, NULL]"},
        {"z_jb", "jsonb", "MAIN", "jsonb_build_object('k', repeat('xyz', 3000), 'a', "
                + "(SELECT jsonb_agg(g % 7) FROM generate_series(1, 300) g))", "'{\"small\": #}'"},
        {"ext", "text", "EXTERNAL", "repeat('q', 5000) || 'ü'", "'small #'"},
    };

    /**
     * Rows 1..10 hold literal id-1 of every list and are never changed (every literal is in the final state);
     * rows 21..28 hold literal id-21 and are the ones updated, re-keyed and deleted; row 29 is all NULL; row 30
     * holds the toasted values (and NULL elsewhere).
     */
    private static final List<Integer> TYPED_ROWS = List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 21, 22, 23, 24, 25, 26,
            27, 28);
    private static final int NULL_ROW = 29;
    private static final int TOASTED_ROW = 30;

    @Test
    void everyTypeFromTheWal() throws Exception {
        try (ChangeStream s = new ChangeStream("types")) {
            String mood = s.name("mood", "TYPE");
            String dnum = s.name("dnum", "DOMAIN");
            String comp = s.name("comp", "TYPE");
            String tbl = s.table("all");
            s.exec("CREATE TYPE " + mood + " AS ENUM ('sad', 'ok', 'happy', 'with space, \"q\"')",
                    // an enum label added later has an odd oid and sorts by enumsortorder, not oid
                    "ALTER TYPE " + mood + " ADD VALUE 'mid' BEFORE 'ok'",
                    "CREATE DOMAIN " + dnum + " AS numeric(8,3) CHECK (VALUE <> 13)",
                    "CREATE TYPE " + comp + " AS (a int4, b text, c numeric, d bool, e " + mood
                            + ", f int8[], g timestamptz)");
            List<T> types = types(mood, dnum, comp, LocalPg.major(s.c));
            StringBuilder ddl = new StringBuilder("CREATE TABLE " + tbl + " (id int4 PRIMARY KEY");
            for (T t : types) {
                ddl.append(", ").append(t.col()).append(' ').append(t.type());
            }
            for (T t : types) {
                ddl.append(", a_").append(t.col()).append(' ').append(t.type()).append("[]");
            }
            String lz4 = LocalPg.lz4OrPglz(s.c); // a build without lz4 compresses those columns with pglz
            for (String[] z : TOASTED) {
                ddl.append(", ").append(z[0]).append(' ').append(z[1].replace("COMPRESSION lz4", "COMPRESSION " + lz4));
            }
            s.exec(ddl.append(") WITH (autovacuum_enabled = off, toast.autovacuum_enabled = off,"
                    // rows of up to ~8 kB stay as they are: only the toasted row is toasted, as the test means
                    + " toast_tuple_target = 8160)").toString());
            for (String[] z : TOASTED) {
                s.exec("ALTER TABLE " + tbl + " ALTER COLUMN " + z[0] + " SET STORAGE " + z[2]);
            }
            int relOid = s.oid(tbl);
            s.start();

            // --- typed rows, the all-NULL row, the toasted row
            List<String> inserts = new ArrayList<>();
            List<Integer> ids = new ArrayList<>(TYPED_ROWS);
            ids.addAll(List.of(NULL_ROW, TOASTED_ROW));
            for (int id : ids) {
                StringBuilder cols = new StringBuilder("id");
                StringBuilder vals = new StringBuilder(Integer.toString(id));
                if (TYPED_ROWS.contains(id)) {
                    int i = id <= 10 ? id - 1 : id - 21;
                    for (T t : types) {
                        cols.append(", ").append(t.col());
                        vals.append(", ").append(t.lit(i));
                    }
                    for (T t : types) {
                        cols.append(", a_").append(t.col());
                        vals.append(", ").append(t.array(i));
                    }
                }
                if (id != NULL_ROW) {
                    for (String[] z : TOASTED) {
                        cols.append(", ").append(z[0]);
                        vals.append(", ").append(id == TOASTED_ROW ? z[3] : z[4].replace("#", Integer.toString(id)));
                    }
                }
                inserts.add("INSERT INTO " + tbl + " (" + cols + ") VALUES (" + vals + ")");
            }
            int insertXid = s.xact(inserts.toArray(String[]::new));
            List<ChangeStream.Committed> txs = new ArrayList<>(s.advance());

            // --- updates, a delete, a rollback
            StringBuilder setRow6 = new StringBuilder();
            for (T t : types) {
                setRow6.append(setRow6.length() == 0 ? "" : ", ").append(t.col()).append(" = ").append(t.lit(5))
                        .append(", a_").append(t.col()).append(" = ").append(t.array(5));
            }
            StringBuilder setRow7 = new StringBuilder();
            StringBuilder setNull = new StringBuilder();
            for (T t : types) {
                setRow7.append(setRow7.length() == 0 ? "" : ", ").append(t.col()).append(" = ").append(t.lit(6))
                        .append(", a_").append(t.col()).append(" = ").append(t.array(6));
                setNull.append(setNull.length() == 0 ? "" : ", ").append(t.col()).append(" = NULL, a_")
                        .append(t.col()).append(" = NULL");
            }
            s.xact("UPDATE " + tbl + " SET " + setRow6 + " WHERE id = 22");
            s.xact("UPDATE " + tbl + " SET id = 123 WHERE id = 23");
            s.xact("UPDATE " + tbl + " SET t = 'changed', j = '{\"k\": []}' WHERE id = 24",
                    "UPDATE " + tbl + " SET id = 124, i4 = -4 WHERE id = 24");
            s.xact("UPDATE " + tbl + " SET i4 = 10 WHERE id = " + TOASTED_ROW); // the external value's pointer stays
            s.xact("DELETE FROM " + tbl + " WHERE id = 25");
            s.xact("UPDATE " + tbl + " SET " + setRow7 + " WHERE id = " + NULL_ROW);
            s.xact("UPDATE " + tbl + " SET " + setNull + " WHERE id = 28");
            s.c.setAutoCommit(false);
            s.exec("UPDATE " + tbl + " SET t = 'rolled back', id = 666 WHERE id = 26",
                    "DELETE FROM " + tbl + " WHERE id = 27");
            int rolledBack = (int) Long.parseLong(s.query("SELECT pg_current_xact_id()::text"));
            s.c.rollback();
            s.c.setAutoCommit(true);
            txs.addAll(s.advance());

            Replica replica = new Replica(s.values);
            replica.applyAll(txs);

            // --- the change log, with the old keys the UPDATE/DELETE records carried
            List<String> expectedOps = new ArrayList<>();
            for (int id : ids) {
                expectedOps.add("INSERT " + id);
            }
            expectedOps.addAll(List.of("UPDATE 22", "UPDATE 23->123", "UPDATE 24", "UPDATE 24->124",
                    "UPDATE " + TOASTED_ROW, "DELETE 25", "UPDATE " + NULL_ROW, "UPDATE 28"));
            assertEquals(expectedOps, replica.ops(relOid), "row changes of " + tbl + " and their old keys");
            assertTrue(s.aborted.stream().anyMatch(a -> a.xid() == rolledBack), "the rollback's abort record");
            assertOldKeysOnlyHoldTheKey(txs, relOid);

            // --- inline-compressed values came out whole; the external one as a TOAST pointer
            RelationDescriptor d = s.decoder.history().current(relOid).descriptor();
            Replica.Row toasted = replica.table(relOid).get(Integer.toString(TOASTED_ROW));
            assertNotNull(toasted);
            String row30 = " FROM " + tbl + " WHERE id = " + TOASTED_ROW;
            for (String[] z : TOASTED) {
                Column col = column(d, z[0]);
                Object v = toasted.values()[col.attnum() - 1];
                String compression = s.query("SELECT pg_column_compression(" + z[0] + ")" + row30);
                if (z[2].equals("MAIN")) {
                    assertNotNull(compression, z[0] + ": test premise, stored compressed");
                    assertFalse(v instanceof ToastPointer, z[0] + ": an inline-compressed value decodes whole: " + v);
                    assertEquals(s.query("SELECT format('%s', " + z[0] + ")" + row30),
                            s.values.toText(col.typeOid(), col.typmod(), v), z[0]);
                } else {
                    ToastPointer p = assertInstanceOf(ToastPointer.class, v, z[0] + ": stored external");
                    assertEquals(Integer.parseUnsignedInt(s.query("SELECT reltoastrelid FROM pg_class WHERE oid = "
                            + Integer.toUnsignedString(relOid))), p.toastRelOid(), "pointer's TOAST relation");
                    assertEquals(Integer.parseInt(s.query("SELECT octet_length(ext)" + row30)) + 4,
                            p.rawSize(), "pointer's raw size");
                    assertEquals(ToastPointer.Compression.NONE, p.compression(), "STORAGE EXTERNAL: uncompressed");
                    // the UPDATE of another column kept the very same TOAST value
                    RowChange insert = ChangeStream.of(txs, insertXid).rows(relOid).get(ids.indexOf(TOASTED_ROW));
                    assertEquals(Integer.toString(TOASTED_ROW), replica.key(insert.descriptor(), insert.newValues()));
                    assertEquals(p, insert.newValues()[col.attnum() - 1], "pointer of the insert");
                }
            }

            // test premise: every literal of every list is in the final state (as a plain column value)
            for (T t : types) {
                Set<String> present = new HashSet<>(LocalPg.queryColumn(s.c, "SELECT format('%s', " + t.col()
                        + ") FROM " + tbl + " WHERE num_nulls(" + t.col() + ") = 0"));
                for (int i = 0; i < t.lits().size(); i++) {
                    String out = s.query("SELECT format('%s', " + t.lit(i) + ")");
                    assertTrue(present.contains(out), t.col() + ": literal " + t.lits().get(i)
                            + " not in the final rows");
                }
            }

            int compared = replica.assertMatchesPostgres(s, tbl);
            assertEquals(1, replica.toastResolved, "the external value, resolved from the stream's TOAST rows");
            int expectedRows = ids.size() - 1;
            assertEquals(expectedRows * (1 + 2 * types.size() + TOASTED.length), compared, "values compared");
            System.out.println("[change] TypesFromWalIT: compared " + compared + " decoded values ("
                    + expectedRows + " rows x " + (1 + 2 * types.size() + TOASTED.length) + " columns, "
                    + types.size() + " types and their arrays) with PostgreSQL; " + replica.ops(relOid).size()
                    + " row changes applied");
        }
    }

    /** UPDATE/DELETE old keys hold the primary key only (KEY kind), and only when the key changed or a delete. */
    private static void assertOldKeysOnlyHoldTheKey(List<ChangeStream.Committed> txs, int relOid) {
        Set<String> seen = new HashSet<>();
        for (ChangeStream.Committed t : txs) {
            for (RowChange r : t.rows(relOid)) {
                if (r.op() == RowChange.Op.INSERT) {
                    assertNull(r.oldValues());
                    assertNull(r.oldTid());
                    continue;
                }
                assertNotNull(r.oldTid(), r.op() + ": old TID");
                if (r.oldValues() == null) {
                    assertEquals(RowChange.Op.UPDATE, r.op(), "only an UPDATE that keeps its key logs no old key");
                    continue;
                }
                assertFalse(r.oldIsFullRow(), "REPLICA IDENTITY DEFAULT logs the key, not the row");
                Object[] old = r.oldValues();
                assertNotNull(old[0], "old id");
                for (int i = 1; i < old.length; i++) {
                    assertNull(old[i], "non-key attribute " + (i + 1) + " in the old key of " + r.op());
                }
                seen.add(r.op() + " " + old[0]);
            }
        }
        assertEquals(Set.of("UPDATE 23", "UPDATE 24", "DELETE 25"), seen, "old keys logged");
    }

    private static Column column(RelationDescriptor d, String name) {
        for (Column c : d.columns()) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        throw new AssertionError("no column " + name + " in " + d.qualifiedName());
    }
}
