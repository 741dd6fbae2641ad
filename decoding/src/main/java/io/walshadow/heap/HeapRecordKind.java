package io.walshadow.heap;

/**
 * The record types of the Heap (10) and Heap2 (9) resource managers, by {@code xl_info & 0x70} (heapam_xlog.h).
 * Heap's are the same in 14..18; Heap2's 0x10..0x30 are PRUNE, VACUUM, FREEZE_PAGE up to 16 and, from 17 on, the one
 * prune-and-freeze record {@code xl_heap_prune} logged for three reasons (PRUNE_ON_ACCESS, PRUNE_VACUUM_SCAN,
 * PRUNE_VACUUM_CLEANUP). Only some produce row changes; the others are reported so that callers can react to them
 * (INPLACE on catalogs, NEW_CID for catalog snapshots) or ignore them knowingly.
 */
public enum HeapRecordKind {
    // RM_HEAP_ID
    INSERT(true),
    DELETE(true),
    UPDATE(true),
    TRUNCATE(true),
    HOT_UPDATE(true),
    CONFIRM(true),
    LOCK(false),
    INPLACE(false),
    // RM_HEAP2_ID
    REWRITE(false),
    PRUNE(false),
    VACUUM(false),
    FREEZE_PAGE(false),
    VISIBLE(false),
    MULTI_INSERT(true),
    LOCK_UPDATED(false),
    NEW_CID(false),
    // RM_HEAP2_ID, PostgreSQL 17 and later (REL_17_STABLE heapam_xlog.h), in place of PRUNE, VACUUM, FREEZE_PAGE
    PRUNE_ON_ACCESS(false),
    PRUNE_VACUUM_SCAN(false),
    PRUNE_VACUUM_CLEANUP(false);

    private final boolean producesChanges;

    HeapRecordKind(boolean producesChanges) {
        this.producesChanges = producesChanges;
    }

    /** Whether {@link HeapRecordDecoder#decode} returns changes for records of this kind. */
    public boolean producesChanges() {
        return producesChanges;
    }
}
