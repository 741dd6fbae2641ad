package io.walshadow.catalog;

/**
 * One pg_attribute row of a relation, as the tuple deformer and the type decoders need it.
 *
 * @param attnum 1-based attribute number
 * @param typeOid atttypid (0 for a dropped column)
 * @param attlen -1 varlena, -2 cstring, else fixed length
 * @param attalign 'c', 's', 'i' or 'd'
 * @param missingValue raw on-disk datum bytes of attmissingval (ADD COLUMN ... DEFAULT without rewrite), or null
 *     when the column has none: tuples written before the column existed read it as this value (or as NULL when
 *     null). {@link #UNRESOLVED_MISSING} when the column has a missing value the catalog could not turn into
 *     on-disk bytes: a tuple that needs it must fail closed, never read NULL.
 */
public record Column(int attnum, String name, int typeOid, int typmod, int attlen, char attalign,
                     boolean attbyval, char attstorage, boolean dropped, boolean notNull, byte[] missingValue) {

    /** Marker for a missing value that exists but could not be loaded as on-disk bytes (compare by identity). */
    public static final byte[] UNRESOLVED_MISSING = new byte[0];

    public boolean hasMissingValue() {
        return missingValue != null;
    }

    public boolean missingValueUnresolved() {
        return missingValue == UNRESOLVED_MISSING;
    }
}
