package io.walshadow.heap;

/**
 * The PostgreSQL 15 record types of the Heap (10) and Heap2 (9) resource managers, by {@code xl_info & 0x70}
 * (heapam_xlog.h). Only some produce row changes; the others are reported so that callers can react to them
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
    NEW_CID(false);

    private final boolean producesChanges;

    HeapRecordKind(boolean producesChanges) {
        this.producesChanges = producesChanges;
    }

    /** Whether {@link HeapRecordDecoder#decode} returns changes for records of this kind. */
    public boolean producesChanges() {
        return producesChanges;
    }
}
