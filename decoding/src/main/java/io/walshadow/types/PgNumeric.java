package io.walshadow.types;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * A numeric value: a BigDecimal whose scale is the value's display scale (dscale, so {@code 1.50} keeps scale 2),
 * or one of the special values NaN, Infinity, -Infinity (PostgreSQL 14+). {@link #toString()} is numeric_out.
 */
public record PgNumeric(Kind kind, BigDecimal value) {
    public enum Kind {
        FINITE, NAN, POSITIVE_INFINITY, NEGATIVE_INFINITY
    }

    public static final PgNumeric NAN = new PgNumeric(Kind.NAN, null);
    public static final PgNumeric POSITIVE_INFINITY = new PgNumeric(Kind.POSITIVE_INFINITY, null);
    public static final PgNumeric NEGATIVE_INFINITY = new PgNumeric(Kind.NEGATIVE_INFINITY, null);

    public PgNumeric {
        Objects.requireNonNull(kind, "kind");
        if ((kind == Kind.FINITE) != (value != null)) {
            throw new IllegalArgumentException("a finite numeric has a value, a special one has none");
        }
    }

    public static PgNumeric of(BigDecimal value) {
        return new PgNumeric(Kind.FINITE, Objects.requireNonNull(value, "value"));
    }

    public boolean isFinite() {
        return kind == Kind.FINITE;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case FINITE -> value.toPlainString();
            case NAN -> "NaN";
            case POSITIVE_INFINITY -> "Infinity";
            case NEGATIVE_INFINITY -> "-Infinity";
        };
    }
}
