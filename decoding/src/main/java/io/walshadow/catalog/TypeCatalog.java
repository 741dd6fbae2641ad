package io.walshadow.catalog;

import java.util.List;

/** Type lookups the value decoders need: pg_type rows, and the attributes of composite types. */
public interface TypeCatalog {
    /** The type, or null if unknown. */
    PgType type(int oid);

    /** Attributes (dropped ones included, in attnum order) of the composite type whose typrelid is {@code relOid}. */
    List<Column> compositeAttributes(int relOid);
}
