package io.walshadow.clickhouse;

import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeCatalog;
import io.walshadow.types.PgArray;
import io.walshadow.types.PgDate;
import io.walshadow.types.PgHstore;
import io.walshadow.types.PgJsonb;
import io.walshadow.types.PgNumeric;
import io.walshadow.types.PgTimestamp;
import io.walshadow.types.ValueDecoder;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.UUID;

/**
 * Encodes the decoder's Java values (see {@code io.walshadow.types}) of one PostgreSQL type into one ClickHouse
 * column type, as RowBinary and as a SQL literal (for {@code DEFAULT}). The column type is what {@link TypeMapping}
 * chose; a value it cannot hold exactly is a {@link ValueConversionException}, never a silent substitute.
 *
 * <p>String columns carry PostgreSQL's text output ({@link ValueDecoder#toText}), except bytea (raw bytes).
 * ClickHouse 18.16 limits: {@code Date} 1970-01-01 … 2105-12-31, {@code DateTime} up to 2105-12-31 23:59:59 UTC
 * (it wraps larger values silently, so they are refused here); timestamps lose their sub-second part on
 * {@code DateTime} (the documented loss); {@code DateTime64(6)} keeps microseconds, 1900 … 2299.
 */
public final class ColumnCodec {
    /** 2105-12-31, the last day ClickHouse 18.16's date tables cover. */
    static final long MAX_DATE_DAY = LocalDate.of(2105, 12, 31).toEpochDay();
    static final long MAX_DATETIME_SECOND = LocalDate.of(2106, 1, 1).toEpochDay() * 86_400 - 1;
    static final long MIN_DATETIME64_MICROS = LocalDate.of(1900, 1, 1).toEpochDay() * 86_400_000_000L;
    static final long MAX_DATETIME64_MICROS = LocalDate.of(2300, 1, 1).toEpochDay() * 86_400_000_000L - 1;
    private static final DateTimeFormatter DATETIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    private static final DateTimeFormatter DATETIME64 = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

    private interface Writer {
        void write(RowBinaryBuffer out, Object v);
    }

    private interface Literal {
        String of(Object v);
    }

    private final String chType;
    private final boolean nullable;
    private final Writer writer;
    private final Literal literal;
    /** The base type's zero value, for NOT NULL columns a row does not carry (a tombstone's non-key columns). */
    private final Object zero;

    private ColumnCodec(String chType, boolean nullable, Writer writer, Literal literal, Object zero) {
        this.chType = chType;
        this.nullable = nullable;
        this.writer = writer;
        this.literal = literal;
        this.zero = zero;
    }

    public String chType() {
        return chType;
    }

    public boolean nullable() {
        return nullable;
    }

    /**
     * The codec for values of PostgreSQL type {@code typeOid} (domains resolved through {@code types}) in a column
     * of ClickHouse type {@code chType} (as {@link TypeMapping#columnType} gives it).
     */
    public static ColumnCodec of(int typeOid, int typmod, String chType, TypeCatalog types, ValueDecoder text) {
        boolean nullable = chType.startsWith("Nullable(");
        String base = nullable ? inner(chType, "Nullable(") : chType;
        int oid = baseOid(typeOid, types);
        if (base.startsWith("Array(")) {
            PgType t = types.type(oid);
            if (t == null || t.elemOid() == 0) {
                throw new IllegalArgumentException("Array column for a non-array type oid " + typeOid);
            }
            ColumnCodec element = of(t.elemOid(), typmod, inner(base, "Array("), types, text);
            return new ColumnCodec(chType, false, (out, v) -> writeArray(out, v, element),
                    v -> arrayLiteral(v, element), new PgArray(t.elemOid(), new int[0], new int[0], new Object[0]));
        }
        if (base.equals(TypeMapping.HSTORE_MAP)) {
            // hstore_out's text (decoded, or the snapshot's) as Array(Tuple(String, Nullable(String))) on the wire
            return new ColumnCodec(chType, false, ColumnCodec::writeHstore, ColumnCodec::hstoreLiteral,
                    new PgHstore(java.util.List.of(), java.util.List.of()));
        }
        ColumnCodec c = scalar(base, oid, typmod, text);
        return nullable ? new ColumnCodec(chType, true, c.writer, c.literal, c.zero) : c;
    }

