package io.walshadow.clickhouse;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the connected ClickHouse server supports, derived from {@code SELECT version()}. Everything the product
 * needs works on 18.16 (the only server installable here); the flags gate optional features of newer servers.
 *
 * <p>Thresholds are the first release line whose changelog (ClickHouse CHANGELOG.md / release notes) lists the
 * feature. Only 18.16 (all flags false) is measured on these machines; the newer thresholds are from the changelogs.
 */
public record ServerCapabilities(String version, int major, int minor, boolean replacingWithIsDeleted,
                                 boolean dateTime64, boolean insertDeduplicationToken,
                                 boolean addColumnIfNotExists) {

    /** {@code ReplacingMergeTree(ver, is_deleted)}: release 23.2 (changelog: "is_deleted column for ReplacingMergeTree"). */
    public static final int[] REPLACING_WITH_IS_DELETED_SINCE = {23, 2};
    /** {@code DateTime64(precision[, tz])} data type: release 20.1 (changelog v20.1, new data type DateTime64). */
    public static final int[] DATETIME64_SINCE = {20, 1};
    /** The {@code insert_deduplication_token} setting: release 22.2 (changelog v22.2). */
    public static final int[] INSERT_DEDUPLICATION_TOKEN_SINCE = {22, 2};
    /**
     * {@code ALTER TABLE ... ADD COLUMN IF NOT EXISTS}: release 19.1 (changelog v19.1: "IF NOT EXISTS in ALTER TABLE
     * ADD COLUMN along with IF EXISTS in DROP/MODIFY/CLEAR/COMMENT COLUMN"). 18.16 rejects it (measured).
     */
    public static final int[] ADD_COLUMN_IF_NOT_EXISTS_SINCE = {19, 1};

    private static final Pattern VERSION = Pattern.compile("^\\s*(\\d+)\\.(\\d+)");

    /** Queries {@code SELECT version()} on the server. */
    public static ServerCapabilities probe(ClickHouseConnection conn) {
        String v = conn.queryString("SELECT version()");
        if (v == null) {
            throw new ClickHouseException("SELECT version()", "no row returned", null);
        }
        return of(v);
    }

    /** Parses a version string such as {@code 18.16.1} or {@code 23.8.2.7}. */
    public static ServerCapabilities of(String version) {
        Matcher m = VERSION.matcher(version);
        if (!m.find()) {
            throw new IllegalArgumentException("not a ClickHouse version: " + version);
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        return new ServerCapabilities(version.strip(), major, minor,
                atLeast(major, minor, REPLACING_WITH_IS_DELETED_SINCE),
                atLeast(major, minor, DATETIME64_SINCE),
                atLeast(major, minor, INSERT_DEDUPLICATION_TOKEN_SINCE),
                atLeast(major, minor, ADD_COLUMN_IF_NOT_EXISTS_SINCE));
    }

    /** All flags off: what 18.16 supports, and the safe choice when the version is unknown. */
    public static ServerCapabilities baseline() {
        return of("18.16");
    }

    static boolean atLeast(int major, int minor, int[] since) {
        return major > since[0] || (major == since[0] && minor >= since[1]);
    }
}
