package io.walshadow.types;

import java.time.DateTimeException;
import java.time.LocalTime;

/**
 * A time of day: microseconds since midnight, 0 to 24:00:00 inclusive. Not a LocalTime because PostgreSQL accepts
 * {@code 24:00:00}, which LocalTime cannot hold. {@link #toString()} is time_out.
 */
public record PgTime(long micros) {
    public static final long MAX = DateTimeText.USECS_PER_DAY;

    /** The time; throws DateTimeException for 24:00:00. */
    public LocalTime toLocalTime() {
        if (micros < 0 || micros >= MAX) {
            throw new DateTimeException("time " + this + " is outside LocalTime's range");
        }
        return LocalTime.ofNanoOfDay(micros * 1000);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(16);
        DateTimeText.appendTime(out, micros);
        return out.toString();
    }
}
