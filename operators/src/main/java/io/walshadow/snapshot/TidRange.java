package io.walshadow.snapshot;

/**
 * Heap pages {@code [fromBlock, toBlock)} of one table, read as one snapshot chunk with a TID range scan
 * (PostgreSQL 14+ plans {@code ctid >= '(a,0)' AND ctid < '(b,0)'} as a TidRangeScan: only those pages are read).
 * {@code toBlock < 0}: no upper bound (the last chunk also takes pages added after the table was measured).
 */
public record TidRange(long fromBlock, long toBlock) {
    /** The largest block number (BlockNumber is an unsigned 32-bit integer; 0xFFFFFFFF is InvalidBlockNumber). */
    static final long MAX_BLOCK = 0xFFFFFFFEL;

    public TidRange {
        if (fromBlock < 0 || fromBlock > MAX_BLOCK || toBlock > MAX_BLOCK + 1 || (toBlock >= 0 && toBlock <= fromBlock)) {
            throw new IllegalArgumentException("invalid TID range [" + fromBlock + ", " + toBlock + ")");
        }
    }

    public boolean openEnded() {
        return toBlock < 0;
    }

    /** The SQL predicate selecting exactly the tuples on these pages. */
    public String predicate() {
        String lower = "ctid >= '(" + fromBlock + ",0)'::tid";
        return openEnded() ? lower : lower + " AND ctid < '(" + toBlock + ",0)'::tid";
    }

    @Override
    public String toString() {
        return "[" + fromBlock + ", " + (openEnded() ? "end" : String.valueOf(toBlock)) + ")";
    }
}
