package io.walshadow.catalog;

import io.walshadow.catalog.Lookup.NotCoveredReason;

/**
 * How one relation's state changed at a boundary, for the DDL applicator: {@code before} and {@code after} are the
 * PRESENT descriptors (null when the relation was not covered, or ambiguous, on that side).
 *
 * @param ambiguity set when the relation is ambiguous from this boundary on
 * @param closedAs set when the relation stopped being covered here (DROPPED, EXCLUDED, NOT_LOGGED)
 * @param attachedWithRows the commit made a table the job did not follow until now a partition of a followed root
 *     (an ATTACH): the rows it held before are not in the WAL after its attach, so they must be copied from the
 *     heap (issue 26, docs/design/partitioned-tables.md section 4)
 */
public record CatalogChange(int relOid, RelationDescriptor before, RelationDescriptor after, Ambiguity ambiguity,
                            NotCoveredReason closedAs, boolean attachedWithRows) {

    public CatalogChange(int relOid, RelationDescriptor before, RelationDescriptor after, Ambiguity ambiguity,
                         NotCoveredReason closedAs) {
        this(relOid, before, after, ambiguity, closedAs, false);
    }

    /** The relation is new to the history (CREATE TABLE, or it entered the filter). */
    public boolean added() {
        return before == null && after != null;
    }

    /** The relation moved to a new relfilenode (TRUNCATE, rewrite): heap TIDs start over. */
    public boolean storageChanged() {
        return before != null && after != null && !before.locator().equals(after.locator());
    }
}
