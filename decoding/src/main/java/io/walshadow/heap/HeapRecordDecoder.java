package io.walshadow.heap;

import static io.walshadow.heap.HeapDecodeException.Kind.BAD_PAGE_ITEM;
import static io.walshadow.heap.HeapDecodeException.Kind.MALFORMED_RECORD;
import static io.walshadow.heap.HeapDecodeException.Kind.MISSING_BLOCK;
import static io.walshadow.heap.HeapDecodeException.Kind.NO_TUPLE_DATA;
import static io.walshadow.heap.HeapDecodeException.Kind.PREFIX_SUFFIX_COMPRESSED;
import static io.walshadow.heap.HeapDecodeException.Kind.SHORT_BLOCK_DATA;
import static io.walshadow.heap.HeapDecodeException.Kind.SHORT_MAIN_DATA;
import static io.walshadow.heap.HeapDecodeException.Kind.UNKNOWN_INFO;

import io.walshadow.heap.HeapChange.OldTupleKind;
import io.walshadow.heap.HeapChange.Operation;
import io.walshadow.wal.BlockImages;
import io.walshadow.wal.BlockRef;
import io.walshadow.wal.Bytes;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.XLogRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Turns Heap (rmgr 10) and Heap2 (rmgr 9) WAL records into {@link HeapChange}s, reading the structs of
 * {@code heapam_xlog.h} the way {@code heap_xlog_*} (heapam.c) and decode.c do. Stateless. The structs of the records
 * with row changes (xl_heap_insert, _delete, _update, _multi_insert, _truncate, _confirm, xl_heap_header) are the
 * same in 14..18 (each REL_NN_STABLE heapam_xlog.h); what differs is Heap2's page-level records ({@link #kind}).
 *
 * <p>Where a tuple is: INSERT/UPDATE/MULTI_INSERT put the new tuple in block 0's data; when block 0 carries a
 * full-page image and no data (PostgreSQL drops the data then unless logical decoding needs the relation, i.e.
 * for catalogs), the tuple is read from the restored page at its offset. Old keys / old rows are in the main
 * data after the fixed struct. Prefix/suffix-compressed UPDATEs fail closed ({@link
 * HeapDecodeException.Kind#PREFIX_SUFFIX_COMPRESSED}); pass a relation filter so catalogs you do not decode
 * never get that far.
 *
 * <p>Records of other rmgrs and Heap/Heap2 records without row changes (LOCK, INPLACE, PRUNE, VACUUM, FREEZE_PAGE,
 * VISIBLE, LOCK_UPDATED, NEW_CID, REWRITE) give an empty list; {@link #kind} tells them apart.
 */
public final class HeapRecordDecoder {
    // xl_info (heapam_xlog.h), rmgr bits
    public static final int XLOG_HEAP_INSERT = 0x00;
    public static final int XLOG_HEAP_DELETE = 0x10;
    public static final int XLOG_HEAP_UPDATE = 0x20;
    public static final int XLOG_HEAP_TRUNCATE = 0x30;
    public static final int XLOG_HEAP_HOT_UPDATE = 0x40;
    public static final int XLOG_HEAP_CONFIRM = 0x50;
    public static final int XLOG_HEAP_LOCK = 0x60;
    public static final int XLOG_HEAP_INPLACE = 0x70;
    public static final int XLOG_HEAP_OPMASK = 0x70;
    public static final int XLOG_HEAP_INIT_PAGE = 0x80;
    public static final int XLOG_HEAP2_REWRITE = 0x00;
    public static final int XLOG_HEAP2_PRUNE = 0x10;
    public static final int XLOG_HEAP2_VACUUM = 0x20;
    public static final int XLOG_HEAP2_FREEZE_PAGE = 0x30;
    public static final int XLOG_HEAP2_VISIBLE = 0x40;
    public static final int XLOG_HEAP2_MULTI_INSERT = 0x50;
    public static final int XLOG_HEAP2_LOCK_UPDATED = 0x60;
    public static final int XLOG_HEAP2_NEW_CID = 0x70;
    // PostgreSQL 17 and later (REL_17_STABLE heapam_xlog.h): one xl_heap_prune record, three reasons
    public static final int XLOG_HEAP2_PRUNE_ON_ACCESS = 0x10;
    public static final int XLOG_HEAP2_PRUNE_VACUUM_SCAN = 0x20;
    public static final int XLOG_HEAP2_PRUNE_VACUUM_CLEANUP = 0x30;
    /** The first major whose Heap2 0x10..0x30 are the prune-and-freeze record. */
    static final int PRUNE_FREEZE_SINCE = 17;

    // Struct sizes (SizeOf* macros: no trailing padding)
    static final int SIZE_OF_HEAP_HEADER = 5;        // xl_heap_header {u16 t_infomask2, u16 t_infomask, u8 t_hoff}
    static final int SIZE_OF_HEAP_INSERT = 3;        // {u16 offnum, u8 flags}
    static final int SIZE_OF_HEAP_DELETE = 8;        // {u32 xmax, u16 offnum, u8 infobits_set, u8 flags}
    // {u32 old_xmax, u16 old_offnum, u8 old_infobits_set, u8 flags, u32 new_xmax, u16 new_offnum}
    static final int SIZE_OF_HEAP_UPDATE = 14;
    static final int SIZE_OF_HEAP_TRUNCATE = 12;     // {u32 dbId, u32 nrelids, u8 flags, [pad 3], u32 relids[]}
    static final int SIZE_OF_HEAP_CONFIRM = 2;       // {u16 offnum}
    // {u16 offnum}; REL_18_STABLE appends {Oid dbId, Oid tsId, bool relcacheInitFileInval, int nmsgs, msgs[]}
    static final int SIZE_OF_HEAP_INPLACE = 2;
    /** MinSizeOfHeapInplace of 18: offnum, [pad 2], dbId, tsId, relcacheInitFileInval, [pad 3], nmsgs. */
    static final int MIN_SIZE_OF_HEAP_INPLACE_18 = 20;
    /** The first major whose xl_heap_inplace carries the invalidations (REL_18_STABLE heapam_xlog.h). */
    static final int INPLACE_INVALS_SINCE = 18;
    static final int SIZE_OF_HEAP_MULTI_INSERT = 4;  // {u8 flags, [pad], u16 ntuples, u16 offsets[] unless INIT_PAGE}
    static final int SIZE_OF_MULTI_INSERT_TUPLE = 7; // {u16 datalen, u16 t_infomask2, u16 t_infomask, u8 t_hoff}

    // Page layout (bufpage.h, itemid.h)
    static final int BLCKSZ = 8192;
    static final int SIZE_OF_PAGE_HEADER = 24;
    static final int PG_PAGE_LAYOUT_VERSION = 4;
    static final int LP_NORMAL = 1;

    private HeapRecordDecoder() {}

    /** True for records of the Heap and Heap2 resource managers. */
    public static boolean isHeapRecord(XLogRecord r) {
        return r.rmid() == Rmgrs.RM_HEAP_ID || r.rmid() == Rmgrs.RM_HEAP2_ID;
    }

    /**
     * The record type of a Heap/Heap2 record, or null for other rmgrs.
     *
     * @throws HeapDecodeException UNKNOWN_INFO for XLOG_HEAP_INIT_PAGE on a type PostgreSQL never sets it on
     */
    public static HeapRecordKind kind(XLogRecord r) {
        int info = r.info() & XLogRecord.XLR_RMGR_INFO_MASK;
        int op = info & XLOG_HEAP_OPMASK;
        boolean init = (info & XLOG_HEAP_INIT_PAGE) != 0;
        HeapRecordKind k;
        boolean initAllowed = false;
        if (r.rmid() == Rmgrs.RM_HEAP_ID) {
            switch (op) {
                case XLOG_HEAP_INSERT -> { k = HeapRecordKind.INSERT; initAllowed = true; }
                case XLOG_HEAP_DELETE -> k = HeapRecordKind.DELETE;
                case XLOG_HEAP_UPDATE -> { k = HeapRecordKind.UPDATE; initAllowed = true; }
                case XLOG_HEAP_TRUNCATE -> k = HeapRecordKind.TRUNCATE;
                case XLOG_HEAP_HOT_UPDATE -> { k = HeapRecordKind.HOT_UPDATE; initAllowed = true; }
                case XLOG_HEAP_CONFIRM -> k = HeapRecordKind.CONFIRM;
                case XLOG_HEAP_LOCK -> k = HeapRecordKind.LOCK;
                default -> k = HeapRecordKind.INPLACE;
            }
        } else if (r.rmid() == Rmgrs.RM_HEAP2_ID) {
            if (r.format().major >= PRUNE_FREEZE_SINCE && op >= XLOG_HEAP2_PRUNE_ON_ACCESS
                    && op <= XLOG_HEAP2_PRUNE_VACUUM_CLEANUP) {
                op |= 0x100; // the 17+ meaning of 0x10..0x30
            }
            switch (op) {
                case XLOG_HEAP2_REWRITE -> k = HeapRecordKind.REWRITE;
                case 0x100 | XLOG_HEAP2_PRUNE_ON_ACCESS -> k = HeapRecordKind.PRUNE_ON_ACCESS;
                case 0x100 | XLOG_HEAP2_PRUNE_VACUUM_SCAN -> k = HeapRecordKind.PRUNE_VACUUM_SCAN;
                case 0x100 | XLOG_HEAP2_PRUNE_VACUUM_CLEANUP -> k = HeapRecordKind.PRUNE_VACUUM_CLEANUP;
                case XLOG_HEAP2_PRUNE -> k = HeapRecordKind.PRUNE;
                case XLOG_HEAP2_VACUUM -> k = HeapRecordKind.VACUUM;
                case XLOG_HEAP2_FREEZE_PAGE -> k = HeapRecordKind.FREEZE_PAGE;
                case XLOG_HEAP2_VISIBLE -> k = HeapRecordKind.VISIBLE;
                case XLOG_HEAP2_MULTI_INSERT -> { k = HeapRecordKind.MULTI_INSERT; initAllowed = true; }
                case XLOG_HEAP2_LOCK_UPDATED -> k = HeapRecordKind.LOCK_UPDATED;
                default -> k = HeapRecordKind.NEW_CID;
            }
        } else {
            return null;
        }
        if (init && !initAllowed) {
            throw new HeapDecodeException(UNKNOWN_INFO, r.lsn(), null, String.format(
                    "%s record with xl_info 0x%02X: XLOG_HEAP_INIT_PAGE is not used with %s",
                    Rmgrs.name(r.rmid()), r.info(), k));
        }
        return k;
    }

    /** {@link #decode(XLogRecord, Predicate)} for every relation. */
    public static List<HeapChange> decode(XLogRecord r) {
        return decode(r, null);
    }

    /**
     * The row changes of one record, in order (one per tuple for MULTI_INSERT); empty for records of other rmgrs,
     * of kinds without changes, and of relations {@code relations} rejects.
     *
     * @param relations which block-0 relations to decode, or null for all. Rejected relations are skipped before
     *     any of their data is parsed. TRUNCATE has no block (it lists relation OIDs) and is always returned.
     * @throws HeapDecodeException for unknown info codes, short or inconsistent data, prefix/suffix-compressed
     *     updates and tuples that can be found neither in the record nor in its page image
     * @throws io.walshadow.wal.WalDecodeException when a needed full-page image cannot be restored
     */
    public static List<HeapChange> decode(XLogRecord r, Predicate<RelFileLocator> relations) {
        HeapRecordKind k = kind(r);
        if (k == null || !k.producesChanges()) {
            return List.of();
        }
        if (k == HeapRecordKind.TRUNCATE) {
            return List.of(decodeTruncate(r));
        }
        BlockRef b0 = r.block(0);
        if (b0 == null) {
            throw new HeapDecodeException(MISSING_BLOCK, r.lsn(), null, k + " record without block reference 0");
        }
        if (relations != null && !relations.test(b0.rel())) {
            return List.of();
        }
        if (b0.forkNumber() != BlockRef.FORK_MAIN) {
            throw new HeapDecodeException(MALFORMED_RECORD, r.lsn(), b0.rel(), k + " on fork " + b0.forkNumber());
        }
        return switch (k) {
            case INSERT -> List.of(decodeInsert(r, b0));
            case MULTI_INSERT -> decodeMultiInsert(r, b0);
            case UPDATE, HOT_UPDATE -> List.of(decodeUpdate(r, b0, k));
            case DELETE -> List.of(decodeDelete(r, b0));
            case CONFIRM -> List.of(decodeConfirm(r, b0));
            default -> throw new AssertionError(k);
        };
    }

    /**
     * For an INPLACE record ({@code heap_inplace_update}: catalog fields such as pg_class.relhasindex or
     * relfrozenxid, pg_database.datfrozenxid, overwritten without a new tuple version): the block-0 relation's
     * tuple that was overwritten, as {@code (block, xl_heap_inplace.offnum)}. Null for other records. Its block
     * data is the new user data (from t_hoff on, no header), see {@link XLogRecord#block(int)}.
     */
    public static Tid inplaceTid(XLogRecord r) {
        if (kind(r) != HeapRecordKind.INPLACE) {
            return null;
        }
        BlockRef b0 = r.block(0);
        if (b0 == null) {
            throw new HeapDecodeException(MISSING_BLOCK, r.lsn(), null, "INPLACE record without block reference 0");
        }
        if (r.format().major >= INPLACE_INVALS_SINCE) {
            int md = mainData(r, b0.rel(), MIN_SIZE_OF_HEAP_INPLACE_18, "xl_heap_inplace");
            return new Tid(b0.blockNumber(), Bytes.uint16(r.rawBytes(), md));
        }
        int md = mainData(r, b0.rel(), SIZE_OF_HEAP_INPLACE, "xl_heap_inplace");
        exactMainData(r, b0.rel(), SIZE_OF_HEAP_INPLACE, "xl_heap_inplace");
        return new Tid(b0.blockNumber(), Bytes.uint16(r.rawBytes(), md));
    }

    /** XLOG_FPI (rmgr XLOG): pages written whole, e.g. the new heap of a VACUUM FULL / CLUSTER (log_newpage). */
    public static final int XLOG_FPI = 0xB0;
    private static final int HEAP_XMIN_INVALID = 0x0200;
    private static final int HEAP_XMIN_FROZEN = 0x0300;
    private static final int HEAP_XMAX_EXCL_LOCK = 0x0040;
    private static final int HEAP_XMAX_LOCK_ONLY = 0x0080;
    private static final int HEAP_XMAX_INVALID = 0x0800;
    private static final int HEAP_XMAX_IS_MULTI = 0x1000;
    private static final int HEAP_LOCK_MASK = 0x0050;

    /** Whether the record writes whole pages (XLOG_FPI) of relation {@code rel} that are heap pages. */
    public static boolean writesHeapPagesOf(XLogRecord r, RelFileLocator rel) {
        if (r.rmid() != Rmgrs.RM_XLOG_ID || r.rmgrInfo() != XLOG_FPI) {
            return false;
        }
        for (BlockRef b : r.blocks()) {
            if (b.forkNumber() == BlockRef.FORK_MAIN && b.rel().equals(rel) && b.hasImage()) {
                byte[] page = BlockImages.restore(r.format(), r.lsn(), b);
                // a heap page has no special space; every index access method keeps one
                return Bytes.uint16(page, 14) == 0 || Bytes.uint16(page, 16) == BLCKSZ;
            }
        }
        return false;
    }

    /**
     * The rows of pages written whole (XLOG_FPI) for {@code rel}: what a rewrite that copies tuples into new storage
     * (VACUUM FULL, CLUSTER, ALTER TABLE SET TABLESPACE) leaves there, as inserts at their new TIDs. A copy keeps
     * the tuple's header: versions deleted by a committed transaction (copied because a snapshot could still see
     * them) carry that xmax and are left out; a locker's or an aborted deleter's xmax (hinted invalid by the
     * rewrite's own visibility check) does not delete. Copied tuples' inserts committed (an aborted insert is not
     * copied).
     */
    public static List<HeapChange> decodeNewPages(XLogRecord r, RelFileLocator rel) {
        List<Tid> tids = new ArrayList<>();
        List<HeapTuple> tuples = new ArrayList<>();
        for (BlockRef b : r.blocks()) {
            if (b.forkNumber() != BlockRef.FORK_MAIN || !b.rel().equals(rel) || !b.hasImage()) {
                continue;
            }
            byte[] page = BlockImages.restore(r.format(), r.lsn(), b);
            int upper = Bytes.uint16(page, 14);
            if (upper == 0) {
                continue; // an empty new page
            }
            int items = (Bytes.uint16(page, 12) - SIZE_OF_PAGE_HEADER) / 4;
            for (int off = 1; off <= items; off++) {
                int itemId = Bytes.int32(page, SIZE_OF_PAGE_HEADER + 4 * (off - 1));
                if (((itemId >>> 15) & 0x3) != LP_NORMAL) {
                    continue;
                }
                HeapTuple t = pageTuple(page, off, r.lsn(), rel);
                if (liveCopy(t)) {
                    tids.add(new Tid(b.blockNumber(), off));
                    tuples.add(t);
                }
            }
        }
        List<HeapChange> out = new ArrayList<>(tuples.size());
        for (int i = 0; i < tuples.size(); i++) {
            out.add(new HeapChange(r.lsn(), r.xid(), r.toplevelXid(), r.origin(), rel, Operation.MULTI_INSERT, r.info(),
                    0, tids.get(i), null, tuples.get(i), null, OldTupleKind.NONE, i, tuples.size(), 0, null));
        }
        return out;
    }

    private static boolean liveCopy(HeapTuple t) {
        int im = t.infomask();
        if ((im & HEAP_XMIN_FROZEN) == HEAP_XMIN_INVALID) {
            return false;
        }
        if (t.xmax() == 0 || (im & HEAP_XMAX_INVALID) != 0) {
            return true;
        }
        boolean lockOnly = (im & HEAP_XMAX_LOCK_ONLY) != 0
                || (im & (HEAP_XMAX_IS_MULTI | HEAP_LOCK_MASK)) == HEAP_XMAX_EXCL_LOCK;
        return lockOnly;
    }

    // ---------------------------------------------------------------------------------------------------------

    private static HeapChange decodeInsert(XLogRecord r, BlockRef b0) {
        byte[] rec = r.rawBytes();
        int md = mainData(r, b0.rel(), SIZE_OF_HEAP_INSERT, "xl_heap_insert");
        exactMainData(r, b0.rel(), SIZE_OF_HEAP_INSERT, "xl_heap_insert");
        int offnum = Bytes.uint16(rec, md);
        int flags = Bytes.uint8(rec, md + 2);
        HeapTuple tuple = b0.hasData()
                ? walTuple(r, b0.rel(), rec, b0.dataOffset(), b0.dataLength(), "block 0 data", SHORT_BLOCK_DATA)
                : imageTupleOrFail(r, b0, offnum, "INSERT");
        return change(r, b0.rel(), Operation.INSERT, flags, new Tid(b0.blockNumber(), offnum), null, tuple, null,
                OldTupleKind.NONE, 0, 1);
    }

    private static List<HeapChange> decodeMultiInsert(XLogRecord r, BlockRef b0) {
        byte[] rec = r.rawBytes();
        RelFileLocator rel = b0.rel();
        int md = mainData(r, rel, SIZE_OF_HEAP_MULTI_INSERT, "xl_heap_multi_insert");
        int flags = Bytes.uint8(rec, md);
        int ntuples = Bytes.uint16(rec, md + 2);
        boolean init = (r.info() & XLOG_HEAP_INIT_PAGE) != 0;
        if (ntuples == 0) {
            throw new HeapDecodeException(MALFORMED_RECORD, r.lsn(), rel, "MULTI_INSERT with 0 tuples");
        }
        int expectedMain = SIZE_OF_HEAP_MULTI_INSERT + (init ? 0 : 2 * ntuples);
        if (r.mainDataLength() < expectedMain) {
            throw new HeapDecodeException(SHORT_MAIN_DATA, r.lsn(), rel, "xl_heap_multi_insert of " + ntuples
                    + " tuples needs " + expectedMain + " bytes of main data, record has " + r.mainDataLength());
        }
        exactMainData(r, rel, expectedMain, "xl_heap_multi_insert of " + ntuples + " tuples");
        int[] offsets = new int[ntuples];
        for (int i = 0; i < ntuples; i++) {
            offsets[i] = init ? 1 + i : Bytes.uint16(rec, md + SIZE_OF_HEAP_MULTI_INSERT + 2 * i);
        }
        HeapTuple[] tuples = new HeapTuple[ntuples];
        if (b0.hasData()) {
            int start = b0.dataOffset();
            int end = start + b0.dataLength();
            int pos = start;
            for (int i = 0; i < ntuples; i++) {
                pos = start + ((pos - start + 1) & ~1); // SHORTALIGN, relative to the (aligned) block data
                if (end - pos < SIZE_OF_MULTI_INSERT_TUPLE) {
                    throw new HeapDecodeException(SHORT_BLOCK_DATA, r.lsn(), rel, "block 0 data ends inside "
                            + "xl_multi_insert_tuple " + (i + 1) + " of " + ntuples);
                }
                int datalen = Bytes.uint16(rec, pos);
                int infomask2 = Bytes.uint16(rec, pos + 2);
                int infomask = Bytes.uint16(rec, pos + 4);
                int hoff = Bytes.uint8(rec, pos + 6);
                pos += SIZE_OF_MULTI_INSERT_TUPLE;
                if (end - pos < datalen) {
                    throw new HeapDecodeException(SHORT_BLOCK_DATA, r.lsn(), rel, "tuple " + (i + 1) + " of "
                            + ntuples + " announces " + datalen + " bytes, block data has " + (end - pos) + " left");
                }
                tuples[i] = HeapTuple.fromWal(rec, pos, datalen, infomask2, infomask, hoff, r.lsn(), rel);
                pos += datalen;
            }
            if (pos != end) {
                throw new HeapDecodeException(MALFORMED_RECORD, r.lsn(), rel, "total tuple length mismatch: "
                        + ntuples + " tuples end " + (end - pos) + " bytes before the block data does");
            }
        } else if (b0.hasImage()) {
            byte[] page = BlockImages.restore(r.format(), r.lsn(), b0);
            for (int i = 0; i < ntuples; i++) {
                tuples[i] = pageTuple(page, offsets[i], r.lsn(), rel);
            }
        } else {
            throw new HeapDecodeException(NO_TUPLE_DATA, r.lsn(), rel,
                    "MULTI_INSERT block 0 has neither data nor image");
        }
        List<HeapChange> out = new ArrayList<>(ntuples);
        for (int i = 0; i < ntuples; i++) {
            out.add(change(r, rel, Operation.MULTI_INSERT, flags, new Tid(b0.blockNumber(), offsets[i]), null,
                    tuples[i], null, OldTupleKind.NONE, i, ntuples));
        }
        return out;
    }

    private static HeapChange decodeUpdate(XLogRecord r, BlockRef b0, HeapRecordKind k) {
        byte[] rec = r.rawBytes();
        RelFileLocator rel = b0.rel();
        int md = mainData(r, rel, SIZE_OF_HEAP_UPDATE, "xl_heap_update");
        int oldOffnum = Bytes.uint16(rec, md + 4);
        int flags = Bytes.uint8(rec, md + 7);
        int newOffnum = Bytes.uint16(rec, md + 12);
        BlockRef b1 = r.block(1);
        if (b1 != null && (b1.forkNumber() != BlockRef.FORK_MAIN || !b1.rel().equals(rel))) {
            throw new HeapDecodeException(MALFORMED_RECORD, r.lsn(), rel, "old page block 1 is "
                    + b1.rel() + " fork " + b1.forkNumber() + ", not the new page's relation");
        }
        long oldBlock = b1 != null ? b1.blockNumber() : b0.blockNumber();

        HeapTuple newTuple;
        if (b0.hasData()) {
            if ((flags & (HeapChange.XLH_UPDATE_PREFIX_FROM_OLD | HeapChange.XLH_UPDATE_SUFFIX_FROM_OLD)) != 0) {
                throw new HeapDecodeException(PREFIX_SUFFIX_COMPRESSED, r.lsn(), rel, String.format(
                        "%s flags 0x%02X: the new tuple shares a prefix/suffix with the old one, which is only on "
                                + "the page (not logged); cannot rebuild it from WAL", k, flags));
            }
            newTuple = walTuple(r, rel, rec, b0.dataOffset(), b0.dataLength(), "block 0 data", SHORT_BLOCK_DATA);
        } else {
            newTuple = imageTupleOrFail(r, b0, newOffnum, k.toString());
        }

        OldTupleKind oldKind = oldKind(r, rel, flags, HeapChange.XLH_UPDATE_CONTAINS_OLD_TUPLE,
                HeapChange.XLH_UPDATE_CONTAINS_OLD_KEY);
        HeapTuple oldTuple = null;
        if (oldKind != OldTupleKind.NONE) {
            oldTuple = walTuple(r, rel, rec, md + SIZE_OF_HEAP_UPDATE, r.mainDataLength() - SIZE_OF_HEAP_UPDATE,
                    "main data after xl_heap_update", SHORT_MAIN_DATA);
        } else {
            exactMainData(r, rel, SIZE_OF_HEAP_UPDATE, "xl_heap_update without old key");
        }
        return change(r, rel, k == HeapRecordKind.HOT_UPDATE ? Operation.HOT_UPDATE : Operation.UPDATE, flags,
                new Tid(b0.blockNumber(), newOffnum), new Tid(oldBlock, oldOffnum), newTuple, oldTuple, oldKind,
                0, 1);
    }

    private static HeapChange decodeDelete(XLogRecord r, BlockRef b0) {
        byte[] rec = r.rawBytes();
        RelFileLocator rel = b0.rel();
        int md = mainData(r, rel, SIZE_OF_HEAP_DELETE, "xl_heap_delete");
        int offnum = Bytes.uint16(rec, md + 4);
        int flags = Bytes.uint8(rec, md + 7);
        OldTupleKind oldKind = oldKind(r, rel, flags, HeapChange.XLH_DELETE_CONTAINS_OLD_TUPLE,
                HeapChange.XLH_DELETE_CONTAINS_OLD_KEY);
        HeapTuple oldTuple = null;
        if (oldKind != OldTupleKind.NONE) {
            oldTuple = walTuple(r, rel, rec, md + SIZE_OF_HEAP_DELETE, r.mainDataLength() - SIZE_OF_HEAP_DELETE,
                    "main data after xl_heap_delete", SHORT_MAIN_DATA);
        } else {
            exactMainData(r, rel, SIZE_OF_HEAP_DELETE, "xl_heap_delete without old key");
        }
        return change(r, rel, Operation.DELETE, flags, null, new Tid(b0.blockNumber(), offnum), null, oldTuple,
                oldKind, 0, 1);
    }

    private static HeapChange decodeConfirm(XLogRecord r, BlockRef b0) {
        int md = mainData(r, b0.rel(), SIZE_OF_HEAP_CONFIRM, "xl_heap_confirm");
        exactMainData(r, b0.rel(), SIZE_OF_HEAP_CONFIRM, "xl_heap_confirm");
        int offnum = Bytes.uint16(r.rawBytes(), md);
        return change(r, b0.rel(), Operation.CONFIRM, 0, new Tid(b0.blockNumber(), offnum), null, null, null,
                OldTupleKind.NONE, 0, 1);
    }

    private static HeapChange decodeTruncate(XLogRecord r) {
        byte[] rec = r.rawBytes();
        int md = mainData(r, null, SIZE_OF_HEAP_TRUNCATE, "xl_heap_truncate");
        int dbOid = Bytes.int32(rec, md);
        long nrelids = Integer.toUnsignedLong(Bytes.int32(rec, md + 4));
        int flags = Bytes.uint8(rec, md + 8);
        long expected = SIZE_OF_HEAP_TRUNCATE + 4 * nrelids;
        if (r.mainDataLength() < expected) {
            throw new HeapDecodeException(SHORT_MAIN_DATA, r.lsn(), null, "xl_heap_truncate of " + nrelids
                    + " relids needs " + expected + " bytes of main data, record has " + r.mainDataLength());
        }
        exactMainData(r, null, (int) expected, "xl_heap_truncate of " + nrelids + " relids");
        int[] relids = new int[(int) nrelids];
        for (int i = 0; i < relids.length; i++) {
            relids[i] = Bytes.int32(rec, md + SIZE_OF_HEAP_TRUNCATE + 4 * i);
        }
        return new HeapChange(r.lsn(), r.xid(), r.toplevelXid(), r.origin(), null, Operation.TRUNCATE, r.info(),
                flags, null, null, null, null, OldTupleKind.NONE, 0, 1, dbOid, relids);
    }

    // ---------------------------------------------------------------------------------------------------------

    private static HeapChange change(XLogRecord r, RelFileLocator rel, Operation op, int flags, Tid newTid,
                                     Tid oldTid, HeapTuple newTuple, HeapTuple oldTuple, OldTupleKind oldKind,
                                     int index, int count) {
        return new HeapChange(r.lsn(), r.xid(), r.toplevelXid(), r.origin(), rel, op, r.info(), flags, newTid,
                oldTid, newTuple, oldTuple, oldKind, index, count, 0, null);
    }

    private static OldTupleKind oldKind(XLogRecord r, RelFileLocator rel, int flags, int fullBit, int keyBit) {
        boolean full = (flags & fullBit) != 0;
        boolean key = (flags & keyBit) != 0;
        if (full && key) {
            throw new HeapDecodeException(MALFORMED_RECORD, r.lsn(), rel,
                    String.format("flags 0x%02X claim both an old tuple and an old key", flags));
        }
        return full ? OldTupleKind.FULL : key ? OldTupleKind.KEY : OldTupleKind.NONE;
    }

    /** Offset of the main data in the record bytes, after checking it holds at least {@code need} bytes. */
    private static int mainData(XLogRecord r, RelFileLocator rel, int need, String what) {
        if (r.mainDataLength() < need) {
            throw new HeapDecodeException(SHORT_MAIN_DATA, r.lsn(), rel, what + " needs " + need
                    + " bytes of main data, record has " + r.mainDataLength());
        }
        return r.mainDataOffset();
    }

    private static void exactMainData(XLogRecord r, RelFileLocator rel, int expected, String what) {
        if (r.mainDataLength() != expected) {
            throw new HeapDecodeException(MALFORMED_RECORD, r.lsn(), rel, what + " has " + expected
                    + " bytes of main data, record has " + r.mainDataLength());
        }
    }

    /** xl_heap_header followed by t_bits.. in {@code buf[off, off+len)}. */
    private static HeapTuple walTuple(XLogRecord r, RelFileLocator rel, byte[] buf, int off, int len, String where,
                                      HeapDecodeException.Kind tooShort) {
        if (len < SIZE_OF_HEAP_HEADER) {
            throw new HeapDecodeException(tooShort, r.lsn(), rel, where + " has " + len
                    + " bytes, less than xl_heap_header (" + SIZE_OF_HEAP_HEADER + ")");
        }
        return HeapTuple.fromWal(buf, off + SIZE_OF_HEAP_HEADER, len - SIZE_OF_HEAP_HEADER,
                Bytes.uint16(buf, off), Bytes.uint16(buf, off + 2), Bytes.uint8(buf, off + 4), r.lsn(), rel);
    }

    private static HeapTuple imageTupleOrFail(XLogRecord r, BlockRef b, int offnum, String what) {
        if (!b.hasImage()) {
            throw new HeapDecodeException(NO_TUPLE_DATA, r.lsn(), b.rel(), what + " block " + b.id()
                    + " has neither tuple data nor a full-page image");
        }
        return pageTuple(BlockImages.restore(r.format(), r.lsn(), b), offnum, r.lsn(), b.rel());
    }

    /**
     * The tuple at {@code offnum} of the page image of block {@code blockId} of the record: the page as it was
     * right after the record's change. For UPDATE/DELETE this gives the old version (now with xmax set) at the
     * old offset too, when the old page has an image.
     *
     * @throws HeapDecodeException NO_TUPLE_DATA if the block has no image, BAD_PAGE_ITEM if the offset is not a
     *     normal line pointer
     */
    public static HeapTuple imageTuple(XLogRecord r, int blockId, int offnum) {
        BlockRef b = r.block(blockId);
        if (b == null) {
            throw new HeapDecodeException(MISSING_BLOCK, r.lsn(), null, "no block reference " + blockId);
        }
        return imageTupleOrFail(r, b, offnum, "block " + blockId);
    }

    /**
     * The tuple at line pointer {@code offnum} (1-based) of a heap page ({@value #BLCKSZ} bytes): ItemIdData
     * {lp_off:15, lp_flags:2, lp_len:15} after the 24-byte page header; the tuple there has the full 23-byte
     * header. {@code lsn} and {@code rel} name the source in errors.
     */
    public static HeapTuple pageTuple(byte[] page, int offnum, long lsn, RelFileLocator rel) {
        if (page.length != BLCKSZ) {
            throw new IllegalArgumentException("page of " + page.length + " bytes");
        }
        int lower = Bytes.uint16(page, 12);
        int upper = Bytes.uint16(page, 14);
        int special = Bytes.uint16(page, 16);
        int sizeVersion = Bytes.uint16(page, 18);
        if ((sizeVersion & 0xFF00) != BLCKSZ || (sizeVersion & 0xFF) != PG_PAGE_LAYOUT_VERSION
                || lower < SIZE_OF_PAGE_HEADER || lower > upper || upper > special || special > BLCKSZ) {
            throw new HeapDecodeException(BAD_PAGE_ITEM, lsn, rel, String.format(
                    "not a valid heap page: pd_lower %d pd_upper %d pd_special %d pd_pagesize_version 0x%04X",
                    lower, upper, special, sizeVersion));
        }
        int maxOff = (lower - SIZE_OF_PAGE_HEADER) / 4;
        if (offnum < 1 || offnum > maxOff) {
            throw new HeapDecodeException(BAD_PAGE_ITEM, lsn, rel, "offset " + offnum + " beyond the page's "
                    + maxOff + " line pointers");
        }
        int itemId = Bytes.int32(page, SIZE_OF_PAGE_HEADER + 4 * (offnum - 1));
        int lpOff = itemId & 0x7FFF;
        int lpFlags = (itemId >>> 15) & 0x3;
        int lpLen = (itemId >>> 17) & 0x7FFF;
        if (lpFlags != LP_NORMAL) {
            throw new HeapDecodeException(BAD_PAGE_ITEM, lsn, rel, "line pointer " + offnum + " has lp_flags "
                    + lpFlags + ", not LP_NORMAL");
        }
        if (lpLen < HeapTuple.SIZEOF_HEADER || lpOff < upper || (lpOff & 7) != 0 || lpOff + lpLen > special) {
            throw new HeapDecodeException(BAD_PAGE_ITEM, lsn, rel, "line pointer " + offnum + " (lp_off " + lpOff
                    + ", lp_len " + lpLen + ") is outside the page's tuple space [" + upper + "," + special + ")");
        }
        return HeapTuple.fromPage(page, lpOff, lpLen, lsn, rel);
    }
}
