package io.walshadow.clickhouse;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the connected ClickHouse server supports, derived from {@code SELECT version()}. Everything the product
 * needs works on 18.16 (the only server installable here); the flags gate optional features of newer servers.
 *
 * <p>Thresholds are the first release whose changelog (ClickHouse {@code docs/en/whats-new/changelog/2019.md},
 * {@code 2020.md}, {@code 2021.md}, {@code docs/changelogs/v22.2.1.2139-prestable.md},
 * {@code docs/changelogs/v23.2.1.2537-stable.md}) lists the feature, with the PR number. Measured here: 18.16 (all
 * flags false) against the real server, and every flag true against the chDB engine 26.7 ({@code
 * ChdbCapabilitiesIT}); the thresholds in between are from the changelogs only.
 */
public record ServerCapabilities(String version, int major, int minor, boolean replacingWithIsDeleted,
                                 boolean dateTime64, boolean insertDeduplicationToken,
                                 boolean addColumnIfNotExists, boolean renameColumn,
                                 boolean nonReplicatedDeduplicationWindow, boolean bloomFilterIndex,
                                 boolean mapType) {

    /** {@code ReplacingMergeTree(ver, is_deleted)}: 23.2 (v23.2.1.2537 "Enrichment of the existing ReplacingMergeTree
     * engine to allow duplicates insertion", PR #41005). */
    public static final int[] REPLACING_WITH_IS_DELETED_SINCE = {23, 2};
    /** {@code DateTime64(precision[, tz])}: 20.1 (v20.1.2.4 "Add DateTime64 datatype with configurable sub-second
     * precision", PR #7170). */
    public static final int[] DATETIME64_SINCE = {20, 1};
    /** The {@code insert_deduplication_token} setting: 22.2 (v22.2.1.2139 "The setting allows a user to provide own
     * deduplication semantic in MergeTree/ReplicatedMergeTree", PR #32304). On a non-replicated MergeTree it only
     * acts when the table sets {@code non_replicated_deduplication_window} (21.5, so always there by 22.2). */
    public static final int[] INSERT_DEDUPLICATION_TOKEN_SINCE = {22, 2};
    /**
     * {@code ALTER TABLE ... ADD COLUMN IF NOT EXISTS}: 19.1 (v19.1.6 "Support for IF NOT EXISTS in ALTER TABLE ADD
     * COLUMN statements along with IF EXISTS in DROP/MODIFY/CLEAR/COMMENT COLUMN", PR #3900). 18.16 rejects it
     * (measured).
     */
    public static final int[] ADD_COLUMN_IF_NOT_EXISTS_SINCE = {19, 1};
    /**
     * {@code ALTER TABLE ... RENAME COLUMN} for the MergeTree family: 20.4 (v20.4.2.9 "Add ALTER TABLE ... RENAME
     * COLUMN for MergeTree table engines family", PR #9948; several renames in one ALTER such as {@code a TO b, c TO
     * a} fixed in a later 20.4 patch release, PR #10895). Columns of the sorting key cannot be renamed on any version.
     */
    public static final int[] RENAME_COLUMN_SINCE = {20, 4};
    /**
     * MergeTree setting {@code non_replicated_deduplication_window} (insert deduplication for non-replicated tables,
     * by block hash or, from 22.2, by {@code insert_deduplication_token}): 21.5 ("Add new setting
     * non_replicated_deduplication_window for non-replicated MergeTree inserts deduplication", PR #22514). Before
     * that only Replicated tables deduplicate inserts, and an unknown table setting fails the CREATE.
     */
    public static final int[] NON_REPLICATED_DEDUPLICATION_WINDOW_SINCE = {21, 5};

    /**
     * {@code INDEX ... TYPE bloom_filter} without {@code allow_experimental_data_skipping_indices}: 20.1 (the
     * release whose changelog retires that setting; the threshold is not checked against a 19.x/20.x server here, only
     * 18.16 without and chDB 26.7 with it). Only the TOAST mirrors use it, to serve fetches by {@code chunk_id}.
     */
    public static final int[] BLOOM_FILTER_INDEX_SINCE = {20, 1};

    /**
     * The {@code Map(K, V)} column type without {@code allow_experimental_map_type}: the type came in 21.1 (v21.1.2.15
     * "Add new DataType Map(key,value)", PR #15806) behind that setting, which 21.5 and 21.7 still required (issues
     * #26729, #35244, where the maintainers point a 21.7 user to 22.2). The release that dropped the requirement is
     * not pinned down from the changelogs here; 22.3 (LTS) is a conservative threshold past it. Only hstore uses it
     * ({@link TypeMapping}).
     */
    public static final int[] MAP_TYPE_SINCE = {22, 3};

    private static final Pattern VERSION = Pattern.compile("^\\s*(\\d+)\\.(\\d+)");

    /** Queries {@code SELECT version()} on the server. */
    public static ServerCapabilities probe(ClickHouseSql conn) {
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
                atLeast(major, minor, ADD_COLUMN_IF_NOT_EXISTS_SINCE),
                atLeast(major, minor, RENAME_COLUMN_SINCE),
                atLeast(major, minor, NON_REPLICATED_DEDUPLICATION_WINDOW_SINCE),
                atLeast(major, minor, BLOOM_FILTER_INDEX_SINCE),
                atLeast(major, minor, MAP_TYPE_SINCE));
    }

    /** All flags off: what 18.16 supports, and the safe choice when the version is unknown. */
    public static ServerCapabilities baseline() {
        return of("18.16");
    }

    static boolean atLeast(int major, int minor, int[] since) {
        return major > since[0] || (major == since[0] && minor >= since[1]);
    }
}
