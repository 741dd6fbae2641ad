package io.walshadow.types;

/**
 * A slice of a buffer holding one on-disk datum: for fixed-length types the {@code attlen} bytes, for varlena types
 * the whole varlena including its header (1-byte, 4-byte or TOAST pointer), for cstring types the bytes up to (and
 * optionally including) the terminating NUL.
 */
public record Datum(byte[] buf, int off, int len) {
    public Datum {
        if (off < 0 || len < 0 || off > buf.length - len) {
            throw new IndexOutOfBoundsException("datum slice [" + off + ", +" + len + ") outside buffer of "
                    + buf.length);
        }
    }

    public static Datum of(byte[] bytes) {
        return new Datum(bytes, 0, bytes.length);
    }

    public byte[] toByteArray() {
        return java.util.Arrays.copyOfRange(buf, off, off + len);
    }
}
