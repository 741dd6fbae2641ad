package io.walshadow.buffer;

import java.util.List;

/**
 * End of one drained transaction family, after its last {@link DrainedChange}: what a sink writes to its commit log.
 * Emitted for every commit that drained changes or published catalog changes (DDL-only transactions too, so the
 * DDL applies in commit order before any row of a later commit).
 *
 * @param gid the prepared transaction's GID for COMMIT PREPARED, else null
 * @param changes number of changes drained for it
 * @param firstLsn LSN of its first buffered record (0 when none was buffered)
 * @param relations qualified names (schema.table, as of the commit) of the replicated relations the commit
 *     touched: rows, truncates and catalog changes; sorted, so a re-drain after a restore is identical
 * @param schemaChange whether the commit changed the schema of replicated relations (a {@link DrainedCatalog}
 *     preceded its changes)
 */
public record DrainedCommit(long commitSeq, long commitLsn, long fullXid, long commitTime, String gid, long changes,
                            long firstLsn, List<String> relations, boolean schemaChange) implements Drained {
    public DrainedCommit {
        relations = List.copyOf(relations);
    }

    /**
     * The end of a commit that drained nothing and changed no replicated schema: only there to tell
     * {@link CommitOrderOperator} that this commit sequence number is done (it cannot tell a commit that produced
     * nothing from one still on its way from another buffer subtask). It never goes past that operator.
     */
    public static DrainedCommit orderOnly(long commitSeq, long commitLsn, long fullXid, long commitTime) {
        return new DrainedCommit(commitSeq, commitLsn, fullXid, commitTime, null, 0, 0, List.of(), false);
    }

    /** Whether this is an {@link #orderOnly} end (a real one has a first LSN or a schema change). */
    public boolean isOrderOnly() {
        return firstLsn == 0 && !schemaChange && changes == 0 && relations.isEmpty();
    }
}