    /** Writes a value (null only for a Nullable column). */
    public void write(RowBinaryBuffer out, Object v) {
        if (nullable) {
            if (v == null) {
                out.u8(1);
                return;
            }
            out.u8(0);
        } else if (v == null) {
            if (zero instanceof PgArray || zero instanceof PgHstore) {
                // ClickHouse has no Nullable(Array) nor Nullable(Map): a NULL array or hstore is written empty
                writer.write(out, zero);
                return;
            }
            throw new ValueConversionException("NULL for the non-Nullable " + chType + " column");
        }
        writer.write(out, v);
    }

    /** Writes what a row without this column holds: NULL, or the type's zero value. */
    public void writeAbsent(RowBinaryBuffer out) {
        write(out, nullable ? null : zero);
    }

    /** The value as a ClickHouse SQL literal ({@code NULL} for null). */
    public String literal(Object v) {
        return v == null ? "NULL" : literal.of(v);
    }

    private static String inner(String t, String prefix) {
        return t.substring(prefix.length(), t.length() - 1);
    }

    private static int baseOid(int oid, TypeCatalog types) {
        for (int depth = 0; depth < 32; depth++) {
            PgType t = types == null ? null : types.type(oid);
            if (t == null || t.typtype() != 'd') {
                return oid;
            }
            oid = t.baseTypeOid();
        }
        throw new IllegalArgumentException("domain chain too deep at type oid " + oid);
    }

    private static ColumnCodec scalar(String base, int oid, int typmod, ValueDecoder text) {
        switch (base) {
            case "UInt8":
                return new ColumnCodec(base, false, (out, v) -> out.u8(bool(v) ? 1 : 0), v -> bool(v) ? "1" : "0", false);
            case "Int16":
                return new ColumnCodec(base, false, (out, v) -> out.i16((int) integral(v, Short.MIN_VALUE,
                        Short.MAX_VALUE)), v -> Long.toString(integral(v, Short.MIN_VALUE, Short.MAX_VALUE)), (short) 0);
            case "Int32":
                return new ColumnCodec(base, false, (out, v) -> out.i32((int) integral(v, Integer.MIN_VALUE,
                        Integer.MAX_VALUE)), v -> Long.toString(integral(v, Integer.MIN_VALUE, Integer.MAX_VALUE)), 0);
            case "Int64":
                return new ColumnCodec(base, false, (out, v) -> out.i64(integral(v, Long.MIN_VALUE, Long.MAX_VALUE)),
                        v -> Long.toString(integral(v, Long.MIN_VALUE, Long.MAX_VALUE)), 0L);
            case "UInt32":
                return new ColumnCodec(base, false, (out, v) -> out.i32((int) integral(v, 0, 0xFFFF_FFFFL)),
                        v -> Long.toString(integral(v, 0, 0xFFFF_FFFFL)), 0L);
            case "Float32":
                return new ColumnCodec(base, false, (out, v) -> out.i32(Float.floatToRawIntBits(number(v).floatValue())),
                        v -> floatLiteral(number(v).doubleValue(), "Float32"), 0f);
            case "Float64":
                return new ColumnCodec(base, false,
                        (out, v) -> out.i64(Double.doubleToRawLongBits(number(v).doubleValue())),
                        v -> floatLiteral(number(v).doubleValue(), "Float64"), 0d);
            case "UUID":
                return new ColumnCodec(base, false, (out, v) -> {
                    UUID u = cast(v, UUID.class);
                    out.i64(u.getMostSignificantBits());
                    out.i64(u.getLeastSignificantBits());
                }, v -> "toUUID('" + cast(v, UUID.class) + "')", new UUID(0, 0));
            case "Date":
                return new ColumnCodec(base, false, (out, v) -> out.i16((int) day(v)),
                        v -> "toDate('" + LocalDate.ofEpochDay(day(v)) + "')", new PgDate(-10957));
            case "String":
                return new ColumnCodec(base, false, (out, v) -> {
                    if (v instanceof byte[] b) {
                        out.bytes(b);
                    } else {
                        out.string(text(v, oid, typmod, text));
                    }
                }, v -> v instanceof byte[] b ? "unhex('" + HexFormat.of().formatHex(b) + "')"
                        : quote(text(v, oid, typmod, text)), "");
            default:
                break;
        }
        if (base.startsWith("Decimal(")) {
            String[] ps = inner(base, "Decimal(").split(",");
            int p = Integer.parseInt(ps[0].trim());
            int s = Integer.parseInt(ps[1].trim());
            return new ColumnCodec(base, false, (out, v) -> {
                java.math.BigInteger unscaled = decimal(v, p, s).unscaledValue();
                if (p <= 9) {
                    out.i32(unscaled.intValue());
                } else if (p <= 18) {
                    out.i64(unscaled.longValue());
                } else {
                    out.i128(unscaled);
                }
            }, v -> "CAST('" + decimal(v, p, s).toPlainString() + "' AS " + base + ")", PgNumeric.of(BigDecimal.ZERO));
        }
        if (base.startsWith("DateTime64(")) {
            return new ColumnCodec(base, false, (out, v) -> out.i64(micros64(v)), v -> "toDateTime64('"
                    + LocalDateTime.ofEpochSecond(Math.floorDiv(micros64(v), 1_000_000L),
                            (int) Math.floorMod(micros64(v), 1_000_000L) * 1000, ZoneOffset.UTC).format(DATETIME64)
                    + "', 6, 'UTC')", new PgTimestamp(-946_684_800_000_000L, true));
        }
        if (base.startsWith("DateTime")) {
            return new ColumnCodec(base, false, (out, v) -> out.i32((int) second(v)), v -> "toDateTime('"
                    + LocalDateTime.ofEpochSecond(second(v), 0, ZoneOffset.UTC).format(DATETIME) + "', 'UTC')",
                    new PgTimestamp(-946_684_800_000_000L, true));
        }
        throw new IllegalArgumentException("no encoder for ClickHouse type " + base);
    }

