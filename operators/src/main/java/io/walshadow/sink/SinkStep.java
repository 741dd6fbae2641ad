package io.walshadow.sink;

import java.util.List;

/**
 * One step of a sink batch, executed in order by the committer once the batch's checkpoint completed. DDL steps are
 * written so that running them again on a table they already changed is a no-op (they check the table first);
 * {@link Insert} steps are idempotent by the destination engine (byte-identical rows, {@code ReplacingMergeTree}).
 */
public sealed interface SinkStep {
    /** Destination table the step acts on. */
    String table();

    /** {@code CREATE TABLE IF NOT EXISTS}; {@code sql} is the full statement. */
    record CreateTable(String table, String sql) implements SinkStep {}

    /** Adds a column unless present; {@code defaultExpr} empty for none. */
    record AddColumn(String table, String column, String type, String defaultExpr) implements SinkStep {}

    /** Drops a column if present. */
    record DropColumn(String table, String column) implements SinkStep {}

    /** Renames a non-key column (natively, or as add + copy + drop on servers without RENAME COLUMN). */
    record RenameColumn(String table, String from, String to, String type) implements SinkStep {}

    /** Changes a column's type if it differs. */
    record ModifyColumn(String table, String column, String type) implements SinkStep {}

    /** Empties the table (TRUNCATE in the source, or a rewrite that gives every row a new TID). */
    record Truncate(String table) implements SinkStep {}

    /** Drops the table if it exists. */
    record DropTable(String table) implements SinkStep {}

    /** Renames {@code table} to {@code to} if it still has the old name. */
    record RenameTable(String table, String to) implements SinkStep {}

    /**
     * Closes a rewritten generation of a TOAST mirror (VACUUM FULL / CLUSTER moved every chunk to a new TID with
     * the same value ids): every TID still live whose newest version is older than {@code bornFrom} (the rewriting
     * transaction's first record, before all of the new generation's births) was not reborn, and gets a tombstone at
     * {@code lsn}. Run after the generation's births; a repeat finds nothing older than {@code bornFrom} left.
     */
    record ToastBarrier(String table, long bornFrom, long lsn) implements SinkStep {}

    /**
     * Ends a partition's rows in its partitioned table's destination (the partition was truncated, dropped, detached
     * or rewritten): every key whose newest version was written in {@code partition}, is live and older than
     * {@code below} gets a tombstone at {@code lsn}. A row that moved to another partition is untouched (its newest
     * version is the other partition's). A repeat finds nothing left to end.
     *
     * @param key the destination's key columns (its ORDER BY)
     */
    record PartitionBarrier(String table, int partition, List<String> key, long below, long lsn) implements SinkStep {
        public PartitionBarrier {
            key = List.copyOf(key);
        }
    }

    /**
     * Moves a partition's rows between its own table and its root's: the newest version of each key, tombstones too
     * (an initial-snapshot row that arrives late, older than a tombstone, must stay superseded), versions and TIDs
     * kept, each {@code from} select expression (quoted column names) into the {@code into} column at the same
     * position. Out of the root ({@code intoRoot} false): a
     * detached partition's table starts with exactly its rows as of the detach (those with {@code _partition =
     * partition}), the root's table having every earlier commit. Into the root: a table replicated on its own until
     * it was attached gives its rows to the root's table, {@code _partition} set. A repeat copies the same rows at the
     * same versions, which ReplacingMergeTree folds.
     */
    record CopyPartition(String table, String to, int partition, boolean intoRoot, List<String> from,
                         List<String> into) implements SinkStep {
        public CopyPartition {
            from = List.copyOf(from);
            into = List.copyOf(into);
            if (from.size() != into.size()) {
                throw new IllegalArgumentException("columns from " + from + " into " + into);
            }
        }
    }

    /**
     * Copies the live rows (newest version of each key, not deleted) of {@code table} into {@code to}, columns by
     * name: a destination re-keyed by TID is filled from the old one. A repeat copies the same rows at the same
     * versions, which ReplacingMergeTree folds.
     */
    record CopyLive(String table, String to, List<String> columns) implements SinkStep {
        public CopyLive {
            columns = List.copyOf(columns);
        }
    }

    /**
     * Records in {@code table} ({@link io.walshadow.clickhouse.CopyRequests}) that the rows {@code relation} held
     * when it was attached to {@code root} at {@code attachLsn} are to be copied from PostgreSQL (they are not in
     * the WAL). The snapshot's coordinator plans the copy once the request is there. A repeat writes the same row.
     */
    record RequestCopy(String table, String sink, int relation, int root, long attachLsn) implements SinkStep {}

    /**
     * Copies the rows of one segment of the batch from a staging table into {@code table}.
     *
     * @param columns the destination columns, which the staging table has under the same names
     */
    record Insert(String table, String stage, List<String> columns, int segment, long rows) implements SinkStep {
        public Insert {
            columns = List.copyOf(columns);
        }
    }
}
