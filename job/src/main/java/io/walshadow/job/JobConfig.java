package io.walshadow.job;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.toast.ToastResolver;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.sink.ClickHouseSinkOptions;
import io.walshadow.snapshot.SnapshotOptions;
import io.walshadow.source.WalSourceOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.util.ParameterTool;
import org.apache.flink.util.TimeUtils;

/**
 * The job's settings, from {@code --key value} arguments. Secrets never come from arguments (they show up in process
 * lists and Flink's web UI): the passwords are read from a file ({@code --pg.password.file},
 * {@code --clickhouse.password.file}: a mounted Kubernetes secret), else from the environment
 * ({@code WALSHADOW_PG_PASSWORD}, {@code WALSHADOW_CH_PASSWORD}), else from the Flink configuration
 * ({@code walshadow.pg.password}, {@code walshadow.clickhouse.password}).
 *
 * <p>A missing or malformed setting fails at submission with an {@link IllegalArgumentException} naming the key.
 */
public record JobConfig(PgConnectionConfig pg, WalSourceOptions source, String include, String exclude,
                        Duration checkpointInterval, String checkpointDir, Duration progressInterval,
                        Set<String> preparedDrop, ClickHouseSinkOptions clickhouse, long bufferHeapBytes,
                        long bufferHeapFamilyBytes, int bufferParallelism, ToastResolver.Mode toastMode, long toastValueMaxBytes,
                        long toastFetchBatchBytes, ToastResolver.Missing toastMissing, SnapshotOptions snapshot, boolean allowUnmatchedInclude,
                        boolean resetClickHouse, io.walshadow.types.UndecodableColumns undecodable,
                        boolean partitionRoots, LocalEndpoints local) {

    public static final String PG_PASSWORD_ENV = "WALSHADOW_PG_PASSWORD";
    public static final String CH_PASSWORD_ENV = "WALSHADOW_CH_PASSWORD";
    public static final String PG_PASSWORD_KEY = "walshadow.pg.password";
    public static final String CH_PASSWORD_KEY = "walshadow.clickhouse.password";
    /** Default of {@code toast.value.max.bytes}: a quarter of PostgreSQL's 1 GB value limit. */
    public static final long DEFAULT_TOAST_VALUE_MAX_BYTES = JobOptions.TOAST_VALUE_MAX_BYTES.defaultValue();
    /** Default of {@code toast.fetch.batch.bytes}. */
    public static final long DEFAULT_TOAST_FETCH_BATCH_BYTES = JobOptions.TOAST_FETCH_BATCH_BYTES.defaultValue();
    /** Every {@code --key} the job reads; any other is a typo, refused with the nearest of these. */
    public static final java.util.SortedSet<String> KEYS = java.util.Collections.unmodifiableSortedSet(
            JobOptions.ALL.stream().map(o -> o.key()).collect(java.util.stream.Collectors.toCollection(
                    java.util.TreeSet::new)));
    /** PostgreSQL's GIDSIZE is 200 bytes with the terminating NUL. */
    private static final int MAX_GID_BYTES = 199;

    public JobConfig {
        preparedDrop = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(preparedDrop)); // request order
    }

    public static JobConfig from(String[] args, Map<String, String> env) {
        return from(args, env, Map.of());
    }

    /** @param flinkConf the Flink configuration (for passwords not in the environment) */
    public static JobConfig from(String[] args, Map<String, String> env, Map<String, String> flinkConf) {
        ParameterTool p = ParameterTool.fromArgs(args);
        for (String key : p.toMap().keySet()) {
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException("unknown setting --" + key + Keys.suggestion(key, KEYS)
                        + " (docs/configuration.md lists them all)");
            }
        }
        String password = secret(p, JobOptions.PG_PASSWORD_FILE.key(), env, PG_PASSWORD_ENV, flinkConf, PG_PASSWORD_KEY);
        PgConnectionConfig pg = new PgConnectionConfig(
                required(p, JobOptions.PG_HOST),
                intValue(p, JobOptions.PG_PORT),
                required(p, JobOptions.PG_DATABASE),
                required(p, JobOptions.PG_USER),
                password,
                string(p, JobOptions.PG_SSLMODE), // the WAL carries every database of the cluster
                string(p, JobOptions.PG_SSLROOTCERT));
        WalSourceOptions source;
        boolean createSlot = bool(p, JobOptions.SLOT_CREATE);
        try {
            source = new WalSourceOptions(string(p, JobOptions.SLOT), createSlot,
                    intValue(p, JobOptions.STATUS_INTERVAL_MS), intValue(p, JobOptions.FETCH_MAX_RECORDS));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid source setting (slot / status.interval.ms / fetch.max.records): "
                    + e.getMessage(), e);
        }
        String include = p.get(JobOptions.TABLES_INCLUDE.key(), "");
        String exclude = p.get(JobOptions.TABLES_EXCLUDE.key(), "");
        try {
            CatalogFilter.parse(include, exclude);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid --tables.include / --tables.exclude: " + e.getMessage(), e);
        }
        boolean partitionRoots = partitionRoots(p);
        ToastResolver.Mode toastMode = toastMode(p);
        long toastMax = positive(p, JobOptions.TOAST_VALUE_MAX_BYTES);
        return new JobConfig(pg, source, include, exclude, duration(p, JobOptions.CHECKPOINT_INTERVAL),
                string(p, JobOptions.CHECKPOINT_DIR), duration(p, JobOptions.PROGRESS_INTERVAL),
                gids(p, JobOptions.XACT_PREPARED_DROP.key()), clickhouse(p, pg, source,
                        secret(p, JobOptions.CLICKHOUSE_PASSWORD_FILE.key(), env, CH_PASSWORD_ENV, flinkConf, CH_PASSWORD_KEY),
                        toastMode == ToastResolver.Mode.CLICKHOUSE,
                        CatalogFilter.parse(include, exclude).withPartitionRoots(partitionRoots).spec()),
                nonNegative(p, JobOptions.XACT_BUFFER_HEAP_BYTES),
                nonNegative(p, JobOptions.XACT_BUFFER_HEAP_FAMILY_BYTES), bufferParallelism(p),
                toastMode, toastMax, positive(p, JobOptions.TOAST_FETCH_BATCH_BYTES),
                toastMissing(p), snapshot(p), bool(p, JobOptions.TABLES_ALLOW_UNMATCHED), bool(p, JobOptions.CLICKHOUSE_RESET),
                io.walshadow.types.UndecodableColumns.parse(string(p, JobOptions.TYPES_UNDECODABLE),
                        string(p, JobOptions.TYPES_UNDECODABLE_COLUMNS)), partitionRoots,
                new LocalEndpoints(port(p, JobOptions.LOCAL_WEB_PORT), port(p, JobOptions.LOCAL_METRICS_PORT),
                        restorePath(p)));
    }

    private static int bufferParallelism(ParameterTool p) {
        long n = positive(p, JobOptions.XACT_BUFFER_PARALLELISM);
        if (n > WalshadowJob.BUFFER_MAX_PARALLELISM) {
            throw new IllegalArgumentException("setting --" + JobOptions.XACT_BUFFER_PARALLELISM.key() + " too large: "
                    + n + " (at most " + WalshadowJob.BUFFER_MAX_PARALLELISM + ", the buffer's key groups)");
        }
        return (int) n;
    }

    /** The table filter these settings describe (patterns and how partitions replicate). */
    public CatalogFilter filter() {
        return CatalogFilter.parse(include, exclude).withPartitionRoots(partitionRoots);
    }

    private static boolean keepDetachedRows(ParameterTool p) {
        String v = string(p, JobOptions.TABLES_PARTITIONS_DETACHED);
        return switch (v) {
            case "remove" -> false;
            case "keep" -> true;
            default -> throw new IllegalArgumentException("invalid --" + JobOptions.TABLES_PARTITIONS_DETACHED.key()
                    + " '" + v + "': remove (a detached partition's rows leave its root's table) or keep");
        };
    }

    private static boolean partitionRoots(ParameterTool p) {
        String v = string(p, JobOptions.TABLES_PARTITIONS);
        return switch (v) {
            case "root" -> true;
            case "leaf" -> false;
            default -> throw new IllegalArgumentException("invalid --" + JobOptions.TABLES_PARTITIONS.key() + " '" + v
                    + "': root (a partitioned table replicates into one table) or leaf (each partition on its own)");
        };
    }

    private static boolean bool(ParameterTool p, String key, boolean dflt) {
        String v = p.get(key);
        if (v == null) {
            return dflt;
        }
        return switch (v.trim()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("setting --" + key + " must be true or false, got '" + v
                    + "'");
        };
    }

    private static SnapshotOptions snapshot(ParameterTool p) {
        String m = string(p, JobOptions.SNAPSHOT_MODE);
        if (!m.equals("initial") && !m.equals("never")) {
            throw new IllegalArgumentException("setting --snapshot.mode must be initial or never, got '" + m + "'");
        }
        long parallelism = positive(p, JobOptions.SNAPSHOT_PARALLELISM);
        long fetch = positive(p, JobOptions.SNAPSHOT_FETCH_ROWS);
        if (parallelism > 256 || fetch > 1_000_000) {
            throw new IllegalArgumentException("setting --snapshot.parallelism (at most 256) or --snapshot.fetch.rows"
                    + " (at most 1000000) too large: " + parallelism + ", " + fetch);
        }
        return new SnapshotOptions(m.equals("initial"), (int) parallelism,
                positive(p, JobOptions.SNAPSHOT_CHUNK_PAGES), (int) fetch);
    }

    private static ToastResolver.Mode toastMode(ParameterTool p) {
        String m = string(p, JobOptions.TOAST_MODE);
        return switch (m) {
            case "clickhouse" -> ToastResolver.Mode.CLICKHOUSE;
            case "disabled" -> ToastResolver.Mode.DISABLED;
            default -> throw new IllegalArgumentException("setting --toast.mode must be clickhouse or disabled, got '"
                    + m + "'");
        };
    }

    private static ToastResolver.Missing toastMissing(ParameterTool p) {
        String m = string(p, JobOptions.TOAST_MISSING);
        return switch (m) {
            case "fail" -> ToastResolver.Missing.FAIL;
            case "fill" -> ToastResolver.Missing.FILL;
            default -> throw new IllegalArgumentException("setting --toast.missing must be fail or fill, got '" + m
                    + "'");
        };
    }

    private static String secret(ParameterTool p, String fileKey, Map<String, String> env, String envName,
                                 Map<String, String> conf, String key) {
        String file = p.get(fileKey);
        if (file != null) {
            try {
                // one trailing line break is the file's, not the password's (echo, kubectl create secret --from-file)
                return java.nio.file.Files.readString(java.nio.file.Path.of(file)).replaceFirst("\\r?\\n$", "");
            } catch (java.io.IOException | RuntimeException e) {
                throw new IllegalArgumentException("setting --" + fileKey + ": cannot read " + file + " ("
                        + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", e);
            }
        }
        String v = env.get(envName);
        return v != null && !v.isEmpty() ? v : conf.get(key);
    }

    /** The sink's settings; null without {@code --clickhouse.url} (then only the stages before the sink can run). */
    private static ClickHouseSinkOptions clickhouse(ParameterTool p, PgConnectionConfig pg, WalSourceOptions source,
                                                    String password, boolean toastMirrors, String tables) {
        String url = string(p, JobOptions.CLICKHOUSE_URL);
        if (url == null || url.isBlank()) {
            return null;
        }
        int authority = url.indexOf("://") + 3;
        int end = url.indexOf('/', authority);
        if (url.substring(authority, end < 0 ? url.length() : end).contains("@")) {
            throw new IllegalArgumentException("setting --clickhouse.url must not carry credentials (they would be"
                    + " logged): pass --clickhouse.user and the password in WALSHADOW_CH_PASSWORD or the Flink"
                    + " configuration key " + CH_PASSWORD_KEY);
        }
        if (!url.startsWith("http://") && !url.startsWith("https://")) {
            throw new IllegalArgumentException("setting --clickhouse.url must be http://host:port or https://host:port,"
                    + " got '" + url + "'");
        }
        String onDrop = string(p, JobOptions.CLICKHOUSE_ON_DROP);
        if (!onDrop.equals("retain") && !onDrop.equals("drop")) {
            throw new IllegalArgumentException("setting --clickhouse.on.drop must be retain or drop, got '" + onDrop + "'");
        }
        String unwritable = string(p, JobOptions.CLICKHOUSE_UNWRITABLE);
        if (!unwritable.equals("fail") && !unwritable.equals("quarantine")) {
            throw new IllegalArgumentException("setting --clickhouse.unwritable must be fail or quarantine, got '"
                    + unwritable + "'");
        }
        String visibility = string(p, JobOptions.CLICKHOUSE_VISIBILITY);
        if (!visibility.equals("checkpoint") && !visibility.equals("commit")) {
            throw new IllegalArgumentException("setting --clickhouse.visibility must be checkpoint or commit, got '"
                    + visibility + "'");
        }
        Duration directWrites = visibility.equals("commit") ? duration(p, JobOptions.CLICKHOUSE_VISIBILITY_INTERVAL) : null;
        try {
            return new ClickHouseSinkOptions(url, string(p, JobOptions.CLICKHOUSE_USER), password,
                    p.get(JobOptions.CLICKHOUSE_DATABASE.key(), pg.database()), string(p, JobOptions.CLICKHOUSE_SSLROOTCERT),
                    p.get(JobOptions.CLICKHOUSE_SINK_ID.key(), source.slotName()), onDrop.equals("drop"),
                    longValue(p, JobOptions.CLICKHOUSE_FLUSH_BYTES),
                    duration(p, JobOptions.CLICKHOUSE_RETRY_TIMEOUT), toastMirrors,
                    unwritable.equals("quarantine"), tables,
                    duration(p, JobOptions.CLICKHOUSE_STATEMENT_TIMEOUT), keepDetachedRows(p), directWrites);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid ClickHouse setting: " + e.getMessage(), e);
        }
    }

    /** The sink's settings, or a clear error naming the key when the job was started without them. */
    public ClickHouseSinkOptions requireClickHouse() {
        if (clickhouse == null) {
            throw new IllegalArgumentException("missing required setting --clickhouse.url");
        }
        return clickhouse;
    }

    private static long positive(ParameterTool p, String key, long dflt) {
        long v = longValue(p, key, dflt);
        if (v < 1) {
            throw new IllegalArgumentException("setting --" + key + " must be positive, got " + v);
        }
        return v;
    }

    private static long nonNegative(ParameterTool p, String key, long dflt) {
        long v = longValue(p, key, dflt);
        if (v < 0) {
            throw new IllegalArgumentException("setting --" + key + " must not be negative, got " + v);
        }
        return v;
    }

    private static long longValue(ParameterTool p, String key, long dflt) {
        String v = p.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("setting --" + key + " must be an integer, got '" + v + "'");
        }
    }

    /** Comma-separated GIDs (a GID with a comma cannot be named here). */
    private static Set<String> gids(ParameterTool p, String key) {
        String v = p.get(key);
        Set<String> out = new LinkedHashSet<>();
        if (v == null || v.isBlank()) {
            return out;
        }
        for (String g : v.split(",", -1)) {
            String gid = g.trim();
            if (gid.isEmpty()) {
                throw new IllegalArgumentException("setting --" + key + " has an empty gid: '" + v + "'");
            }
            if (gid.getBytes(StandardCharsets.UTF_8).length > MAX_GID_BYTES) {
                throw new IllegalArgumentException("setting --" + key + ": gid longer than PostgreSQL allows ("
                        + MAX_GID_BYTES + " bytes): '" + gid + "'");
            }
            out.add(gid);
        }
        return out;
    }

    private static String required(ParameterTool p, String key) {
        String v = p.get(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("missing required setting --" + key);
        }
        return v;
    }

    private static int intValue(ParameterTool p, String key, int dflt) {
        String v = p.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("setting --" + key + " must be an integer, got '" + v + "'");
        }
    }

    private static Duration duration(ParameterTool p, String key, Duration dflt) {
        String v = p.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            return TimeUtils.parseDuration(v.trim());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("setting --" + key + " must be a duration like 10s, 500ms or 2m, got '" + v + "'");
        }
    }

    // ---- reading a typed option: its key, and its default when the argument is absent

    private static String string(ParameterTool p, ConfigOption<String> o) {
        return p.get(o.key(), o.hasDefaultValue() ? o.defaultValue() : null);
    }

    private static String required(ParameterTool p, ConfigOption<String> o) {
        return required(p, o.key());
    }

    private static String restorePath(ParameterTool p) {
        String v = string(p, JobOptions.LOCAL_RESTORE_FROM);
        return v == null ? null : LocalEndpoints.restorePath(v);
    }

    private static int port(ParameterTool p, ConfigOption<Integer> o) {
        int v = intValue(p, o);
        if (v < 0 || v > 65535) {
            throw new IllegalArgumentException("setting --" + o.key() + " must be a TCP port (0 for none), got " + v);
        }
        return v;
    }

    private static int intValue(ParameterTool p, ConfigOption<Integer> o) {
        return intValue(p, o.key(), o.defaultValue());
    }

    private static long longValue(ParameterTool p, ConfigOption<Long> o) {
        return longValue(p, o.key(), o.defaultValue());
    }

    private static long positive(ParameterTool p, ConfigOption<Long> o) {
        return positive(p, o.key(), o.defaultValue());
    }

    private static long nonNegative(ParameterTool p, ConfigOption<Long> o) {
        return nonNegative(p, o.key(), o.defaultValue());
    }

    private static boolean bool(ParameterTool p, ConfigOption<Boolean> o) {
        return bool(p, o.key(), o.defaultValue());
    }

    private static Duration duration(ParameterTool p, ConfigOption<Duration> o) {
        return duration(p, o.key(), o.defaultValue());
    }
}
