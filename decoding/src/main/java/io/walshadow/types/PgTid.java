package io.walshadow.types;

/** A tid (ItemPointerData): block number (unsigned 32-bit) and line pointer offset. Prints as {@code (block,offset)}. */
public record PgTid(long block, int offset) {
    @Override
    public String toString() {
        return "(" + block + "," + offset + ")";
    }
}
