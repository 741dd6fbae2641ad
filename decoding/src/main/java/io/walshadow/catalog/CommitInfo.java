package io.walshadow.catalog;

import io.walshadow.wal.RelFileLocator;
import java.util.Set;

/**
 * What {@link CatalogTracker#onCommit} needs of a commit record ({@code XLOG_XACT_COMMIT}, or
 * {@code XLOG_XACT_COMMIT_PREPARED} with the prepared transaction's xid), as parsed by the xact layer.
 *
 * @param lsn start LSN of the commit record: the boundary; versions it creates answer for LSNs {@code >= lsn}
 * @param xid the committing top-level xid
 * @param subxids the record's committed subtransaction xids (authoritative, not XLOG_XACT_ASSIGNMENT)
 * @param dbOid the record's dbinfo database, 0 when the record has none
 * @param relcacheInvalOids relation oids of the record's relcache invalidation messages whose dbId is the
 *     configured database (plus any relation oids the caller learned from the transaction's catalog records)
 * @param refreshAll the record invalidates more than it names: a relcache message with relId 0 (all relations),
 *     a catcache invalidation of pg_namespace (schema renames change names without relcache messages), a
 *     shared-invalidation reset, or catalog records the caller could not attribute; every tracked and every
 *     included relation is refreshed
 * @param droppedLocators the record's relfilelocators (storage dropped at commit); required, possibly empty
 * @param createdLocators relfilenodes the transaction family created ({@code XLOG_SMGR_CREATE} records attributed
 *     to it); an optional hint that makes more lag cases exact, may be empty
 */
public record CommitInfo(long lsn, int xid, int[] subxids, int dbOid, Set<Integer> relcacheInvalOids,
                         boolean refreshAll, Set<RelFileLocator> droppedLocators,
                         Set<RelFileLocator> createdLocators) {

    public CommitInfo {
        subxids = subxids == null ? new int[0] : subxids.clone();
        relcacheInvalOids = relcacheInvalOids == null ? Set.of() : Set.copyOf(relcacheInvalOids);
        droppedLocators = droppedLocators == null ? Set.of() : Set.copyOf(droppedLocators);
        // not copied: the decoder's live set (read-only here, and only during onCommit); copying it at every commit
        // cost more than the rest of the commit's bookkeeping
        createdLocators = createdLocators == null ? Set.of() : java.util.Collections.unmodifiableSet(createdLocators);
    }

    /** A commit that touched no catalog and dropped no storage. */
    public static CommitInfo plain(long lsn, int xid, int dbOid) {
        return new CommitInfo(lsn, xid, null, dbOid, null, false, null, null);
    }

    boolean isOfTransaction(int x) {
        if (x == xid) {
            return true;
        }
        for (int s : subxids) {
            if (s == x) {
                return true;
            }
        }
        return false;
    }
}
