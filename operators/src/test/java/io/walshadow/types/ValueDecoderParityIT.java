package io.walshadow.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.pg.TypeCatalogLoader;
import io.walshadow.testing.LocalPg;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Every supported type against PostgreSQL itself: for each type a table with a column of the type, 1-D arrays
 * with NULL elements, 2-D arrays, 2-D arrays with lower bounds other than 1, a domain over the type, an array of
 * the domain, a composite containing the type (after a bool, so alignment padding matters) and an array of that
 * composite; many values per type. Each stored attribute is read raw from the heap page, decoded, printed with
 * {@link ValueDecoder#toText}, and compared with {@code col::text}.
 */
class ValueDecoderParityIT {
    private static final AtomicLong COMPARED = new AtomicLong();
    private static final AtomicLong TYPES = new AtomicLong();
    private static final AtomicLong DETOASTED = new AtomicLong();

    /** The server's major: inputs a later major added are left out on earlier ones. */
    private static int serverMajor() throws SQLException {
        try (PgOracle pg = new PgOracle()) {
            return LocalPg.major(pg.c);
        }
    }

    @AfterAll
    static void summary() {
        System.out.println("[types] compared " + COMPARED.get() + " decoded values with PostgreSQL's text over "
                + TYPES.get() + " type cases (" + DETOASTED.get() + " of them stored external, decoded from their TOAST chunks)");
    }

    /**
     * Runs a type case and returns (value, text) of the plain column for Java value checks. An array type gets no
     * further array columns of itself (PostgreSQL has no arrays of arrays, only more dimensions).
     */
    private static List<Object[]> check(String type, List<String> literals) throws SQLException {
        return check(type, literals, null, null);
    }

    /**
     * As {@link #check(String, List)}, with PostgreSQL's expected text taken from a mirror table of the same shape
     * whose columns have type {@code oracleType} instead, filled with {@code toOracle} applied to each value of
     * {@code type}: for types decoded to something other than their output function's text ({@code regclass}
     * values as {@code v::oid}).
     */
    private static List<Object[]> check(String type, List<String> literals, String oracleType,
                                        UnaryOperator<String> toOracle) throws SQLException {
        return check(type, literals, oracleType, toOracle, List.of());
    }

    /** As {@link #check(String, List, String, UnaryOperator)}, with {@code setup} run first in the session. */
    private static List<Object[]> check(String type, List<String> literals, String oracleType,
                                        UnaryOperator<String> toOracle, List<String> setup) throws SQLException {
        boolean isArray = type.endsWith("]") || type.startsWith(PgOracle.PREFIX + "da");
        List<Object[]> plain = new ArrayList<>();
        List<String> mismatches = new ArrayList<>();
        try (PgOracle pg = new PgOracle()) {
            pg.exec(setup.toArray(String[]::new));
            String t = fill(pg, type, literals, isArray, lit -> "(" + lit + ")::" + type);
            Map<String, String[]> oracle = new HashMap<>();
            if (oracleType != null) {
                String m = fill(pg, oracleType, literals, isArray, lit -> toOracle.apply("(" + lit + ")::" + type));
                for (PgOracle.Row row : pg.rows(m, pg.columns(m))) {
                    oracle.put(row.text()[1], row.text());
                }
            }
            MapTypeCatalog catalog = TypeCatalogLoader.load(pg.c);
            ValueDecoder dec = new ValueDecoder(catalog);
            TextValues textValues = new TextValues(catalog);
            List<PgOracle.Col> cols = pg.columns(t);
            // the initial snapshot's path: what it selects (TextValues.selectExpression) parsed by TextValues
            Map<String, String[]> selected = pg.texts(t, cols, col -> textValues.selectExpression(col.typeOid(),
                    col.name()));
            for (PgOracle.Row row : pg.rows(t, cols)) {
                String[] texts = oracleType == null ? row.text() : oracle.get(row.text()[1]);
                for (PgOracle.Col col : cols) {
                    byte[] raw = row.raw()[col.attnum()];
                    String expected = texts[col.attnum()];
                    String where = type + " " + col.name() + " " + row.ctid();
                    if (raw == null) {
                        continue; // NULL: the heap tuple's null bitmap says so; nothing to decode
                    }
                    String got;
                    Object value = null;
                    try {
                        value = dec.decode(col.typeOid(), col.typmod(), raw, 0, raw.length);
                        if (value instanceof ToastPointer p) { // a big row: fetch the chunks, decode those
                            byte[] datum = pg.detoast(p);
                            value = dec.decode(col.typeOid(), col.typmod(), datum, 0, datum.length);
                            DETOASTED.incrementAndGet();
                        }
                        got = dec.toText(col.typeOid(), col.typmod(), value);
                    } catch (RuntimeException e) {
                        got = "<" + e + ">";
                    }
                    COMPARED.incrementAndGet();
                    // the initial snapshot's path prints alike
                    String viaText;
                    try {
                        Object parsed = textValues.parse(col.typeOid(), selected.get(row.ctid())[col.attnum()]);
                        viaText = parsed instanceof String str ? str : dec.toText(col.typeOid(), col.typmod(), parsed);
                    } catch (RuntimeException e) {
                        viaText = "<" + e + ">";
                    }
                    // (multi-dimensional arrays: refused on both paths, by the sink's Array columns and TextValues)
                    boolean multiDim = value instanceof PgArray arr && arr.ndim() > 1;
                    if (!viaText.equals(expected) && !multiDim) {
                        mismatches.add(where + " (from text): expected [" + expected + "] got [" + viaText + "]");
                    }
                    if (!got.equals(expected)) {
                        mismatches.add(where + ": expected [" + expected + "] got [" + got + "] raw "
                                + HexFormat.of().formatHex(raw));
                    } else if (col.name().equals("v")) {
                        plain.add(new Object[] {value, expected});
                    }
                }
            }
        }
        TYPES.incrementAndGet();
        assertTrue(mismatches.isEmpty(), mismatches.size() + " mismatch(es):\n"
                + String.join("\n", mismatches.subList(0, Math.min(40, mismatches.size()))));
        return plain;
    }

    /**
     * A table of {@code type} values in every container: plain, domain, composite, array of composite and (unless
     * {@code type} is an array) arrays; row {@code id} holds literal {@code id} as {@code value} turns it into an
     * expression of {@code type}.
     */
    private static String fill(PgOracle pg, String type, List<String> literals, boolean isArray,
                               UnaryOperator<String> value) throws SQLException {
        String d = pg.name("d", "DOMAIN");
        String ct = pg.name("c", "TYPE");
        String t = pg.name("t", "TABLE");
        pg.exec("CREATE DOMAIN " + d + " AS " + type,
                "CREATE TYPE " + ct + " AS (x bool, v " + type + ", i int4, s text)",
                "CREATE TABLE " + t + " (id int4, v " + type + ", d " + d + ", c " + ct + ", ca " + ct + "[]"
                        + (isArray ? "" : ", a " + type + "[], a2 " + type + "[], alb " + type + "[], da " + d + "[]")
                        + ")");
        for (int i = 0; i < literals.size(); i++) {
            String v = "(" + value.apply(literals.get(i)) + ")";
            // lower bounds set by assigning to a slice, not through the text form: some values do not read back
            // (an aclitem of a dropped role)
            pg.exec("INSERT INTO " + t + " (id, v, d, c, ca" + (isArray ? "" : ", a, a2, alb[-2:-1][3:4], da")
                    + ") VALUES (" + i + ", " + v
                    + ", " + v + "::" + d
                    + ", ROW(true, " + v + ", " + i + ", 'q\"u\\o,te (x)')::" + ct
                    + ", ARRAY[ROW(false, " + v + ", NULL, NULL)::" + ct + ", NULL, ROW(NULL, NULL, NULL, '')::"
                    + ct + "]"
                    + (isArray ? "" : ", ARRAY[" + v + ", NULL, " + v + "]"
                    + ", ARRAY[[" + v + ", NULL], [" + v + ", " + v + "]]"
                    + ", ARRAY[[" + v + ", NULL], [" + v + ", " + v + "]]"
                    + ", ARRAY[" + v + "::" + d + ", NULL]")
                    + ")");
        }
        pg.exec("INSERT INTO " + t + " VALUES (-1, NULL, NULL, ROW(NULL, NULL, NULL, NULL)::" + ct + ", '{}'"
                + (isArray ? "" : ", '{}', NULL, '{}', '{}'") + ")");
        return t;
    }

    private static void check(String type, List<String> literals, BiConsumer<Object, String> valueCheck)
            throws SQLException {
        List<Object[]> plain = check(type, literals);
        assertEquals(literals.size(), plain.size(), "plain values checked");
        for (Object[] p : plain) {
            valueCheck.accept(p[0], (String) p[1]);
        }
    }

    private static List<String> quoted(String... values) {
        List<String> out = new ArrayList<>();
        for (String v : values) {
            out.add("'" + v.replace("'", "''") + "'");
        }
        return out;
    }

    @Test
    void bool() throws SQLException {
        check("bool", quoted("true", "false"), (v, t) -> assertEquals(t.equals("t"), v));
    }

    @Test
    void integers() throws SQLException {
        check("int2", quoted("0", "1", "-1", "32767", "-32768"), (v, t) -> assertEquals(Short.valueOf(t), v));
        check("int4", quoted("0", "42", "-2147483648", "2147483647"), (v, t) -> assertEquals(Integer.valueOf(t), v));
        check("int8", quoted("0", "1234567890123", "-9223372036854775808", "9223372036854775807"),
                (v, t) -> assertEquals(Long.valueOf(t), v));
        check("oid", quoted("0", "12345", "2147483648", "4294967295"), (v, t) -> assertEquals(Long.valueOf(t), v));
    }

    @Test
    void numeric() throws SQLException {
        List<String> lits = new ArrayList<>(quoted("0", "-0", "NaN", "Infinity", "-Infinity", "1", "-1", "0.5",
                "1.50", "-0.000001", "1e-30", "1e30", "9999.9999", "10000", "0.0001", "0.00010", "1e100", "-1e-100",
                "1e-70", "123456789.123456789", "-12345678901234567890.0000000000001", "1e130000",
                "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798"));
        lits.add("1::numeric / 7");
        lits.add("round(2::numeric / 3, 1000)");
        lits.add("(10::numeric ^ 300) - 1");
        check("numeric", lits, (v, t) -> {
            PgNumeric n = assertInstanceOf(PgNumeric.class, v);
            if (n.isFinite()) {
                assertEquals(new BigDecimal(t), n.value()); // same scale, too
            } else {
                assertEquals(t, n.toString());
            }
        });
        check("numeric(12,4)", quoted("0", "1.5", "-12345678.1234", "0.00005", "NaN"));
    }

    @Test
    void floats() throws SQLException {
        Random rnd = new Random(42);
        List<String> f8 = new ArrayList<>(quoted("0", "-0", "NaN", "Infinity", "-Infinity", "1", "-1.5", "0.1",
                "1e-7", "1.5e-07", "0.0001", "0.00001", "100000", "123456789012345678", "999999999999999",
                "1e15", "1e16", "1e+20", "1.7976931348623157e308", "2.2250738585072014e-308", "4.9e-324",
                "2.225073858507201e-308", "0.30000000000000004", "9007199254740993", "123456.789e3"));
        for (int i = 0; i < 300; i++) {
            double d = Double.longBitsToDouble(rnd.nextLong());
            if (!Double.isNaN(d) && !Double.isInfinite(d)) {
                f8.add("'" + d + "'");
            }
            f8.add("'" + (rnd.nextInt(2_000_000) - 1_000_000) / Math.pow(10, rnd.nextInt(12)) + "'");
        }
        check("float8", f8, (v, t) -> {
            double d = assertInstanceOf(Double.class, v);
            assertEquals(Double.doubleToLongBits(Double.parseDouble(t.replace("Infinity", "Infinity"))),
                    Double.doubleToLongBits(d), t);
        });
        List<String> f4 = new ArrayList<>(quoted("0", "-0", "NaN", "Infinity", "-Infinity", "1", "0.1", "1e-7",
                "1.5e-7", "3.4028235e38", "1.4e-45", "1.17549435e-38", "100000", "1000000", "123456", "1234567",
                "16777216", "16777217", "0.0001", "0.00001", "-2.5", "3.1415927", "1e10"));
        for (int i = 0; i < 300; i++) {
            float f = Float.intBitsToFloat(rnd.nextInt());
            if (!Float.isNaN(f) && !Float.isInfinite(f)) {
                f4.add("'" + f + "'");
            }
            f4.add("'" + (float) ((rnd.nextInt(200_000) - 100_000) / Math.pow(10, rnd.nextInt(8))) + "'");
        }
        check("float4", f4, (v, t) -> {
            float f = assertInstanceOf(Float.class, v);
            assertEquals(Float.floatToIntBits(Float.parseFloat(t)), Float.floatToIntBits(f), t);
        });
    }

    @Test
    void money() throws SQLException {
        check("money", quoted("0", "0.01", "-0.01", "1.00", "-1.00", "1234.56", "-1234567.89", "1000",
                "92233720368547758.07", "-92233720368547758.08"), (v, t) -> {
            PgMoney m = assertInstanceOf(PgMoney.class, v);
            assertEquals(new BigDecimal(t.replace("$", "").replace(",", "")), m.toBigDecimal());
        });
    }

    @Test
    void textTypes() throws SQLException {
        List<String> texts = quoted("", "a", "hello world", "quote\"d", "back\\slash", "NULL", "null", "Null",
                "comma,brace{}", "paren()", "ünïcödé 日本語 🎉", "tab\there", "new\nline", " leading", "trailing ",
                "x".repeat(300), "{1,2}", "'single'");
        check("text", texts, (v, t) -> assertEquals(t, v));
        check("varchar(20)", quoted("", "abc", "0123456789", "a \"b\" c"));
        check("varchar", quoted("", "abc", "ünï"));
        check("bpchar(5)", quoted("", "ab", "abcde", "a b", "ü"), (v, t) -> assertEquals(t, v));
        check("bpchar", quoted("x", "abc  "));
        check("\"char\"", quoted("a", "", " ", "\"", "\\", "\\351", "\\001", "A"));
        check("name", quoted("abc", "", "a much longer name with spaces, commas and \"quotes\"", "ünï",
                "y".repeat(63)), (v, t) -> assertEquals(t, v));
        check("bytea", quoted("\\x", "\\xdeadbeef", "abc", "\\x00ff", "\\x" + "ab".repeat(200)), (v, t) ->
                assertEquals(t, "\\x" + HexFormat.of().formatHex(assertInstanceOf(byte[].class, v))));
        check("xml", quoted("<a>b</a>", "<x y=\"1\">t &amp; u</x>", ""));
    }

    @Test
    void json() throws SQLException {
        check("json", quoted("{\"a\": 1,  \"b\":[1,2]}", "[]", "\"str\"", "null", "  {\"dup\":1,\"dup\":2}  ",
                "{\"esc\": \"\\u00e9\\n\"}"));
    }

    @Test
    void jsonb() throws SQLException {
        StringBuilder wide = new StringBuilder("{");
        for (int i = 0; i < 70; i++) {
            wide.append(i == 0 ? "" : ", ").append("\"key").append(i).append("\": ")
                    .append(i % 3 == 0 ? "\"s" + i + "\"" : i % 3 == 1 ? Integer.toString(i * 1000) : "[" + i + "]");
        }
        wide.append('}');
        StringBuilder arr = new StringBuilder("[");
        for (int i = 0; i < 100; i++) {
            arr.append(i == 0 ? "" : ",").append(i % 4 == 0 ? "1.5e" + i : i % 4 == 1 ? "\"" + "v".repeat(i) + "\""
                    : i % 4 == 2 ? "{\"n\": [" + i + ", null]}" : "true");
        }
        arr.append(']');
        check("jsonb", quoted("{}", "[]", "null", "true", "false", "0", "1", "-1.5e10", "1e-20", "\"str\"", "\"\"",
                "\"esc \\\" \\\\ \\n \\t \\r \\b \\f \\u0001 \\u001f é / ü\"",
                "{\"b\": 1, \"a\": [1, 2, {\"c\": null}], \"aa\": \"x\", \"\": 0}",
                "[1, \"two\", 3.0, 3.10, true, false, null, {\"k\": [[]]}, {}, [[[]]]]",
                "{\"deep\": {\"deeper\": {\"deepest\": [1, {\"x\": \"y\"}]}}}",
                "{\"NaN\": \"NaN\", \"num\": 123456789012345678901234567890.123456789}",
                wide.toString(), arr.toString()), (v, t) -> assertEquals(t, assertInstanceOf(PgJsonb.class, v).text()));
    }

    @Test
    void dates() throws SQLException {
        check("date", quoted("2000-01-01", "1999-12-31", "1970-01-01", "infinity", "-infinity", "0001-01-01",
                "0001-12-31 BC", "0002-01-01 BC", "4713-01-01 BC", "5874897-12-31", "2024-02-29", "10000-01-01",
                "1582-10-10"), (v, t) -> {
            PgDate d = assertInstanceOf(PgDate.class, v);
            if (d.isFinite() && !t.endsWith("BC")) {
                assertEquals(LocalDate.parse(t.length() == 10 ? t : "+" + t), d.toLocalDate());
            }
        });
    }

    @Test
    void times() throws SQLException {
        check("time", quoted("00:00", "23:59:59.999999", "24:00:00", "12:34:56.5", "01:02:03.000001",
                "10:00:00.12"));
        check("time(2)", quoted("12:34:56.789"));
        check("timetz", quoted("00:00+00", "12:34:56.789+05:30", "23:59:59-08", "01:02:03+05:45:30",
                "24:00:00+15:59", "10:00-15:59", "00:00:00.000001-00:00:01", "13:00+14"), (v, t) ->
                assertInstanceOf(PgTimeTz.class, v));
    }

    @Test
    void timestamps() throws SQLException {
        List<String> lits = quoted("2000-01-01 00:00:00", "infinity", "-infinity", "1999-12-31 23:59:59.999999",
                "1970-01-01 00:00:00.5", "0001-01-01 00:00:00 BC", "4713-01-01 00:00:00 BC",
                "294276-12-31 23:59:59.999999", "2024-02-29 12:34:56.123456", "1900-01-01 00:00:00.000001",
                "10000-06-15 01:02:03", "1960-06-15 12:00:00.25");
        check("timestamp", lits, (v, t) -> assertInstanceOf(PgTimestamp.class, v));
        check("timestamp(3)", quoted("2024-02-29 12:34:56.123456"));
        check("timestamptz", new ArrayList<>(lits) {
            {
                addAll(quoted("2024-06-01 12:00:00+05:30", "2024-06-01 12:00:00-08", "1901-01-01 00:00:00+01:02:03"));
            }
        }, (v, t) -> {
            PgTimestamp ts = assertInstanceOf(PgTimestamp.class, v);
            assertTrue(ts.withTimeZone());
            if (ts.isFinite() && t.matches("\\d{4}-.*") && !t.endsWith("BC")) {
                assertEquals(Instant.parse(t.replace(' ', 'T').replace("+00", "Z")), ts.toInstant());
            }
        });
    }

    @Test
    void intervals() throws SQLException {
        check("interval", quoted("0", "1 year 2 mons 3 days 04:05:06.789", "-1 year", "-1 year 2 mons",
                "1 day -1 hour", "-00:00:00.000001", "100 hours", "-1 days -02:03:04", "178000000 years",
                "1 mon -1 day +1 sec", "2 years -3 mons", "00:00:00.5", "1 day", "-1 day", "1 mon", "1 year",
                "-178956970 years -8 mons", "178956970 years 7 mons", "-2147483648 days", "2147483647 days",
                "1 year -1 mon 1 day -1 min"));
        // the time part's extremes: 14 reads at most int32 hours (its interval2tm keeps them in an int; 15 made
        // that an int64) and prints -2147483648 hours as "--2147483648:00:00": there, the largest it reads and prints
        if (serverMajor() >= 15) {
            check("interval", quoted("2562047788 hours", "-2562047788 hours"));
        } else {
            check("interval", quoted("2147483647:59:59.999999", "-2147483647:59:59.999999"));
        }
        check("interval day to second(2)", quoted("1 day 01:02:03.456"));
    }

    @Test
    void uuid() throws SQLException {
        check("uuid", quoted("00000000-0000-0000-0000-000000000000", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
                "ffffffff-ffff-ffff-ffff-ffffffffffff"), (v, t) -> assertEquals(UUID.fromString(t), v));
    }

    @Test
    void network() throws SQLException {
        check("inet", quoted("192.168.0.1", "192.168.0.1/24", "10.0.0.0/8", "0.0.0.0/0", "255.255.255.255/32",
                "::1", "::", "2001:db8::1/64", "2001:db8:0:0:1:0:0:1", "::ffff:1.2.3.4", "::1.2.3.4",
                "::0.0.0.1", "::ffff:0.0.0.0", "1:0:0:0:0:0:0:0", "1::", "::2:3:4:5:6:7", "1:0:0:2:0:0:0:3",
                "fe80::1:0:0:0/10", "2001:db8::/128", "1:2:3:4:5:6:7:8"), (v, t) -> {
            PgInet in = assertInstanceOf(PgInet.class, v);
            try {
                assertEquals(InetAddress.getByName(t.split("/")[0]), in.toInetAddress());
            } catch (java.net.UnknownHostException e) {
                throw new AssertionError(e);
            }
        });
        check("cidr", quoted("10.0.0.0/8", "192.168.1.0/24", "192.168.1.1/32", "192.168.1", "::/0",
                "2001:db8::/32", "::ffff:1.2.3.4/128", "0.0.0.0/0"));
        check("macaddr", quoted("08:00:2b:01:02:03", "ff:ff:ff:ff:ff:ff", "00:00:00:00:00:00"));
        check("macaddr8", quoted("08:00:2b:01:02:03:04:05", "08:00:2b:01:02:03"));
    }

    @Test
    void bitsAndSystemTypes() throws SQLException {
        check("bit(8)", quoted("10101010", "00000000", "11111111"));
        check("varbit", quoted("", "1", "101010101", "1".repeat(70)));
        check("xid", quoted("0", "12345", "4294967295"));
        check("xid8", quoted("0", "12345", "18446744073709551615"));
        check("cid", quoted("0", "7", "4294967295"));
        check("tid", quoted("(0,1)", "(4294967295,65535)", "(12,0)"));
        check("pg_lsn", quoted("0/0", "FFFFFFFF/FFFFFFFF", "16/B374D848", "0/1"));
    }

    @Test
    void geometric() throws SQLException {
        String edge = "1e-300,-1.5e+300";
        check("point", quoted("(0,0)", "(1.5,-2.25)", "(-0,0.1)", "(NaN,Infinity)", "(-Infinity,1e-310)", "(" + edge + ")",
                "(0.30000000000000004,123456789012345680)"));
        check("lseg", quoted("[(0,0),(1,1)]", "[(-1.5,2),(" + edge + ")]", "[(NaN,0),(0,-Infinity)]"));
        check("box", quoted("(1,1),(0,0)", "(0,0),(1,1)", "(-1.5,2),(" + edge + ")"));
        check("line", quoted("{1,-1,0}", "{0,1,-2.5}", "{1e-300,-1,Infinity}"));
        check("circle", quoted("<(0,0),1>", "<(-1.5,2.25),0>", "<(" + edge + "),1e+300>"));
        // big ones go to TOAST (compressed, or out of line)
        String many = IntStream.range(0, 1500).mapToObj(i -> "(" + i + "," + (i * 0.5) + ")")
                .collect(Collectors.joining(","));
        check("path", quoted("[(0,0)]", "((0,0),(1,1),(2,0))", "[(0,0),(1,1),(" + edge + ")]", "(" + many + ")",
                "[" + many + "]"));
        check("polygon", quoted("((0,0))", "((0,0),(1,1),(2,0))", "((-1.5,2),(" + edge + "),(NaN,Infinity))",
                "(" + many + ")"));
    }

    @Test
    void tsvector() throws SQLException {
        check("tsvector", List.of("''", "'a'", "'a:1 b:2'", "'a:1A,2B,3C,4 b:5'", "'it''s:1 back\\\\slash:2'",
                "'ünïcödé 日本:3'", "to_tsvector('english', 'The quick brown foxes jumped over the lazy dogs')",
                "setweight(to_tsvector('simple', 'alpha beta gamma alpha'), 'B')",
                "'a:16383 b:1,16383'",
                // a big one goes to TOAST
                "(SELECT string_agg('w' || i || ':' || i, ' ')::tsvector FROM generate_series(1, 3000) i)"));
    }

    /**
     * Installs a contrib extension (shared server: IF NOT EXISTS, and a concurrent install is fine too); skips the test,
     * saying so, on a server that does not ship it (PostGIS on another major's npm build).
     */
    private static void extension(String name) throws SQLException {
        try (PgOracle pg = new PgOracle()) {
            io.walshadow.testing.LocalPg.assumeExtension(pg.c, name);
            io.walshadow.testing.LocalPg.createExtension(pg.c, name);
        }
    }

    @Test
    void citext() throws SQLException {
        extension("citext");
        check("citext", quoted("", "MiXeD Case", "ünïcödé 日本", "a,b \"c\" {d}", " NULL "), (v, t) -> assertEquals(t, v));
    }

    @Test
    void hstore() throws SQLException {
        extension("hstore");
        check("hstore", List.of("''", "'a=>1'", "'a=>NULL, b=>\"NULL\"'", "'\"\"=>\"\"'",
                "hstore(ARRAY['k\"q', 'b\\s', 'sp ace'], ARRAY['v\\\"w', 'x,y=>z', '\\'])",
                "'ünï=>日本, 日本=>ünï'", "'b=>2, a=>1, aa=>3, a=>9'",
                "hstore(ARRAY['k1','k2','k3'], ARRAY['v1', NULL, ''])",
                // a big one goes to TOAST
                "(SELECT hstore(array_agg('key' || i), array_agg(md5(i::text))) FROM generate_series(1, 3000) i)"),
                (v, t) -> {
                    assertEquals(t, v);
                    assertEquals(t, PgHstore.parseOutput(t).toString(), "the sink's parse of hstore_out's text");
                });
    }

    @Test
    void ltree() throws SQLException {
        extension("ltree");
        check("ltree", quoted("", "a", "Top.Science.Astronomy", "a_b.C_9.x", "ünï.日本",
                "l" + IntStream.range(0, 300).mapToObj(Integer::toString).collect(Collectors.joining(".l")),
                "x".repeat(255) + "." + "y".repeat(7)), (v, t) -> assertEquals(t, v));
        check("lquery", quoted("a", "*", "*{1,2}", "*{2}", "*{,3}", "*{4,}", "a.*.b", "!a|b.c",
                "Top.*{0,2}.sPort*@.ball%|Foot%@*", "a{2,3}.b{,}.c{1}.d{0}.e{3,}", "!x%@*|y*{1,2}",
                "ünï.日本*", "a|b|c|d|e.f", "*.!baz{1,}.*{,4}"), (v, t) -> assertEquals(t, v));
    }

    @Test
    void cube() throws SQLException {
        extension("cube");
        check("cube", quoted("(1)", "(0)", "(1,2)", "(1,2),(3,4)", "(1,2),(1,2)", "(-0.5, 1e-300),(1e300, 2)",
                "(3.14159265358979, 0.1, -7)", "(1, Infinity),(2, -Infinity)", "(0.1),(0.30000000000000004)"),
                (v, t) -> assertEquals(t, v));
        check("cube", List.of("cube(array[1,2,3], array[4,5,6])", "cube(array(SELECT i * 0.5 FROM generate_series(1, 100) i))",
                "cube(array(SELECT i FROM generate_series(1, 100) i), array(SELECT -i FROM generate_series(1, 100) i))",
                "cube(1.5, 1.5)", "cube(cube(1, 2), 3)"), (v, t) -> assertEquals(t, v));
    }

    @Test
    void seg() throws SQLException {
        extension("seg");
        check("seg", quoted("1", "-1", "0", "1.50", "1.5e3", "6.25e-3", "0.000123", "-0.0001234", "~1e-3 .. 5e7", "1 .. ~2", "~1 ..", "<1 .. ~2", "~1 .. >2", ".. ~2", "12345", "123456",
                "1234567", "1e10", "-1.5e-10", "1 .. 2", "1.0 .. 2.00", "<1", ">2", "~3", "<1 .. >2", "~1.0 .. ~2",
                "1 ..", ".. 2", "5 .. 5", "5(+-)0.3", "1.2345678", "100", "-100.0", "0.5 .. 0.5",
                "3.4e38", "1.17549435e-38", "9.99999e4", "99999.9", "0.00009999", "-12.00 .. -11.90"),
                (v, t) -> assertEquals(t, v));
    }

    /**
     * contrib isn: decoded to the number without hyphens, so the oracle is PostgreSQL's text with them taken out.
     * Values with a wrong check digit are accepted in weak mode (PostgreSQL 15 has the {@code isn_weak(true)}
     * function; the {@code isn.weak} setting came later) or with a {@code !} suffix, and print a {@code !}: the short
     * ISSN and UPC forms drop it. Many values per prefix ({@code ?}: isn computes the check digit) so that ISBN-10 and
     * ISSN check digits cover 0 to X.
     */
    @Test
    void isn() throws SQLException {
        extension("isn");
        UnaryOperator<String> digits = v -> "regexp_replace((" + v + ")::text, '-', '', 'g')";
        List<String> weak = List.of("SELECT isn_weak(true)");
        Map<String, List<String>> cases = new java.util.LinkedHashMap<>();
        cases.put("ean13", concat(quoted("0000000000000", "978-0-393-04002-9", "9791090636071", "9790060115615",
                "9770317847001", "0012345678905", "0923456789056", "1400000000007", "4006381333931", "999999999999?",
                // weak: wrong check digits, flagged
                "4006381333932", "9780306406158", "9780306406157!", "0012345678904", "1400000000001"),
                sweep("978", "400", "140", "000")));
        cases.put("isbn13", concat(quoted("978-0-393-04002-9", "0-8044-2957-X", "9791090636071", "0-8044-2957-3",
                "979-10-90636-07-2"), sweep("978", "9791")));
        cases.put("isbn", concat(quoted("0-8044-2957-X", "0000000000", "978-0-393-04002-9", "9791090636071",
                "0-8044-2957-3", "0-8044-2957-X!", "0-393-04002-0", "9791090636072"), sweep("978", "9791")));
        cases.put("ismn13", concat(quoted("979-0-060-11561-5", "M-060-11561-5", "M-060-11561-4", "9790000000001"),
                sweep("9790")));
        cases.put("ismn", concat(quoted("M-060-11561-5", "979-0-060-11561-5", "M-000-00000-1", "M-060-11561-4",
                "M-060-11561-5!"), sweep("9790")));
        cases.put("issn13", concat(quoted("0317-8471", "977-0317-847-00-1", "1050-124X", "0317-8472",
                "9770317847052"), sweep("977")));
        cases.put("issn", concat(quoted("0317-8471", "1050-124X", "0000-0000", "0317-8472", "9770317847052",
                "9770317847999"), sweep("977")));
        cases.put("upc", concat(quoted("012345678905", "000000000000", "923456789056", "012345678904",
                "0012345678905"), sweep("0")));
        Map<String, List<String>> printed = new HashMap<>();
        for (Map.Entry<String, List<String>> c : cases.entrySet()) {
            List<Object[]> plain = check(c.getKey(), c.getValue(), "text", digits, weak);
            assertEquals(c.getValue().size(), plain.size(), c.getKey() + ": plain values checked");
            List<String> texts = new ArrayList<>();
            for (Object[] p : plain) {
                assertEquals(p[1], p[0], "decoded to the digits as a String");
                texts.add((String) p[1]);
            }
            printed.put(c.getKey(), texts);
        }
        // the cases the oracle must have printed, so that the comparison covered them
        assertTrue(printed.get("ean13").contains("0000000000000"), "leading zeros");
        assertTrue(printed.get("ean13").contains("4006381333931!"), "weak: flagged, the check digit corrected");
        assertTrue(printed.get("isbn").contains("080442957X"), "ISBN-10 with X");
        assertTrue(printed.get("isbn").contains("080442957X!"), "ISBN-10 with X, flagged");
        assertTrue(printed.get("isbn").contains("9791090636071"), "979: no short form");
        assertTrue(printed.get("isbn").stream().filter(t -> t.endsWith("X")).count() > 3, "sweep: X check digits");
        assertTrue(printed.get("ismn").contains("M060115615!"), "ISMN short form, flagged");
        assertTrue(printed.get("issn").contains("1050124X") && printed.get("issn").contains("03178471"),
                "ISSN short form; flagged, it prints no !");
        assertTrue(printed.get("issn13").contains("9770317847001!"), "flagged ISSN-13");
        assertTrue(printed.get("upc").contains("012345678905"), "UPC: 12 digits, the flagged one without !");
    }

    /** 40 EANs for each prefix, bodies spread over the range, the check digit computed by isn ({@code ?}). */
    private static List<String> sweep(String... prefixes) {
        List<String> out = new ArrayList<>();
        for (String prefix : prefixes) {
            int n = 12 - prefix.length();
            long mod = (long) Math.pow(10, n);
            for (int i = 0; i < 40; i++) {
                long body = Math.floorMod(i * 104_729L * 1_000_003L + i, mod);
                out.add("'" + prefix + String.format("%0" + n + "d", body) + "?'");
            }
        }
        return out;
    }

    /** Every geometry type, each empty, with Z / M / ZM, SRIDs 0, 4326 and the largest, nested collections. */
    private static final List<String> GEOMETRIES = quoted("POINT(1 2)", "SRID=4326;POINT(-71.0603 42.3583)",
            "SRID=0;POINT(1 1)", "POINT Z (1 2 3)", "POINT M (1 2 4)", "POINT ZM (1 2 3 4)", "POINT EMPTY",
            "SRID=3857;POINT Z EMPTY", "POINT M EMPTY", "POINT ZM EMPTY", "POINT(NaN NaN)", "POINT(-0 1e-300)",
            "POINT(1.7976931348623157e308 -4.9e-324)", "SRID=999999;POINT(0 0)", "SRID=-1;POINT(5 6)",
            "LINESTRING(0 0,1 1,2 -1.5)", "LINESTRING EMPTY", "SRID=4326;LINESTRING ZM (0 0 0 0,1 1 1 1)",
            "LINESTRING M (0 0 7,0.1 0.2 8)",
            "POLYGON((0 0,1 0,1 1,0 0))", "POLYGON((0 0,4 0,4 4,0 4,0 0),(1 1,2 1,2 2,1 1))",
            "POLYGON((0 0,9 0,9 9,0 9,0 0),(1 1,2 1,2 2,1 1),(5 5,6 5,6 6,5 5))", "POLYGON EMPTY",
            "POLYGON Z ((0 0 1,1 0 1,1 1 1,0 0 1))", "SRID=4326;POLYGON M ((0 0 1,1 0 2,1 1 3,0 0 1))",
            "POLYGON ZM ((0 0 1 2,1 0 1 2,1 1 1 2,0 0 1 2),(0.1 0.1 1 2,0.2 0.1 1 2,0.2 0.2 1 2,0.1 0.1 1 2))",
            "MULTIPOINT((1 2),(3 4))", "MULTIPOINT EMPTY", "MULTIPOINT(EMPTY, (1 2))", "MULTIPOINT Z ((1 2 3),EMPTY)",
            "MULTILINESTRING((0 0,1 1),(2 2,3 3,4 4))", "MULTILINESTRING EMPTY", "MULTILINESTRING((0 0,1 1),EMPTY)",
            "MULTILINESTRING ZM ((0 0 1 2,1 1 3 4))",
            "MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((2 2,3 2,3 3,2 2),(2.1 2.1,2.2 2.1,2.2 2.2,2.1 2.1)))",
            "MULTIPOLYGON EMPTY", "MULTIPOLYGON(EMPTY, ((0 0,1 0,1 1,0 0)))", "SRID=4326;MULTIPOLYGON Z (((0 0 1,1 0 1,1 1 1,0 0 1)))",
            "GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(0 0,1 1),POLYGON((0 0,1 0,1 1,0 0)))", "GEOMETRYCOLLECTION EMPTY",
            "GEOMETRYCOLLECTION(POINT EMPTY)", "GEOMETRYCOLLECTION(GEOMETRYCOLLECTION EMPTY)",
            "SRID=4326;GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(POINT(1 1)),MULTIPOINT EMPTY),"
                    + "TRIANGLE((0 0,1 0,0 1,0 0)),CIRCULARSTRING(0 0,1 1,2 0),POLYGON EMPTY,POINT(3 4))",
            "GEOMETRYCOLLECTION ZM (POINT ZM (1 2 3 4),CIRCULARSTRING ZM (0 0 0 0,1 1 1 1,2 0 2 2),"
                    + "MULTIPOLYGON ZM (((0 0 0 0,1 0 0 0,1 1 0 0,0 0 0 0))))",
            "GEOMETRYCOLLECTION(TIN EMPTY,POLYHEDRALSURFACE EMPTY,TRIANGLE EMPTY,CURVEPOLYGON EMPTY)",
            "CIRCULARSTRING(0 0,1 1,2 0)", "CIRCULARSTRING EMPTY", "CIRCULARSTRING Z (0 0 1,1 1 2,2 0 3)",
            "COMPOUNDCURVE(CIRCULARSTRING(0 0,1 1,2 0),(2 0,3 0))", "COMPOUNDCURVE EMPTY",
            "COMPOUNDCURVE M ((0 0 1,1 0 2),CIRCULARSTRING M (1 0 2,2 1 3,3 0 4))",
            "CURVEPOLYGON(CIRCULARSTRING(0 0,4 0,4 4,0 4,0 0),(1 1,3 3,3 1,1 1))",
            "CURVEPOLYGON(COMPOUNDCURVE(CIRCULARSTRING(0 0,2 0,2 1,2 3,4 3),(4 3,4 5,1 4,0 0)))", "CURVEPOLYGON EMPTY",
            "MULTICURVE((0 0,5 5),CIRCULARSTRING(4 0,4 4,8 4),COMPOUNDCURVE(CIRCULARSTRING(0 0,1 1,2 0),(2 0,3 0)))",
            "MULTICURVE EMPTY", "MULTICURVE Z (CIRCULARSTRING Z (0 0 0,1 1 1,2 0 2))",
            "MULTISURFACE(CURVEPOLYGON(CIRCULARSTRING(0 0,4 0,4 4,0 4,0 0)),((10 10,14 12,11 10,10 10)))",
            "MULTISURFACE EMPTY",
            "POLYHEDRALSURFACE Z (((0 0 0,0 0 1,0 1 1,0 1 0,0 0 0)),((0 0 0,0 1 0,1 1 0,1 0 0,0 0 0)))",
            "POLYHEDRALSURFACE EMPTY", "SRID=4326;POLYHEDRALSURFACE(((0 0,0 1,1 1,0 0)))",
            "TRIANGLE((0 0,0 9,9 0,0 0))", "TRIANGLE EMPTY", "TRIANGLE ZM ((0 0 1 2,0 9 1 2,9 0 1 2,0 0 1 2))",
            "TIN Z (((0 0 0,0 0 1,0 1 0,0 0 0)),((0 0 0,0 1 0,1 1 0,0 0 0)))", "TIN EMPTY",
            "SRID=4326;TIN M (((0 0 5,0 1 6,1 1 7,0 0 5)))");

    /** Big ones: compressed inline, or stored external (TOAST). */
    private static final List<String> BIG_GEOMETRIES = List.of(
            "ST_Buffer('SRID=4326;POINT(0.123 -45.678)'::geometry, 10, 5000)",
            "ST_Segmentize('LINESTRING(0 0,20000 0)'::geometry, 1)",
            "ST_Force3D(ST_Segmentize('POLYGON((0 0,3000 0,3000 3000,0 0))'::geometry, 1))",
            "ST_Collect(array(SELECT ST_MakePoint(i, -i, i * 0.5, i) FROM generate_series(1, 3000) i))");

    @Test
    void postgisGeometry() throws SQLException {
        extension("postgis");
        List<String> all = concat(GEOMETRIES, BIG_GEOMETRIES);
        List<Object[]> plain = check("geometry", all);
        assertDecodedAreEwkb(plain, all, v -> "(" + v + ")::geometry");
    }

    @Test
    void postgisGeography() throws SQLException {
        extension("postgis");
        List<String> all = concat(quoted("POINT(1 2)", "SRID=4326;LINESTRING(0 0,10 10)",
                "POLYGON((0 0,10 0,10 10,0 10,0 0))", "MULTIPOINT Z ((1 2 3),(4 5 6))",
                "GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(0 0,1 1))", "POINT EMPTY", "POLYGON EMPTY",
                "POINT ZM (1 2 3 4)", "SRID=4269;LINESTRING M (-71 42 1,-70 43 2)",
                "MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((-179 -89,179 -89,179 89,-179 -89)))"),
                List.of("ST_Segmentize('LINESTRING(0 0,10 0)'::geography, 50)"));
        List<Object[]> plain = check("geography", all);
        assertDecodedAreEwkb(plain, all, v -> "(" + v + ")::geography::geometry");
    }

    /**
     * The decoded plain values (each equal to its row's {@code v::text}, {@link #check}) are, as a whole, the
     * values' EWKB as {@code ST_AsEWKB} writes it: {@code upper(encode(ST_AsEWKB(v), 'hex'))}, geometry_out's hex
     * digits being upper case. (Not through the mirror table of {@link #check}: arrays of text print with ',', those
     * of geometry with ':'.)
     */
    private static void assertDecodedAreEwkb(List<Object[]> plain, List<String> literals, UnaryOperator<String> asGeometry)
            throws SQLException {
        List<String> ewkb = new ArrayList<>();
        try (PgOracle pg = new PgOracle()) {
            for (String lit : literals) {
                ewkb.add(pg.query("SELECT upper(encode(ST_AsEWKB(" + asGeometry.apply(lit) + "), 'hex'))"));
            }
        }
        List<String> decoded = new ArrayList<>();
        for (Object[] p : plain) {
            decoded.add(assertInstanceOf(String.class, p[0]));
        }
        assertEquals(literals.size(), decoded.size(), "plain values decoded");
        decoded.sort(null);
        ewkb.sort(null);
        assertEquals(ewkb, decoded);
    }

    @Test
    void tsquery() throws SQLException {
        check("tsquery", List.of("''", "'a'", "'a & b'", "'a | b'", "'!a'", "'!!a'", "'a <-> b'", "'a <3> b'",
                "'a <0> b'", "'a <16384> b'", "'!(a & b)'", "'(a | b) & c'", "'a | b & c'", "'a & b | c & d'",
                "'(a | b) & (c | d)'", "'(a | b) <-> c'", "'a <-> (b <-> c)'", "'(a <-> b) <2> c'", "'!a <-> b'",
                "'!(a <-> b)'", "'a & !(b | c)'", "'!(a | b) <-> !c'", "'(a & b) <-> (c | !d)'",
                "'a:*'", "'a:AB'", "'a:*ABCD'", "'a:D'", "'a:B* & b:ca'",
                "'''it''''s'' & ''back\\\\slash'' | ''two words'':*A'", "'ünïcödé & 日本:*'",
                "to_tsquery('english', 'The & quick <-> foxes:*')",
                "phraseto_tsquery('english', 'the quick brown fox jumped')",
                "websearch_to_tsquery('english', '\"quick fox\" -dog or cat')",
                "(SELECT string_agg('w' || i, ' & ')::tsquery FROM generate_series(1, 100) i)",
                // big: the arrays and composites holding it are compressed or go to TOAST (tsquery itself is plain)
                "(SELECT string_agg(md5(i::text) || CASE i % 4 WHEN 0 THEN ':*' WHEN 1 THEN ':A' ELSE '' END,"
                        + " CASE i % 3 WHEN 0 THEN ' | ' WHEN 1 THEN ' <-> ' ELSE ' & !' END)::tsquery"
                        + " FROM generate_series(1, 50) i)"));
    }

    @Test
    void regTypes() throws SQLException {
        // printed by name through the catalog at read time, so decoded to the oid: the oracle is v::oid
        UnaryOperator<String> oid = v -> v + "::oid";
        List<String> common = List.of("0", "4294967295", "1");
        check("regclass", concat(List.of("'pg_class'", "'pg_catalog.pg_type'", "'information_schema.tables'"),
                common), "oid", oid);
        check("regtype", concat(List.of("'int4'", "'timestamp with time zone'", "'text[]'"), common), "oid", oid);
        check("regproc", concat(List.of("'now'", "'int4pl'"), common), "oid", oid);
        check("regprocedure", concat(List.of("'sum(int4)'", "'pg_catalog.abs(numeric)'"), common), "oid", oid);
        check("regoper", concat(List.of("'|/'", "'||/'"), common), "oid", oid);
        check("regoperator", concat(List.of("'+(int4,int4)'", "'-(NONE,int8)'"), common), "oid", oid);
        check("regconfig", concat(List.of("'english'", "'simple'"), common), "oid", oid);
        check("regdictionary", concat(List.of("'english_stem'", "'simple'"), common), "oid", oid);
        check("regnamespace", concat(List.of("'pg_catalog'", "'public'"), common), "oid", oid);
        check("regrole", concat(List.of("'pg_monitor'", "current_user"), common), "oid", oid);
        check("regcollation", concat(List.of("'\"C\"'", "'pg_catalog.\"POSIX\"'"), common), "oid", oid);
        check("regclass[]", List.of("'{pg_class,NULL,pg_type}'", "'{}'", "'[0:1]={0,1}'"), "oid[]", v -> v + "::oid[]");
    }

    @Test
    void aclitem() throws SQLException {
        String a = PgOracle.PREFIX + "role_a";
        String q = "ws tsq \"q\" " + ProcessHandle.current().pid(); // a name aclitemout quotes
        String qq = "\"" + q.replace("\"", "\"\"") + "\"";
        try (PgOracle pg = new PgOracle()) {
            pg.exec("DROP ROLE IF EXISTS " + a, "DROP ROLE IF EXISTS " + qq, "CREATE ROLE " + a, "CREATE ROLE " + qq);
            try {
                // the oracle: PostgreSQL's text with each role name replaced by its oid (a name that is no role,
                // such as the number aclitemout prints for a dropped one, stays as it is)
                String f = pg.name("acl_oids", "FUNCTION");
                pg.exec("CREATE FUNCTION " + f + "(a aclitem) RETURNS text LANGUAGE sql STABLE AS $$"
                        + " SELECT string_agg(CASE WHEN k = 2 THEN p ELSE coalesce((SELECT r.oid::text FROM pg_roles r"
                        + " WHERE r.rolname = CASE WHEN p LIKE '\"%' THEN replace(substr(p, 2, length(p) - 2), '\"\"', '\"')"
                        + " ELSE p END), p) END, CASE k WHEN 1 THEN '' WHEN 2 THEN '=' ELSE '/' END ORDER BY k)"
                        + " FROM unnest(regexp_match(a::text, '^((?:[^\"=]|\"(?:[^\"]|\"\")*\")*)=([^/]*)/(.*)$'))"
                        + " WITH ORDINALITY u(p, k) $$");
                String sq = qq.replace("'", "''");
                String granted = pg.name("granted", "TABLE");
                pg.exec("CREATE TABLE " + granted + " (x int)", "GRANT SELECT, UPDATE ON " + granted + " TO " + a
                        + " WITH GRANT OPTION", "GRANT ALL ON " + granted + " TO PUBLIC", "GRANT INSERT ON " + granted
                        + " TO " + qq);
                // every privilege bit: SET (s) and ALTER SYSTEM (A) arrived in 15 (14's ACL_ALL_RIGHTS_STR, acl.h,
                // is "arwdDxtXUCTc")
                String all = serverMajor() >= 15 ? "arwdDxtXUCTcsA" : "arwdDxtXUCTc";
                check("aclitem", List.of("'=r/" + a + "'", "'" + a + "=" + all + "/" + a + "'",
                        "'" + a + "=" + all.replaceAll("(.)", "$1*") + "/" + sq + "'", "'" + sq + "=/" + a + "'",
                        "'=UC*/' || quote_ident((SELECT rolname FROM pg_roles WHERE oid = 10))",
                        "makeaclitem(4000000000, 10, 'SELECT', true)", "makeaclitem(0, 4000000001, 'USAGE', false)",
                        "'" + sq + "=X*/" + sq + "'"), "text", v -> f + "(" + v + ")");
                check("aclitem[]", List.of("(SELECT relacl FROM pg_class WHERE oid = 'pg_class'::regclass)",
                        "(SELECT relacl FROM pg_class WHERE oid = '" + granted + "'::regclass)", "'{}'",
                        "ARRAY['=r/" + a + "', NULL]::aclitem[]"), "text[]",
                        v -> "coalesce((SELECT array_agg(" + f + "(x) ORDER BY k) FROM unnest(" + v
                                + ") WITH ORDINALITY u(x, k)), '{}')");
            } finally {
                pg.exec("DROP OWNED BY " + a + ", " + qq, "DROP ROLE " + a, "DROP ROLE " + qq);
            }
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    @Test
    void ranges() throws SQLException {
        check("int4range", quoted("empty", "[1,2)", "(,5]", "[3,)", "(,)", "[-2147483648,2147483647)", "(1,2]"));
        check("int8range", quoted("[0,9223372036854775807)", "(,-9223372036854775807]", "empty"));
        check("numrange", quoted("[0.5,1.25]", "(,1e40)", "[-1.000,NaN]", "empty", "[3,3]",
                "[" + "9".repeat(1000) + ",)"));
        check("daterange", quoted("[2000-01-01,2000-02-01)", "[-infinity,infinity]", "(,2024-02-29]", "empty"));
        check("tsrange", quoted("[2000-01-01 00:00:00,2000-01-01 12:34:56.789)", "(,infinity)", "[1999-12-31,)"));
        check("tstzrange", quoted("[2000-01-01 00:00:00+00,2000-01-01 12:34:56.789+02)", "(-infinity,)", "empty"));
    }

    @Test
    void multiranges() throws SQLException {
        // more than four ranges: every fourth item is an offset, the others lengths (multirangetypes.c)
        String many = IntStream.range(0, 9).mapToObj(i -> "[" + (i * 10) + "," + (i * 10 + 3) + ")")
                .collect(Collectors.joining(","));
        check("int4multirange", quoted("{}", "{[1,3), [7,9)}", "{(,5], [7,)}", "{(,)}", "{empty}", "{[1,2), empty}",
                "{" + many + "}", "{[-2147483648,2147483647)}"));
        check("int4multirange", List.of(
                // big ones go to TOAST (compressed, or out of line)
                "(SELECT range_agg(int4range(i * 3, i * 3 + 1)) FROM generate_series(1, 3000) i)",
                "(SELECT range_agg(int4range(i * i, i * i + i)) FROM generate_series(1, 5000) i)"));
        check("int8multirange", quoted("{}", "{[0,9223372036854775807)}", "{(,-9223372036854775807], [0,1), [5,)}"));
        check("nummultirange", List.of("'{}'", "'{[0.5,1.25], (3,1e40)}'", "'{(,-1.000], [3,3], [7,NaN]}'",
                "'{[" + "9".repeat(1000) + ",)}'",
                "(SELECT range_agg(numrange(i * 1.5, i * 1.5 + 1 / i::numeric)) FROM generate_series(1, 2000) i)"));
        check("datemultirange", quoted("{}", "{[2000-01-01,2000-02-01), [2000-03-01,infinity]}",
                "{[-infinity,2000-01-01), (2024-02-28,2024-02-29]}", "{(,)}"));
        check("tsmultirange", quoted("{}", "{[2000-01-01 00:00:00,2000-01-01 12:34:56.789), (2001-01-01,infinity)}",
                "{(,1999-12-31 23:59:59.999999], [2000-01-01,)}"));
        check("tstzmultirange", List.of("'{}'",
                "'{[2000-01-01 00:00:00+00,2000-01-01 12:34:56.789+02), (-infinity,1990-01-01]}'",
                "(SELECT range_agg(tstzrange(t, t + interval '1 hour')) FROM generate_series("
                        + "'2000-01-01 00:00:00+00'::timestamptz, '2000-03-01', interval '3 hours') t)"));
    }

    @Test
    void rangesOfOnesOwn() throws SQLException {
        try (PgOracle pg = new PgOracle()) {
            String fr = pg.name("fr", "TYPE");
            String tr = pg.name("tr", "TYPE");
            String ir = pg.name("ir", "TYPE");
            String er = pg.name("er", "TYPE");
            String e = pg.name("e", "TYPE");
            // a multirange goes with its range (DROP TYPE of the multirange itself is refused)
            String fm = fr + "_m";
            String tm = tr + "_m";
            String im = ir + "_m";
            String em = er + "_m";
            pg.exec("CREATE TYPE " + fr + " AS RANGE (subtype = float8, multirange_type_name = " + fm + ")",
                    "CREATE TYPE " + tr + " AS RANGE (subtype = text, collation = \"C\", multirange_type_name = "
                            + tm + ")",
                    "CREATE TYPE " + ir + " AS RANGE (subtype = interval, multirange_type_name = " + im + ")",
                    "CREATE TYPE " + e + " AS ENUM ('sad', 'ok ok', 'happy')",
                    "CREATE TYPE " + er + " AS RANGE (subtype = " + e + ", multirange_type_name = " + em + ")");
            check(fr, quoted("empty", "[1.5,2.5)", "(,1e-300]", "[-Infinity,Infinity]", "[0.1,0.30000000000000004]",
                    "(1,NaN]", "(,)"));
            // bounds that range_out quotes: empty, spaces, brackets, commas, quotes, backslashes
            check(tr, quoted("empty", "[a,b)", "[\"\",z]", "[\"a b\",\"c,d\")", "[\"q\"\"u\",\"x\\\\y\"]",
                    "(\"(p)\",\"[q]\"]", "[,\"\t\"]", "[\"ü\",)"));
            check(ir, quoted("[1 day,2 days)", "(,-00:00:01]", "empty"));
            check(er, quoted("[sad,\"ok ok\"]", "(\"ok ok\",)", "empty"));
            String manyFloats = "(SELECT range_agg(" + fr + "(i, i + 0.5)) FROM generate_series(1, 3000) i)";
            check(fm, List.of("'{}'", "'{[1.5,2), [3,)}'", "'{(,-1e300], [0.1,0.2], [1,Infinity]}'", manyFloats));
            check(tm, quoted("{}", "{[a,b), [\"c d\",\"e,f\"], (\"q\"\"\",)}", "{(,\"\"], [x,y]}"));
            check(tm, List.of("(SELECT range_agg(" + tr + "('k' || lpad(i::text, 5, '0'), 'k' || lpad(i::text, 5, '0')"
                    + " || ' x')) FROM generate_series(1, 2000) i)"));
            check(im, quoted("{}", "{[1 day,2 days), [1 mon,)}"));
            check(em, quoted("{}", "{[sad,sad], [happy,)}"));
        }
    }

    @Test
    void vectorsAndSnapshots() throws SQLException {
        check("int2vector", quoted("", "1", "1 2 3", "-32768 32767 0"));
        check("oidvector", quoted("", "23", "23 25 4294967295 0"));
        check("pg_snapshot", quoted("10:20:", "10:20:10,15,19", "4294967299:4294967310:4294967300,4294967305"));
        check("txid_snapshot", quoted("10:20:", "10:20:10,15,19"));
    }

    @Test
    void enums() throws SQLException {
        try (PgOracle pg = new PgOracle()) {
            String e = pg.name("e", "TYPE");
            pg.exec("CREATE TYPE " + e + " AS ENUM ('sad', 'ok', 'happy', 'with space', 'NULL', 'q\"uote')",
                    "ALTER TYPE " + e + " ADD VALUE 'first' BEFORE 'sad'");
            check(e, quoted("sad", "ok", "happy", "with space", "NULL", "q\"uote", "first"),
                    (v, t) -> assertEquals(t, v));
        }
    }

    @Test
    void composites() throws SQLException {
        try (PgOracle pg = new PgOracle()) {
            String inner = pg.name("ci", "TYPE");
            String outer = pg.name("co", "TYPE");
            String dropped = pg.name("cd", "TYPE");
            pg.exec("CREATE TYPE " + inner + " AS (a int8, b text, c numeric)",
                    "CREATE TYPE " + outer + " AS (n name, i " + inner + ", arr int4[], t timetz, j jsonb)",
                    "CREATE TYPE " + dropped + " AS (a int2, b text, c float8, d bpchar(3))",
                    "ALTER TYPE " + dropped + " DROP ATTRIBUTE b");
            check(inner, List.of("ROW(1, 'x', 1.5)", "ROW(NULL, NULL, NULL)", "ROW(-1, '', 'NaN')",
                    "ROW(2, 'a \"b\" \\c (d), e', -0.001)"), (v, t) -> assertInstanceOf(PgRecord.class, v));
            check(outer, List.of("ROW('nm', ROW(1, 'x y', 2)::" + inner + ", '{1,NULL,3}', '12:00+01', '{\"a\": [1]}')",
                    "ROW(NULL, NULL, '{}', NULL, NULL)", "ROW('', ROW(NULL, '', NULL)::" + inner
                            + ", '[0:1]={5,6}', '00:00-00:00:30', '\"s\"')"));
            check(dropped, List.of("ROW(1, 2.5, 'ab')", "ROW(NULL, NULL, NULL)", "ROW(-32768, '-Infinity', '')"));
        }
    }

    @Test
    void compositeWithAttributeAddedLater() throws SQLException {
        try (PgOracle pg = new PgOracle()) {
            String ct = pg.name("ca", "TYPE");
            String t = pg.name("ta", "TABLE");
            pg.exec("CREATE TYPE " + ct + " AS (a int4, b text)",
                    "CREATE TABLE " + t + " (id int4, c " + ct + ", ca " + ct + "[])",
                    "INSERT INTO " + t + " VALUES (1, ROW(1, 'old'), ARRAY[ROW(2, 'x')::" + ct + "])",
                    "ALTER TYPE " + ct + " ADD ATTRIBUTE z float8, ADD ATTRIBUTE y text",
                    "INSERT INTO " + t + " VALUES (2, ROW(3, 'new', 1.5, 'y'), ARRAY[ROW(4, NULL, NULL, 'q')::"
                            + ct + "])");
            MapTypeCatalog catalog = TypeCatalogLoader.load(pg.c);
            ValueDecoder dec = new ValueDecoder(catalog);
            TextValues textValues = new TextValues(catalog);
            List<PgOracle.Col> cols = pg.columns(t);
            int n = 0;
            for (PgOracle.Row row : pg.rows(t, cols)) {
                for (PgOracle.Col col : cols) {
                    byte[] raw = row.raw()[col.attnum()];
                    Object v = dec.decode(col.typeOid(), col.typmod(), raw, 0, raw.length);
                    assertEquals(row.text()[col.attnum()], dec.toText(col.typeOid(), col.typmod(), v));
                    n++;
                }
            }
            COMPARED.addAndGet(n);
            assertEquals(6, n);
        }
    }

    @Test
    void arrays() throws SQLException {
        check("int4[]", List.of("'{}'", "'[0:1]={1,2}'", "'{{1,2},{3,4}}'", "'{{{1},{2}},{{3},{NULL}}}'",
                "'[-5:-4][10:12]={{1,2,3},{4,5,6}}'", "'{NULL}'", "'{1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,9}'",
                "array_fill(7, ARRAY[2,2,2,2,2,2])"), (v, t) -> assertInstanceOf(PgArray.class, v));
        check("text[]", List.of("'{}'", "'{\"\",NULL,\"NULL\",\"null\",\"a b\",\"q\\\"\",\"b\\\\s\",\"{x}\",\"c,d\"}'",
                "ARRAY[E'tab\\t', E'nl\\n', 'ü', ' ', 'nullx']", "'[2:3]={x,y}'"));
        check("float8[]", List.of("'{1.5,NaN,-Infinity,1e-300}'", "'{{0.1},{-0}}'"));
        check("numeric[]", List.of("'{1.50,NaN,-1e-30}'"));
        check("bpchar(3)[]", List.of("'{a,NULL,abc}'"));
        check("timestamptz[]", List.of("'{infinity,\"2000-01-01 00:00:00+00\"}'"));
        check("interval[]", List.of("'{\"1 day\",\"-00:00:01\"}'"));
        check("jsonb[]", List.of("ARRAY['{\"a\": 1}'::jsonb, 'null', '\"s\"']"));
        check("name[]", List.of("'{a,bb,ccc}'"));
        check("bool[]", List.of("'{t,f,NULL}'"));
        check("uuid[]", List.of("'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'"));
        try (PgOracle pg = new PgOracle()) {
            String d = pg.name("da", "DOMAIN");
            pg.exec("CREATE DOMAIN " + d + " AS int8[] CHECK (cardinality(VALUE) < 10)");
            check(d, List.of("'{1,2,3}'", "'{}'", "'[3:3]={-1}'"));
        }
    }

    @Test
    void domainOverDomain() throws SQLException {
        try (PgOracle pg = new PgOracle()) {
            String d1 = pg.name("dd", "DOMAIN");
            String d2 = pg.name("dd", "DOMAIN");
            pg.exec("CREATE DOMAIN " + d1 + " AS numeric(10,3) CHECK (VALUE > 0)",
                    "CREATE DOMAIN " + d2 + " AS " + d1 + " CHECK (VALUE < 1000)");
            check(d2, quoted("1", "999.999", "0.001"));
        }
    }
}
