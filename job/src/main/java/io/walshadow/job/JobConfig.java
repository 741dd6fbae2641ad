package io.walshadow.job;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.buffer.XactBuffer;
import io.walshadow.toast.ToastResolver;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.sink.ClickHouseSinkOptions;
import io.walshadow.snapshot.SnapshotOptions;
import io.walshadow.source.WalSourceOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
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
                        long bufferHeapFamilyBytes, ToastResolver.Mode toastMode, long toastValueMaxBytes,
                        long toastFetchBatchBytes, ToastResolver.Missing toastMissing, SnapshotOptions snapshot, boolean allowUnmatchedInclude,
                        boolean resetClickHouse) {

    public static final String PG_PASSWORD_ENV = "WALSHADOW_PG_PASSWORD";
    public static final String CH_PASSWORD_ENV = "WALSHADOW_CH_PASSWORD";
    public static final String PG_PASSWORD_KEY = "walshadow.pg.password";
    public static final String CH_PASSWORD_KEY = "walshadow.clickhouse.password";
    /** Default of {@code toast.value.max.bytes}: a quarter of PostgreSQL's 1 GB value limit. */
    public static final long DEFAULT_TOAST_VALUE_MAX_BYTES = 256L << 20;
    /** Default of {@code toast.fetch.batch.bytes}. */
    public static final long DEFAULT_TOAST_FETCH_BATCH_BYTES = 64L << 20;
    /** Every {@code --key} the job reads; any other is a typo, refused with the nearest of these. */
    public static final java.util.SortedSet<String> KEYS = java.util.Collections.unmodifiableSortedSet(
            new java.util.TreeSet<>(java.util.List.of("pg.host", "pg.port", "pg.database", "pg.user", "pg.password.file", "pg.sslmode",
                    "pg.sslrootcert", "slot", "slot.create", "status.interval.ms", "fetch.max.records",
                    "tables.include", "tables.exclude", "tables.allow.unmatched", "checkpoint.interval",
                    "checkpoint.dir", "progress.interval", "xact.prepared.drop", "xact.buffer.heap.bytes",
                    "xact.buffer.heap.family.bytes", "toast.mode", "toast.missing", "toast.value.max.bytes",
                    "toast.fetch.batch.bytes",
                    "snapshot.mode", "snapshot.parallelism", "snapshot.fetch.rows", "snapshot.chunk.pages",
                    "clickhouse.url", "clickhouse.user", "clickhouse.password.file", "clickhouse.database", "clickhouse.sslrootcert",
                    "clickhouse.sink.id", "clickhouse.on.drop", "clickhouse.flush.bytes",
                    "clickhouse.retry.timeout", "clickhouse.statement.timeout", "clickhouse.reset",
                    "clickhouse.unwritable")));
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
        String password = secret(p, "pg.password.file", env, PG_PASSWORD_ENV, flinkConf, PG_PASSWORD_KEY);
        PgConnectionConfig pg = new PgConnectionConfig(
                required(p, "pg.host"),
                intValue(p, "pg.port", 5432),
                required(p, "pg.database"),
                required(p, "pg.user"),
                password,
                p.get("pg.sslmode", "verify-full"), // the WAL carries every database of the cluster
                p.get("pg.sslrootcert", null));
        WalSourceOptions source;
        boolean createSlot = bool(p, "slot.create", true);
        try {
            source = new WalSourceOptions(p.get("slot", "walshadow"), createSlot,
                    intValue(p, "status.interval.ms", 10_000), intValue(p, "fetch.max.records", 4096));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid source setting (slot / status.interval.ms / fetch.max.records): "
                    + e.getMessage(), e);
        }
        String include = p.get("tables.include", "");
        String exclude = p.get("tables.exclude", "");
        try {
            CatalogFilter.parse(include, exclude);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid --tables.include / --tables.exclude: " + e.getMessage(), e);
        }
        ToastResolver.Mode toastMode = toastMode(p);
        long toastMax = positive(p, "toast.value.max.bytes", DEFAULT_TOAST_VALUE_MAX_BYTES);
        return new JobConfig(pg, source, include, exclude, duration(p, "checkpoint.interval", Duration.ofSeconds(10)),
                p.get("checkpoint.dir", null), duration(p, "progress.interval", Duration.ofSeconds(5)),
                gids(p, "xact.prepared.drop"), clickhouse(p, pg, source,
                        secret(p, "clickhouse.password.file", env, CH_PASSWORD_ENV, flinkConf, CH_PASSWORD_KEY),
                        toastMode == ToastResolver.Mode.CLICKHOUSE, CatalogFilter.parse(include, exclude).spec()),
                nonNegative(p, "xact.buffer.heap.bytes", XactBuffer.DEFAULT_HEAP_BYTES),
                nonNegative(p, "xact.buffer.heap.family.bytes", XactBuffer.DEFAULT_HEAP_FAMILY_BYTES),
                toastMode, toastMax, positive(p, "toast.fetch.batch.bytes", DEFAULT_TOAST_FETCH_BATCH_BYTES),
                toastMissing(p), snapshot(p), bool(p, "tables.allow.unmatched", false), bool(p, "clickhouse.reset", false));
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
        String m = p.get("snapshot.mode", "initial");
        if (!m.equals("initial") && !m.equals("never")) {
            throw new IllegalArgumentException("setting --snapshot.mode must be initial or never, got '" + m + "'");
        }
        long parallelism = positive(p, "snapshot.parallelism", SnapshotOptions.DEFAULT_PARALLELISM);
        long fetch = positive(p, "snapshot.fetch.rows", SnapshotOptions.DEFAULT_FETCH_ROWS);
        if (parallelism > 256 || fetch > 1_000_000) {
            throw new IllegalArgumentException("setting --snapshot.parallelism (at most 256) or --snapshot.fetch.rows"
                    + " (at most 1000000) too large: " + parallelism + ", " + fetch);
        }
        return new SnapshotOptions(m.equals("initial"), (int) parallelism,
                positive(p, "snapshot.chunk.pages", SnapshotOptions.DEFAULT_CHUNK_PAGES), (int) fetch);
    }

    private static ToastResolver.Mode toastMode(ParameterTool p) {
        String m = p.get("toast.mode", "clickhouse");
        return switch (m) {
            case "clickhouse" -> ToastResolver.Mode.CLICKHOUSE;
            case "disabled" -> ToastResolver.Mode.DISABLED;
            default -> throw new IllegalArgumentException("setting --toast.mode must be clickhouse or disabled, got '"
                    + m + "'");
        };
    }

    private static ToastResolver.Missing toastMissing(ParameterTool p) {
        String m = p.get("toast.missing", "fail");
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
        String url = p.get("clickhouse.url");
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
        String onDrop = p.get("clickhouse.on.drop", "retain");
        if (!onDrop.equals("retain") && !onDrop.equals("drop")) {
            throw new IllegalArgumentException("setting --clickhouse.on.drop must be retain or drop, got '" + onDrop + "'");
        }
        String unwritable = p.get("clickhouse.unwritable", "fail");
        if (!unwritable.equals("fail") && !unwritable.equals("quarantine")) {
            throw new IllegalArgumentException("setting --clickhouse.unwritable must be fail or quarantine, got '"
                    + unwritable + "'");
        }
        try {
            return new ClickHouseSinkOptions(url, p.get("clickhouse.user", "default"), password,
                    p.get("clickhouse.database", pg.database()), p.get("clickhouse.sslrootcert", null),
                    p.get("clickhouse.sink.id", source.slotName()), onDrop.equals("drop"),
                    longValue(p, "clickhouse.flush.bytes", 16L << 20),
                    duration(p, "clickhouse.retry.timeout", Duration.ofMinutes(5)), toastMirrors,
                    unwritable.equals("quarantine"), tables,
                    duration(p, "clickhouse.statement.timeout", ClickHouseConnection.DEFAULT_TIMEOUT));
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
}
