package io.walshadow.types;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * A timestamp or timestamptz: microseconds since 2000-01-01 00:00:00 (UTC for timestamptz), with
 * {@code -infinity}/{@code infinity} as Long.MIN_VALUE/MAX_VALUE (DT_NOBEGIN/DT_NOEND). {@link #toString()} is
 * timestamp_out / timestamptz_out under DateStyle ISO and TimeZone UTC ({@code +00} suffix for timestamptz).
 */
public record PgTimestamp(long pgMicros, boolean withTimeZone) {
    public static final long NOBEGIN = Long.MIN_VALUE;
    public static final long NOEND = Long.MAX_VALUE;
    /** Microseconds from 1970-01-01 to 2000-01-01. */
    public static final long PG_EPOCH_MICROS = DateTimeText.PG_EPOCH_DAY * DateTimeText.USECS_PER_DAY;

    public boolean isFinite() {
        return pgMicros != NOBEGIN && pgMicros != NOEND;
    }

    public boolean isNegativeInfinity() {
        return pgMicros == NOBEGIN;
    }

    public boolean isPositiveInfinity() {
        return pgMicros == NOEND;
    }

    /**
     * Microseconds since 1970-01-01 (UTC). Throws DateTimeException for the infinities and ArithmeticException in
     * the last ~30 millennia of PostgreSQL's range (after 294247 AD), which do not fit.
     */
    public long epochMicros() {
        requireFinite();
        return Math.addExact(pgMicros, PG_EPOCH_MICROS);
    }

    /** The wall-clock value (for timestamptz: in UTC). Year 0 is 1 BC. */
    public LocalDateTime toLocalDateTime() {
        requireFinite();
        long days = Math.floorDiv(pgMicros, DateTimeText.USECS_PER_DAY);
        long tod = Math.floorMod(pgMicros, DateTimeText.USECS_PER_DAY);
        return LocalDate.ofEpochDay(days + DateTimeText.PG_EPOCH_DAY).atStartOfDay().plusNanos(tod * 1000);
    }

    public Instant toInstant() {
        return toLocalDateTime().toInstant(ZoneOffset.UTC);
    }

    private void requireFinite() {
        if (!isFinite()) {
            throw new DateTimeException("timestamp is " + this);
        }
    }

    @Override
    public String toString() {
        if (pgMicros == NOBEGIN) {
            return "-infinity";
        }
        if (pgMicros == NOEND) {
            return "infinity";
        }
        long days = Math.floorDiv(pgMicros, DateTimeText.USECS_PER_DAY);
        long tod = Math.floorMod(pgMicros, DateTimeText.USECS_PER_DAY);
        StringBuilder out = new StringBuilder(32);
        boolean bc = DateTimeText.appendDate(out, LocalDate.ofEpochDay(days + DateTimeText.PG_EPOCH_DAY));
        out.append(' ');
        DateTimeText.appendTime(out, tod);
        if (withTimeZone) {
            out.append("+00");
        }
        if (bc) {
            out.append(" BC");
        }
        return out.toString();
    }
}
