package io.walshadow.catalog;

import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;

/**
 * The answer of {@link DescriptorHistory#lookup}: which relation a relfilenode is at an LSN.
 *
 * @param descriptor set when {@link Outcome#PRESENT}
 * @param validFrom, validTo the version's interval [validFrom, validTo) ({@link DescriptorHistory#OPEN} = open);
 *     set for PRESENT and AMBIGUOUS
 * @param reason set when {@link Outcome#NOT_COVERED}
 * @param ambiguity set when {@link Outcome#AMBIGUOUS}
 */
public record Lookup(Outcome outcome, RelFileLocator locator, long lsn, RelationDescriptor descriptor,
                     long validFrom, long validTo, NotCoveredReason reason, Ambiguity ambiguity) {

    public enum Outcome {
        /** A replicated relation with a known descriptor. */
        PRESENT,
        /** Not replicated at that LSN (see {@link NotCoveredReason}): its records are skipped. */
        NOT_COVERED,
        /** The relfilenode belongs to another database of the cluster: skipped. */
        FOREIGN_DB,
        /** A replicated relation whose descriptor at that LSN is unknown: decoding must fail closed. */
        AMBIGUOUS
    }

    public enum NotCoveredReason {
        /** Never a replicated relation in the history: not included, not a heap table, or created later. */
        UNKNOWN,
        /** Before the history's start (or pruned part). */
        BEFORE_HISTORY,
        /** The relation was dropped. */
        DROPPED,
        /** The relation left the filter (rename, set schema). */
        EXCLUDED,
        /** The relation moved to another relfilenode (TRUNCATE, rewrite, VACUUM FULL, CLUSTER). */
        REPLACED,
        /** The relation became unlogged or temporary: its rows are not in the WAL. */
        NOT_LOGGED,
        /** A shared catalog (database oid 0). */
        SHARED_CATALOG
    }

    public boolean isPresent() {
        return outcome == Outcome.PRESENT;
    }

    /**
     * The descriptor to decode with; null when the record is to be skipped (NOT_COVERED, FOREIGN_DB).
     *
     * @throws CatalogAheadException when AMBIGUOUS
     */
    public RelationDescriptor descriptorOrSkip() {
        switch (outcome) {
            case PRESENT:
                return descriptor;
            case AMBIGUOUS:
                throw new CatalogAheadException(locator, lsn, ambiguity);
            default:
                return null;
        }
    }

    static Lookup notCovered(RelFileLocator loc, long lsn, NotCoveredReason reason) {
        return new Lookup(Outcome.NOT_COVERED, loc, lsn, null, 0, 0, reason, null);
    }

    @Override
    public String toString() {
        String where = (locator == null ? "?" : locator.toString()) + "@" + Lsn.format(lsn);
        switch (outcome) {
            case PRESENT:
                return "PRESENT " + where + " " + descriptor.qualifiedName() + " [" + Lsn.format(validFrom) + ", "
                        + (validTo == DescriptorHistory.OPEN ? "open" : Lsn.format(validTo)) + ")";
            case AMBIGUOUS:
                return "AMBIGUOUS " + where + " " + ambiguity;
            case NOT_COVERED:
                return "NOT_COVERED " + where + " " + reason;
            default:
                return outcome + " " + where;
        }
    }
}