    // ---- value conversions (each refuses what the column cannot hold exactly)

    private static <T> T cast(Object v, Class<T> c) {
        if (!c.isInstance(v)) {
            throw new ValueConversionException("a " + v.getClass().getSimpleName() + " value (" + v + ") where a "
                    + c.getSimpleName() + " is expected");
        }
        return c.cast(v);
    }

    private static boolean bool(Object v) {
        return cast(v, Boolean.class);
    }

    private static Number number(Object v) {
        if (v instanceof PgNumeric n) {
            if (!n.isFinite()) {
                return n.kind() == PgNumeric.Kind.NAN ? Double.NaN
                        : n.kind() == PgNumeric.Kind.POSITIVE_INFINITY ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
            }
            return n.value();
        }
        return cast(v, Number.class);
    }

    private static long integral(Object v, long min, long max) {
        Number n = number(v);
        long x;
        if (n instanceof BigDecimal d) {
            try {
                x = d.longValueExact();
            } catch (ArithmeticException e) {
                throw new ValueConversionException(d.toPlainString() + " is not an integer in range");
            }
        } else if (n instanceof Double || n instanceof Float) {
            double d = n.doubleValue();
            if (d != Math.rint(d) || Double.isInfinite(d)) {
                throw new ValueConversionException(d + " is not an integer");
            }
            x = (long) d;
        } else {
            x = n.longValue();
        }
        if (x < min || x > max) {
            throw new ValueConversionException(x + " is outside " + min + " .. " + max);
        }
        return x;
    }

    private static BigDecimal decimal(Object v, int p, int s) {
        BigDecimal d;
        if (v instanceof PgNumeric n) {
            if (!n.isFinite()) {
                throw new ValueConversionException("numeric " + n + " has no Decimal(" + p + ", " + s + ") form");
            }
            d = n.value();
        } else if (v instanceof Long || v instanceof Integer || v instanceof Short) {
            d = BigDecimal.valueOf(((Number) v).longValue());
        } else {
            throw new ValueConversionException("a " + v.getClass().getSimpleName() + " where a numeric is expected");
        }
        BigDecimal scaled;
        try {
            scaled = d.setScale(s, RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new ValueConversionException(d.toPlainString() + " has more than " + s + " decimal places");
        }
        if (scaled.precision() - scaled.scale() > p - s && scaled.signum() != 0) {
            throw new ValueConversionException(d.toPlainString() + " does not fit Decimal(" + p + ", " + s + ")");
        }
        return scaled;
    }

    private static String floatLiteral(double d, String type) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        return "to" + type + "('" + d + "')";
    }

