package io.walshadow.catalog;

import java.util.Set;

/**
 * Reads the catalog: {@link io.walshadow.catalog.shadow.ShadowCatalogSource} as of the stream's position, and
 * {@code io.walshadow.pg.JdbcCatalogSource} (the operators' PostgreSQL kit) the live one over JDBC; tests fake it.
 */
public interface CatalogSource {

    /**
     * Reads, in one snapshot: the heap relations (relkind {@code r}, {@code t}) among {@code relOids}, whatever the
     * filter says of them (oids that are gone, or are not heap relations, are simply absent); when
     * {@code allIncluded}, every relation the filter includes as well; and the TOAST tables of every included
     * relation returned.
     */
    CatalogSnapshot load(Set<Integer> relOids, boolean allIncluded) throws CatalogReadException;

    /** The same catalog, with {@code filter} deciding what is included (a restored job's filter changes at a point). */
    CatalogSource withFilter(CatalogFilter filter);

    /**
     * Whether the last commit the source has seen changed the pg_class row of a relation that existed before that
     * transaction (as opposed to one it created): an ATTACH PARTITION of an existing table, say. False when the
     * source cannot tell (the live catalog).
     */
    default boolean existedBeforeLastCommit(int relOid) {
        return false;
    }

    /** Whether the last commit the source has seen created the relation. False when the source cannot tell. */
    default boolean createdByLastCommit(int relOid) {
        return false;
    }

    /**
     * The partitioned tables between a partition and its root, its parent first (empty for a partition of the root
     * itself, or when the source cannot tell): the table an ATTACH of a sub-partitioned table names is one of them.
     */
    default java.util.List<Integer> partitionedAbove(int relOid) {
        return java.util.List.of();
    }
}
