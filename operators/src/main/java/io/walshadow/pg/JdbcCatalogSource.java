package io.walshadow.pg;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.PartitionOf;
import io.walshadow.catalog.CatalogReadException;
import io.walshadow.catalog.CatalogSnapshot;
import io.walshadow.catalog.CatalogSource;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.LiveRelation;
import io.walshadow.catalog.MissingValues;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.WalFormat;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@link CatalogSource} of the live catalog: reads relation descriptors from the source's catalog over an
 * ordinary SQL connection to the configured database, in one {@code REPEATABLE READ}, read-only transaction: the
 * snapshot's WAL position and transaction bounds first (so both belong to the snapshot), then pg_class/pg_namespace,
 * pg_attribute (with {@code array_send(attmissingval)}, converted by {@link MissingValues}) and pg_index, each row
 * with its {@code xmin}. Used by the initial snapshot (which tables it copies, as its snapshot sees them) and by a
 * decoder restored from an earlier build's state without a catalog shadow; a new job follows the catalog from the WAL
 * ({@link io.walshadow.catalog.shadow.ShadowCatalogSource}).
 *
 * <p>The connection must be dedicated to the source (its autocommit, isolation and read-only settings are
 * changed for each load and restored afterwards). Works on a hot standby too (the replay LSN stands in for the
 * insert LSN). Refuses server versions {@link WalFormat} does not know.
 */
public final class JdbcCatalogSource implements CatalogSource {
    private static final String REL_COLUMNS = "SELECT c.oid::int8, c.xmin::text, n.xmin::text, n.nspname, c.relname,"
            + " c.relkind, c.relpersistence, c.relreplident, c.relnatts, pg_relation_filenode(c.oid)::int8,"
            + " c.reltablespace::int8, c.relisshared, c.reltoastrelid::int8, t.xmin::text,"
            + " o.relkind, onsp.nspname, o.relname, pr.oid::int8, prn.nspname, pr.relname"
            + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " LEFT JOIN pg_class t ON c.reltoastrelid <> 0 AND t.oid = c.reltoastrelid"
            + " LEFT JOIN pg_class o ON c.relkind = 't' AND o.reltoastrelid = c.oid"
            + " LEFT JOIN pg_namespace onsp ON onsp.oid = o.relnamespace"
            // the partition root of the table (of a TOAST table's owner); none for a table that is no partition
            + " LEFT JOIN pg_class pr ON c.relkind IN ('r', 't')"
            + "   AND pr.oid = pg_partition_root(coalesce(o.oid, c.oid)) AND pr.oid <> coalesce(o.oid, c.oid)"
            + " LEFT JOIN pg_namespace prn ON prn.oid = pr.relnamespace";
    private static final String HEAP_RELATIONS = REL_COLUMNS
            + " WHERE c.relkind IN ('r', 't') AND pg_relation_filenode(c.oid) IS NOT NULL";

    private final Connection conn;
    private final CatalogFilter filter;

    public JdbcCatalogSource(Connection conn, CatalogFilter filter) {
        this.conn = conn;
        this.filter = filter;
    }

    public CatalogFilter filter() {
        return filter;
    }

    @Override
    public JdbcCatalogSource withFilter(CatalogFilter filter) {
        return new JdbcCatalogSource(conn, filter);
    }

    /** {@link #read}, its SQL error wrapped (the message keeps the driver's). */
    @Override
    public CatalogSnapshot load(Set<Integer> relOids, boolean allIncluded) throws CatalogReadException {
        try {
            return read(relOids, allIncluded);
        } catch (SQLException e) {
            throw new CatalogReadException("reading relation descriptors from the live catalog: " + e.getMessage(), e);
        }
    }

    /**
     * The load of {@link CatalogSource#load}, with the driver's {@link SQLException} as it is: for callers on the
     * JDBC side that handle it (the initial snapshot's export, which inspects SQLStates).
     */
    public CatalogSnapshot read(Set<Integer> relOids, boolean allIncluded) throws SQLException {
        boolean autoCommit = conn.getAutoCommit();
        int isolation = conn.getTransactionIsolation();
        boolean readOnly = conn.isReadOnly();
        boolean ok = false;
        try {
            if (!autoCommit) {
                conn.rollback();
            }
            conn.setAutoCommit(false);
            conn.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            conn.setReadOnly(true);
            CatalogSnapshot s = loadInTransaction(relOids, allIncluded);
            conn.commit();
            ok = true;
            return s;
        } finally {
            try {
                if (!ok) {
                    conn.rollback();
                }
                conn.setReadOnly(readOnly);
                conn.setTransactionIsolation(isolation);
                conn.setAutoCommit(autoCommit);
            } catch (SQLException e) {
                if (ok) {
                    throw e;
                }
                // a failed load already propagates its own error; the connection is likely broken anyway
            }
        }
    }

