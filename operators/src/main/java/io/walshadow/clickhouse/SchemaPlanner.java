package io.walshadow.clickhouse;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.Lookup;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.catalog.TypeCatalog;
import io.walshadow.sink.DestTable;
import io.walshadow.sink.SinkStep;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.Lsn;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns one published catalog change of a replicated relation into the destination's DDL steps and its new shape.
 *
 * <ul>
 *   <li>new relation (CREATE TABLE, entered the filter): create its table;
 *   <li>DROP TABLE: drop the destination, or with the {@code retain} policy rename it to
 *       {@code <dest>__dropped_<commit LSN>} (the name is free for a new table of the same name);
 *   <li>left the filter, became unlogged: the destination stays as it is and gets no more rows;
 *   <li>renamed table or schema: rename the destination;
 *   <li>the key lost (DROP PRIMARY KEY, REPLICA IDENTITY NOTHING or USING another index): the destination is
 *       re-keyed by TID (a new table filled with the live rows, which carry their TIDs);
 *   <li>columns by attribute number: added (with the column's missing value as DEFAULT, so rows written before it
 *       read what PostgreSQL reads), dropped, renamed, type changed. A sorting-key column keeps its ClickHouse name
 *       and type (ClickHouse can neither rename nor drop one, nor change its type in place);
 *   <li>a rewrite (new storage and changed columns: ALTER COLUMN TYPE, ADD COLUMN with a volatile default; or new
 *       storage of a table keyed by TID: VACUUM FULL, CLUSTER, whose copied rows the decoder re-inserts from the
 *       pages they write whole): the rewrite re-inserts every live row, so the destination is emptied first
 *       (recreated when a key column's type changed) and the family's changes on the old storage are superseded
 *       ({@link Plan#supersedeOldStorage}).
 * </ul>
 */
public final class SchemaPlanner {
    /** What to do for the change; {@code table} null when the relation is no longer replicated to a table. */
    public record Plan(List<SinkStep> steps, DestTable table, boolean supersedeOldStorage, boolean storageMoved) {}

    private final String database;
    private final ServerCapabilities caps;
    private final boolean dropTables;

    /** @param dropTables DROP TABLE drops the destination (true) or renames it out of the way (false: retain) */
    public SchemaPlanner(String database, ServerCapabilities caps, boolean dropTables) {
        this.database = database;
        this.caps = caps;
        this.dropTables = dropTables;
    }

    /** A table seen for the first time (its first row, or a CREATE TABLE). */
    public Plan create(RelationDescriptor d, TypeCatalog types) {
        DestTable t = DestinationSchema.newTable(d, types, caps);
        return new Plan(List.of(new SinkStep.CreateTable(t.destName(), DestinationSchema.createTableSql(t, caps,
                database))), t, false, false);
    }

    /**
     * @param current the destination as the sink knows it, or null when it has none yet
     * @param values decodes missing values for DEFAULT literals
     */
    public Plan plan(DestTable current, CatalogChange ch, long commitLsn, TypeCatalog types, ValueDecoder values) {
        RelationDescriptor after = ch.after();
        if (after == null) {
            if (current == null) {
                return new Plan(List.of(), null, false, false);
            }
            if (ch.closedAs() == Lookup.NotCoveredReason.DROPPED) {
                SinkStep step = dropTables ? new SinkStep.DropTable(current.destName())
                        : new SinkStep.RenameTable(current.destName(), current.destName() + "__dropped_"
                                + Lsn.format(commitLsn).replace('/', '_'));
                return new Plan(List.of(step), null, false, false);
            }
            return new Plan(List.of(), null, false, false); // excluded, unlogged, ambiguous: no more rows
        }
        if (current == null) {
            return create(after, types);
        }
        List<SinkStep> steps = new ArrayList<>();
        String dest = current.destName();
        String newName = DestinationSchema.tableName(after);
        if (!newName.equals(dest)) {
            steps.add(new SinkStep.RenameTable(dest, newName));
            dest = newName;
        }
        RelationDescriptor before = current.shape();
        boolean storageChanged = !before.locator().equals(after.locator());
        boolean columnsChanged = !sameColumns(before, after);
        // new storage with rows re-inserted: a rewrite of columns (ALTER TYPE), or any copy into new TIDs (VACUUM
        // FULL, CLUSTER) of a table whose rows ClickHouse identifies by TID
        boolean rewrite = storageChanged && (columnsChanged || current.keyedByTid());
        boolean identityLost = !current.keyedByTid() && !stillKeyed(current, after, types);
        if (rewrite && (identityLost || keyTypeChanged(current, after, types))) {
            // ClickHouse cannot change a sorting-key column's type (nor the sorting key): start over, the rewrite
            // refills the table.
            DestTable t = DestinationSchema.newTable(after, types, caps);
            t = new DestTable(dest, t.shape(), t.chNames(), t.chTypes(), t.keyedByTid(), t.keyAttnums(), t.tids());
            steps.add(new SinkStep.DropTable(dest));
            steps.add(new SinkStep.CreateTable(dest, DestinationSchema.createTableSql(t, caps, database)));
            return new Plan(steps, t, true, true);
        }
        if (identityLost) {
            current = rekeyByTid(current, dest, after, steps);
        }
        if (rewrite) {
            steps.add(new SinkStep.Truncate(dest));
        }
        List<String> names = new ArrayList<>();
        List<String> chTypes = new ArrayList<>();
        RowEncoder defaults = null;
        for (Column c : after.columns()) {
            int a = c.attnum();
            String oldName = current.chName(a);
            String oldType = a <= current.chTypes().size() ? current.chTypes().get(a - 1) : null;
            boolean key = !current.keyedByTid() && current.keyAttnums().contains(a);
            if (key) {
                names.add(oldName); // sorting-key columns keep name and type whatever PostgreSQL does
                chTypes.add(oldType);
                continue;
            }
            if (c.dropped()) {
                if (oldName != null) {
                    steps.add(new SinkStep.DropColumn(dest, oldName));
                }
                names.add(null);
                chTypes.add(null);
                continue;
            }
            String type = TypeMapping.columnType(c, types, caps);
            if (oldType != null && oldType.equals("Nullable(" + type + ")")) {
                // SET NOT NULL (or a primary key): older rows and tombstones may hold NULLs, which a non-Nullable
                // column cannot take; the column stays Nullable
                type = oldType;
            }
            if (oldName == null) {
                if (defaults == null) {
                    defaults = new RowEncoder(withShape(current, after, types), types, values, (r, col) -> { });
                }
                steps.add(new SinkStep.AddColumn(dest, c.name(), type, defaults.defaultLiteral(a)));
            } else {
                if (!oldName.equals(c.name())) {
                    steps.add(new SinkStep.RenameColumn(dest, oldName, c.name(), oldType));
                }
                if (!type.equals(oldType)) {
                    // after a rewrite's TRUNCATE the table is empty: the change converts nothing, and the column
                    // keeps its place
                    steps.add(new SinkStep.ModifyColumn(dest, c.name(), type));
                }
            }
            names.add(c.name());
            chTypes.add(type);
        }
        DestTable t = new DestTable(dest, after, names, chTypes, current.keyedByTid(), current.keyAttnums(),
                current.tids());
        return new Plan(steps, t, rewrite, storageChanged);
    }

    /**
     * Whether the destination's key still identifies the relation's rows: the identity PostgreSQL logs for UPDATE and
     * DELETE is still those columns (not dropped with the primary key, moved to another index, or NOTHING).
     */
    private boolean stillKeyed(DestTable current, RelationDescriptor after, TypeCatalog types) {
        return !DestinationSchema.keyedByTid(after, types, caps) && after.identityAttnums().equals(current.keyAttnums());
    }

    /**
     * The relation lost the identity its destination is keyed by (DROP PRIMARY KEY, REPLICA IDENTITY NOTHING or
     * USING another index): from here on its UPDATEs and DELETEs name rows by heap TID only. A new table keyed by TID
     * takes the live rows (each carries the TID of its newest version) and the destination's name.
     */
    private DestTable rekeyByTid(DestTable current, String dest, RelationDescriptor after, List<SinkStep> steps) {
        if (!current.tids()) {
            throw new IllegalStateException("the primary key / replica identity of " + after.qualifiedName()
                    + " changed: ClickHouse table " + dest + " is keyed by " + current.keyAttnums() + " and was created"
                    + " without the rows' TIDs (by an earlier build), so it cannot be re-keyed. Exclude the table,"
                    + " drop its destination and include it again (tables.include / tables.exclude) to copy it anew");
        }
        DestTable rekeyed = new DestTable(dest, current.shape(), current.chNames(), current.chTypes(), true, List.of(),
                true);
        String tmp = dest + "__rekey";
        DestTable staging = new DestTable(tmp, current.shape(), current.chNames(), current.chTypes(), true, List.of(),
                true);
        steps.add(new SinkStep.DropTable(tmp)); // left by an interrupted re-key
        steps.add(new SinkStep.CreateTable(tmp, DestinationSchema.createTableSql(staging, caps, database)));
        steps.add(new SinkStep.CopyLive(dest, tmp, SinkTables.columns(current)));
        steps.add(new SinkStep.DropTable(dest));
        steps.add(new SinkStep.RenameTable(tmp, dest));
        return rekeyed;
    }

    /** A shape with every live column of {@code after} mapped, to render the missing values of added columns. */
    private DestTable withShape(DestTable current, RelationDescriptor after, TypeCatalog types) {
        List<String> names = new ArrayList<>();
        List<String> chTypes = new ArrayList<>();
        for (Column c : after.columns()) {
            names.add(c.dropped() ? null : c.name());
            chTypes.add(c.dropped() ? null : TypeMapping.columnType(c, types, caps));
        }
        return new DestTable(current.destName(), after, names, chTypes, current.keyedByTid(), List.of(), current.tids());
    }

    private static boolean sameColumns(RelationDescriptor a, RelationDescriptor b) {
        if (a.natts() != b.natts()) {
            return false;
        }
        for (int i = 0; i < a.natts(); i++) {
            Column x = a.columns().get(i);
            Column y = b.columns().get(i);
            if (x.dropped() != y.dropped() || x.typeOid() != y.typeOid() || x.typmod() != y.typmod()
                    || !x.name().equals(y.name()) || x.notNull() != y.notNull()) {
                return false;
            }
        }
        return true;
    }

    private boolean keyTypeChanged(DestTable current, RelationDescriptor after, TypeCatalog types) {
        if (current.keyedByTid()) {
            return false;
        }
        for (int a : current.keyAttnums()) {
            Column c = a <= after.natts() ? after.column(a) : null;
            if (c == null || c.dropped() || !TypeMapping.columnType(c, types, caps).equals(current.chTypes().get(a - 1))) {
                return true;
            }
        }
        return false;
    }
}
