package io.walshadow.snapshot;

import java.util.ArrayList;
import java.util.List;

/** Splits a table of {@code relPages} heap pages into chunks of {@code chunkPages}, the last one open-ended. */
public final class ChunkPlanner {
    private ChunkPlanner() {}

    public static List<TidRange> plan(long relPages, long chunkPages) {
        if (relPages < 0 || chunkPages < 1) {
            throw new IllegalArgumentException("relPages " + relPages + ", chunkPages " + chunkPages);
        }
        List<TidRange> out = new ArrayList<>();
        long from = 0;
        while (from + chunkPages < relPages) {
            out.add(new TidRange(from, from + chunkPages));
            from += chunkPages;
        }
        out.add(new TidRange(from, -1));
        return out;
    }
}
