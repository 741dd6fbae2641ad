package io.walshadow.catalog;

import io.walshadow.wal.RelFileLocator;
import java.util.List;

/**
 * A heap relation (relkind {@code r} or {@code t}) as the live catalog shows it, with the {@code xmin} of every
 * catalog row its descriptor is built from, so that {@link CatalogTracker} can tell which parts of it the stream
 * has not reached yet.
 *
 * @param classXmin xmin of the pg_class row
 * @param nspXmin xmin of the pg_namespace row
 * @param relnatts pg_class.relnatts
 * @param locator tablespace (the database default resolved), database, {@code pg_relation_filenode()}
 * @param toastClassXmin xmin of the TOAST table's pg_class row, 0 without one
 * @param included whether the filter includes it (a TOAST table: whether it includes the owner); attributes and
 *     indexes are loaded only for included relations
 * @param attributes attnum &gt; 0, in attnum order, dropped ones included
 * @param indexes every pg_index row of the relation
 * @param partitionRoot the oid of the partition root this relation's rows replicate through, 0 for none (see
 *     {@link PartitionOf}); the source returns that root in the same load
 */
public record LiveRelation(int oid, int classXmin, int nspXmin, String schema, String name, char relkind,
                           char relpersistence, char replident, int relnatts, RelFileLocator locator,
                           int toastRelOid, int toastClassXmin, boolean included, List<Attribute> attributes,
                           List<Index> indexes, int partitionRoot) {

    public LiveRelation {
        attributes = List.copyOf(attributes);
        indexes = List.copyOf(indexes);
    }

    /** A relation not routed through a partition root. */
    public LiveRelation(int oid, int classXmin, int nspXmin, String schema, String name, char relkind,
                        char relpersistence, char replident, int relnatts, RelFileLocator locator, int toastRelOid,
                        int toastClassXmin, boolean included, List<Attribute> attributes, List<Index> indexes) {
        this(oid, classXmin, nspXmin, schema, name, relkind, relpersistence, replident, relnatts, locator,
                toastRelOid, toastClassXmin, included, attributes, indexes, 0);
    }

    public String qualifiedName() {
        return schema + "." + name;
    }

    /** A pg_attribute row: the column as it would decode, and the row's xmin. */
    public record Attribute(Column column, int xmin) {
    }

    /**
     * A pg_index row.
     *
     * @param attnums indkey (0 for expression columns)
     * @param xmin xmin of the pg_index row
     * @param classXmin xmin of the index's pg_class row
     */
    public record Index(int indexOid, boolean primary, boolean replident, List<Integer> attnums, int xmin,
                        int classXmin) {
        public Index {
            attnums = List.copyOf(attnums);
        }
    }
}
