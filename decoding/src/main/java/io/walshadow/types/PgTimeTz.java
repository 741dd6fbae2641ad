package io.walshadow.types;

import java.time.OffsetTime;
import java.time.ZoneOffset;

/**
 * A time with time zone (TimeTzADT): microseconds since midnight local time, and the zone offset in seconds WEST
 * of UTC as PostgreSQL stores it (so {@code +05:30} is -19800). {@link #toString()} is timetz_out.
 */
public record PgTimeTz(long micros, int zoneSecondsWest) {
    /** The offset east of UTC, as java.time counts it. */
    public ZoneOffset offset() {
        return ZoneOffset.ofTotalSeconds(-zoneSecondsWest);
    }

    /** Throws DateTimeException for 24:00:00 or an offset beyond ±18:00. */
    public OffsetTime toOffsetTime() {
        return OffsetTime.of(new PgTime(micros).toLocalTime(), offset());
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(24);
        DateTimeText.appendTime(out, micros);
        DateTimeText.appendZone(out, zoneSecondsWest);
        return out.toString();
    }
}
