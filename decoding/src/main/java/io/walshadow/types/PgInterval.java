package io.walshadow.types;

/**
 * An interval as stored: months, days and microseconds, each with its own sign (PostgreSQL does not normalize
 * between them). {@link #toString()} is interval_out with IntervalStyle postgres, e.g.
 * {@code 1 year 2 mons -3 days +04:05:06.789}.
 */
public record PgInterval(int months, int days, long micros) {
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(40);
        int year = months / 12;
        int mon = months % 12;
        long time = micros;
        long hour = time / DateTimeText.USECS_PER_HOUR;
        time -= hour * DateTimeText.USECS_PER_HOUR;
        long min = time / DateTimeText.USECS_PER_MINUTE;
        time -= min * DateTimeText.USECS_PER_MINUTE;
        long sec = time / DateTimeText.USECS_PER_SEC;
        long fsec = time - sec * DateTimeText.USECS_PER_SEC;
        boolean[] state = {true, false}; // is_zero, is_before
        addPart(out, year, "year", state);
        addPart(out, mon, "mon", state);
        addPart(out, days, "day", state);
        boolean isZero = state[0];
        boolean isBefore = state[1];
        if (isZero || hour != 0 || min != 0 || sec != 0 || fsec != 0) {
            boolean minus = hour < 0 || min < 0 || sec < 0 || fsec < 0;
            if (!isZero) {
                out.append(' ');
            }
            out.append(minus ? "-" : isBefore ? "+" : "");
            DateTimeText.pad(out, Math.abs(hour), 2);
            out.append(':');
            DateTimeText.pad(out, Math.abs(min), 2);
            out.append(':');
            DateTimeText.appendSeconds(out, sec, fsec);
        }
        return out.toString();
    }

    /** AddPostgresIntPart: each nonzero field sets is_before for (only) the next one. */
    private static void addPart(StringBuilder out, long value, String unit, boolean[] state) {
        if (value == 0) {
            return;
        }
        if (!state[0]) {
            out.append(' ');
        }
        if (state[1] && value > 0) {
            out.append('+');
        }
        out.append(value).append(' ').append(unit);
        if (value != 1) {
            out.append('s');
        }
        state[1] = value < 0;
        state[0] = false;
    }
}
