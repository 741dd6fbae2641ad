package io.walshadow.catalog;

import io.walshadow.wal.RelFileLocator;
import java.util.List;

/**
 * What decoding a relation's heap records needs, as of one catalog state.
 *
 * @param locator tablespace/database/relfilenode the relation's heap records carry
 * @param columns every attribute with attnum > 0 in attnum order, dropped ones included (they still occupy
 *     tuple positions)
 * @param identityAttnums primary key (or REPLICA IDENTITY index) columns; empty when the table has none, and then
 *     the heap TID is the row identity
 * @param replicaIdentity relreplident: 'd' default, 'n' nothing, 'f' full, 'i' index
 * @param relkind 'r', 'p', 't' (toast), 'm', ...
 * @param relpersistence 'p' permanent, 'u' unlogged, 't' temp
 * @param toastRelOid reltoastrelid, 0 if none
 * @param partition the root this partition's rows replicate through, or null: not a partition, or partitions are
 *     replicated as tables of their own ({@link CatalogFilter#partitionRoots()})
 */
public record RelationDescriptor(int relOid, RelFileLocator locator, String schema, String name, char relkind,
                                 char relpersistence, char replicaIdentity, int toastRelOid, List<Column> columns,
                                 List<Integer> identityAttnums, PartitionOf partition) {

    /** A relation that is not routed through a partition root. */
    public RelationDescriptor(int relOid, RelFileLocator locator, String schema, String name, char relkind,
                              char relpersistence, char replicaIdentity, int toastRelOid, List<Column> columns,
                              List<Integer> identityAttnums) {
        this(relOid, locator, schema, name, relkind, relpersistence, replicaIdentity, toastRelOid, columns,
                identityAttnums, null);
    }

    /** This descriptor routed through {@code p} (or through nothing, when null). */
    public RelationDescriptor withPartition(PartitionOf p) {
        return new RelationDescriptor(relOid, locator, schema, name, relkind, relpersistence, replicaIdentity,
                toastRelOid, columns, identityAttnums, p);
    }

    /** A partitioned table (no storage of its own), tracked as the destination of its partitions. */
    public boolean isPartitionedTable() {
        return relkind == 'p';
    }

    public int natts() {
        return columns.size();
    }

    public Column column(int attnum) {
        return columns.get(attnum - 1);
    }

    public String qualifiedName() {
        return schema + "." + name;
    }
}
