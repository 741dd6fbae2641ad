package io.walshadow.job;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.ClickHouseException;
import io.walshadow.clickhouse.ColumnCodec;
import io.walshadow.clickhouse.DestinationSchema;
import io.walshadow.clickhouse.SinkTables;
import io.walshadow.sink.ClickHouseSinkOptions;
import io.walshadow.wal.WalFormat;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What the job checks before it creates anything (slot, catalog bootstrap, ClickHouse tables): each setting or
 * server property that would otherwise surface later as a restart loop, a warning deep in the log or a silently
 * empty replica. Each failure is one {@link PreflightException} naming what is wrong and what to do.
 */
final class Preflight {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Preflight.class);

    private Preflight() {}

    /** Thrown for a setting or server property the job cannot run with. */
    static final class PreflightException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PreflightException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** @param restoring the job resumes from a checkpoint or savepoint (its sink id's history is its own) */
    static void check(JobConfig config, boolean restoring) {
        postgres(config);
        if (config.clickhouse() != null) {
            clickhouse(config.clickhouse(), restoring, config.resetClickHouse());
        }
    }

    private static void postgres(JobConfig config) {
        try (Connection c = config.pg().openSql(); Statement st = c.createStatement()) {
            String server = where(config);
            try (ResultSet rs = st.executeQuery("SELECT current_setting('server_version_num')::int,"
                    + " current_setting('wal_level'), (SELECT rolreplication OR rolsuper FROM pg_roles"
                    + " WHERE rolname = current_user), current_user, current_setting('max_wal_senders')::int")) {
                rs.next();
                int version = rs.getInt(1);
                try {
                    WalFormat.forReplication(version); // WAL readable is not enough: rows decoded on it
                } catch (RuntimeException e) {
                    throw new PreflightException("PostgreSQL at " + server + ": " + e.getMessage(), null);
                }
                if (!"logical".equals(rs.getString(2))) {
                    throw new PreflightException("PostgreSQL at " + server + " has wal_level = " + rs.getString(2)
                            + "; the job needs wal_level = logical (its WAL then carries whole row images"
                            + " and catalog changes it decodes): ALTER SYSTEM SET wal_level = logical, then restart"
                            + " the server", null);
                }
                if (!rs.getBoolean(3)) {
                    throw new PreflightException("role " + rs.getString(4) + " on " + server + " may not stream"
                            + " WAL: ALTER ROLE " + rs.getString(4) + " REPLICATION", null);
                }
                if (rs.getInt(5) < 1) {
                    throw new PreflightException("PostgreSQL at " + server + " has max_wal_senders = 0: set it to"
                            + " at least 1 (and restart the server)", null);
                }
            }
            if (!config.allowUnmatchedInclude()) {
                unmatchedIncludes(c, config);
            }
            undecodableColumns(c, config);
        } catch (SQLException e) {
            String hint = String.valueOf(e.getMessage()).contains("SSL") ? " (pg.sslmode defaults to verify-full:"
                    + " give the server a certificate the JVM or --pg.sslrootcert trusts, or choose another"
                    + " --pg.sslmode knowingly)" : "";
            throw new PreflightException("cannot connect to PostgreSQL at " + where(config) + ": " + e.getMessage()
                    + hint, e);
        }
    }

    /** {@code --clickhouse.reset true} on a fresh start: the database's tables go, the copy starts over. */
    private static void dropAllTables(ClickHouseConnection c, String database) {
        List<String[]> tables = c.queryTsv("SELECT name FROM system.tables WHERE database = " + ColumnCodec.quote(database)
                + " ORDER BY engine = 'View' DESC"); // views first
        for (String[] t : tables) {
            c.execute("DROP TABLE IF EXISTS " + DestinationSchema.quote(database) + "." + DestinationSchema.quote(t[0]));
        }
        LOG.warn("--clickhouse.reset: dropped the {} tables of ClickHouse database {}; the job copies anew", tables.size(),
                database);
    }

    private static String where(JobConfig config) {
        return config.pg().host() + ":" + config.pg().port() + "/" + config.pg().database() + " (user "
                + config.pg().user() + ")";
    }

    /**
     * Lists each column of an included table whose type has no decoder, with what {@code types.undecodable} does
     * with it (one line each); a column whose action is {@code fail} stops the job here, before the first row of
     * its table would, naming every such column and the settings.
     */
    private static void undecodableColumns(Connection c, JobConfig config) throws SQLException {
        CatalogFilter filter = CatalogFilter.parse(config.include(), config.exclude());
        io.walshadow.types.ValueDecoder values = new io.walshadow.types.ValueDecoder(
                io.walshadow.pg.TypeCatalogLoader.load(c));
        List<String> failing = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT n.nspname, k.relname, a.attname, a.atttypid,"
                     + " format_type(a.atttypid, a.atttypmod), EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = k.oid"
                     + " AND a.attnum = ANY (i.indkey) AND CASE k.relreplident WHEN 'i' THEN i.indisreplident"
                     + " WHEN 'd' THEN i.indisprimary ELSE false END) OR k.relreplident = 'f'"
                     + " FROM pg_attribute a JOIN pg_class k ON k.oid = a.attrelid"
                     + " JOIN pg_namespace n ON n.oid = k.relnamespace"
                     + " WHERE k.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped"
                     + " ORDER BY 1, 2, a.attnum")) {
            while (rs.next()) {
                String schema = rs.getString(1);
                String table = rs.getString(2);
                if (!filter.includes(schema, table) || values.supports(rs.getInt(4))) {
                    continue;
                }
                String column = schema + "." + table + "." + rs.getString(3) + " (" + rs.getString(5) + ")";
                io.walshadow.types.UndecodableColumns.Action a = config.undecodable().actionFor(schema, table,
                        rs.getString(3));
                if (a == io.walshadow.types.UndecodableColumns.Action.FAIL) {
                    failing.add(column);
                } else if (a == io.walshadow.types.UndecodableColumns.Action.SKIP && rs.getBoolean(6)) {
                    LOG.warn("column {} has no decoder: written raw (types.undecodable skip, but it is part of the"
                            + " row's key)", column);
                } else {
                    LOG.warn("column {} has no decoder: {} (types.undecodable)", column, a == io.walshadow.types
                            .UndecodableColumns.Action.SKIP ? "left out of the destination" : "written as \\x hex");
                }
            }
        }
        if (!failing.isEmpty()) {
            throw new PreflightException("no decoder for the type of column" + (failing.size() == 1 ? " " : "s ")
                    + String.join(", ", failing.subList(0, Math.min(10, failing.size())))
                    + (failing.size() > 10 ? " and " + (failing.size() - 10) + " more" : "") + ", and types.undecodable"
                    + " is fail: pass --types.undecodable skip (leave such columns out) or raw (their on-disk bytes as"
                    + " hex), or name them in --types.undecodable.columns (schema.table.column=skip|raw), or exclude"
                    + " their tables (docs/clickhouse-types.md lists the types with a decoder)", null);
        }
    }

    /** Each include pattern must name at least one existing table (else a typo replicates nothing, silently). */
    private static void unmatchedIncludes(Connection c, JobConfig config) throws SQLException {
        List<String> patterns = CatalogFilter.parse(config.include(), "").includePatterns();
        if (patterns.isEmpty()) {
            return;
        }
        List<String[]> tables = new ArrayList<>();
        List<String[]> partitions = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT n.nspname, c.relname, c.relispartition,"
                     + " pg_partition_root(c.oid)::regclass::text FROM pg_class c JOIN pg_namespace n"
                     + " ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p')")) {
            while (rs.next()) {
                String[] t = {rs.getString(1), rs.getString(2), rs.getString(4)};
                // through their roots, partitions are not matched by their own names
                (config.partitionRoots() && rs.getBoolean(3) ? partitions : tables).add(t);
            }
        }
        for (String pattern : patterns) {
            CatalogFilter one = CatalogFilter.parse(pattern, "");
            List<String> roots = partitions.stream().filter(t -> one.includes(t[0], t[1])).map(t -> t[2]).distinct()
                    .limit(3).toList();
            if (tables.stream().noneMatch(t -> one.includes(t[0], t[1])) && !roots.isEmpty()) {
                throw new PreflightException("--tables.include pattern '" + pattern + "' matches only partitions,"
                        + " which replicate through their root (tables.partitions=root): include the root ("
                        + String.join(", ", roots) + "), or pass --tables.partitions leaf to replicate each partition"
                        + " as a table of its own", null);
            }
            if (tables.stream().noneMatch(t -> one.includes(t[0], t[1]))) {
                throw new PreflightException("--tables.include pattern '" + pattern + "' matches no table in"
                        + " database " + config.pg().database() + " (names are case-sensitive, as PostgreSQL"
                        + " stores them); pass --tables.allow.unmatched true to start before such tables exist",
                        null);
            }
        }
    }

    private static void clickhouse(ClickHouseSinkOptions ch, boolean restoring, boolean reset) {
        String where = "ClickHouse at " + ch.endpoint() + " as user " + ch.user();
        try (ClickHouseConnection c = new ClickHouseConnection(ch.endpoint(), ch.user(), ch.password(), "default",
                ch.rootCertificate(), ch.statementTimeout())) {
            try {
                c.queryString("SELECT version()");
            } catch (ClickHouseException e) {
                throw new PreflightException("cannot use " + where + ": " + e.serverMessage(), e);
            }
            if (restoring || !"1".equals(c.queryString("SELECT count() FROM system.tables WHERE database = "
                    + ColumnCodec.quote(ch.database()) + " AND name = "
                    + ColumnCodec.quote(SinkTables.WATERMARK)))) {
                return;
            }
            String earlier = c.queryString("SELECT concat(toString(count()), ' ', toString(max(commit_seq)), ' ',"
                    + " argMax(commit_lsn_text, batch)) FROM " + DestinationSchema.quote(ch.database()) + "."
                    + DestinationSchema.quote(SinkTables.WATERMARK)
                    + " WHERE sink = " + ColumnCodec.quote(ch.sinkId()) + " AND phase = 1");
            String[] f = earlier.split(" ", 3);
            if (!f[0].equals("0") && reset) {
                dropAllTables(c, ch.database());
            } else if (!f[0].equals("0")) {
                throw new PreflightException("ClickHouse database " + ch.database() + " already holds the commits of"
                        + " sink id " + ch.sinkId() + " (up to commit " + f[1] + ", LSN " + f[2] + ") from an"
                        + " earlier run, and this job starts fresh: its commits would be folded into the old ones and"
                        + " rows deleted since would stay live. Restore the job from its latest checkpoint or"
                        + " savepoint, or start over into an empty database (DROP DATABASE " + ch.database()
                        + " in ClickHouse, another --clickhouse.database, or --clickhouse.reset true to drop every"
                        + " table of " + ch.database() + " first)", null);
            }
        }
    }

}
