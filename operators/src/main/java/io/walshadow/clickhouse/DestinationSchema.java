package io.walshadow.clickhouse;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.catalog.TypeCatalog;
import io.walshadow.sink.DestTable;
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
 * when there are none, when one of them is nullable (a sorting key cannot be Nullable) or maps to an Array, or
 * under REPLICA IDENTITY NOTHING.
 *
 * <p>A partitioned table (its partitions' rows replicate into it, {@link io.walshadow.catalog.PartitionOf}) has
 * its root's columns and {@code _partition UInt32}, the oid of the partition each row was written in; keyed by TID,
 * it is ordered by {@code (_partition, _tid_block, _tid_offset)}. Keyed by its primary key it needs nothing more:
 * PostgreSQL puts the partition key into every primary key of a partitioned table, so a row that moves to
 * another partition changes its key (a tombstone at the old one, the row at the new one).
 */
public final class DestinationSchema {
    public static final String LSN = "_lsn";
    public static final String COMMIT_LSN = "_commit_lsn";
    public static final String XID = "_xid";
    public static final String IS_DELETED = "_is_deleted";
    public static final String TID_BLOCK = "_tid_block";
    public static final String TID_OFFSET = "_tid_offset";
    /**
     * The partition a row of a partitioned table's destination was written in (its oid): part of a TID key, since
     * TIDs repeat across partitions.
     */
    public static final String PARTITION = "_partition";

    private DestinationSchema() {}

    public static String tableName(RelationDescriptor d) {
        return d.schema() + "__" + d.name();
    }

    /** Backtick-quoted identifier, with backslash and backtick escaped. */
    public static String quote(String ident) {
        return "`" + ident.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }

    /**
     * True when the row identity in ClickHouse is the heap TID: no identity columns, ones unusable as a key, or
     * REPLICA IDENTITY NOTHING (its DELETEs carry no key, only the old TID).
     */
    public static boolean keyedByTid(RelationDescriptor d, TypeCatalog types, ServerCapabilities caps) {
        if (d.identityAttnums().isEmpty() || d.replicaIdentity() == 'n') {
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

    /** A new destination table for a relation: columns named as in PostgreSQL, types by {@link TypeMapping}. */
    public static DestTable newTable(RelationDescriptor d, TypeCatalog types, ServerCapabilities caps) {
        List<String> names = new ArrayList<>();
        List<String> chTypes = new ArrayList<>();
        for (Column c : d.columns()) {
            names.add(c.dropped() ? null : c.name());
            chTypes.add(c.dropped() ? null : TypeMapping.columnType(c, types, caps));
        }
        boolean byTid = keyedByTid(d, types, caps);
        // every row's TID too: should the table lose its key later, the destination is re-keyed by it
        return new DestTable(tableName(d), d, names, chTypes, byTid, byTid ? List.of() : d.identityAttnums(), true);
    }

    public static String createTableSql(RelationDescriptor d, TypeCatalog types, ServerCapabilities caps,
                                        String database) {
        return createTableSql(newTable(d, types, caps), caps, database);
    }

    /**
     * {@code CREATE TABLE IF NOT EXISTS} for the table as {@code t} describes it. On servers with
     * {@code ReplacingMergeTree(ver, is_deleted)} the engine drops tombstones at FINAL and merges; with
     * {@code non_replicated_deduplication_window} the table remembers recent insert tokens, so a retried commit
     * inserts nothing twice even before a merge.
     */
    public static String createTableSql(DestTable t, ServerCapabilities caps, String database) {
        List<String> defs = new ArrayList<>();
        for (int i = 0; i < t.shape().natts(); i++) {
            if (t.chNames().get(i) != null) {
                requireNotReserved(t.destName(), t.chNames().get(i));
                defs.add(quote(t.chNames().get(i)) + " " + t.chTypes().get(i));
            }
        }
        defs.addAll(metaColumns(t));
        List<String> key = new ArrayList<>();
        if (t.keyedByTid()) {
            if (partitioned(t)) {
                key.add(quote(PARTITION));
            }
            key.add(quote(TID_BLOCK));
            key.add(quote(TID_OFFSET));
        } else {
            for (int attnum : t.keyAttnums()) {
                key.add(quote(t.chName(attnum)));
            }
        }
        StringBuilder sb = new StringBuilder("CREATE TABLE IF NOT EXISTS ")
                .append(quote(database)).append('.').append(quote(t.destName())).append(" (\n");
        for (int i = 0; i < defs.size(); i++) {
            sb.append("    ").append(defs.get(i)).append(i + 1 < defs.size() ? ",\n" : "\n");
        }
        sb.append(") ENGINE = ReplacingMergeTree(").append(quote(LSN));
        if (caps.replacingWithIsDeleted()) {
            sb.append(", ").append(quote(IS_DELETED));
        }
        sb.append(")\nORDER BY (").append(String.join(", ", key)).append(')');
        if (caps.nonReplicatedDeduplicationWindow()) {
            sb.append("\nSETTINGS non_replicated_deduplication_window = ").append(DEDUPLICATION_WINDOW);
        }
        return sb.toString();
    }

    /** Column names the job's own columns use, in destination and staging tables. */
    public static final java.util.Set<String> RESERVED_COLUMNS = java.util.Set.of(LSN, COMMIT_LSN, XID, IS_DELETED,
            TID_BLOCK, TID_OFFSET, PARTITION, SinkTables.BATCH, SinkTables.SEGMENT, SinkTables.ATTEMPT);

    /**
     * A source column named like one of the job's columns would be silently merged with it (or fail as a duplicate
     * far from its cause): the job stops naming both.
     */
    public static void requireNotReserved(String table, String column) {
        if (RESERVED_COLUMNS.contains(column)) {
            throw new IllegalStateException("column " + column + " of " + table + " has the name of one of the"
                    + " job's own columns " + new java.util.TreeSet<>(RESERVED_COLUMNS) + " in ClickHouse: rename it"
                    + " in PostgreSQL or exclude the table (--tables.exclude)");
        }
    }

    /** Insert tokens a table remembers on servers that deduplicate non-replicated inserts. */
    public static final int DEDUPLICATION_WINDOW = 1000;

    /** The replication columns after the source columns, with their types. */
    public static List<String> metaColumns(DestTable t) {
        List<String> defs = new ArrayList<>(List.of(quote(LSN) + " UInt64", quote(COMMIT_LSN) + " UInt64",
                quote(XID) + " UInt64", quote(IS_DELETED) + " UInt8"));
        if (t.tids()) {
            defs.add(quote(TID_BLOCK) + " UInt32");
            defs.add(quote(TID_OFFSET) + " UInt16");
        }
        if (partitioned(t)) {
            defs.add(quote(PARTITION) + " UInt32");
        }
        return defs;
    }

    /**
     * The tombstones of a {@link io.walshadow.sink.SinkStep.PartitionBarrier}, in one {@code INSERT ... SELECT}: per
     * key the newest version ({@code argMax} by {@code _lsn} over a GROUP BY, which is the merge, without FINAL), and
     * a tombstone where that version is the partition's, live and older than the bound. The tombstone keeps the key
     * and the TID, the other columns take their defaults.
     */
    public static String partitionBarrierSql(String db, io.walshadow.sink.SinkStep.PartitionBarrier b) {
        String t = quote(db) + "." + quote(b.table());
        List<String> key = b.key().stream().map(DestinationSchema::quote).toList();
        String lsn = "toUInt64(" + Long.toUnsignedString(b.lsn()) + ")";
        List<String> meta = List.of(quote(LSN), quote(COMMIT_LSN), quote(XID), quote(IS_DELETED), quote(TID_BLOCK),
                quote(TID_OFFSET), quote(PARTITION));
        List<String> into = new ArrayList<>(key);
        for (String m : meta) {
            if (!into.contains(m)) {
                into.add(m);
            }
        }
        List<String> select = new ArrayList<>();
        for (String c : into) {
            select.add(c.equals(quote(LSN)) || c.equals(quote(COMMIT_LSN)) ? lsn
                    : c.equals(quote(XID)) ? "toUInt64(0)" : c.equals(quote(IS_DELETED)) ? "toUInt8(1)"
                    : key.contains(c) ? c : "last_" + c.substring(1, c.length() - 1));
        }
        List<String> newest = new ArrayList<>();
        for (String m : List.of(IS_DELETED, TID_BLOCK, TID_OFFSET, PARTITION)) {
            if (!key.contains(quote(m))) {
                newest.add("argMax(" + quote(m) + ", " + quote(LSN) + ") AS last_" + m);
            }
        }
        String del = key.contains(quote(IS_DELETED)) ? quote(IS_DELETED) : "last_" + IS_DELETED;
        String part = key.contains(quote(PARTITION)) ? quote(PARTITION) : "last_" + PARTITION;
        return "INSERT INTO " + t + " (" + String.join(", ", into) + ") SELECT " + String.join(", ", select)
                + " FROM (SELECT " + String.join(", ", key) + ", max(" + quote(LSN) + ") AS newest_lsn, "
                + String.join(", ", newest) + " FROM " + t + " GROUP BY " + String.join(", ", key) + ") WHERE "
                + part + " = " + Integer.toUnsignedString(b.partition()) + " AND " + del + " = 0 AND newest_lsn < "
                + Long.toUnsignedString(b.below());
    }

    /** Whether the table is a partitioned table's destination (with {@code _partition}). */
    public static boolean partitioned(DestTable t) {
        return t.shape().isPartitionedTable();
    }
}
