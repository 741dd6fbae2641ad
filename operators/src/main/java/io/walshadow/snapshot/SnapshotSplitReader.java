package io.walshadow.snapshot;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.change.BufferEvent;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.pg.TypeCatalogLoader;
import io.walshadow.sink.ClickHouseSinkOptions;
import io.walshadow.types.TextValues;
import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the reader's chunks one after the other on the fetcher thread, under the snapshot the coordinator exported
 * (its name arrives as an event; a new name after a coordinator restart means a new connection), {@code fetchRows}
 * rows per fetch, resuming a restored chunk after its last emitted TID.
 */
final class SnapshotSplitReader implements SplitReader<BufferEvent, SnapshotSplit> {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotSplitReader.class);

    private final PgConnectionConfig pg;
    /** The configured filter: a restored chunk of a table it no longer includes is skipped. */
    private final CatalogFilter filter;
    private final int fetchRows;
    private final SnapshotName name;
    private final Deque<SnapshotSplit> splits = new ArrayDeque<>();

    private SnapshotChunkReader reader;
    private TextValues values;
    private SnapshotSplit current;
    private SnapshotRows rows;
    private SnapshotChunkReader.Cursor cursor;
    private long emitted;

    /** Seeds the TOAST mirrors (null: no mirrors, no TOAST chunks planned). */
    private final ToastSeeder seeder;
    private final io.walshadow.types.UndecodableColumns undecodable;
    /** Shapes descriptors as the WAL decoder does (types.undecodable), with the snapshot's types. */
    private io.walshadow.change.RowDecoder shaper;

    SnapshotSplitReader(PgConnectionConfig pg, CatalogFilter filter, int fetchRows, SnapshotName name,
                        ClickHouseSinkOptions clickhouse, io.walshadow.types.UndecodableColumns undecodable) {
        this.undecodable = undecodable;
        this.pg = pg;
        this.filter = filter;
        this.seeder = clickhouse == null ? null : new ToastSeeder(clickhouse);
        this.fetchRows = fetchRows;
        this.name = name;
    }

    @Override
    public RecordsWithSplitIds<BufferEvent> fetch() throws IOException {
        RecordsBySplits.Builder<BufferEvent> out = new RecordsBySplits.Builder<>();
        try {
            String id = name.await(500);
            if (id == null) {
                return out.build(); // the coordinator has not exported it yet (or is restarting)
            }
            if (current == null) {
                current = splits.poll();
                if (current == null) {
                    return out.build();
                }
            }
            if (cursor == null && !filter.includes(current.descriptor())) {
                // the job was restored with a filter that excludes it: the decoder stops replicating it too
                return skip(out, "is no longer included (tables.include / tables.exclude)");
            }
            if (cursor == null) {
                // the chunk's own transaction, in the coordinator's current export; the lock it takes below goes
                // with it when the chunk ends, so DDL queued for the table waits for one chunk, not the whole copy
                if (reader == null) {
                    reconnect(id); // opens in a fresh transaction that imported the snapshot
                } else {
                    reader.restart(id);
                }
                LockedTable now = reader.lock(current.descriptor().relOid());
                if (now == null) {
                    return skip(out, "no longer exists (the WAL stream carries the drop)");
                }
                if (!now.sameStorage(current.descriptor())) {
                    // TRUNCATE, ALTER TYPE, VACUUM FULL, CLUSTER since the plan: the stream re-inserts every row the
                    // table held then (or none), and the sink drops snapshot rows of the storage it replaced
                    return skip(out, "was rewritten since the snapshot was planned (relfilenode " + now.relfilenode()
                            + ", planned " + Integer.toUnsignedString(current.descriptor().locator().relNumber())
                            + "): the WAL stream carries its rows");
                }
                if (current.toast()) {
                    seedToast(current, now);
                    reader.endChunk();
                    out.addFinishedSplit(current.splitId());
                    current = null;
                    return out.build();
                }
                io.walshadow.clickhouse.Faults.at("snapshot.chunk.locked"); // a test slows the copy here
                // columns by attnum under their names now: added ones are not in the plan (the destination gives the
                // rows their missing value), dropped ones cannot be read (the destination drops them too)
                rows = new SnapshotRows(shaper.shape(now.readable(current.descriptor())), current.version(),
                        values, now.liveColumns());
                if (rows.leavesRawColumnsNull() && current.fromBlock() == 0) {
                    LOG.warn("initial snapshot of {}: the columns types.undecodable writes raw are NULL in the copied"
                            + " rows (the copy reads text, not on-disk bytes); rows the WAL carries have them",
                            current.descriptor().qualifiedName());
                }
                TidRange range = new TidRange(current.fromBlock(), current.toBlock());
                cursor = reader.cursor(now.name(), rows.selectList(), range,
                        current.resumeBlock(), current.resumeOffset());
                emitted = 0;
            }
            String splitId = current.splitId();
            for (int i = 0; i < fetchRows; i++) {
                SnapshotChunkReader.Row r = cursor.next();
                if (r == null) {
                    if (current.fromBlock() == 0 && current.rowsDone() == 0 && emitted == 0) {
                        out.add(splitId, BufferEvent.snapshotTable(shaper.shape(current.descriptor()))); // created though empty
                    }
                    cursor.close();
                    cursor = null;
                    reader.endChunk();
                    // a test holds a read chunk's rows here, its lock released, while DDL overtakes them
                    io.walshadow.clickhouse.Faults.at("snapshot.chunk.read " + current.descriptor().qualifiedName());
                    out.addFinishedSplit(splitId);
                    current = null;
                    break;
                }
                out.add(splitId, rows.change(r));
                emitted++;
            }
            return out.build();
        } catch (SQLException e) {
            String at = current == null ? "" : " (chunk " + current.splitId() + " of " + current.descriptor().qualifiedName()
                    + ")";
            throw new IOException("initial snapshot read failed" + at + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return out.build();
        }
    }

    /** Finishes the current chunk unread. */
    private RecordsWithSplitIds<BufferEvent> skip(RecordsBySplits.Builder<BufferEvent> out, String why) {
        LOG.info("initial snapshot: {} {}, chunk {} skipped", current.descriptor().qualifiedName(), why,
                current.splitId());
        if (reader != null) {
            try {
                reader.endChunk();
            } catch (SQLException e) {
                LOG.debug("ending a skipped chunk's transaction: {}", e.getMessage());
            }
        }
        out.addFinishedSplit(current.splitId());
        current = null;
        return out.build();
    }

    /** A TOAST chunk, whole, into its mirror (a restart copies it again: identical rows). */
    private void seedToast(SnapshotSplit split, LockedTable owner) throws SQLException, InterruptedException {
        if (seeder == null) {
            throw new IllegalStateException("TOAST chunk " + split.splitId() + " planned without ClickHouse settings");
        }
        int toastOid = split.descriptor().toastRelOid();
        String table = owner.toastName();
        if (table == null) {
            return; // its owner's storage is unchanged, so it still has one; never here
        }
        io.walshadow.clickhouse.Faults.at("snapshot.toast.seed");
        long started = System.nanoTime();
        try (SnapshotChunkReader.Cursor c = reader.cursor(table, "chunk_id, chunk_seq, chunk_data",
                new TidRange(split.fromBlock(), split.toBlock()), -1, 0)) {
            long n = seeder.copy(c, toastOid, split.version());
            LOG.info("TOAST mirror of {} ({}): chunk {} seeded, {} rows in {} ms", split.descriptor().qualifiedName(),
                    table, split.splitId(), n, (System.nanoTime() - started) / 1_000_000);
        }
    }

    /** A connection in the snapshot {@code id}. */
    private void reconnect(String id) throws SQLException {
        closeReader();
        reader = SnapshotChunkReader.open(pg, id, TextValues.SESSION_SETTINGS);
        io.walshadow.catalog.TypeCatalog types = TypeCatalogLoader.load(reader.connection());
        values = new TextValues(types);
        shaper = new io.walshadow.change.RowDecoder(new io.walshadow.types.ValueDecoder(types), undecodable);
        LOG.info("snapshot reader imported snapshot {}", id);
    }

    @Override
    public void handleSplitsChanges(SplitsChange<SnapshotSplit> change) {
        if (!(change instanceof SplitsAddition)) {
            throw new UnsupportedOperationException("unsupported splits change " + change.getClass().getSimpleName());
        }
        splits.addAll(change.splits());
    }

    @Override
    public void wakeUp() {
        name.wakeUp();
    }

    private void closeReader() {
        try {
            if (cursor != null) {
                cursor.close();
            }
            if (reader != null) {
                reader.close();
            }
        } catch (SQLException e) {
            LOG.debug("closing snapshot reader: {}", e.getMessage());
        }
        cursor = null;
        reader = null;
    }

    @Override
    public void close() {
        closeReader();
        if (seeder != null) {
            seeder.close();
        }
    }
}
