package io.walshadow.heap;

import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;

/**
 * One row-level change decoded from a Heap/Heap2 WAL record: what {@code ReorderBufferChange} holds after
 * decode.c, plus the physical facts (TIDs, where the tuple came from) that logical decoding throws away and this
 * pipeline uses as row identity when a table has no replica identity key.
 *
 * <p>Tuples are views over the record's bytes (or a restored page); keep the record alive as long as the change.
 */
public final class HeapChange {
    /** Row-level operation. HOT and non-HOT updates are told apart because their WAL records are. */
    public enum Operation {
        /** xl_heap_insert; {@link #isSpeculative()} for the first half of INSERT ... ON CONFLICT. */
        INSERT,
        /** One tuple of xl_heap_multi_insert (COPY, catalog multi-inserts). */
        MULTI_INSERT,
        UPDATE,
        HOT_UPDATE,
        /** xl_heap_delete; {@link #isSuperDelete()} when it kills a speculatively inserted tuple instead. */
        DELETE,
        /** xl_heap_truncate: relation OIDs (not relfilenodes), no block, no tuple. */
        TRUNCATE,
        /** xl_heap_confirm: the speculative insertion at {@link #newTid()} is confirmed. */
        CONFIRM
    }

    /** What an UPDATE/DELETE logged about the old row. */
    public enum OldTupleKind {
        /** Nothing: no replica identity key changed (UPDATE), or REPLICA IDENTITY DEFAULT without key / NOTHING. */
        NONE,
        /** Replica identity columns only (XLH_*_CONTAINS_OLD_KEY): the other attributes are NULL in it. */
        KEY,
        /** The whole old row (XLH_*_CONTAINS_OLD_TUPLE, REPLICA IDENTITY FULL), external values flattened. */
        FULL
    }

    // xl_heap_insert / xl_heap_multi_insert flags
    public static final int XLH_INSERT_ALL_VISIBLE_CLEARED = 1 << 0;
    public static final int XLH_INSERT_LAST_IN_MULTI = 1 << 1;
    public static final int XLH_INSERT_IS_SPECULATIVE = 1 << 2;
    public static final int XLH_INSERT_CONTAINS_NEW_TUPLE = 1 << 3;
    public static final int XLH_INSERT_ON_TOAST_RELATION = 1 << 4;
    public static final int XLH_INSERT_ALL_FROZEN_SET = 1 << 5;
    // xl_heap_update flags
    public static final int XLH_UPDATE_OLD_ALL_VISIBLE_CLEARED = 1 << 0;
    public static final int XLH_UPDATE_NEW_ALL_VISIBLE_CLEARED = 1 << 1;
    public static final int XLH_UPDATE_CONTAINS_OLD_TUPLE = 1 << 2;
    public static final int XLH_UPDATE_CONTAINS_OLD_KEY = 1 << 3;
    public static final int XLH_UPDATE_CONTAINS_NEW_TUPLE = 1 << 4;
    public static final int XLH_UPDATE_PREFIX_FROM_OLD = 1 << 5;
    public static final int XLH_UPDATE_SUFFIX_FROM_OLD = 1 << 6;
    // xl_heap_delete flags
    public static final int XLH_DELETE_ALL_VISIBLE_CLEARED = 1 << 0;
    public static final int XLH_DELETE_CONTAINS_OLD_TUPLE = 1 << 1;
    public static final int XLH_DELETE_CONTAINS_OLD_KEY = 1 << 2;
    public static final int XLH_DELETE_IS_SUPER = 1 << 3;
    public static final int XLH_DELETE_IS_PARTITION_MOVE = 1 << 4;
    // xl_heap_truncate flags
    public static final int XLH_TRUNCATE_CASCADE = 1 << 0;
    public static final int XLH_TRUNCATE_RESTART_SEQS = 1 << 1;

