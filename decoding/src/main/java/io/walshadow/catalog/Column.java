package io.walshadow.catalog;

/**
 * One pg_attribute row of a relation, as the tuple deformer and the type decoders need it.
 *
 * @param attnum 1-based attribute number
 * @param typeOid atttypid (0 for a dropped column)
 * @param attlen -1 varlena, -2 cstring, else fixed length
 * @param attalign 'c', 's', 'i' or 'd'
 * @param missingValue raw datum bytes of attmissingval (ADD COLUMN ... DEFAULT without rewrite), or null: rows
 *     written before the column existed read it as this value (or NULL when absent)
 */
public record Column(int attnum, String name, int typeOid, int typmod, int attlen, char attalign,
                     boolean attbyval, char attstorage, boolean dropped, boolean notNull, byte[] missingValue) {

    public boolean hasMissingValue() {
        return missingValue != null;
    }
}
