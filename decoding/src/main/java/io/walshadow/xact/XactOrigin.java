package io.walshadow.xact;

import io.walshadow.wal.Lsn;

/**
 * Replication origin of a commit / abort-prepared / prepare: the origin node id from the record header
 * ({@code XLogRecGetOrigin}) and the {@code xl_xact_origin} pair (or the PREPARE header's origin fields): the
 * transaction's LSN and timestamp at the origin node.
 */
public record XactOrigin(int nodeId, long originLsn, long originTimestamp) {
    @Override
    public String toString() {
        return "XactOrigin[node=" + nodeId + ", lsn=" + Lsn.format(originLsn) + ", at=" + originTimestamp + "]";
    }
}