    private final long lsn;
    private final int xid;
    private final int toplevelXid;
    private final int origin;
    private final RelFileLocator rel;
    private final Operation op;
    private final int info;
    private final int flags;
    private final Tid newTid;
    private final Tid oldTid;
    private final HeapTuple newTuple;
    private final HeapTuple oldTuple;
    private final OldTupleKind oldKind;
    private final int multiIndex;
    private final int multiCount;
    private final int truncateDbOid;
    private final int[] truncateRelids;

    HeapChange(long lsn, int xid, int toplevelXid, int origin, RelFileLocator rel, Operation op, int info,
               int flags, Tid newTid, Tid oldTid, HeapTuple newTuple, HeapTuple oldTuple, OldTupleKind oldKind,
               int multiIndex, int multiCount, int truncateDbOid, int[] truncateRelids) {
        this.lsn = lsn;
        this.xid = xid;
        this.toplevelXid = toplevelXid;
        this.origin = origin;
        this.rel = rel;
        this.op = op;
        this.info = info;
        this.flags = flags;
        this.newTid = newTid;
        this.oldTid = oldTid;
        this.newTuple = newTuple;
        this.oldTuple = oldTuple;
        this.oldKind = oldKind;
        this.multiIndex = multiIndex;
        this.multiCount = multiCount;
        this.truncateDbOid = truncateDbOid;
        this.truncateRelids = truncateRelids;
    }

    /** LSN of the record (ReadRecPtr). All tuples of one MULTI_INSERT record share it. */
    public long lsn() {
        return lsn;
    }

    /** {@code xl_xid} as logged: a subtransaction's own xid inside a savepoint. Unsigned 32-bit. */
    public int xid() {
        return xid;
    }

    /** The top-level xid if the record carried one (a subtransaction's first record, wal_level=logical), else 0. */
    public int toplevelXid() {
        return toplevelXid;
    }

    /** Replication origin of the record, 0 when none. */
    public int origin() {
        return origin;
    }

    /** Block 0's relation; null for TRUNCATE, which names relations by OID ({@link #truncateRelids()}). */
    public RelFileLocator rel() {
        return rel;
    }

    public Operation op() {
        return op;
    }

    /** The record's whole {@code xl_info} byte. */
    public int info() {
        return info;
    }

    /** The struct's {@code flags} byte (XLH_INSERT_*, XLH_UPDATE_*, XLH_DELETE_* or XLH_TRUNCATE_*); 0 for CONFIRM. */
    public int flags() {
        return flags;
    }

    /** XLOG_HEAP_INIT_PAGE: the change is the first tuple of a (re)initialised page. */
    public boolean initPage() {
        return (info & HeapRecordDecoder.XLOG_HEAP_INIT_PAGE) != 0;
    }

    /** Where the new tuple version is: INSERT, MULTI_INSERT, UPDATE, HOT_UPDATE, CONFIRM; else null. */
    public Tid newTid() {
        return newTid;
    }

    /** Where the old tuple version is: UPDATE, HOT_UPDATE, DELETE; else null. */
    public Tid oldTid() {
        return oldTid;
    }

    /** The inserted or new tuple version (INSERT, MULTI_INSERT, UPDATE, HOT_UPDATE); else null. */
    public HeapTuple newTuple() {
        return newTuple;
    }

    /** True when {@link #newTuple()} had to be read from a full-page image because the record carried no data. */
    public boolean newTupleFromImage() {
        return newTuple != null && newTuple.source() == HeapTuple.Source.PAGE_IMAGE;
    }

    /** The old key or old row logged in the main data (see {@link #oldTupleKind()}), or null. */
    public HeapTuple oldTuple() {
        return oldTuple;
    }

    public OldTupleKind oldTupleKind() {
        return oldKind;
    }

    /** INSERT with XLH_INSERT_IS_SPECULATIVE: not a row yet, until a CONFIRM (or a super-delete) follows. */
    public boolean isSpeculative() {
        return op == Operation.INSERT && (flags & XLH_INSERT_IS_SPECULATIVE) != 0;
    }

