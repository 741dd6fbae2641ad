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
 */
public record RelationDescriptor(int relOid, RelFileLocator locator, String schema, String name, char relkind,
                                 char relpersistence, char replicaIdentity, int toastRelOid, List<Column> columns,
                                 List<Integer> identityAttnums) {

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
