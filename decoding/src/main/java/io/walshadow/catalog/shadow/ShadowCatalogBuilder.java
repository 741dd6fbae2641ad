package io.walshadow.catalog.shadow;

import io.walshadow.wal.RelFileLocator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * A {@link ShadowCatalog} from one consistent read of the live catalog, the bootstrap's (the SQL read itself is the
 * operators' {@code io.walshadow.pg.CatalogBootstrap}): each catalog's layout and storage, then its tuples, each with
 * its {@code ctid} and {@code xmin}, as committed rows; pages stay unknown until the WAL shows them whole.
 */
public final class ShadowCatalogBuilder {
    private final int dbOid;
    private final int dbTablespace;
    private final long redoLsn;
    private final long startLsn;
    private final EnumMap<SystemCatalog, CatalogLayout> layouts;
    private final Set<SystemCatalog> mapped = EnumSet.noneOf(SystemCatalog.class);
    private final Map<SystemCatalog, RelFileLocator> storage = new EnumMap<>(SystemCatalog.class);
    private final Map<Integer, Integer> relmap = new HashMap<>();
    private final Map<SystemCatalog, RelationMirror> mirrors = new EnumMap<>(SystemCatalog.class);

    /**
     * @param redoLsn {@code R}: the redo point the shadow follows the WAL from
     * @param startLsn {@code S}: the read's position; from here on the shadow is the catalog as of every record
     * @param layouts every catalog's tuple layout, from the server's own pg_attribute
     */
    public ShadowCatalogBuilder(int dbOid, int dbTablespace, long redoLsn, long startLsn,
                                EnumMap<SystemCatalog, CatalogLayout> layouts) {
        this.dbOid = dbOid;
        this.dbTablespace = dbTablespace;
        this.redoLsn = redoLsn;
        this.startLsn = startLsn;
        this.layouts = layouts;
    }

    /**
     * Where a catalog is stored ({@code pg_relation_filenode}); {@code mapped} when the relation map names its storage
     * ({@code pg_class.relfilenode} is 0). Before its tuples.
     */
    public void storage(SystemCatalog c, RelFileLocator locator, boolean mapped) {
        storage.put(c, locator);
        if (mapped) {
            this.mapped.add(c);
            relmap.put(c.oid(), locator.relNumber());
        }
    }

    /** A tuple of {@code c} at {@code (block, offset)}, its columns read from {@code fields}. */
    public void tuple(SystemCatalog c, long block, int offset, int xmin, CatalogRow.Fields fields) {
        CatalogRow row = c.row(fields);
        mirror(c).put(RelationMirror.tid(block, offset),
                new ShadowTuple(xmin, true, 0, 0, 0, null, row.relevant() ? row : null));
    }

    public ShadowCatalog build() {
        ShadowCatalog shadow = new ShadowCatalog(dbOid, dbTablespace, redoLsn, startLsn, layouts, mapped);
        shadow.relmap.putAll(relmap);
        for (SystemCatalog c : SystemCatalog.values()) {
            shadow.addMirror(mirror(c), true);
        }
        return shadow;
    }

    private RelationMirror mirror(SystemCatalog c) {
        return mirrors.computeIfAbsent(c, k -> new RelationMirror(k, storage.get(k)));
    }
}