    /** DELETE with XLH_DELETE_IS_SUPER: a speculative insertion was aborted (decode.c's SPEC_ABORT). */
    public boolean isSuperDelete() {
        return op == Operation.DELETE && (flags & XLH_DELETE_IS_SUPER) != 0;
    }

    /** DELETE with XLH_DELETE_IS_PARTITION_MOVE: the row moved to another partition (an insert follows). */
    public boolean isPartitionMove() {
        return op == Operation.DELETE && (flags & XLH_DELETE_IS_PARTITION_MOVE) != 0;
    }

    /** An insert into a TOAST relation (XLH_INSERT_ON_TOAST_RELATION): a chunk, not a user row. */
    public boolean onToastRelation() {
        return (op == Operation.INSERT || op == Operation.MULTI_INSERT) && (flags & XLH_INSERT_ON_TOAST_RELATION) != 0;
    }

    /** Whether the record said it carries the new tuple for logical decoding (XLH_*_CONTAINS_NEW_TUPLE). */
    public boolean flaggedContainsNewTuple() {
        return switch (op) {
            case INSERT, MULTI_INSERT -> (flags & XLH_INSERT_CONTAINS_NEW_TUPLE) != 0;
            case UPDATE, HOT_UPDATE -> (flags & XLH_UPDATE_CONTAINS_NEW_TUPLE) != 0;
            default -> false;
        };
    }

    /** MULTI_INSERT: this tuple's position within its record, 0-based; 0 otherwise. */
    public int multiIndex() {
        return multiIndex;
    }

    /** MULTI_INSERT: number of tuples in the record; 1 otherwise. */
    public int multiCount() {
        return multiCount;
    }

    /** MULTI_INSERT: last tuple of the last record of one heap_multi_insert() call (XLH_INSERT_LAST_IN_MULTI). */
    public boolean isLastInMulti() {
        return op == Operation.MULTI_INSERT && (flags & XLH_INSERT_LAST_IN_MULTI) != 0
                && multiIndex == multiCount - 1;
    }

    /** TRUNCATE: the database OID; 0 otherwise. */
    public int truncateDbOid() {
        return truncateDbOid;
    }

    /** TRUNCATE: OIDs (pg_class.oid, not relfilenodes) of all relations truncated, in logged order. A copy. */
    public int[] truncateRelids() {
        return truncateRelids == null ? new int[0] : truncateRelids.clone();
    }

    public boolean truncateCascade() {
        return op == Operation.TRUNCATE && (flags & XLH_TRUNCATE_CASCADE) != 0;
    }

    public boolean truncateRestartSeqs() {
        return op == Operation.TRUNCATE && (flags & XLH_TRUNCATE_RESTART_SEQS) != 0;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("HeapChange{").append(op).append(" lsn=").append(Lsn.format(lsn))
                .append(" xid=").append(Integer.toUnsignedString(xid));
        if (rel != null) {
            sb.append(" rel=").append(rel);
        }
        sb.append(String.format(" flags=0x%02X", flags));
        if (newTid != null) {
            sb.append(" new=").append(newTid);
        }
        if (oldTid != null) {
            sb.append(" old=").append(oldTid);
        }
        if (oldKind != OldTupleKind.NONE) {
            sb.append(" oldTuple=").append(oldKind);
        }
        if (op == Operation.MULTI_INSERT) {
            sb.append(" #").append(multiIndex + 1).append('/').append(multiCount);
        }
        if (op == Operation.TRUNCATE) {
            sb.append(" db=").append(Integer.toUnsignedString(truncateDbOid)).append(" relids=");
            for (int i = 0; i < truncateRelids.length; i++) {
                sb.append(i == 0 ? "" : ",").append(Integer.toUnsignedString(truncateRelids[i]));
            }
        }
        return sb.append('}').toString();
    }
}
