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
 */
public record PgType(int oid, String schema, String name, int typlen, boolean typbyval, char typalign,
                     char typtype, char typcategory, int elemOid, int baseTypeOid, int baseTypmod, int relOid,
                     Map<Integer, String> enumLabels) {
}
