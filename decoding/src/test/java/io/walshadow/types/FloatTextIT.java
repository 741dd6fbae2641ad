package io.walshadow.types;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** float4out/float8out: the format rules spelled out, then tens of thousands of values against PostgreSQL. */
class FloatTextIT {
    @Test
    void formatRules() {
        // fixed-point for decimal exponents -4..14 (float8) / -4..5 (float4), else d.ddde±XX
        assertEquals("100000", FloatText.float8(1e5));
        assertEquals("100000000000000", FloatText.float8(1e14));
        assertEquals("1e+15", FloatText.float8(1e15));
        assertEquals("1e+16", FloatText.float8(1e16));
        assertEquals("1e+20", FloatText.float8(1e20));
        assertEquals("1.2345678901234568e+17", FloatText.float8(123456789012345678d));
        assertEquals("0.0001", FloatText.float8(1e-4));
        assertEquals("1e-05", FloatText.float8(1e-5));
        assertEquals("1.5e-07", FloatText.float8(1.5e-7));
        assertEquals("1e-300", FloatText.float8(1e-300));
        assertEquals("5e-324", FloatText.float8(Double.MIN_VALUE));
        assertEquals("1.7976931348623157e+308", FloatText.float8(Double.MAX_VALUE));
        assertEquals("0.1", FloatText.float8(0.1));
        assertEquals("0.30000000000000004", FloatText.float8(0.1 + 0.2));
        assertEquals("-2.5", FloatText.float8(-2.5));
        assertEquals("0", FloatText.float8(0.0));
        assertEquals("-0", FloatText.float8(-0.0));
        assertEquals("NaN", FloatText.float8(Double.NaN));
        assertEquals("Infinity", FloatText.float8(Double.POSITIVE_INFINITY));
        assertEquals("-Infinity", FloatText.float8(Double.NEGATIVE_INFINITY));
        assertEquals("100000", FloatText.float4(1e5f));
        assertEquals("1e+06", FloatText.float4(1e6f));
        assertEquals("1.234567e+06", FloatText.float4(1234567f));
        assertEquals("1.6777216e+07", FloatText.float4(16777216f));
        assertEquals("0.1", FloatText.float4(0.1f));
        assertEquals("1e-05", FloatText.float4(1e-5f));
        assertEquals("1e-45", FloatText.float4(Float.MIN_VALUE));
        assertEquals("3.4028235e+38", FloatText.float4(Float.MAX_VALUE));
        assertEquals("-0", FloatText.float4(-0f));
    }

    private static List<String> pgText(String type, List<String> literals) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PgOracle pg = new PgOracle(); Statement st = pg.c.createStatement();
             ResultSet rs = st.executeQuery("SELECT format('%s', x) FROM unnest('{" + String.join(",", literals)
                     + "}'::" + type + "[]) WITH ORDINALITY u(x, i) ORDER BY i")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** Random bit patterns, powers of two and their neighbours (asymmetric rounding intervals), decimals. */
    @Test
    void float8AgainstPostgres() throws SQLException {
        Random rnd = new Random(20260101);
        List<Double> values = new ArrayList<>();
        for (int i = 0; i < 20000; i++) {
            double d = Double.longBitsToDouble(rnd.nextLong());
            if (!Double.isNaN(d) && !Double.isInfinite(d)) {
                values.add(d);
            }
        }
        for (int e = -1074; e <= 1023; e++) {
            double p = Math.scalb(1.0, e);
            values.add(p);
            values.add(Math.nextUp(p));
            values.add(Math.nextDown(p));
        }
        for (int i = 0; i < 5000; i++) {
            values.add(rnd.nextInt() / Math.pow(10, rnd.nextInt(25)));
            values.add((double) rnd.nextLong());
        }
        List<String> lits = new ArrayList<>();
        values.forEach(d -> lits.add(Double.toString(d)));
        List<String> expected = pgText("float8", lits);
        int bad = 0;
        StringBuilder report = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            String got = FloatText.float8(values.get(i));
            if (!got.equals(expected.get(i)) && bad++ < 20) {
                report.append(lits.get(i)).append(": expected ").append(expected.get(i)).append(" got ").append(got)
                        .append('\n');
            }
        }
        assertEquals(0, bad, values.size() + " values, mismatches:\n" + report);
    }

    @Test
    void float4AgainstPostgres() throws SQLException {
        Random rnd = new Random(20260102);
        List<Float> values = new ArrayList<>();
        for (int i = 0; i < 20000; i++) {
            float f = Float.intBitsToFloat(rnd.nextInt());
            if (!Float.isNaN(f) && !Float.isInfinite(f)) {
                values.add(f);
            }
        }
        for (int e = -149; e <= 127; e++) {
            float p = Math.scalb(1.0f, e);
            values.add(p);
            values.add(Math.nextUp(p));
            values.add(Math.nextDown(p));
        }
        for (int i = 0; i < 5000; i++) {
            values.add((float) (rnd.nextInt(2_000_000) / Math.pow(10, rnd.nextInt(12))));
            values.add((float) rnd.nextInt());
        }
        List<String> lits = new ArrayList<>();
        values.forEach(f -> lits.add(Float.toString(f)));
        List<String> expected = pgText("float4", lits);
        int bad = 0;
        StringBuilder report = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            String got = FloatText.float4(values.get(i));
            if (!got.equals(expected.get(i)) && bad++ < 20) {
                report.append(lits.get(i)).append(": expected ").append(expected.get(i)).append(" got ").append(got)
                        .append('\n');
            }
        }
        assertEquals(0, bad, values.size() + " values, mismatches:\n" + report);
    }
}
