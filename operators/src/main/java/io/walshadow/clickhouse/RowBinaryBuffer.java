package io.walshadow.clickhouse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer holding rows in ClickHouse's RowBinary format (little-endian fixed-width numbers, LEB128
 * lengths). One per staging table; flushed to the server as the body of {@code INSERT ... FORMAT RowBinary}.
 */
public final class RowBinaryBuffer {
    private byte[] buf;
    private int len;
    private long rows;
    /** Where each completed row ends (so rows can be copied one by one, and a truncate forgets the rows it cuts). */
    private int[] ends = new int[64];

    public RowBinaryBuffer(int initialCapacity) {
        buf = new byte[Math.max(64, initialCapacity)];
    }

    public int size() {
        return len;
    }

    /** Rows completed with {@link #endRow()}. */
    public long rows() {
        return rows;
    }

    public void endRow() {
        if (rows == ends.length) {
            ends = Arrays.copyOf(ends, ends.length * 2);
        }
        ends[(int) rows++] = len;
    }

    public void clear() {
        len = 0;
        rows = 0;
    }

    /** Rolls back to an earlier size (a row that failed half-way must not stay in the buffer). */
    public void truncate(int size) {
        len = size;
        while (rows > 0 && ends[(int) rows - 1] > size) {
            rows--;
        }
    }

    /** Appends every row of this buffer to {@code out}, each followed by what {@code suffix} writes there. */
    public void copyRowsTo(RowBinaryBuffer out, java.util.function.Consumer<RowBinaryBuffer> suffix) {
        int start = 0;
        for (int i = 0; i < rows; i++) {
            int end = ends[i];
            out.ensure(end - start);
            System.arraycopy(buf, start, out.buf, out.len, end - start);
            out.len += end - start;
            suffix.accept(out);
            out.endRow();
            start = end;
        }
    }

    /** Takes over the contents of {@code other} (which must not be used afterwards). */
    public void replaceWith(RowBinaryBuffer other) {
        buf = other.buf;
        len = other.len;
        rows = other.rows;
        ends = other.ends;
    }

    public void writeTo(OutputStream out) throws IOException {
        out.write(buf, 0, len);
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, len);
    }

    private void ensure(int n) {
        if (len + n > buf.length) {
            long want = Math.max((long) buf.length * 2, (long) len + n);
            if (want > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("RowBinary buffer over 2 GB: flush earlier");
            }
            buf = Arrays.copyOf(buf, (int) want);
        }
    }

    public void u8(int v) {
        ensure(1);
        buf[len++] = (byte) v;
    }

    public void i16(int v) {
        ensure(2);
        buf[len++] = (byte) v;
        buf[len++] = (byte) (v >> 8);
    }

    public void i32(int v) {
        ensure(4);
        for (int i = 0; i < 4; i++) {
            buf[len++] = (byte) (v >> (8 * i));
        }
    }

    public void i64(long v) {
        ensure(8);
        for (int i = 0; i < 8; i++) {
            buf[len++] = (byte) (v >> (8 * i));
        }
    }

    /** LEB128, as RowBinary writes string and array lengths. */
    public void uvarint(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[len++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[len++] = (byte) v;
    }

    public void bytes(byte[] b) {
        uvarint(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
    }

    public void string(String s) {
        // ASCII fast path: most text is, and it avoids an intermediate array
        int n = s.length();
        boolean ascii = true;
        for (int i = 0; i < n && ascii; i++) {
            ascii = s.charAt(i) < 0x80;
        }
        if (!ascii) {
            bytes(s.getBytes(StandardCharsets.UTF_8));
            return;
        }
        uvarint(n);
        ensure(n);
        for (int i = 0; i < n; i++) {
            buf[len++] = (byte) s.charAt(i);
        }
    }

    /** A 16-byte little-endian two's-complement integer (Decimal128, Int128). */
    public void i128(java.math.BigInteger v) {
        byte[] be = v.toByteArray(); // big-endian, minimal
        if (be.length > 16) {
            throw new ArithmeticException("value does not fit 128 bits: " + v);
        }
        ensure(16);
        byte fill = (byte) (v.signum() < 0 ? 0xFF : 0);
        for (int i = 0; i < 16; i++) {
            int src = be.length - 1 - i;
            buf[len++] = src >= 0 ? be[src] : fill;
        }
    }
}