    private static long day(Object v) {
        PgDate d = cast(v, PgDate.class);
        if (!d.isFinite()) {
            throw new ValueConversionException("date " + d + " has no Date form");
        }
        long day = d.epochDay();
        if (day < 0 || day > MAX_DATE_DAY) {
            throw new ValueConversionException("date " + d + " is outside 1970-01-01 .. 2105-12-31 (ClickHouse Date)");
        }
        return day;
    }

    private static long micros(Object v) {
        PgTimestamp t = cast(v, PgTimestamp.class);
        if (!t.isFinite()) {
            throw new ValueConversionException("timestamp " + t + " has no DateTime form");
        }
        try {
            return t.epochMicros();
        } catch (ArithmeticException e) {
            throw new ValueConversionException("timestamp " + t + " is out of range");
        }
    }

    private static long second(Object v) {
        long s = Math.floorDiv(micros(v), 1_000_000L); // sub-second part dropped: DateTime has whole seconds
        if (s < 0 || s > MAX_DATETIME_SECOND) {
            throw new ValueConversionException("timestamp " + v + " is outside 1970-01-01 .. 2105-12-31 23:59:59 UTC"
                    + " (ClickHouse DateTime)");
        }
        return s;
    }

    private static long micros64(Object v) {
        long m = micros(v);
        if (m < MIN_DATETIME64_MICROS || m > MAX_DATETIME64_MICROS) {
            throw new ValueConversionException("timestamp " + v + " is outside 1900 .. 2299 (ClickHouse DateTime64)");
        }
        return m;
    }

    private static String text(Object v, int oid, int typmod, ValueDecoder text) {
        if (v instanceof String s) {
            return s;
        }
        if (v instanceof PgJsonb j) {
            return j.text();
        }
        if (v instanceof PgNumeric n) {
            return n.toString();
        }
        return text.toText(oid, typmod, v);
    }

    private static PgArray array(Object v) {
        PgArray a = cast(v, PgArray.class);
        if (a.ndim() > 1) {
            throw new ValueConversionException("a " + a.ndim() + "-dimensional array; Array columns hold one dimension");
        }
        return a;
    }

    private static void writeArray(RowBinaryBuffer out, Object v, ColumnCodec element) {
        Object[] e = array(v).elements();
        out.uvarint(e.length);
        for (Object x : e) {
            element.write(out, x);
        }
    }

    private static String arrayLiteral(Object v, ColumnCodec element) {
        StringBuilder sb = new StringBuilder("[");
        Object[] e = array(v).elements();
        for (int i = 0; i < e.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(element.literal(e[i]));
        }
        return sb.append(']').toString();
    }

    private static PgHstore hstore(Object v) {
        if (v instanceof PgHstore h) {
            return h;
        }
        try {
            return PgHstore.parseOutput(cast(v, String.class));
        } catch (IllegalArgumentException e) {
            throw new ValueConversionException("hstore: " + e.getMessage());
        }
    }

    private static void writeHstore(RowBinaryBuffer out, Object v) {
        PgHstore h = hstore(v);
        out.uvarint(h.keys().size());
        for (int i = 0; i < h.keys().size(); i++) {
            out.string(h.keys().get(i));
            String value = h.values().get(i);
            if (value == null) {
                out.u8(1);
            } else {
                out.u8(0);
                out.string(value);
            }
        }
    }

    private static String hstoreLiteral(Object v) {
        PgHstore h = hstore(v);
        StringBuilder sb = new StringBuilder("CAST(map(");
        for (int i = 0; i < h.keys().size(); i++) {
            String value = h.values().get(i);
            sb.append(i == 0 ? "" : ", ").append(quote(h.keys().get(i))).append(", ")
                    .append(value == null ? "NULL" : quote(value));
        }
        return sb.append("), '").append(TypeMapping.HSTORE_MAP).append("')").toString();
    }

    /** A ClickHouse string literal: backslash and quote escaped. */
    public static String quote(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

}
