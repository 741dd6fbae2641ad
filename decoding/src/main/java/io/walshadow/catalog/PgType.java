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
 * @param rangeSubtype pg_range.rngsubtype, for ranges (0 otherwise, or when the catalog did not know it)
 * @param rangeType the range type (pg_range.rngtypid) whose rngmultitypid this is, for multiranges (0 otherwise, or
 *     when the catalog did not know it)
 * @param extension the extension the type belongs to (a type the decoder knows by extension and name, in the
 *     namespace of that installed extension: {@code io.walshadow.types.ExtensionTypes}), null for any other type
 */
public record PgType(int oid, String schema, String name, int typlen, boolean typbyval, char typalign,
                     char typtype, char typcategory, int elemOid, int baseTypeOid, int baseTypmod, int relOid,
                     Map<Integer, String> enumLabels, int rangeSubtype, int rangeType, String extension) {

    /** A type of no extension that is neither a range nor a multirange (or whose pg_range row is not known). */
    public PgType(int oid, String schema, String name, int typlen, boolean typbyval, char typalign, char typtype,
                  char typcategory, int elemOid, int baseTypeOid, int baseTypmod, int relOid,
                  Map<Integer, String> enumLabels) {
        this(oid, schema, name, typlen, typbyval, typalign, typtype, typcategory, elemOid, baseTypeOid, baseTypmod,
                relOid, enumLabels, 0, 0, null);
    }

    /** A range or multirange of no extension. */
    public PgType(int oid, String schema, String name, int typlen, boolean typbyval, char typalign, char typtype,
                  char typcategory, int elemOid, int baseTypeOid, int baseTypmod, int relOid,
                  Map<Integer, String> enumLabels, int rangeSubtype, int rangeType) {
        this(oid, schema, name, typlen, typbyval, typalign, typtype, typcategory, elemOid, baseTypeOid, baseTypmod,
                relOid, enumLabels, rangeSubtype, rangeType, null);
    }

    /** A type of an extension, neither a range nor a multirange. */
    public PgType(int oid, String schema, String name, int typlen, boolean typbyval, char typalign, char typtype,
                  char typcategory, int elemOid, int baseTypeOid, int baseTypmod, int relOid,
                  Map<Integer, String> enumLabels, String extension) {
        this(oid, schema, name, typlen, typbyval, typalign, typtype, typcategory, elemOid, baseTypeOid, baseTypmod,
                relOid, enumLabels, 0, 0, extension);
    }
}
