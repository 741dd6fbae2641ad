package io.walshadow.catalog;

import java.util.LinkedHashMap;
import java.util.Map;

/** Plain counters of {@link CatalogTracker}, for the Flink layer to expose as metrics. Not persisted. */
public final class CatalogCounters {
    /** Commit boundaries applied. */
    long commits;
    /** Boundaries at or before the last one applied (re-read after a restart), ignored. */
    long boundariesSkipped;
    /** Catalog snapshot loads (one per boundary that refreshes anything, plus the seed). */
    long catalogRefreshes;
    /** Relations re-resolved from a load. */
    long relationsRefreshed;
    /** New PRESENT versions. */
    long versionsCreated;
    /** Relation refreshes that found catalog rows of transactions the stream has not reached. */
    long catalogAheadDetected;
    /** ... of which the descriptor at the boundary could still be established exactly. */
    long catalogAheadExact;
    /** ... of which it could not: ambiguous intervals opened (decoding in them fails closed). */
    long catalogAheadAmbiguous;
    /** Ambiguous relations that became PRESENT again. */
    long ambiguityResolved;
    /** Tracked relations found gone from the live catalog while their storage was not dropped yet in the stream. */
    long relationsVanished;
    /** Loads repeated because the live catalog did not yet show the boundary. */
    long catalogBehindRetries;
    /** Times the xid horizon advanced. */
    long horizonAdvances;
    /** Filter changes (scheduled by a restore with another filter) the stream reached. */
    long filterChangesApplied;
    /** Relations a filter change included (their history starts there). */
    long relationsEnteredFilter;
    /** Relations a filter change excluded (closed EXCLUDED). */
    long relationsLeftFilter;

    public long commits() {
        return commits;
    }

    public long boundariesSkipped() {
        return boundariesSkipped;
    }

    public long catalogRefreshes() {
        return catalogRefreshes;
    }

    public long relationsRefreshed() {
        return relationsRefreshed;
    }

    public long versionsCreated() {
        return versionsCreated;
    }

    public long catalogAheadDetected() {
        return catalogAheadDetected;
    }

    public long catalogAheadExact() {
        return catalogAheadExact;
    }

    public long catalogAheadAmbiguous() {
        return catalogAheadAmbiguous;
    }

    public long ambiguityResolved() {
        return ambiguityResolved;
    }

    public long relationsVanished() {
        return relationsVanished;
    }

    public long catalogBehindRetries() {
        return catalogBehindRetries;
    }

    public long horizonAdvances() {
        return horizonAdvances;
    }

    public long filterChangesApplied() {
        return filterChangesApplied;
    }

    public long relationsEnteredFilter() {
        return relationsEnteredFilter;
    }

    public long relationsLeftFilter() {
        return relationsLeftFilter;
    }

    /**
     * Tables that became partitions at a commit (ATTACH PARTITION) without any history here (the filter did not
     * include them on their own): the rows they held before are not in the WAL, and no copy of them is made yet.
     */
    long partitionsAttachedWithoutHistory;
    /** The newest of those, {@code schema.table -> root at LSN}, or null. */
    String lastPartitionAttachedWithoutHistory;

    public long partitionsAttachedWithoutHistory() {
        return partitionsAttachedWithoutHistory;
    }

    public String lastPartitionAttachedWithoutHistory() {
        return lastPartitionAttachedWithoutHistory;
    }

    /** Metric name to value. */
    public Map<String, Long> asMap() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("catalog_commits", commits);
        m.put("catalog_boundaries_skipped", boundariesSkipped);
        m.put("catalog_refreshes", catalogRefreshes);
        m.put("catalog_relations_refreshed", relationsRefreshed);
        m.put("catalog_versions_created", versionsCreated);
        m.put("catalog_ahead_detected", catalogAheadDetected);
        m.put("catalog_ahead_exact", catalogAheadExact);
        m.put("catalog_ahead_ambiguous", catalogAheadAmbiguous);
        m.put("catalog_ambiguity_resolved", ambiguityResolved);
        m.put("catalog_relations_vanished", relationsVanished);
        m.put("catalog_behind_retries", catalogBehindRetries);
        m.put("catalog_horizon_advances", horizonAdvances);
        m.put("catalog_filter_changes_applied", filterChangesApplied);
        m.put("catalog_relations_entered_filter", relationsEnteredFilter);
        m.put("catalog_relations_left_filter", relationsLeftFilter);
        m.put("catalog_partitions_attached_without_history", partitionsAttachedWithoutHistory);
        return m;
    }

    @Override
    public String toString() {
        return asMap().toString();
    }
}
