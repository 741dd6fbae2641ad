package io.walshadow.types;

import java.time.DateTimeException;
import java.time.LocalDate;

/**
 * A date: days since 2000-01-01 (proleptic Gregorian, as PostgreSQL), with {@code -infinity}/{@code infinity}
 * stored as Integer.MIN_VALUE/MAX_VALUE (DATEVAL_NOBEGIN/NOEND). {@link #toString()} is date_out (ISO).
 */
public record PgDate(int pgDays) {
    public static final int NOBEGIN = Integer.MIN_VALUE;
    public static final int NOEND = Integer.MAX_VALUE;

    public boolean isFinite() {
        return pgDays != NOBEGIN && pgDays != NOEND;
    }

    public boolean isNegativeInfinity() {
        return pgDays == NOBEGIN;
    }

    public boolean isPositiveInfinity() {
        return pgDays == NOEND;
    }

    /** Days since 1970-01-01 (finite dates only). */
    public long epochDay() {
        requireFinite();
        return pgDays + DateTimeText.PG_EPOCH_DAY;
    }

    /** The date; year 0 is 1 BC as in PostgreSQL. Throws DateTimeException for the infinities. */
    public LocalDate toLocalDate() {
        return LocalDate.ofEpochDay(epochDay());
    }

    private void requireFinite() {
        if (!isFinite()) {
            throw new DateTimeException("date is " + this);
        }
    }

    @Override
    public String toString() {
        if (pgDays == NOBEGIN) {
            return "-infinity";
        }
        if (pgDays == NOEND) {
            return "infinity";
        }
        StringBuilder out = new StringBuilder(16);
        if (DateTimeText.appendDate(out, toLocalDate())) {
            out.append(" BC");
        }
        return out.toString();
    }
}
