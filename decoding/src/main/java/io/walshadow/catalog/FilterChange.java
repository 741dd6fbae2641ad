package io.walshadow.catalog;

import io.walshadow.wal.Lsn;

/**
 * A change of the catalog filter that a restored job makes at a WAL position: from {@code lsn} on, the relations
 * {@code filterSpec} includes are replicated and the others are not. Relations it newly includes start their
 * history at {@code lsn}; their earlier rows come from a snapshot versioned {@code lsn - 1}, which is why the
 * position is taken like a start point: {@code pg_current_snapshot()} ({@code running}), then the insert LSN.
 *
 * @param filterSpec {@link CatalogFilter#spec()} of the new filter
 * @param running the transactions running at {@code lsn}: catalog rows of others are as of {@code lsn}
 */
public record FilterChange(String filterSpec, long lsn, CatalogSnapshot.Xids running) {

    @Override
    public String toString() {
        return filterSpec + " at " + Lsn.format(lsn);
    }
}
