package io.walshadow.clickhouse;

import static io.walshadow.clickhouse.DestinationSchema.quote;

import io.walshadow.sink.SinkStep;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Executes {@link SinkStep}s against the destination database, each safe to repeat: a DDL step first looks at the
 * table and does only what is still missing (ClickHouse 18.16 has no {@code IF [NOT] EXISTS} for columns, and a
 * retried batch repeats the step that was running when the committer failed). After any change to a table's
 * columns or name, its views ({@code <table>__live}, {@code <table>__consistent}) are recreated (18.16 expands a
 * view's {@code *} at creation).
 */
public final class StepExecutor {
    private static final long MUTATION_TIMEOUT_MS = 600_000;

    private final ClickHouseSql ch;
    private final ServerCapabilities caps;
    private final Retrier retry;
    private final String db;
    private final String sinkId;

    /** @param sinkId whose visible mark the consistent views read */
    public StepExecutor(ClickHouseSql ch, ServerCapabilities caps, Retrier retry, String sinkId) {
        this.sinkId = java.util.Objects.requireNonNull(sinkId, "sinkId");
        this.ch = ch;
        this.caps = caps;
        this.retry = retry;
        this.db = ch.database();
    }

    /**
     * @param dedupToken identifies this step of this batch: on servers that deduplicate non-replicated inserts by
     *     token, a repeated INSERT of the same step inserts nothing
     */
    public void execute(SinkStep step, long batch, long attempt, String dedupToken) throws InterruptedException {
        String t = step.table();
        if (step instanceof SinkStep.Insert i) {
            String cols = String.join(", ", i.columns().stream().map(DestinationSchema::quote).toList());
            String settings = caps.insertDeduplicationToken() && caps.nonReplicatedDeduplicationWindow()
                    ? " SETTINGS insert_deduplication_token = " + ColumnCodec.quote(dedupToken) : "";
            sql("INSERT INTO " + name(t) + " (" + cols + ")" + settings + " SELECT " + cols + " FROM "
                    + name(i.stage()) + " WHERE " + SinkTables.stagedWhere(batch, i.segment(), attempt));
        } else if (step instanceof SinkStep.CreateTable c) {
            for (String suffix : SinkTables.VIEW_SUFFIXES) {
                if (t.endsWith(suffix) && "View".equals(engine(t))) {
                    throw new IllegalStateException("cannot create ClickHouse table " + db + "." + t + ": that name is"
                            + " a view of table " + t.substring(0, t.length() - suffix.length()) + " (a PostgreSQL"
                            + " table whose name ends in " + suffix + " next to one without the suffix); rename one"
                            + " of the two tables in PostgreSQL, or exclude one");
                }
            }
            sql(c.sql());
            if (!ToastMirror.isMirror(t)) {
                viewChanged(t);
            }
        } else if (step instanceof SinkStep.AddColumn a) {
            DestinationSchema.requireNotReserved(t, a.column());
            Map<String, String> cols = columns(t);
            if (!cols.containsKey(a.column())) {
                // after the last source column, so the replication columns stay at the end
                String after = null;
                for (String c : cols.keySet()) {
                    if (c.equals(DestinationSchema.LSN)) {
                        break;
                    }
                    after = c;
                }
                sql("ALTER TABLE " + name(t) + " ADD COLUMN " + (caps.addColumnIfNotExists() ? "IF NOT EXISTS " : "")
                        + quote(a.column()) + " " + a.type() + (a.defaultExpr().isEmpty() ? "" : " DEFAULT " + a.defaultExpr())
                        + (after == null ? "" : " AFTER " + quote(after)));
            }
            viewChanged(t);
        } else if (step instanceof SinkStep.DropColumn d) {
            if (columns(t).containsKey(d.column())) {
                sql("ALTER TABLE " + name(t) + " DROP COLUMN " + quote(d.column()));
            }
            viewChanged(t);
        } else if (step instanceof SinkStep.RenameColumn r) {
            DestinationSchema.requireNotReserved(t, r.to());
            renameColumn(r);
            viewChanged(t);
        } else if (step instanceof SinkStep.ModifyColumn m) {
            String type = columns(t).get(m.column());
            if (type != null && !type.equals(m.type())) {
                sql("ALTER TABLE " + name(t) + " MODIFY COLUMN " + quote(m.column()) + " " + m.type());
            }
            viewChanged(t);
        } else if (step instanceof SinkStep.ToastBarrier b) {
            if (exists(t)) {
                sql(ToastMirror.barrierSql(db, t, b.bornFrom(), b.lsn()));
            }
        } else if (step instanceof SinkStep.PartitionBarrier b) {
            if (exists(t)) {
                sql(DestinationSchema.partitionBarrierSql(db, b));
            }
        } else if (step instanceof SinkStep.CopyPartition c) {
            if (exists(t) && exists(c.to())) {
                String part = Integer.toUnsignedString(c.partition());
                // into a root from a table of no partitions: _partition is the attached table's oid
                boolean setPartition = c.intoRoot() && !c.into().contains(DestinationSchema.PARTITION);
                List<String> from = new ArrayList<>(c.from());
                int lsn = c.into().indexOf(DestinationSchema.LSN);
                if (lsn >= 0 && (c.intoRoot() || c.into().contains(DestinationSchema.PARTITION))) {
                    // into a root's table that may hold this partition's end from an earlier detach (barrier
                    // tombstones: _xid 0, _lsn = _commit_lsn): the rows come back above it, else it hides those
                    // unchanged since; every later change of theirs is above it too
                    from.set(lsn, "greatest(" + from.get(lsn) + ", (SELECT max(" + quote(DestinationSchema.LSN)
                            + ") + 1 FROM " + name(c.to()) + " WHERE " + quote(DestinationSchema.PARTITION) + " = "
                            + part + " AND " + quote(DestinationSchema.IS_DELETED) + " = 1 AND "
                            + quote(DestinationSchema.XID) + " = 0 AND " + quote(DestinationSchema.LSN) + " = "
                            + quote(DestinationSchema.COMMIT_LSN) + "))");
                }
                sql("INSERT INTO " + name(c.to()) + " (" + String.join(", ", c.into().stream()
                        .map(DestinationSchema::quote).toList()) + (setPartition ? ", " + quote(DestinationSchema
                        .PARTITION) : "") + ") SELECT " + String.join(", ", from) // expressions, quoted
                        + (setPartition ? ", toUInt32(" + part + ")" : "")
                        + " FROM " + name(t) + " FINAL"
                        // every version of a key has one _partition, so the filter cannot split a key's versions
                        + (c.intoRoot() ? "" : " WHERE " + quote(DestinationSchema.PARTITION) + " = " + part));
            }
        } else if (step instanceof SinkStep.CopyLive c) {
            if (exists(t) && exists(c.to())) {
                StringBuilder cols = new StringBuilder();
                for (String col : c.columns()) {
                    cols.append(cols.length() == 0 ? "" : ", ").append(quote(col));
                }
                sql("INSERT INTO " + name(c.to()) + " (" + cols + ") SELECT " + cols + " FROM " + name(t)
                        + " FINAL WHERE " + quote(DestinationSchema.IS_DELETED) + " = 0");
            }
        } else if (step instanceof SinkStep.RequestCopy r) {
            sql(CopyRequests.createSql(db));
            sql(CopyRequests.insertSql(db, r.sink(), r.relation(), r.root(), r.attachLsn()));
        } else if (step instanceof SinkStep.Truncate) {
            if (exists(t)) {
                sql("TRUNCATE TABLE " + name(t));
            }
        } else if (step instanceof SinkStep.DropTable) {
            dropViews(t);
            sql("DROP TABLE IF EXISTS " + name(t));
        } else if (step instanceof SinkStep.RenameTable r) {
            if (exists(t) && !exists(r.to())) {
                dropViews(t);
                sql("RENAME TABLE " + name(t) + " TO " + name(r.to()));
            }
            viewChanged(r.to());
        } else {
            throw new IllegalArgumentException("unknown step " + step);
        }
    }

    /** RENAME COLUMN where the server has it; else add the new column, copy (a mutation), drop the old one. */
    private void renameColumn(SinkStep.RenameColumn r) throws InterruptedException {
        Map<String, String> cols = columns(r.table());
        boolean from = cols.containsKey(r.from());
        boolean to = cols.containsKey(r.to());
        if (!from) {
            return; // done before (or the column is gone)
        }
        if (caps.renameColumn() && !to) {
            sql("ALTER TABLE " + name(r.table()) + " RENAME COLUMN " + quote(r.from()) + " TO " + quote(r.to()));
            return;
        }
        if (!to) {
            sql("ALTER TABLE " + name(r.table()) + " ADD COLUMN " + quote(r.to()) + " " + r.type() + " AFTER "
                    + quote(r.from()));
        }
        sql("ALTER TABLE " + name(r.table()) + " UPDATE " + quote(r.to()) + " = " + quote(r.from()) + " WHERE 1");
        awaitMutations(r.table());
        sql("ALTER TABLE " + name(r.table()) + " DROP COLUMN " + quote(r.from()));
    }

    private void awaitMutations(String table) throws InterruptedException {
        long deadline = System.currentTimeMillis() + MUTATION_TIMEOUT_MS;
        String q = "SELECT count() FROM system.mutations WHERE database = " + ColumnCodec.quote(db) + " AND table = "
                + ColumnCodec.quote(table) + " AND is_done = 0";
        while (!"0".equals(retry.call(q, () -> ch.queryString(q)))) {
            if (System.currentTimeMillis() > deadline) {
                throw new ClickHouseException(q, "mutation on " + table + " not done after "
                        + MUTATION_TIMEOUT_MS / 1000 + " s", null);
            }
            Thread.sleep(50);
        }
    }

    /** A step changed the table's columns or name: its views are rebuilt now, or at {@link #flushViews}. */
    private void viewChanged(String table) throws InterruptedException {
        if (deferViews) {
            pendingViews.add(table);
        } else {
            refreshView(table);
        }
    }

    /**
     * From now on, views are rebuilt once per table by {@link #flushViews} instead of after every column step: a
     * batch with a burst of DDL (a migration) would otherwise drop and create a view per ALTER.
     */
    public void deferViews() {
        deferViews = true;
    }

    /** Rebuilds the views of the tables the steps since the last flush changed, and of {@code also}. */
    public void flushViews(java.util.Collection<String> also) throws InterruptedException {
        pendingViews.addAll(also);
        for (String t : pendingViews) {
            refreshView(t);
        }
        pendingViews.clear();
    }

    private boolean deferViews;
    private final java.util.Set<String> pendingViews = new java.util.LinkedHashSet<>();

    /**
     * Recreates the table's views, with its columns as they are now: {@code __live} (the live rows: FINAL, no
     * tombstones) and {@code __consistent} ({@link SinkTables#consistentViewSql}).
     */
    public void refreshView(String table) throws InterruptedException {
        Shape shape = shape(table);
        dropViews(table);
        if (shape.columns.isEmpty()) {
            return;
        }
        sql("CREATE VIEW " + name(table + SinkTables.LIVE_SUFFIX) + " AS SELECT " + String.join(", ",
                shape.columns.stream().map(DestinationSchema::quote).toList()) + " FROM " + name(table) + " FINAL"
                + " WHERE " + quote(DestinationSchema.IS_DELETED) + " = 0");
        createConsistentView(table, shape);
    }

    /**
     * Creates the consistent view of each of these tables that has none: tables created by a build before the views
     * get theirs when the job starts instead of at their next schema change.
     */
    public void addMissingConsistentViews(java.util.Collection<String> tables) throws InterruptedException {
        String q = "SELECT name FROM system.tables WHERE database = " + ColumnCodec.quote(db);
        java.util.Set<String> names = new java.util.HashSet<>();
        for (String[] row : retry.call(q, () -> ch.queryTsv(q))) {
            names.add(row[0]);
        }
        for (String t : tables) {
            if (names.contains(t) && !names.contains(t + SinkTables.CONSISTENT_SUFFIX)) {
                createConsistentView(t, shape(t));
            }
        }
    }

    private void createConsistentView(String table, Shape shape) throws InterruptedException {
        if (!shape.key.isEmpty() && shape.columns.contains(DestinationSchema.COMMIT_LSN)) {
            sql(SinkTables.consistentViewSql(db, sinkId, table, shape.columns, shape.key));
        }
    }

    /** A table's columns in order and its sorting-key columns (the key its versions share); empty: no table. */
    private record Shape(List<String> columns, List<String> key) {}

    private Shape shape(String table) throws InterruptedException {
        String q = "SELECT name, is_in_sorting_key FROM system.columns WHERE database = " + ColumnCodec.quote(db)
                + " AND table = " + ColumnCodec.quote(table);
        List<String> columns = new ArrayList<>();
        List<String> key = new ArrayList<>();
        for (String[] row : retry.call(q, () -> ch.queryTsv(q))) {
            columns.add(row[0]);
            if ("1".equals(row[1])) {
                key.add(row[0]);
            }
        }
        return new Shape(columns, key);
    }

    /** Column name to type, in table order; empty when the table does not exist. */
    public Map<String, String> columns(String table) throws InterruptedException {
        String q = "SELECT name, type FROM system.columns WHERE database = " + ColumnCodec.quote(db)
                + " AND table = " + ColumnCodec.quote(table);
        Map<String, String> cols = new LinkedHashMap<>();
        for (String[] row : retry.call(q, () -> ch.queryTsv(q))) {
            cols.put(row[0], row[1]);
        }
        return cols;
    }

    /**
     * Drops the table's views. Anything else under one of their names is the destination of another PostgreSQL table
     * (one named {@code <table>__live}, say): never dropped, the job stops naming both.
     */
    private void dropViews(String table) throws InterruptedException {
        String q = "SELECT name, engine FROM system.tables WHERE database = " + ColumnCodec.quote(db) + " AND name IN ("
                + String.join(", ", SinkTables.VIEW_SUFFIXES.stream().map(v -> ColumnCodec.quote(table + v)).toList())
                + ")";
        for (String[] row : retry.call(q, () -> ch.queryTsv(q))) {
            if (!row[1].equals("View")) {
                throw new IllegalStateException("ClickHouse table " + db + "." + row[0] + " (engine " + row[1] + ") is"
                        + " where table " + table + "'s " + row[0].substring(table.length() + 2) + " view goes; it is"
                        + " not a view (the destination of a PostgreSQL table named like it?) and is left as it is:"
                        + " rename one of the two tables in PostgreSQL, or exclude one");
            }
            sql("DROP TABLE IF EXISTS " + name(row[0]));
        }
    }

    /** The table's engine, null when there is none of that name. */
    private String engine(String table) throws InterruptedException {
        String q = "SELECT engine FROM system.tables WHERE database = " + ColumnCodec.quote(db) + " AND name = "
                + ColumnCodec.quote(table);
        List<String[]> rows = retry.call(q, () -> ch.queryTsv(q));
        return rows.isEmpty() ? null : rows.get(0)[0];
    }

    public boolean exists(String table) throws InterruptedException {
        return engine(table) != null;
    }

    public void sql(String sql) throws InterruptedException {
        retry.run(sql, () -> ch.execute(sql));
    }

    private String name(String table) {
        return quote(db) + "." + quote(table);
    }
}
