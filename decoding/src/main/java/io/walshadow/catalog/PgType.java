package io.walshadow.catalog;

import java.util.Map;

/**
 * One pg_type row, with what decoding a value of it needs.
 *
 * @param typtype 'b' base, 'c' composite, 'd' domain, 'e' enum, 'r' range, 'm' multirange, 'p' pseudo
 * @param elemOid typelem for arrays (0 otherwise)
 * @param baseTypeOid typbasetype for domains (0 otherwise)
 * @param relOid typrelid for composites (0 otherwise)
 * @param enumLabels enum value oid to label, for enums (empty otherwise)
 * @param extension the extension the type belongs to (a type the decoder knows by extension and name, in the
 *     namespace of that installed extension: {@code io.walshadow.types.ExtensionTypes}), null for any other type
 */
public record PgType(int oid, String schema, String name, int typlen, boolean typbyval, char typalign,
                     char typtype, char typcategory, int elemOid, int baseTypeOid, int baseTypmod, int relOid,
                     Map<Integer, String> enumLabels, String extension) {

    /** A type of no extension. */
    public PgType(int oid, String schema, String name, int typlen, boolean typbyval, char typalign, char typtype,
                  char typcategory, int elemOid, int baseTypeOid, int baseTypmod, int relOid,
                  Map<Integer, String> enumLabels) {
        this(oid, schema, name, typlen, typbyval, typalign, typtype, typcategory, elemOid, baseTypeOid, baseTypmod,
                relOid, enumLabels, null);
    }
}
