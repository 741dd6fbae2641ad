package io.walshadow.xact;

import java.time.Instant;

/** PostgreSQL {@code TimestampTz}: signed microseconds since 2000-01-01 00:00:00 UTC. */
public final class PgTimestamps {
    /** Seconds from 1970-01-01 to 2000-01-01. */
    public static final long POSTGRES_EPOCH_UNIX_SECONDS = 946_684_800L;
    public static final long DT_NOBEGIN = Long.MIN_VALUE;
    public static final long DT_NOEND = Long.MAX_VALUE;

    private PgTimestamps() {}

    public static Instant toInstant(long pgMicros) {
        return Instant.ofEpochSecond(POSTGRES_EPOCH_UNIX_SECONDS + Math.floorDiv(pgMicros, 1_000_000L),
                Math.floorMod(pgMicros, 1_000_000L) * 1000L);
    }

    /** Microseconds since the Unix epoch. */
    public static long toUnixMicros(long pgMicros) {
        return pgMicros + POSTGRES_EPOCH_UNIX_SECONDS * 1_000_000L;
    }

    public static long fromInstant(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond() - POSTGRES_EPOCH_UNIX_SECONDS, 1_000_000L),
                t.getNano() / 1000);
    }
}
