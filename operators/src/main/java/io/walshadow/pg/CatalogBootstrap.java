package io.walshadow.pg;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.MissingValues;
import io.walshadow.catalog.shadow.CatalogLayout;
import io.walshadow.catalog.shadow.CatalogRow;
import io.walshadow.catalog.shadow.ShadowCatalog;
import io.walshadow.catalog.shadow.ShadowCatalogBuilder;
import io.walshadow.catalog.shadow.SystemCatalog;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.WalFormat;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The one read of the live catalog a new job makes: the {@link ShadowCatalog} as of a start position {@code S},
 * ready to follow the WAL from a checkpoint's redo point {@code R} below it. The SQL side of it; the shadow is built
 * by {@link ShadowCatalogBuilder}.
 *
 * <ol>
 *   <li>{@code full_page_writes} must be on: the shadow learns each catalog page from its first image after
 *       {@code R}.
 *   <li>{@code R}: the latest checkpoint's redo point, at or past the slot's {@code restart_lsn} (the stream starts
 *       there); when the slot reserves WAL from later than the latest checkpoint, a {@code CHECKPOINT} is requested
 *       (or, without the right to, the next one awaited).
 *   <li>Every transaction that had an xid at that checkpoint ({@code next_xid}) has ended: a transaction still
 *       running may have changed catalog pages before {@code R} that neither the WAL from {@code R} nor a snapshot
 *       would show. Waited for like logical decoding waits to build its snapshot (logged every 10 s).
 *   <li>One {@code REPEATABLE READ} transaction: the catalogs locked {@code ACCESS SHARE} (no rewrite of them
 *       moves tuples mid-read), its snapshot, then {@code S} (every commit it shows precedes {@code S}; those it
 *       shows running end in the WAL the shadow follows), each catalog's own layout and storage, and every tuple of
 *       the catalogs ({@link SystemCatalog}) with its {@code ctid} and {@code xmin}.
 * </ol>
 */
public final class CatalogBootstrap {
    private static final String[] LOCKED = {"pg_class", "pg_attribute", "pg_namespace", "pg_index", "pg_type",
        "pg_enum", "pg_range", "pg_extension", "pg_inherits"};

    /**
     * @param startLsn {@code S}: the shadow is the catalog as of every record from here on
     * @param snapshot the text of the read's {@code pg_current_snapshot()}: the transactions running at {@code S}
     * @param waitXid a full xid above every transaction that can have written WAL below {@code S} (0 on a standby)
     */
    public record Result(long startLsn, String snapshot, long waitXid, ShadowCatalog shadow) {
    }

    private final Connection conn;
    private final Consumer<String> log;
    private long pollMillis = 1000;
    private long logEveryMillis = 10_000;

    public CatalogBootstrap(Connection conn, Consumer<String> log) {
        this.conn = conn;
        this.log = log;
    }

    /** How often the waits poll, and how often they say what they wait for (tests shorten them). */
    public CatalogBootstrap withPolling(long pollMillis, long logEveryMillis) {
        this.pollMillis = pollMillis;
        this.logEveryMillis = logEveryMillis;
        return this;
    }

    /** Takes the bootstrap for a job reading the WAL from slot {@code slotName} (which must exist). */
    public Result take(String slotName) throws SQLException {
        conn.setAutoCommit(true);
        String fpw = queryString("SHOW full_page_writes");
        if (!"on".equals(fpw)) {
            throw new SQLException("full_page_writes is " + fpw + " on the source: the job follows the catalog from "
                    + "full-page images in the WAL; set full_page_writes = on");
        }
        long restart = slotRestartLsn(slotName);
        Checkpoint cp = checkpointAtOrAfter(restart);
        awaitTransactionsBefore(cp.nextXid);
        Result r = read(cp.redo);
        log.accept("catalog bootstrap at " + Lsn.format(r.startLsn) + " (redo point " + Lsn.format(cp.redo) + ", "
                + r.shadow.tuplesHeld() + " catalog tuples)");
        return r;
    }

