package io.walshadow.snapshot;

import java.io.Serializable;

/**
 * Settings of the initial snapshot.
 *
 * @param enabled copy the included tables' existing rows on the job's first start ({@code snapshot.mode=initial})
 * @param parallelism chunk readers (each one PostgreSQL connection)
 * @param chunkPages heap pages per chunk (8 kB each): the unit of parallelism and of restart
 * @param fetchRows rows of a chunk's copy per fetch of the source reader
 */
public record SnapshotOptions(boolean enabled, int parallelism, long chunkPages, int fetchRows) implements Serializable {
    public static final int DEFAULT_PARALLELISM = 2;
    /** 32 MB of heap per chunk. */
    public static final long DEFAULT_CHUNK_PAGES = 4096;
    public static final int DEFAULT_FETCH_ROWS = 4096;

    public SnapshotOptions {
        if (parallelism < 1 || chunkPages < 1 || fetchRows < 1) {
            throw new IllegalArgumentException("snapshot.parallelism, snapshot.chunk.pages and snapshot.fetch.rows must"
                    + " be positive, got " + parallelism + ", " + chunkPages + ", " + fetchRows);
        }
    }

    public static SnapshotOptions defaults() {
        return new SnapshotOptions(true, DEFAULT_PARALLELISM, DEFAULT_CHUNK_PAGES, DEFAULT_FETCH_ROWS);
    }

    public static SnapshotOptions disabled() {
        return new SnapshotOptions(false, DEFAULT_PARALLELISM, DEFAULT_CHUNK_PAGES, DEFAULT_FETCH_ROWS);
    }
}