    private CatalogSnapshot loadInTransaction(Set<Integer> relOids, boolean allIncluded) throws SQLException {
        long lsn;
        CatalogSnapshot.Xids xids;
        int dbOid;
        int dbTablespace;
        boolean textSafe;
        // First statement: takes the snapshot, then reads the WAL position, so every commit it shows precedes lsn.
        try (PreparedStatement ps = conn.prepareStatement("SELECT (CASE WHEN pg_is_in_recovery()"
                + " THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text,"
                + " pg_current_snapshot()::text, d.oid::int8, d.dattablespace::int8,"
                + " current_setting('server_encoding'), current_setting('server_version_num')::int"
                + " FROM pg_database d WHERE d.datname = current_database()");
             ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("current_database() not found in pg_database");
            }
            lsn = Lsn.parse(rs.getString(1));
            xids = CatalogSnapshot.Xids.parse(rs.getString(2));
            dbOid = (int) rs.getLong(3);
            dbTablespace = (int) rs.getLong(4);
            String encoding = rs.getString(5);
            textSafe = "UTF8".equals(encoding) || "SQL_ASCII".equals(encoding);
            WalFormat.forReplication(rs.getInt(6)); // refuses majors the job does not replicate
        }

        Map<Integer, RelRow> rows = new HashMap<>();
        String sql = HEAP_RELATIONS + " AND (c.oid = ANY(?::oid[]) OR (? AND c.relkind = 'r'"
                + " AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
                + " AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'))";
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setString(1, oidArray(relOids));
            ps.setBoolean(2, allIncluded);
            readRelations(ps, dbOid, dbTablespace, rows);
        }
        // In "all" mode keep only the included ones (plus whatever was asked for by oid).
        if (allIncluded) {
            rows.values().removeIf(r -> !r.included && !relOids.contains(r.oid));
        }
        // TOAST tables of included relations.
        Set<Integer> toast = new TreeSet<>();
        for (RelRow r : rows.values()) {
            if (r.included && r.toastRelOid != 0 && !rows.containsKey(r.toastRelOid)) {
                toast.add(r.toastRelOid);
            }
        }
        if (!toast.isEmpty()) {
            try (PreparedStatement ps = conn.prepareStatement(HEAP_RELATIONS + " AND c.oid = ANY(?::oid[])")) {
                ps.setString(1, oidArray(toast));
                readRelations(ps, dbOid, dbTablespace, rows);
            }
        }
        // The roots the included partitions replicate through (partitioned tables: no storage, no TOAST table).
        Set<Integer> roots = new TreeSet<>();
        for (RelRow r : rows.values()) {
            if (r.included && r.partitionRoot != 0 && !rows.containsKey(r.partitionRoot)) {
                roots.add(r.partitionRoot);
            }
        }
        if (!roots.isEmpty()) {
            try (PreparedStatement ps = conn.prepareStatement(REL_COLUMNS + " WHERE c.oid = ANY(?::oid[])")) {
                ps.setString(1, oidArray(roots));
                readRelations(ps, dbOid, dbTablespace, rows);
            }
        }

        Set<Integer> included = new TreeSet<>();
        for (RelRow r : rows.values()) {
            if (r.included) {
                included.add(r.oid);
            }
        }
        Map<Integer, List<LiveRelation.Attribute>> attributes = new HashMap<>();
        Map<Integer, List<LiveRelation.Index>> indexes = new HashMap<>();
        if (!included.isEmpty()) {
            try (PreparedStatement ps = conn.prepareStatement("SELECT a.attrelid::int8, a.attnum, a.attname,"
                    + " a.atttypid::int8, a.atttypmod, a.attlen, a.attalign, a.attbyval, a.attstorage, a.attisdropped,"
                    + " a.attnotnull, CASE WHEN a.atthasmissing THEN array_send(a.attmissingval) END, a.xmin::text,"
                    + " ty.typtype, ty.typbasetype::int8"
                    + " FROM pg_attribute a LEFT JOIN pg_type ty ON ty.oid = a.atttypid"
                    + " WHERE a.attrelid = ANY(?::oid[]) AND a.attnum > 0 ORDER BY a.attrelid, a.attnum")) {
                ps.setString(1, oidArray(included));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        int rel = (int) rs.getLong(1);
                        int typeOid = (int) rs.getLong(4);
                        int attlen = rs.getInt(6);
                        String typtype = rs.getString(14);
                        int convType = "d".equals(typtype) ? (int) rs.getLong(15) : typeOid;
                        byte[] missing = MissingValues.toDisk(rs.getBytes(12), convType, attlen, textSafe);
                        Column col = new Column(rs.getInt(2), rs.getString(3), typeOid, rs.getInt(5), attlen,
                                rs.getString(7).charAt(0), rs.getBoolean(8), rs.getString(9).charAt(0),
                                rs.getBoolean(10), rs.getBoolean(11), missing);
                        attributes.computeIfAbsent(rel, k -> new ArrayList<>())
                                .add(new LiveRelation.Attribute(col, xid(rs.getString(13))));
                    }
                }
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT i.indrelid::int8, i.indexrelid::int8,"
                    + " i.indisprimary, i.indisreplident, i.indkey::text, i.xmin::text, ic.xmin::text"
                    + " FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid"
                    + " WHERE i.indrelid = ANY(?::oid[]) ORDER BY i.indrelid, i.indexrelid")) {
                ps.setString(1, oidArray(included));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        List<Integer> keys = new ArrayList<>();
                        String indkey = rs.getString(5).trim();
                        if (!indkey.isEmpty()) {
                            for (String k : indkey.split(" ")) {
                                keys.add(Integer.parseInt(k));
                            }
                        }
                        indexes.computeIfAbsent((int) rs.getLong(1), k -> new ArrayList<>())
                                .add(new LiveRelation.Index((int) rs.getLong(2), rs.getBoolean(3), rs.getBoolean(4),
                                        keys, xid(rs.getString(6)), xid(rs.getString(7))));
                    }
                }
            }
        }

        Map<Integer, LiveRelation> out = new HashMap<>();
        for (RelRow r : rows.values()) {
            out.put(r.oid, new LiveRelation(r.oid, r.classXmin, r.nspXmin, r.schema, r.name, r.relkind,
                    r.relpersistence, r.replident, r.relnatts, r.locator, r.toastRelOid, r.toastClassXmin,
                    r.included, attributes.getOrDefault(r.oid, List.of()), indexes.getOrDefault(r.oid, List.of()),
                    r.relkind == 'r' ? r.partitionRoot : 0));
        }
        return new CatalogSnapshot(lsn, dbOid, xids, out);
    }

    private static final class RelRow {
        int oid;
        int classXmin;
        int nspXmin;
        String schema;
        String name;
        char relkind;
        char relpersistence;
        char replident;
        int relnatts;
        RelFileLocator locator;
        int toastRelOid;
        int toastClassXmin;
        boolean included;
        /** The partition root it replicates through ({@link CatalogFilter#partitionRoots()}), else 0. */
        int partitionRoot;
    }

    private void readRelations(PreparedStatement ps, int dbOid, int dbTablespace, Map<Integer, RelRow> rows)
            throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                RelRow r = new RelRow();
                r.oid = (int) rs.getLong(1);
                r.classXmin = xid(rs.getString(2));
                r.nspXmin = xid(rs.getString(3));
                r.schema = rs.getString(4);
                r.name = rs.getString(5);
                r.relkind = rs.getString(6).charAt(0);
                r.relpersistence = rs.getString(7).charAt(0);
                r.replident = rs.getString(8).charAt(0);
                r.relnatts = rs.getInt(9);
                int relNumber = (int) rs.getLong(10);
                int spc = (int) rs.getLong(11);
                boolean shared = rs.getBoolean(12);
                r.locator = r.relkind == 'p' ? PartitionOf.rootLocator(dbOid, r.oid)
                        : new RelFileLocator(spc == 0 ? dbTablespace : spc, shared ? 0 : dbOid, relNumber);
                r.toastRelOid = (int) rs.getLong(13);
                String toastXmin = rs.getString(14);
                r.toastClassXmin = toastXmin == null ? 0 : xid(toastXmin);
                long root = rs.getLong(18);
                boolean partition = filter.partitionRoots() && !rs.wasNull();
                if (partition) {
                    // a partition (or its TOAST table) is included through its root's name
                    r.included = !shared && filter.includes(rs.getString(19), rs.getString(20));
                    r.partitionRoot = (int) root;
                } else if (r.relkind == 'r' || r.relkind == 'p') {
                    r.included = !shared && filter.includes(r.schema, r.name);
                } else {
                    String ownerKind = rs.getString(15);
                    r.included = !shared && "r".equals(ownerKind) && filter.includes(rs.getString(16), rs.getString(17));
                }
                rows.put(r.oid, r);
            }
        }
    }

    private static int xid(String text) {
        return (int) Long.parseLong(text);
    }

    private static String oidArray(Collection<Integer> oids) {
        StringBuilder sb = new StringBuilder("{");
        for (int oid : oids) {
            sb.append(sb.length() == 1 ? "" : ",").append(Integer.toUnsignedString(oid));
        }
        return sb.append('}').toString();
    }
}
