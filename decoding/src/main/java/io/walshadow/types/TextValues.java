package io.walshadow.types;

import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeCatalog;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * PostgreSQL's text output of a value, turned into the Java value the heap decoder gives for the same datum (see
 * {@link ValueDecoder}) where the sink needs a typed value: booleans, integers, floats, numeric, uuid, date,
 * timestamps, bytea and one-dimensional arrays of those. Any other type stays its text, which is what the sink
 * writes for it anyway. The initial snapshot reads rows this way ({@code SELECT} output), so that its rows and the
 * WAL's rows of the same table encode identically.
 *
 * <p>The text must come from a session with {@code DateStyle = ISO}, {@code TimeZone = UTC},
 * {@code extra_float_digits = 1} and {@code bytea_output = hex} (what {@link #SESSION_SETTINGS} sets).
 */
public final class TextValues {
    /** The session settings the parsers assume. */
    public static final String SESSION_SETTINGS = "SET DateStyle = ISO; SET IntervalStyle = postgres;"
            + " SET TimeZone = 'UTC'; SET extra_float_digits = 1; SET bytea_output = hex";

    private final TypeCatalog types;

    public TextValues(TypeCatalog types) {
        this.types = types;
    }

    /** The value of a column of type {@code typeOid} whose text output is {@code text} (null for SQL NULL). */
    public Object parse(int typeOid, String text) {
        return parser(typeOid).parse(text);
    }

    /**
     * What to select for a column of type {@code typeOid} ({@code column}: its quoted name) so that its text is what
     * the heap decoder prints for the same datum: the column itself, except where a type decoded to something other
     * than its output function's text is in it. A reg* value is read as its oid; an aclitem has each role name
     * replaced by the role's oid; an isn value (contrib isn) has its hyphens taken out; an array or composite holding
     * them is rebuilt around its rewritten elements or attributes and read as text (array_out and record_out quote an
     * element by its text, whatever its type).
     */
    public String selectExpression(int typeOid, String column) {
        String e = rewrite(typeOid, column, 0);
        return e == null ? column : e;
    }

    /** SQL for {@code value}'s text as the heap decoder prints it, or null when the type's output function prints it. */
    private String rewrite(int typeOid, String value, int depth) {
        if (depth > 32) {
            throw new MalformedDatumException("type nesting too deep at type oid " + Integer.toUnsignedString(typeOid));
        }
        int oid = baseOid(typeOid);
        if (Oids.isReg(oid)) {
            return "(" + value + ")::pg_catalog.oid";
        }
        if (oid == Oids.ACLITEM) {
            return aclitemWithOids(value);
        }
        PgType t = types.type(oid);
        if (t == null) {
            return null;
        }
        if (t.typtype() == 'b' && "isn".equals(t.extension()) && ExtensionTypes.known(t.extension(), t.name())) {
            return IsnCodec.withoutHyphens(value); // the decoder prints the digits (IsnCodec)
        }
        if (t.typtype() == 'c') {
            List<io.walshadow.catalog.Column> attrs = types.compositeAttributes(t.relOid());
            if (attrs == null) {
                return null;
            }
            List<String> fields = new ArrayList<>();
            boolean rewritten = false;
            for (io.walshadow.catalog.Column a : attrs) {
                if (a.dropped()) {
                    continue; // record_out skips them too
                }
                String f = "(" + value + ").\"" + a.name().replace("\"", "\"\"") + "\"";
                String r = rewrite(a.typeOid(), f, depth + 1);
                rewritten |= r != null;
                fields.add(r == null ? f : r);
            }
            return !rewritten ? null : "CASE WHEN (" + value + ")::text IS NOT NULL THEN ROW(" + String.join(", ", fields)
                    + ")::text END";
        }
        if (t.typcategory() == 'A' && t.elemOid() != 0 && t.typlen() == -1) {
            if (Oids.isReg(baseOid(t.elemOid()))) {
                return "(" + value + ")::pg_catalog.oid[]"; // dimensions and bounds kept
            }
            String k = "ws_k" + depth;
            String r = rewrite(t.elemOid(), "(" + value + ")[" + k + "]", depth + 1);
            // element by element, NULLs kept; a multi-dimensional array as it is (refused like the WAL's)
            return r == null ? null : "CASE WHEN pg_catalog.array_ndims(" + value + ") > 1 THEN (" + value + ")::text"
                    + " WHEN (" + value + ") IS NOT NULL THEN coalesce((SELECT pg_catalog.array_agg(" + r + " ORDER BY "
                    + k + ") FROM pg_catalog.generate_subscripts(" + value + ", 1) " + k + "), '{}')::text END";
        }
        return null;
    }

    /**
     * aclitemout's text with each role name replaced by the role's oid, as the heap decoder prints it: the text
     * split into grantee, privileges and grantor (a name is double-quoted, with {@code ""} for a quote, when it
     * holds other than letters, digits and {@code _}); a grantee or grantor that is no role (empty for PUBLIC, or
     * the oid number aclitemout prints for a dropped role) stays as printed.
     */
    private static String aclitemWithOids(String value) {
        return "(SELECT pg_catalog.string_agg(CASE WHEN ws_a.k = 2 THEN ws_a.p ELSE coalesce((SELECT ws_r.oid::text"
                + " FROM pg_catalog.pg_roles ws_r WHERE ws_r.rolname = CASE WHEN ws_a.p LIKE '\"%'"
                + " THEN pg_catalog.replace(pg_catalog.substr(ws_a.p, 2, pg_catalog.length(ws_a.p) - 2), '\"\"', '\"')"
                + " ELSE ws_a.p END), ws_a.p) END, CASE ws_a.k WHEN 1 THEN '' WHEN 2 THEN '=' ELSE '/' END"
                + " ORDER BY ws_a.k) FROM pg_catalog.unnest(pg_catalog.regexp_match(" + value + "::text,"
                + " '^((?:[^\"=]|\"(?:[^\"]|\"\")*\")*)=([^/]*)/(.*)$')) WITH ORDINALITY ws_a(p, k))";
    }

    /** Parses the text of one type's values; resolved once per column (type lookups cost more than parsing). */
    @FunctionalInterface
    public interface Parser {
        Object parse(String text);
    }

    /** The parser of values of type {@code typeOid} (domains resolved to their base type). */
    public Parser parser(int typeOid) {
        int oid = baseOid(typeOid);
        Parser p;
        if (scalar(oid)) {
            p = text -> scalar(oid, text);
        } else {
            PgType t = types.type(oid);
            if (t != null && t.typcategory() == 'A' && t.elemOid() != 0 && t.typlen() == -1
                    && oid != Oids.INT2VECTOR && oid != Oids.OIDVECTOR) { // vectors print as text, not {..}
                int elem = baseOid(t.elemOid());
                char delim = delimiter(elem);
                p = text -> array(elem, delim, text);
            } else {
                return text -> text;
            }
        }
        return text -> {
            if (text == null) {
                return null;
            }
            try {
                return p.parse(text);
            } catch (RuntimeException e) {
                throw new MalformedDatumException("text " + abbreviate(text) + " of type oid "
                        + Integer.toUnsignedString(typeOid) + " does not parse: " + e.getMessage());
            }
        };
    }

    /** typdelim of the element type: box is the only built-in type with another than ','; PostGIS's use ':'. */
    private char delimiter(int elemOid) {
        if (elemOid == Oids.BOX) {
            return ';';
        }
        PgType t = types.type(elemOid);
        return t == null ? ',' : ExtensionTypes.typdelim(t.extension());
    }

    private int baseOid(int oid) {
        for (int depth = 0; depth < 32; depth++) {
            PgType t = types.type(oid);
            if (t == null || t.typtype() != 'd') {
                return oid;
            }
            oid = t.baseTypeOid();
        }
        throw new MalformedDatumException("domain chain too deep at type oid " + oid);
    }

    private static boolean scalar(int oid) {
        switch (oid) {
            case Oids.BOOL: case Oids.INT2: case Oids.INT4: case Oids.INT8: case Oids.OID:
            case Oids.FLOAT4: case Oids.FLOAT8: case Oids.NUMERIC: case Oids.UUID: case Oids.DATE:
            case Oids.TIMESTAMP: case Oids.TIMESTAMPTZ: case Oids.BYTEA:
                return true;
            default:
                return Oids.isReg(oid);
        }
    }

    static Object scalar(int oid, String s) {
        switch (oid) {
            case Oids.BOOL: return s.equals("t") || s.equals("true");
            case Oids.INT2: return Short.parseShort(s);
            case Oids.INT4: return Integer.parseInt(s);
            case Oids.INT8: return Long.parseLong(s);
            case Oids.OID: return Long.parseLong(s);
            case Oids.FLOAT4: return Float.parseFloat(s); // "Infinity", "-Infinity", "NaN" are Java's spelling too
            case Oids.FLOAT8: return Double.parseDouble(s);
            case Oids.NUMERIC: return numeric(s);
            case Oids.UUID: return UUID.fromString(s);
            case Oids.DATE: return date(s);
            case Oids.TIMESTAMP: return timestamp(s, false);
            case Oids.TIMESTAMPTZ: return timestamp(s, true);
            case Oids.BYTEA: return bytea(s);
            default: return Oids.isReg(oid) ? Long.parseLong(s) : s; // reg*: read as v::oid (selectExpression)
        }
    }

    private static PgNumeric numeric(String s) {
        // by the last character, not a switch on the string: that hashes every value's digits
        char last = s.isEmpty() ? 0 : s.charAt(s.length() - 1);
        if (last == 'N' && s.equals("NaN")) {
            return PgNumeric.NAN;
        } else if (last == 'y' && s.equals("Infinity")) {
            return PgNumeric.POSITIVE_INFINITY;
        } else if (last == 'y' && s.equals("-Infinity")) {
            return PgNumeric.NEGATIVE_INFINITY;
        }
        return PgNumeric.of(new BigDecimal(s));
    }

    private static byte[] bytea(String s) {
        if (!s.startsWith("\\x")) {
            throw new IllegalArgumentException("bytea not in hex output (bytea_output = hex)");
        }
        return HexFormat.of().parseHex(s, 2, s.length());
    }

    /** ISO date, {@code [-]infinity}, years past 9999 and a {@code " BC"} suffix included. */
    private static PgDate date(String s) {
        if (s.equals("infinity")) {
            return new PgDate(PgDate.NOEND);
        }
        if (s.equals("-infinity")) {
            return new PgDate(PgDate.NOBEGIN);
        }
        boolean bc = s.endsWith(" BC");
        String d = bc ? s.substring(0, s.length() - 3) : s;
        long epochDay = isoDay(d, bc);
        return new PgDate(Math.toIntExact(epochDay - DateTimeText.PG_EPOCH_DAY));
    }

    private static long isoDay(String d, boolean bc) {
        // month and day have two digits; the year four or more
        int m = d.length() - 3;
        int y = m - 3;
        if (y < 1 || d.charAt(m) != '-' || d.charAt(y) != '-') {
            throw new IllegalArgumentException("not an ISO date");
        }
        long year = Long.parseLong(d.substring(0, y));
        int month = Integer.parseInt(d.substring(y + 1, m));
        int day = Integer.parseInt(d.substring(m + 1));
        // 1 BC is ISO year 0
        return LocalDate.of(Math.toIntExact(bc ? 1 - year : year), month, day).toEpochDay();
    }

    /** {@code YYYY-MM-DD HH:MM:SS[.ffffff][+00][ BC]} in UTC, or {@code [-]infinity}. */
    private static PgTimestamp timestamp(String s, boolean tz) {
        if (s.equals("infinity")) {
            return new PgTimestamp(PgTimestamp.NOEND, tz);
        }
        if (s.equals("-infinity")) {
            return new PgTimestamp(PgTimestamp.NOBEGIN, tz);
        }
        long fast = fastTimestamp(s, tz);
        if (fast != Long.MIN_VALUE) {
            return new PgTimestamp(fast, tz);
        }
        boolean bc = s.endsWith(" BC");
        String t = bc ? s.substring(0, s.length() - 3) : s;
        if (tz) {
            if (!t.endsWith("+00")) {
                throw new IllegalArgumentException("timestamptz not in UTC (TimeZone = UTC)");
            }
            t = t.substring(0, t.length() - 3);
        }
        int sp = t.indexOf(' ');
        long day = isoDay(t.substring(0, sp), bc);
        String time = t.substring(sp + 1);
        long micros = Long.parseLong(time.substring(0, 2)) * 3_600_000_000L
                + Long.parseLong(time.substring(3, 5)) * 60_000_000L
                + Long.parseLong(time.substring(6, 8)) * 1_000_000L;
        if (time.length() > 8) {
            String frac = (time.substring(9) + "000000").substring(0, 6);
            micros += Long.parseLong(frac);
        }
        long pgMicros = (day - DateTimeText.PG_EPOCH_DAY) * DateTimeText.USECS_PER_DAY + micros;
        return new PgTimestamp(pgMicros, tz);
    }

    /**
     * The common form, {@code YYYY-MM-DD HH:MM:SS[.f{1,6}][+00]} with a four-digit year, without substrings; anything
     * else (more digits, BC, infinity) returns {@code Long.MIN_VALUE} for the general parser.
     */
    private static long fastTimestamp(String s, boolean tz) {
        int n = s.length() - (tz ? 3 : 0);
        if (n < 19 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != ' ' || s.charAt(13) != ':'
                || s.charAt(16) != ':' || (tz && !s.startsWith("+00", n))) {
            return Long.MIN_VALUE;
        }
        int y = digits(s, 0, 4);
        int mo = digits(s, 5, 7);
        int d = digits(s, 8, 10);
        int h = digits(s, 11, 13);
        int mi = digits(s, 14, 16);
        int sec = digits(s, 17, 19);
        long frac = 0;
        if (n > 19) {
            if (s.charAt(19) != '.' || n > 26) {
                return Long.MIN_VALUE;
            }
            int f = digits(s, 20, n);
            if (f < 0) {
                return Long.MIN_VALUE;
            }
            frac = f;
            for (int i = n; i < 26; i++) {
                frac *= 10;
            }
        }
        if ((y | mo | d | h | mi | sec) < 0) {
            return Long.MIN_VALUE;
        }
        long day = LocalDate.of(y, mo, d).toEpochDay() - DateTimeText.PG_EPOCH_DAY;
        return day * DateTimeText.USECS_PER_DAY + ((h * 60L + mi) * 60L + sec) * 1_000_000L + frac;
    }

    /** The decimal number in {@code s[from, to)}, or -1 if a character is not a digit. */
    private static int digits(String s, int from, int to) {
        int v = 0;
        for (int i = from; i < to; i++) {
            int c = s.charAt(i) - '0';
            if (c < 0 || c > 9) {
                return -1;
            }
            v = v * 10 + c;
        }
        return v;
    }

    /**
     * A one-dimensional array literal ({@code {a,"b c",NULL}}, optionally with bounds {@code [2:3]=}); elements
     * are parsed as {@code elemOid}. A multi-dimensional array keeps its shape (the sink refuses it, as for WAL rows).
     */
    private Object array(int elemOid, char delim, String s) {
        int i = 0;
        int lower = 1;
        if (s.startsWith("[")) {
            int eq = s.indexOf('=');
            String bounds = s.substring(0, eq);
            if (bounds.indexOf('[', 1) >= 0) {
                throw new IllegalArgumentException("multi-dimensional array bounds " + bounds);
            }
            lower = Integer.parseInt(bounds.substring(1, bounds.indexOf(':')));
            i = eq + 1;
        }
        if (s.charAt(i) != '{' || s.charAt(s.length() - 1) != '}') {
            throw new IllegalArgumentException("not an array literal");
        }
        if (s.charAt(i + 1) == '{') {
            throw new IllegalArgumentException("multi-dimensional arrays are not supported in Array columns");
        }
        boolean typed = scalar(elemOid);
        List<Object> out = new ArrayList<>();
        int p = i + 1;
        int end = s.length() - 1;
        if (p < end) {
            while (true) {
                String e;
                boolean quoted = false;
                if (s.charAt(p) == '"') {
                    // a substring unless a backslash escapes a char in it (then the pieces between escapes)
                    quoted = true;
                    int from = ++p;
                    StringBuilder sb = null;
                    for (char c; (c = s.charAt(p)) != '"'; p++) {
                        if (c == '\\') {
                            sb = (sb == null ? new StringBuilder() : sb).append(s, from, p);
                            from = ++p; // the escaped char starts the next piece, and never ends the element
                        }
                    }
                    e = sb == null ? s.substring(from, p) : sb.append(s, from, p).toString();
                    p++;
                } else {
                    int from = p;
                    while (p < end && s.charAt(p) != delim) {
                        p++;
                    }
                    e = s.substring(from, p);
                }
                out.add(!quoted && e.equals("NULL") ? null : typed ? scalar(elemOid, e) : e);
                if (p >= end) {
                    break;
                }
                if (s.charAt(p) != delim) {
                    throw new IllegalArgumentException("expected '" + delim + "' at " + p);
                }
                p++;
            }
        }
        Object[] elements = out.toArray();
        return elements.length == 0 ? new PgArray(elemOid, new int[0], new int[0], elements)
                : new PgArray(elemOid, new int[] {elements.length}, new int[] {lower}, elements);
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? "'" + s + "'" : "'" + s.substring(0, 61) + "...'";
    }
}
