package io.walshadow.wal;

/** PostgreSQL log sequence numbers: unsigned 64-bit byte positions in the WAL, printed as {@code X/XXXXXXXX}. */
public final class Lsn {
    public static final long INVALID = 0L;

    private Lsn() {}

    /** {@code %X/%08X}, without {@link String#format}'s parsing: the sink prints one per commit it writes. */
    public static String format(long lsn) {
        char[] c = new char[17];
        int n = 0;
        long hi = lsn >>> 32;
        for (int shift = 28; shift >= 0; shift -= 4) {
            int d = (int) (hi >>> shift) & 0xF;
            if (d != 0 || n > 0 || shift == 0) {
                c[n++] = HEX[d];
            }
        }
        c[n++] = '/';
        for (int shift = 28; shift >= 0; shift -= 4) {
            c[n++] = HEX[(int) (lsn >>> shift) & 0xF];
        }
        return new String(c, 0, n);
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

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
