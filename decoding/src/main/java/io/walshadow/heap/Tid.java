package io.walshadow.heap;

/**
 * A heap tuple identifier (ItemPointerData): block number (unsigned 32-bit, held in a long) and 1-based line
 * pointer offset. Printed as PostgreSQL prints a ctid, {@code (block,offset)}.
 */
public record Tid(long block, int offset) {
    @Override
    public String toString() {
        return "(" + block + "," + offset + ")";
    }
}
