package io.walshadow.types;

import java.util.Arrays;

/**
 * A bit or bit varying value: {@code length} bits, most significant bit of {@code bytes[0]} first.
 * {@link #toString()} is bit_out/varbit_out: a string of 0 and 1.
 */
public record PgBitString(int length, byte[] bytes) {
    public PgBitString {
        if (length < 0 || bytes.length != (length + 7) / 8) {
            throw new IllegalArgumentException(length + " bits in " + bytes.length + " bytes");
        }
    }

    public boolean get(int i) {
        return (bytes[i >> 3] & (0x80 >> (i & 7))) != 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PgBitString b && b.length == length && Arrays.equals(b.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return length * 31 + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            out.append(get(i) ? '1' : '0');
        }
        return out.toString();
    }
}
