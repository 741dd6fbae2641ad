package io.walshadow.buffer;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.TypeSet;
import java.util.List;

/**
 * The catalog changes a commit published (replicated relations added, altered, dropped, moved to new storage),
 * emitted before the commit's first {@link DrainedChange}: a sink applies them before any row that depends on them.
 * Rows the family wrote before its DDL still follow (with the descriptor they were written with); a sink maps them
 * into the new shape by attribute number. {@code types}: what the changed relations' columns need, as of the commit
 * ({@link BufferEvent#types()}).
 */
public record DrainedCatalog(long commitSeq, long commitLsn, long fullXid, long commitTime,
                             List<CatalogChange> changes, TypeSet types) implements Drained {
    public DrainedCatalog {
        changes = List.copyOf(changes);
        types = types == null ? TypeSet.EMPTY : types;
        if (changes.isEmpty()) {
            throw new IllegalArgumentException("a drained catalog event carries at least one change");
        }
    }

    public DrainedCatalog(long commitSeq, long commitLsn, long fullXid, long commitTime, List<CatalogChange> changes) {
        this(commitSeq, commitLsn, fullXid, commitTime, changes, TypeSet.EMPTY);
    }
}
