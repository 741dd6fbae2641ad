package io.walshadow.clickhouse;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.catalog.TypeCatalog;
import java.util.ArrayList;
import java.util.List;

/**
 * The destination table of one replicated PostgreSQL table (DESIGN.md "ClickHouse layout").
 *
 * <p>Name: {@code <schema>__<table>} in the configured database (both parts verbatim, joined by two underscores;
 * {@code a__b.c} and {@code a.b__c} would collide, which the caller must reject). Columns: the non-dropped source
 * columns in attnum order, then {@code _lsn UInt64} (the version), {@code _commit_lsn UInt64}, {@code _xid UInt64},
 * {@code _is_deleted UInt8}; a table without a usable identity also gets {@code _tid_block UInt32,
 * _tid_offset UInt16}. Engine {@code ReplacingMergeTree(_lsn)} ordered by the identity columns, or by the heap TID
 * when there are none, when one of them is nullable (a sorting key cannot be Nullable) or maps to an Array.
 */
public final class DestinationSchema {
    public static final String LSN = "_lsn";
    public static final String COMMIT_LSN = "_commit_lsn";
    public static final String XID = "_xid";
    public static final String IS_DELETED = "_is_deleted";
    public static final String TID_BLOCK = "_tid_block";
    public static final String TID_OFFSET = "_tid_offset";

    private DestinationSchema() {}

    public static String tableName(RelationDescriptor d) {
        return d.schema() + "__" + d.name();
    }

    /** Backtick-quoted identifier, with backslash and backtick escaped. */
    public static String quote(String ident) {
        return "`" + ident.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }

    /** True when the row identity in ClickHouse is the heap TID (no identity columns, or ones unusable as a key). */
    public static boolean keyedByTid(RelationDescriptor d, TypeCatalog types, ServerCapabilities caps) {
        if (d.identityAttnums().isEmpty()) {
            return true;
        }
        for (int attnum : d.identityAttnums()) {
            if (attnum <= 0 || attnum > d.natts()) {
                return true; // expression index column
            }
            Column c = d.column(attnum);
            if (c.dropped() || !c.notNull()
                    || TypeMapping.baseType(c.typeOid(), c.typmod(), types, caps).startsWith("Array(")) {
                return true;
            }
        }
        return false;
    }

    public static String createTableSql(RelationDescriptor d, TypeCatalog types, ServerCapabilities caps,
                                        String database) {
        List<String> defs = new ArrayList<>();
        for (Column c : d.columns()) {
            if (!c.dropped()) {
                defs.add(quote(c.name()) + " " + TypeMapping.columnType(c, types, caps));
            }
        }
        defs.add(quote(LSN) + " UInt64");
        defs.add(quote(COMMIT_LSN) + " UInt64");
        defs.add(quote(XID) + " UInt64");
        defs.add(quote(IS_DELETED) + " UInt8");
        List<String> key = new ArrayList<>();
        if (keyedByTid(d, types, caps)) {
            defs.add(quote(TID_BLOCK) + " UInt32");
            defs.add(quote(TID_OFFSET) + " UInt16");
            key.add(quote(TID_BLOCK));
            key.add(quote(TID_OFFSET));
        } else {
            for (int attnum : d.identityAttnums()) {
                key.add(quote(d.column(attnum).name()));
            }
        }
        StringBuilder sb = new StringBuilder("CREATE TABLE IF NOT EXISTS ")
                .append(quote(database)).append('.').append(quote(tableName(d))).append(" (\n");
        for (int i = 0; i < defs.size(); i++) {
            sb.append("    ").append(defs.get(i)).append(i + 1 < defs.size() ? ",\n" : "\n");
        }
        sb.append(") ENGINE = ReplacingMergeTree(").append(quote(LSN)).append(")\nORDER BY (")
                .append(String.join(", ", key)).append(')');
        return sb.toString();
    }
}
