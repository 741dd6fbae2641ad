package io.walshadow.catalog.shadow;

import java.util.LinkedHashMap;
import java.util.Map;

/** Plain counters of the {@link ShadowCatalog}, for the Flink layer to expose as metrics. Not persisted. */
public final class ShadowCounters {
    /** Catalog pages seen whole for the first time since the redo point. */
    long pagesSeen;
    /** Later images of known pages checked against the shadow. */
    long imagesVerified;
    /** Catalog tuples inserted (INSERT, MULTI_INSERT, the new version of an UPDATE). */
    long inserts;
    /** Catalog tuples deleted or updated. */
    long deletes;
    /** UPDATEs whose new tuple was rebuilt from the old one's prefix/suffix. */
    long prefixSuffixRebuilt;
    /** In-place updates (relhasindex, relfrozenxid, ...) applied. */
    long inplaceUpdates;
    /** In-place updates of a version no longer held (replaced meanwhile): nothing to apply. */
    long inplaceMissed;
    /** PRUNE records on catalog pages. */
    long prunes;
    /** Relation map updates (rewrites of mapped catalogs). */
    long relmapUpdates;
    /** Rewrites of a catalog (VACUUM FULL, CLUSTER) whose copy the shadow took over. */
    long catalogRewrites;
    /** Transient tables of catalog rewrites the shadow started keeping. */
    long rewriteCopiesSeen;
    /** Transactions the shadow held in progress that ended without a record (a crash), taken as aborted. */
    long abortedWithoutRecord;
    /** Records between the redo point and the history start that referred to tuples the bootstrap had not kept. */
    long convergingSkips;
    /** Tuples seen on pages before the history start and found dead once it was reached. */
    long doubtfulDropped;

    public Map<String, Long> asMap() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("catalog_shadow_pages_seen", pagesSeen);
        m.put("catalog_shadow_images_verified", imagesVerified);
        m.put("catalog_shadow_inserts", inserts);
        m.put("catalog_shadow_deletes", deletes);
        m.put("catalog_shadow_prefix_suffix_rebuilt", prefixSuffixRebuilt);
        m.put("catalog_shadow_inplace_updates", inplaceUpdates);
        m.put("catalog_shadow_inplace_missed", inplaceMissed);
        m.put("catalog_shadow_prunes", prunes);
        m.put("catalog_shadow_relmap_updates", relmapUpdates);
        m.put("catalog_shadow_catalog_rewrites", catalogRewrites);
        m.put("catalog_shadow_rewrite_copies_seen", rewriteCopiesSeen);
        m.put("catalog_shadow_aborted_without_record", abortedWithoutRecord);
        m.put("catalog_shadow_converging_skips", convergingSkips);
        m.put("catalog_shadow_doubtful_dropped", doubtfulDropped);
        return m;
    }

    @Override
    public String toString() {
        return asMap().toString();
    }
}
