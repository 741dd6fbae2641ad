package io.walshadow.codec;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.types.StringValue;

/**
 * Primitive encodings shared by the codecs of this package (their byte formats are part of those codecs' versioned
 * formats: never change one in place).
 *
 * <ul>
 *   <li>uvarint: unsigned LEB128 (7 bits a byte, least significant group first, high bit = more follows); an int is
 *       taken as its unsigned 32-bit value (at most 5 bytes), a long as unsigned 64-bit (at most 10 bytes)
 *   <li>varint: zigzag ({@code (v << 1) ^ (v >> 31)}, resp. 63) then uvarint, for values that may be negative
 *   <li>string: Flink's {@link StringValue#writeString} form (what Flink's own StringSerializer writes): null-aware,
 *       exact for every Java string including unpaired surrogates
 *   <li>count: uvarint of {@code n + 1}, 0 for a null list/array
 * </ul>
 */
public final class Wire {
    /** Upper bound for any count or byte length read back (PostgreSQL values are at most 1 GiB). */
    public static final int MAX_LENGTH = 1 << 30;
    private static final int CHUNK = 1 << 16;

    private Wire() {}

    public static void writeUVarInt(DataOutput out, int v) throws IOException {
        while ((v & ~0x7F) != 0) {
            out.writeByte((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte(v);
    }

    public static int readUVarInt(DataInput in, String what) throws IOException {
        int v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = in.readUnsignedByte();
            if (shift == 28 && (b & 0xF0) != 0) {
                throw new StateFormatException("varint of " + what + " overflows 32 bits");
            }
            v |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new StateFormatException("varint of " + what + " longer than 5 bytes");
    }

    public static void writeUVarLong(DataOutput out, long v) throws IOException {
        while ((v & ~0x7FL) != 0) {
            out.writeByte((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.writeByte((int) v);
    }

    public static long readUVarLong(DataInput in, String what) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            int b = in.readUnsignedByte();
            if (shift == 63 && (b & 0xFE) != 0) {
                throw new StateFormatException("varint of " + what + " overflows 64 bits");
            }
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new StateFormatException("varint of " + what + " longer than 10 bytes");
    }

    public static void writeVarInt(DataOutput out, int v) throws IOException {
        writeUVarInt(out, (v << 1) ^ (v >> 31));
    }

    public static int readVarInt(DataInput in, String what) throws IOException {
        int z = readUVarInt(in, what);
        return (z >>> 1) ^ -(z & 1);
    }

    public static void writeVarLong(DataOutput out, long v) throws IOException {
        writeUVarLong(out, (v << 1) ^ (v >> 63));
    }

    public static long readVarLong(DataInput in, String what) throws IOException {
        long z = readUVarLong(in, what);
        return (z >>> 1) ^ -(z & 1);
    }

    /**
     * {@link StringValue#writeString}'s bytes, built in a buffer and written in blocks: Flink's writes each byte by
     * itself ({@code DataOutput.write(int)}, a bounds check and a call each), which made it the serializers' top cost.
     */
    public static void writeString(DataOutput out, String s) throws IOException {
        if (s == null) {
            out.write(0);
            return;
        }
        int n = s.length();
        byte[] b = STRING_BUFFER.get();
        int p = 0;
        for (int len = n + 1; ; len >>>= 7) { // the length + 1 (0 is null), 7 bits a byte, low group first
            if (len < 0x80) {
                b[p++] = (byte) len;
                break;
            }
            b[p++] = (byte) (len | 0x80);
        }
        for (int i = 0; i < n; i++) {
            if (p > b.length - 3) { // a char takes at most 3 bytes
                out.write(b, 0, p);
                p = 0;
            }
            int c = s.charAt(i);
            while (c >= 0x80) {
                b[p++] = (byte) (c | 0x80);
                c >>>= 7;
            }
            b[p++] = (byte) c;
        }
        out.write(b, 0, p);
    }

    /**
     * Reads what {@link #writeString} (or {@link StringValue#writeString}) wrote, its bytes taken in blocks rather than
     * one {@code readUnsignedByte} each. Never reads past the string: a block is at most as many bytes as chars are
     * left, and each of those takes at least one more byte.
     */
    public static String readString(DataInput in) throws IOException {
        int len = in.readUnsignedByte();
        if (len == 0) {
            return null;
        }
        if (len >= 0x80) {
            len &= 0x7F;
            for (int shift = 7; ; shift += 7) {
                int b = in.readUnsignedByte();
                if (shift > 28) {
                    throw new StateFormatException("string length longer than 5 bytes");
                }
                len |= (b & 0x7F) << shift;
                if (b < 0x80) {
                    break;
                }
            }
        }
        len--;
        if (len < 0 || len > MAX_LENGTH) {
            throw new StateFormatException("implausible string length " + Integer.toUnsignedString(len));
        }
        char[] chars = new char[len];
        byte[] b = STRING_BUFFER.get();
        int i = 0;
        int c = 0;
        int shift = 0; // > 0: a char's bytes so far are in c
        while (i < len) {
            int m = Math.min(len - i, b.length);
            in.readFully(b, 0, m);
            for (int k = 0; k < m; k++) {
                int x = b[k] & 0xFF;
                if (x < 0x80) {
                    chars[i++] = (char) (c | x << shift);
                    c = 0;
                    shift = 0;
                } else {
                    c |= (x & 0x7F) << shift;
                    shift += 7;
                }
            }
        }
        return new String(chars);
    }

    /** Per-thread block buffer of the string codec (a serializer runs on one thread at a time). */
    private static final ThreadLocal<byte[]> STRING_BUFFER = ThreadLocal.withInitial(() -> new byte[8192]);

    /** A non-negative count or length. */
    public static void writeCount(DataOutput out, int n) throws IOException {
        if (n < 0) {
            throw new IllegalArgumentException("negative count " + n);
        }
        writeUVarInt(out, n);
    }

    public static int readCount(DataInput in, String what) throws IOException {
        int n = readUVarInt(in, what);
        if (n < 0 || n > MAX_LENGTH) {
            throw new StateFormatException("implausible " + what + ": " + Integer.toUnsignedString(n));
        }
        return n;
    }

    /** A count, or -1 for null. */
    public static void writeNullableCount(DataOutput out, int n) throws IOException {
        if (n < -1) {
            throw new IllegalArgumentException("negative count " + n);
        }
        writeUVarInt(out, n + 1);
    }

    /** A count written by {@link #writeNullableCount}: -1 for null. */
    public static int readNullableCount(DataInput in, String what) throws IOException {
        int n = readUVarInt(in, what);
        if (n < 0 || n > MAX_LENGTH + 1) {
            throw new StateFormatException("implausible " + what + ": " + Integer.toUnsignedString(n));
        }
        return n - 1;
    }

    public static void writeBytes(DataOutput out, byte[] b) throws IOException {
        writeCount(out, b.length);
        out.write(b);
    }

    public static byte[] readBytes(DataInput in, String what) throws IOException {
        return readFully(in, readCount(in, what + " length"));
    }

    /**
     * Reads {@code n} bytes. Large lengths are read in growing chunks, so a damaged length fails at the end of the
     * input instead of allocating up to a gigabyte first.
     */
    public static byte[] readFully(DataInput in, int n) throws IOException {
        byte[] b = new byte[Math.min(n, CHUNK)];
        int have = 0;
        while (true) {
            int k = b.length - have;
            in.readFully(b, have, k);
            have += k;
            if (have == n) {
                return b;
            }
            b = Arrays.copyOf(b, (int) Math.min(n, 2L * b.length));
        }
    }

    /** Initial capacity for a collection of {@code n} elements read back (n itself is not trusted for allocation). */
    public static int capacity(int n) {
        return Math.min(n, 1024);
    }
}
