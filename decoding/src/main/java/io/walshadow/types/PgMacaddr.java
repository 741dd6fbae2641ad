package io.walshadow.types;

import java.util.Arrays;

/** A macaddr (6 bytes) or macaddr8 (8 bytes) value. {@link #toString()} is macaddr_out: lowercase {@code xx:xx:..}. */
public record PgMacaddr(byte[] bytes) {
    public PgMacaddr {
        if (bytes.length != 6 && bytes.length != 8) {
            throw new IllegalArgumentException("MAC address of " + bytes.length + " bytes");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PgMacaddr m && Arrays.equals(m.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(bytes.length * 3);
        for (int i = 0; i < bytes.length; i++) {
            if (i > 0) {
                out.append(':');
            }
            out.append(Character.forDigit((bytes[i] >> 4) & 0xF, 16)).append(Character.forDigit(bytes[i] & 0xF, 16));
        }
        return out.toString();
    }
}
