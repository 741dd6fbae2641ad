package io.walshadow.catalog;

import io.walshadow.catalog.Lookup.NotCoveredReason;

/**
 * How one relation's state changed at a boundary, for the DDL applicator: {@code before} and {@code after} are the
 * PRESENT descriptors (null when the relation was not covered, or ambiguous, on that side).
 *
 * @param ambiguity set when the relation is ambiguous from this boundary on
 * @param closedAs set when the relation stopped being covered here (DROPPED, EXCLUDED, NOT_LOGGED)
 */
public record CatalogChange(int relOid, RelationDescriptor before, RelationDescriptor after, Ambiguity ambiguity,
                            NotCoveredReason closedAs) {

    /** The relation is new to the history (CREATE TABLE, or it entered the filter). */
    public boolean added() {
        return before == null && after != null;
    }

    /** The relation moved to a new relfilenode (TRUNCATE, rewrite): heap TIDs start over. */
    public boolean storageChanged() {
        return before != null && after != null && !before.locator().equals(after.locator());
    }
}