    private long slotRestartLsn(String slot) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(
                "SELECT restart_lsn::text FROM pg_replication_slots WHERE slot_name = ?")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || rs.getString(1) == null) {
                    throw new SQLException("replication slot " + slot + " does not exist or reserves no WAL");
                }
                return Lsn.parse(rs.getString(1));
            }
        }
    }

    private record Checkpoint(long redo, long nextXid) {
    }

    private Checkpoint checkpoint() throws SQLException {
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT redo_lsn::text, next_xid FROM pg_control_checkpoint()")) {
            rs.next();
            String[] x = rs.getString(2).split(":");
            long next = (Long.parseLong(x[0]) << 32) | Long.parseLong(x[1]);
            return new Checkpoint(Lsn.parse(rs.getString(1)), next);
        }
    }

    /** A checkpoint whose redo point the stream (from {@code restart}) reads. */
    private Checkpoint checkpointAtOrAfter(long restart) throws SQLException {
        Checkpoint cp = checkpoint();
        if (Long.compareUnsigned(cp.redo, restart) >= 0) {
            return cp;
        }
        try (Statement st = conn.createStatement()) {
            st.execute("CHECKPOINT");
        } catch (SQLException e) {
            log.accept("no right to CHECKPOINT (" + e.getMessage().trim() + "); waiting for the next checkpoint past "
                    + Lsn.format(restart) + " (checkpoint_timeout)");
        }
        long lastLog = System.currentTimeMillis();
        while (Long.compareUnsigned((cp = checkpoint()).redo, restart) < 0) {
            sleep();
            if (System.currentTimeMillis() - lastLog >= logEveryMillis) {
                lastLog = System.currentTimeMillis();
                log.accept("waiting for a checkpoint with a redo point at or past " + Lsn.format(restart)
                        + " (latest: " + Lsn.format(cp.redo) + ")");
            }
        }
        return cp;
    }

    /** Waits until every transaction with an xid below {@code fullXid} has ended. */
    private void awaitTransactionsBefore(long fullXid) throws SQLException {
        long lastLog = System.currentTimeMillis();
        long started = lastLog;
        while (true) {
            long xmin = Long.parseUnsignedLong(queryString("SELECT pg_snapshot_xmin(pg_current_snapshot())::text"));
            if (Long.compareUnsigned(xmin, fullXid) >= 0) {
                return;
            }
            if (System.currentTimeMillis() - lastLog >= logEveryMillis) {
                lastLog = System.currentTimeMillis();
                log.accept("catalog bootstrap waits " + (lastLog - started) / 1000 + " s for transactions older than "
                        + "the checkpoint to end (xid " + Long.toUnsignedString(fullXid) + "): " + runningBefore(fullXid));
            }
            sleep();
        }
    }

    private String runningBefore(long fullXid) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT 'pid ' || pid || ' xid ' || backend_xid || ' (' || coalesce(state, "
                     + "'?') || ', since ' || coalesce(xact_start::text, '?') || ')' FROM pg_stat_activity"
                     + " WHERE backend_xid IS NOT NULL UNION ALL SELECT 'prepared ''' || gid || ''' xid ' || transaction"
                     + " FROM pg_prepared_xacts")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out.isEmpty() ? "(none visible to this role)" : String.join(", ", out);
    }

    private void sleep() throws SQLException {
        try {
            Thread.sleep(pollMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted during the catalog bootstrap", e);
        }
    }

    private String queryString(String sql) throws SQLException {
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private Result read(long redo) throws SQLException {
        boolean readOnly = conn.isReadOnly();
        int isolation = conn.getTransactionIsolation();
        conn.setAutoCommit(false);
        conn.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        conn.setReadOnly(true);
        long start;
        String snapshot;
        ShadowCatalog shadow;
        try {
            try (Statement st = conn.createStatement()) {
                st.execute("LOCK TABLE pg_catalog." + String.join(", pg_catalog.", LOCKED) + " IN ACCESS SHARE MODE");
            }
            int dbOid;
            int dbTablespace;
            boolean textSafe;
            try (Statement st = conn.createStatement();
                 ResultSet rs = st.executeQuery("SELECT pg_current_snapshot()::text, (CASE WHEN pg_is_in_recovery()"
                         + " THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text,"
                         + " d.oid::int8, d.dattablespace::int8, current_setting('server_version_num')::int,"
                         + " current_setting('server_encoding') FROM pg_database d"
                         + " WHERE d.datname = current_database()")) {
                rs.next();
                snapshot = rs.getString(1);
                start = Lsn.parse(rs.getString(2));
                dbOid = (int) rs.getLong(3);
                dbTablespace = (int) rs.getLong(4);
                WalFormat.forReplication(rs.getInt(5)); // refuses majors the job does not replicate (catalog layouts)
                String enc = rs.getString(6);
                textSafe = "UTF8".equals(enc) || "SQL_ASCII".equals(enc);
            }
            ShadowCatalogBuilder b = new ShadowCatalogBuilder(dbOid, dbTablespace, redo, start, layouts());
            try (Statement st = conn.createStatement();
                 ResultSet rs = st.executeQuery("SELECT oid::int8, relfilenode::int8, pg_relation_filenode(oid)::int8,"
                         + " reltablespace::int8 FROM pg_catalog.pg_class WHERE oid IN (" + oids() + ")")) {
                while (rs.next()) {
                    SystemCatalog c = SystemCatalog.byOid((int) rs.getLong(1));
                    int rel = (int) rs.getLong(3);
                    int spc = (int) rs.getLong(4);
                    b.storage(c, new RelFileLocator(spc == 0 ? dbTablespace : spc, dbOid, rel), rs.getLong(2) == 0);
                }
            }
            for (SystemCatalog c : SystemCatalog.values()) {
                readTuples(c, b, textSafe);
            }
            shadow = b.build();
            conn.commit();
        } catch (SQLException | RuntimeException e) {
            conn.rollback();
            throw e;
        } finally {
            conn.setReadOnly(readOnly);
            conn.setTransactionIsolation(isolation);
            conn.setAutoCommit(true);
        }
        // after the read, in autocommit: every transaction that wrote WAL below S had its xid before this one
        String xid = queryString("SELECT (CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_current_xact_id() END)::text");
        return new Result(start, snapshot, xid == null ? 0 : Long.parseUnsignedLong(xid) + 1, shadow);
    }

    private static String oids() {
        StringBuilder sb = new StringBuilder();
        for (SystemCatalog c : SystemCatalog.values()) {
            sb.append(sb.length() == 0 ? "" : ",").append(c.oid());
        }
        return sb.toString();
    }

    private EnumMap<SystemCatalog, CatalogLayout> layouts() throws SQLException {
        Map<Integer, List<Column>> cols = new HashMap<>();
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT attrelid::int8, attnum, attname, atttypid::int8, atttypmod, attlen,"
                     + " attalign, attbyval, attstorage FROM pg_catalog.pg_attribute WHERE attrelid IN (" + oids()
                     + ") AND attnum > 0 AND NOT attisdropped ORDER BY attrelid, attnum")) {
            while (rs.next()) {
                cols.computeIfAbsent((int) rs.getLong(1), k -> new ArrayList<>()).add(new Column(rs.getInt(2),
                        rs.getString(3), (int) rs.getLong(4), rs.getInt(5), rs.getInt(6), rs.getString(7).charAt(0),
                        rs.getBoolean(8), rs.getString(9).charAt(0), false, false, null));
            }
        }
        EnumMap<SystemCatalog, CatalogLayout> out = new EnumMap<>(SystemCatalog.class);
        for (SystemCatalog c : SystemCatalog.values()) {
            List<Column> l = cols.get(c.oid());
            if (l == null) {
                throw new SQLException(c.relname() + " has no attributes in pg_attribute");
            }
            out.put(c, new CatalogLayout(c, l));
        }
        return out;
    }

    private void readTuples(SystemCatalog c, ShadowCatalogBuilder b, boolean textSafe) throws SQLException {
        String sql = c == SystemCatalog.PG_ATTRIBUTE
                ? "SELECT a.ctid::text AS ctid_, a.xmin::text AS xmin_, " + c.sqlColumns().replaceAll("(\\w+)(,|$)",
                        "a.$1$2") + ", CASE WHEN a.atthasmissing THEN array_send(a.attmissingval) END AS attmissingval,"
                        + " t.typtype AS mv_typtype, t.typbasetype::int8 AS mv_basetype FROM pg_catalog.pg_attribute a"
                        + " LEFT JOIN pg_catalog.pg_type t ON t.oid = a.atttypid"
                : "SELECT ctid::text AS ctid_, xmin::text AS xmin_, " + c.sqlColumns() + " FROM pg_catalog."
                        + c.relname();
        try (Statement st = conn.createStatement()) {
            st.setFetchSize(10_000);
            try (ResultSet rs = st.executeQuery(sql)) {
                SqlFields f = new SqlFields(rs, textSafe);
                while (rs.next()) {
                    String ctid = rs.getString("ctid_");
                    int comma = ctid.indexOf(',');
                    int xmin = (int) Long.parseLong(rs.getString("xmin_"));
                    b.tuple(c, Long.parseLong(ctid.substring(1, comma)),
                            Integer.parseInt(ctid.substring(comma + 1, ctid.length() - 1)), xmin, f);
                }
            }
        }
    }

    /** Catalog columns of one SQL result row. */
    private static final class SqlFields implements CatalogRow.Fields {
        private final ResultSet rs;
        private final boolean textSafe;

        SqlFields(ResultSet rs, boolean textSafe) {
            this.rs = rs;
            this.textSafe = textSafe;
        }

        @Override
        public int oid(String column) {
            try {
                return (int) rs.getLong(column);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public int int4(String column) {
            return oid(column);
        }

        @Override
        public int int2(String column) {
            return oid(column);
        }

        @Override
        public char ch(String column) {
            String s = name(column);
            return s == null || s.isEmpty() ? '\0' : s.charAt(0);
        }

        @Override
        public boolean bool(String column) {
            try {
                return rs.getBoolean(column);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public String name(String column) {
            try {
                return rs.getString(column);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public List<Integer> int2vector(String column) {
            List<Integer> out = new ArrayList<>();
            String s = name(column).trim();
            if (!s.isEmpty()) {
                for (String k : s.split(" ")) {
                    out.add(Integer.parseInt(k));
                }
            }
            return out;
        }

        @Override
        public byte[] missingValue(String column, int attlen, char attalign) {
            try {
                byte[] send = rs.getBytes(column);
                if (send == null) {
                    return null;
                }
                int typ = "d".equals(rs.getString("mv_typtype")) ? (int) rs.getLong("mv_basetype")
                        : (int) rs.getLong("atttypid");
                return MissingValues.toDisk(send, typ, attlen, textSafe);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
