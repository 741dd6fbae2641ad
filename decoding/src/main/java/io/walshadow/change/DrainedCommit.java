package io.walshadow.change;

import io.walshadow.catalog.CatalogChange;
import java.util.List;

/**
 * End of one drained transaction family, after its last {@link DrainedChange}: what a sink writes to its commit log.
 * Emitted for every commit that drained changes or published catalog changes (DDL-only transactions too, so the
 * DDL applies in commit order before any row of a later commit).
 *
 * @param gid the prepared transaction's GID for COMMIT PREPARED, else null
 * @param changes number of changes drained for it
 * @param firstLsn LSN of its first buffered record (0 when none was buffered)
 * @param catalogChanges the catalog changes the commit published (replicated relations added, altered, dropped)
 */
public record DrainedCommit(long commitSeq, long commitLsn, int xid, long commitTime, String gid, long changes,
                            long firstLsn, List<CatalogChange> catalogChanges) implements Drained {
    public DrainedCommit {
        catalogChanges = catalogChanges == null ? List.of() : List.copyOf(catalogChanges);
    }

    /** Whether the commit changed the schema of replicated relations. */
    public boolean schemaChange() {
        return !catalogChanges.isEmpty();
    }
}
