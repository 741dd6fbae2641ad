package io.walshadow.wal;

/** PostgreSQL log sequence numbers: unsigned 64-bit byte positions in the WAL, printed as {@code X/XXXXXXXX}. */
public final class Lsn {
    public static final long INVALID = 0L;

    private Lsn() {}

    public static String format(long lsn) {
        return String.format("%X/%08X", lsn >>> 32, lsn & 0xFFFFFFFFL);
    }

    public static long parse(String text) {
        int slash = text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1) {
            throw new IllegalArgumentException("not an LSN (expected X/X): '" + text + "'");
        }
        long hi = Long.parseLong(text.substring(0, slash), 16);
        long lo = Long.parseLong(text.substring(slash + 1), 16);
        if (hi > 0xFFFFFFFFL || lo > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("LSN half out of range: '" + text + "'");
        }
        return (hi << 32) | lo;
    }
}
