package io.walshadow.change;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.xact.XactRecord;
import java.util.List;

/**
 * A transaction control record (commit, abort, prepare, commit/abort prepared, assignment), with the catalog
 * changes a commit published: those apply, in WAL order, before any row of a later commit. Without a record it is
 * a marker: an initial-snapshot table ({@link BufferEvent#snapshotTable}) or the running-transactions horizon
 * ({@link BufferEvent#runningXacts}), whose {@code markerLsn} is the RUNNING_XACTS record's.
 */
public record XactEvent(XactRecord xact, List<CatalogChange> catalogChanges, long markerLsn) implements ChangeEvent {
    public XactEvent(XactRecord xact, List<CatalogChange> catalogChanges) {
        this(xact, catalogChanges, 0);
    }

    @Override
    public long lsn() {
        return xact != null ? xact.lsn() : markerLsn;
    }

    @Override
    public int xid() {
        return xact != null ? xact.recordXid() : 0;
    }
}
