package io.walshadow.change;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.xact.XactRecord;
import java.util.List;

/**
 * A transaction control record (commit, abort, prepare, commit/abort prepared, assignment), with the catalog
 * changes a commit published: those apply, in WAL order, before any row of a later commit.
 */
public record XactEvent(XactRecord xact, List<CatalogChange> catalogChanges) implements ChangeEvent {
    @Override
    public long lsn() {
        return xact.lsn();
    }

    @Override
    public int xid() {
        return xact.recordXid();
    }
}
