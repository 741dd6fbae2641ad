package io.walshadow.snapshot;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;

/**
 * One row of {@code COPY ... TO STDOUT} in text format (one CopyData message; the session's client encoding is
 * UTF-8, as pgjdbc sets it), whose first column is the row's ctid: columns separated by a tab, the row ended by a
 * newline, {@code \N} for NULL, and within a value the escapes of {@code CopyAttributeOutText}
 * (src/backend/commands/copyto.c): {@code \b \f \n \r \t \v} for those control characters and a backslash before a
 * backslash (the delimiter tab is sent as {@code \t}). Any other byte is the value's own, so a multi-byte UTF-8
 * character never holds one of these bytes; COPY FROM's octal and hex escapes are never output, but are undone as
 * COPY FROM would should a server send them.
 */
final class CopyTextRow {
    private CopyTextRow() {}

    /** The row in {@code line}, which has {@code width} columns after its ctid; {@code table} names it in errors. */
    static SnapshotChunkReader.Row parse(byte[] line, int width, String table) throws SQLException {
        int end = line.length - 1;
        if (end < 0 || line[end] != '\n') {
            throw malformed(table, line, "does not end with a newline");
        }
        // the ctid: "(block,offset)"
        int p = 0;
        if (line[p++] != '(') {
            throw malformed(table, line, "does not start with a ctid");
        }
        long block = 0;
        int digits = 0;
        for (; p < end && line[p] >= '0' && line[p] <= '9'; p++, digits++) {
            block = block * 10 + (line[p] - '0');
        }
        if (digits == 0 || digits > 10 || p >= end || line[p++] != ',') {
            throw malformed(table, line, "has no ctid block number");
        }
        int offset = 0;
        digits = 0;
        for (; p < end && line[p] >= '0' && line[p] <= '9'; p++, digits++) {
            offset = offset * 10 + (line[p] - '0');
        }
        if (digits == 0 || digits > 5 || p + 1 > end || line[p++] != ')') {
            throw malformed(table, line, "has no ctid offset");
        }
        String[] values = new String[width];
        byte[] scratch = null;
        for (int i = 0; i < width; i++) {
            if (p >= end || line[p] != '\t') {
                throw malformed(table, line, "has " + i + " of " + width + " columns after its ctid");
            }
            int start = ++p;
            boolean escaped = false;
            while (p < end && line[p] != '\t') {
                if (line[p] == '\\') {
                    escaped = true;
                    p++; // the escaped byte is never a tab
                }
                p++;
            }
            if (p > end) {
                throw malformed(table, line, "ends in a backslash");
            }
            int len = p - start;
            if (!escaped) {
                values[i] = new String(line, start, len, StandardCharsets.UTF_8);
            } else if (len == 2 && line[start + 1] == 'N') {
                values[i] = null; // \N; a value "\N" is sent as \\N
            } else {
                if (scratch == null || scratch.length < len) {
                    scratch = new byte[Math.max(len, 64)];
                }
                int n = unescape(line, start, p, scratch);
                values[i] = new String(scratch, 0, n, StandardCharsets.UTF_8);
            }
        }
        if (p != end) {
            throw malformed(table, line, "has more than " + width + " columns after its ctid");
        }
        return new SnapshotChunkReader.Row(block, offset, values);
    }

    /** The bytes of {@code line[from, to)} with COPY text escapes undone, into {@code out}; returns their count. */
    private static int unescape(byte[] line, int from, int to, byte[] out) {
        int n = 0;
        for (int p = from; p < to; p++) {
            byte b = line[p];
            if (b != '\\') {
                out[n++] = b;
                continue;
            }
            byte c = line[++p];
            switch (c) {
                case 'b' -> out[n++] = '\b';
                case 'f' -> out[n++] = '\f';
                case 'n' -> out[n++] = '\n';
                case 'r' -> out[n++] = '\r';
                case 't' -> out[n++] = '\t';
                case 'v' -> out[n++] = 0x0b;
                case '0', '1', '2', '3', '4', '5', '6', '7' -> {
                    int v = c - '0';
                    for (int k = 0; k < 2 && p + 1 < to && line[p + 1] >= '0' && line[p + 1] <= '7'; k++) {
                        v = v * 8 + (line[++p] - '0');
                    }
                    out[n++] = (byte) v;
                }
                case 'x' -> {
                    int v = 0;
                    int k = 0;
                    for (; k < 2 && p + 1 < to && Character.digit(line[p + 1], 16) >= 0; k++) {
                        v = v * 16 + Character.digit(line[++p], 16);
                    }
                    out[n++] = k == 0 ? (byte) 'x' : (byte) v;
                }
                default -> out[n++] = c;
            }
        }
        return n;
    }

    private static SQLException malformed(String table, byte[] line, String what) {
        String text = new String(line, 0, Math.min(line.length, 120), StandardCharsets.UTF_8);
        return new SQLException("COPY row of " + table + " " + what + ": " + text.replace("\n", "\\n")
                + (line.length > 120 ? "..." : ""));
    }
}
