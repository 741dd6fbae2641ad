package io.walshadow.types;

import java.time.LocalDate;

/** Pieces of datetime.c's ISO output (DateStyle ISO): EncodeDateOnly, AppendSeconds, EncodeTimezone. */
final class DateTimeText {
    private DateTimeText() {}

    static final long USECS_PER_SEC = 1_000_000L;
    static final long USECS_PER_MINUTE = 60 * USECS_PER_SEC;
    static final long USECS_PER_HOUR = 60 * USECS_PER_MINUTE;
    static final long USECS_PER_DAY = 24 * USECS_PER_HOUR;
    /** Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch. */
    static final long PG_EPOCH_DAY = 10957;

    static void pad(StringBuilder out, long v, int width) {
        String s = Long.toString(v);
        for (int i = s.length(); i < width; i++) {
            out.append('0');
        }
        out.append(s);
    }

    /** {@code YYYY-MM-DD} with the year of era (1 BC is year 0 of LocalDate); returns whether the date is BC. */
    static boolean appendDate(StringBuilder out, LocalDate d) {
        int y = d.getYear();
        boolean bc = y <= 0;
        pad(out, bc ? -(y - 1L) : y, 4);
        out.append('-');
        pad(out, d.getMonthValue(), 2);
        out.append('-');
        pad(out, d.getDayOfMonth(), 2);
        return bc;
    }

    /** {@code HH:MM:SS[.ffffff]} (trailing zeros of the fraction dropped) of a non-negative time of day. */
    static void appendTime(StringBuilder out, long micros) {
        long hour = micros / USECS_PER_HOUR;
        micros -= hour * USECS_PER_HOUR;
        long min = micros / USECS_PER_MINUTE;
        micros -= min * USECS_PER_MINUTE;
        long sec = micros / USECS_PER_SEC;
        micros -= sec * USECS_PER_SEC;
        pad(out, hour, 2);
        out.append(':');
        pad(out, min, 2);
        out.append(':');
        appendSeconds(out, sec, micros);
    }

    /** AppendSeconds(fillzeros=true, precision 6): absolute values, two-digit seconds, fraction without zeros. */
    static void appendSeconds(StringBuilder out, long sec, long fsec) {
        pad(out, Math.abs(sec), 2);
        if (fsec != 0) {
            long f = Math.abs(fsec);
            int width = 6;
            while (f % 10 == 0) {
                f /= 10;
                width--;
            }
            out.append('.');
            pad(out, f, width);
        }
    }

    /** EncodeTimezone: {@code tz} is seconds WEST of UTC; prints +HH, +HH:MM or +HH:MM:SS east-positive. */
    static void appendZone(StringBuilder out, int tz) {
        int sec = Math.abs(tz);
        int min = sec / 60;
        sec -= min * 60;
        int hour = min / 60;
        min -= hour * 60;
        out.append(tz <= 0 ? '+' : '-');
        pad(out, hour, 2);
        if (sec != 0) {
            out.append(':');
            pad(out, min, 2);
            out.append(':');
            pad(out, sec, 2);
        } else if (min != 0) {
            out.append(':');
            pad(out, min, 2);
        }
    }
}
