package io.walshadow.clickhouse;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeCatalog;
import io.walshadow.types.Oids;

/**
 * PostgreSQL column type to ClickHouse column type. The table with notes is {@code docs/clickhouse-types.md}.
 *
 * <p>Targets ClickHouse 18.16; where a newer server has a better type ({@code DateTime64}) it is used only when
 * {@link ServerCapabilities} says so. Value-level limits (out-of-range dates, NaN in a Decimal column, ...) are the
 * writer's to enforce: they fail as typed errors, never as silent clamping; see the document.
 */
public final class TypeMapping {
    /** Widest Decimal precision ClickHouse 18.16 has (Decimal128). */
    public static final int MAX_DECIMAL_PRECISION = 38;

    /** hstore where the server has {@code Map}: keys are never NULL, values may be. */
    public static final String HSTORE_MAP = "Map(String, Nullable(String))";
    private static final String HSTORE = "hstore";

    private TypeMapping() {}

    /**
     * The column's ClickHouse type: {@code Nullable(T)} unless NOT NULL; arrays and maps are never wrapped (ClickHouse
     * has no Nullable of either; see doc).
     */
    public static String columnType(Column c, TypeCatalog types, ServerCapabilities caps) {
        String t = baseType(c.typeOid(), c.typmod(), types, caps);
        if (c.notNull() || t.startsWith("Array(") || t.startsWith("Map(")) {
            return t;
        }
        return "Nullable(" + t + ")";
    }

    /** The non-Nullable ClickHouse type of a value of the PostgreSQL type {@code oid} with {@code typmod}. */
    public static String baseType(int oid, int typmod, TypeCatalog types, ServerCapabilities caps) {
        switch (oid) {
            case Oids.BOOL: return "UInt8";
            case Oids.INT2: return "Int16";
            case Oids.INT4: return "Int32";
            case Oids.INT8: return "Int64";
            case Oids.OID: return "UInt32";
            case Oids.REGPROC: case Oids.REGPROCEDURE: case Oids.REGOPER: case Oids.REGOPERATOR: case Oids.REGCLASS:
            case Oids.REGTYPE: case Oids.REGCONFIG: case Oids.REGDICTIONARY: case Oids.REGNAMESPACE: case Oids.REGROLE:
            case Oids.REGCOLLATION:
                return "UInt32"; // the oid: a name would be the catalog's at read time, not the change's
            case Oids.FLOAT4: return "Float32";
            case Oids.FLOAT8: return "Float64";
            case Oids.NUMERIC: return numeric(typmod);
            case Oids.UUID: return "UUID";
            case Oids.DATE: return "Date";
            case Oids.TIMESTAMP:
            case Oids.TIMESTAMPTZ:
                return caps.dateTime64() ? "DateTime64(6, 'UTC')" : "DateTime('UTC')";
            case Oids.BYTEA: // raw bytes in a String
            case Oids.TEXT: case Oids.VARCHAR: case Oids.BPCHAR: case Oids.NAME: case Oids.CHAR:
            case Oids.JSON: case Oids.JSONB: case Oids.XML:
            case Oids.INET: case Oids.CIDR: case Oids.MACADDR: case Oids.MACADDR8:
            case Oids.INTERVAL: case Oids.MONEY: case Oids.TIME: case Oids.TIMETZ:
            case Oids.BIT: case Oids.VARBIT:
            case Oids.RAW_VARLENA: case Oids.RAW_FIXED: // types.undecodable raw: \x hex of the on-disk bytes
                return "String";
            default:
                break;
        }
        PgType t = types.type(oid);
        if (t == null) {
            throw new IllegalArgumentException("unknown PostgreSQL type oid " + Integer.toUnsignedString(oid));
        }
        switch (t.typtype()) {
            case 'd':
                return baseType(t.baseTypeOid(), t.baseTypmod(), types, caps);
            case 'e': // enum: its label
            case 'c': // composite: its text form
            case 'r': // range, multirange: text form
            case 'm':
                return "String";
            case 'b':
                if (t.typcategory() == 'A' && t.elemOid() != 0 && t.typlen() == -1 && oid != Oids.INT2VECTOR
                        && oid != Oids.OIDVECTOR) { // the vectors are decoded to their space-separated text
                    // element typmod is the column's typmod (numeric(10,2)[] keeps (10,2))
                    String element = baseType(t.elemOid(), typmod, types, caps);
                    // an element cannot be Nullable(Map): hstore[] keeps its elements' text
                    return "Array(Nullable(" + (element.startsWith("Map(") ? "String" : element) + "))";
                }
                if (HSTORE.equals(t.extension()) && HSTORE.equals(t.name()) && caps.mapType()) {
                    return HSTORE_MAP;
                }
                // PostGIS geometry and geography: the hex EWKB their output functions print (SRID, Z and M kept;
                // 18.16 has no geo types, and the later Point / Ring / Polygon hold neither SRID nor Z / M)
                // other base types (point, tsvector, pg_lsn, ...; cube, seg, ltree, lquery, citext, and hstore
                // without Map): text form
                return "String";
            default:
                throw new IllegalArgumentException("type " + t.schema() + "." + t.name() + " (typtype '"
                        + t.typtype() + "') cannot be a replicated column");
        }
    }

    /** numeric(p,s) with 1 &le; p &le; 38 and 0 &le; s &le; p is Decimal(p,s); anything else is String. */
    static String numeric(int typmod) {
        if (typmod < 4) {
            return "String"; // unconstrained numeric: unbounded precision, NaN, +-Infinity
        }
        int v = typmod - 4;
        int p = (v >> 16) & 0xffff;
        int s = ((v & 0x7ff) ^ 1024) - 1024; // PostgreSQL 15 allows scale in -1000..1000
        if (p < 1 || p > MAX_DECIMAL_PRECISION || s < 0 || s > p) {
            return "String";
        }
        return "Decimal(" + p + ", " + s + ")";
    }
}
