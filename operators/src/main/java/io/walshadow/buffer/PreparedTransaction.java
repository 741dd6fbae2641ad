package io.walshadow.buffer;

import io.walshadow.wal.Lsn;
import java.time.Instant;

/**
 * A prepared transaction family the transaction buffer holds (between PREPARE TRANSACTION and its COMMIT / ROLLBACK
 * PREPARED), as the start-up log and the offline listing report it.
 *
 * @param gid its GID
 * @param xid its top-level xid (the buffer's key)
 * @param changes buffered entries (a deferred record counts once, whatever rows it decodes to)
 * @param firstLsn LSN of its first buffered record
 * @param preparedAt the PREPARE record's prepared_at; null when unknown (state written before it was kept)
 */
public record PreparedTransaction(String gid, int xid, long changes, long firstLsn, Instant preparedAt) {

    @Override
    public String toString() {
        return "gid '" + gid + "' xid " + Integer.toUnsignedString(xid) + ", " + changes + " changes, first LSN "
                + Lsn.format(firstLsn) + ", prepared " + (preparedAt == null ? "(unknown)" : preparedAt.toString());
    }
}
