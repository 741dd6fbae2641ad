package io.walshadow.wal;

/**
 * PostgreSQL's resource managers as pg_waldump and pg_walinspect name them: {@code rm_name} from {@code rmgrlist.h}
 * and each rmgr's {@code rm_identify} from {@code src/backend/access/rmgrdesc/*desc.c}, transcribed with their quirks
 * (which bits each one masks), so that logs and test failures can name records the way PostgreSQL tooling does.
 *
 * <p>The rmgr ids and names are the same in 14..18. The record type names are PostgreSQL 15's, with what the other
 * majors' {@code REL_NN_STABLE} branches changed, per major ({@link WalFormat}):
 * <ul>
 *   <li>14: Database has CREATE (0x00) and DROP (0x10) ({@code commands/dbcommands_xlog.h}); 15 split CREATE into
 *       CREATE_FILE_COPY / CREATE_WAL_LOG, DROP moved to 0x20.
 *   <li>17: Heap2's PRUNE / VACUUM / FREEZE_PAGE (0x10..0x30) became the combined prune / freeze records
 *       PRUNE_ON_ACCESS / PRUNE_VACUUM_SCAN / PRUNE_VACUUM_CLEANUP ({@code access/heapam_xlog.h}); XLOG got
 *       CHECKPOINT_REDO (0xE0, {@code catalog/pg_control.h}).
 *   <li>16 and 18: no name changes (16 changed Heap2 PRUNE / VACUUM and FREEZE_PAGE bodies, not their names).
 * </ul>
 * Checked against pg_waldump 15 by {@code PgWaldumpParityIT} (real WAL and a synthetic segment that holds every
 * record type slot of every rmgr), and against pg_walinspect of 15..18 by {@code WalinspectParityIT} (real WAL).
 * The methods without a {@link WalFormat} name PostgreSQL 15's types.
 */
public final class Rmgrs {
    public static final int RM_XLOG_ID = 0;
    public static final int RM_XACT_ID = 1;
    public static final int RM_SMGR_ID = 2;
    public static final int RM_CLOG_ID = 3;
    public static final int RM_DBASE_ID = 4;
    public static final int RM_TBLSPC_ID = 5;
    public static final int RM_MULTIXACT_ID = 6;
    public static final int RM_RELMAP_ID = 7;
    public static final int RM_STANDBY_ID = 8;
    public static final int RM_HEAP2_ID = 9;
    public static final int RM_HEAP_ID = 10;
    public static final int RM_BTREE_ID = 11;
    public static final int RM_HASH_ID = 12;
    public static final int RM_GIN_ID = 13;
    public static final int RM_GIST_ID = 14;
    public static final int RM_SEQ_ID = 15;
    public static final int RM_SPGIST_ID = 16;
    public static final int RM_BRIN_ID = 17;
    public static final int RM_COMMIT_TS_ID = 18;
    public static final int RM_REPLORIGIN_ID = 19;
    public static final int RM_GENERIC_ID = 20;
    public static final int RM_LOGICALMSG_ID = 21;
    public static final int RM_MAX_BUILTIN_ID = RM_LOGICALMSG_ID;
    public static final int RM_MIN_CUSTOM_ID = 128;
    public static final int RM_MAX_CUSTOM_ID = 255;

    /** Low four bits of xl_info belong to the WAL machinery (XLR_INFO_MASK). */
    private static final int XLR_INFO_MASK = 0x0F;

    private static final String[] NAMES = {
        "XLOG", "Transaction", "Storage", "CLOG", "Database", "Tablespace", "MultiXact", "RelMap", "Standby",
        "Heap2", "Heap", "Btree", "Hash", "Gin", "Gist", "Sequence", "SPGist", "BRIN", "CommitTs",
        "ReplicationOrigin", "Generic", "LogicalMessage"
    };

    private Rmgrs() {}

    /** RmgrIdIsValid: a built-in id or a custom one (128..255). */
    public static boolean isValid(int rmid) {
        return (rmid >= 0 && rmid <= RM_MAX_BUILTIN_ID) || (rmid >= RM_MIN_CUSTOM_ID && rmid <= RM_MAX_CUSTOM_ID);
    }

    /**
     * {@code rm_name} as pg_waldump prints it. Custom rmgrs are not loaded into pg_waldump, which names them
     * {@code custom%03d} by id; so do we.
     *
     * @throws IllegalArgumentException for ids that are neither built in nor custom (22..127)
     */
    public static String name(int rmid) {
        if (rmid >= 0 && rmid <= RM_MAX_BUILTIN_ID) {
            return NAMES[rmid];
        }
        if (rmid >= RM_MIN_CUSTOM_ID && rmid <= RM_MAX_CUSTOM_ID) {
            return String.format("custom%03d", rmid);
        }
        throw new IllegalArgumentException("invalid resource manager ID " + rmid);
    }

    /**
     * The record type name that rmgr's {@code rm_identify(info)} returns in PostgreSQL 15, or null where it returns
     * NULL (an info value it does not know; always for custom rmgrs). {@code info} is the whole {@code xl_info}
     * byte, as pg_waldump passes it: most rmgrs ignore the low four bits, but CommitTs and ReplicationOrigin
     * switch on the whole byte, so for them a set low bit (e.g. XLR_CHECK_CONSISTENCY) gives null, as in PG.
     */
    public static String identify(int rmid, int info) {
        return identify(WalFormat.PG15, rmid, info);
    }

    /** {@link #identify(int, int)} as that major's {@code rm_identify} answers. */
    public static String identify(WalFormat format, int rmid, int info) {
        info &= 0xFF;
        int major = format.major;
        return switch (rmid) {
            case RM_XLOG_ID -> xlog(major, info);
            case RM_XACT_ID -> xact(info);
            case RM_SMGR_ID -> smgr(info);
            case RM_CLOG_ID -> clog(info);
            case RM_DBASE_ID -> major == 14 ? dbase14(info) : dbase(info);
            case RM_TBLSPC_ID -> tblspc(info);
            case RM_MULTIXACT_ID -> multixact(info);
            case RM_RELMAP_ID -> relmap(info);
            case RM_STANDBY_ID -> standby(info);
            case RM_HEAP2_ID -> major >= 17 ? heap2Since17(info) : heap2(info);
            case RM_HEAP_ID -> heap(info);
            case RM_BTREE_ID -> btree(info);
            case RM_HASH_ID -> hash(info);
            case RM_GIN_ID -> gin(info);
            case RM_GIST_ID -> gist(info);
            case RM_SEQ_ID -> seq(info);
            case RM_SPGIST_ID -> spg(info);
            case RM_BRIN_ID -> brin(info);
            case RM_COMMIT_TS_ID -> commitTs(info);
            case RM_REPLORIGIN_ID -> replorigin(info);
            case RM_GENERIC_ID -> "Generic"; // generic_identify ignores info
            case RM_LOGICALMSG_ID -> (info & ~XLR_INFO_MASK) == 0x00 ? "MESSAGE" : null;
            default -> {
                name(rmid); // rejects invalid ids
                yield null; // custom rmgr: pg_waldump's default_identify
            }
        };
    }

    /**
     * What pg_waldump prints after {@code desc: } for a record, before the rmgr's description: the identify name,
     * or {@code UNKNOWN (%x)} of the rmgr's info bits when there is none.
     */
    public static String displayId(int rmid, int info) {
        return displayId(WalFormat.PG15, rmid, info);
    }

    /** {@link #displayId(int, int)} for that major. */
    public static String displayId(WalFormat format, int rmid, int info) {
        String id = identify(format, rmid, info);
        return id != null ? id : String.format("UNKNOWN (%x)", info & 0xF0);
    }

    /**
     * The row name pg_waldump {@code --stats=record} gives this record's type: {@code <rm_name>/<id>}, or
     * {@code <rm_name>/UNKNOWN (%x)}. pg_waldump (xlogstats.c, PG15) counts records per {@code info >> 4} (for
     * Transaction only the opcode bits, {@code & 0x07}, so COMMIT with and without XLOG_XACT_HAS_INFO share a row)
     * and names each row by calling {@code rm_identify(slot << 4)}: the low bits are clear there, while the
     * 0x80 bit that makes Heap's and BRIN's "+INIT" names is part of the slot and kept.
     */
    public static String statsName(int rmid, int info) {
        return statsName(WalFormat.PG15, rmid, info);
    }

    /** {@link #statsName(int, int)} for that major (pg_walinspect's {@code pg_get_wal_stats} names rows alike). */
    public static String statsName(WalFormat format, int rmid, int info) {
        int slot = statsSlot(rmid, info);
        String id = identify(format, rmid, slot << 4);
        return name(rmid) + "/" + (id != null ? id : String.format("UNKNOWN (%x)", slot << 4));
    }

    /** The per-record statistics slot (0..15) pg_waldump counts a record in. */
    public static int statsSlot(int rmid, int info) {
        int slot = (info & 0xFF) >> 4;
        return rmid == RM_XACT_ID ? slot & 0x07 : slot;
    }

    // --- rm_identify of each rmgr (PG15, other majors' differences beside), in the order of rmgrlist.h ---

    /** xlogdesc.c; values from catalog/pg_control.h. CHECKPOINT_REDO since 17. */
    private static String xlog(int major, int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "CHECKPOINT_SHUTDOWN";
            case 0x10 -> "CHECKPOINT_ONLINE";
            case 0x20 -> "NOOP";
            case 0x30 -> "NEXTOID";
            case 0x40 -> "SWITCH";
            case 0x50 -> "BACKUP_END";
            case 0x60 -> "PARAMETER_CHANGE";
            case 0x70 -> "RESTORE_POINT";
            case 0x80 -> "FPW_CHANGE";
            case 0x90 -> "END_OF_RECOVERY";
            case 0xA0 -> "FPI_FOR_HINT";
            case 0xB0 -> "FPI";
            // 0xC0 was used in 9.5-11
            case 0xD0 -> "OVERWRITE_CONTRECORD";
            case 0xE0 -> major >= 17 ? "CHECKPOINT_REDO" : null;
            default -> null;
        };
    }

    /** xactdesc.c: switches on {@code info & XLOG_XACT_OPMASK (0x70)}, so XLOG_XACT_HAS_INFO (0x80) is ignored. */
    private static String xact(int info) {
        return switch (info & 0x70) {
            case 0x00 -> "COMMIT";
            case 0x10 -> "PREPARE";
            case 0x20 -> "ABORT";
            case 0x30 -> "COMMIT_PREPARED";
            case 0x40 -> "ABORT_PREPARED";
            case 0x50 -> "ASSIGNMENT";
            case 0x60 -> "INVALIDATION"; // XLOG_XACT_INVALIDATIONS; singular in xact_identify
            default -> null;
        };
    }

    /** smgrdesc.c; catalog/storage_xlog.h. */
    private static String smgr(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x10 -> "CREATE";
            case 0x20 -> "TRUNCATE";
            default -> null;
        };
    }

    /** clogdesc.c; access/clog.h. */
    private static String clog(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "ZEROPAGE";
            case 0x10 -> "TRUNCATE";
            default -> null;
        };
    }

    /** dbasedesc.c; commands/dbcommands_xlog.h (PG15 split CREATE into FILE_COPY and WAL_LOG). */
    private static String dbase(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "CREATE_FILE_COPY";
            case 0x10 -> "CREATE_WAL_LOG";
            case 0x20 -> "DROP";
            default -> null;
        };
    }

    /** dbasedesc.c of 14; commands/dbcommands_xlog.h (REL_14_STABLE): one CREATE (file copy). */
    private static String dbase14(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "CREATE";
            case 0x10 -> "DROP";
            default -> null;
        };
    }

    /** tblspcdesc.c; commands/tablespace.h. */
    private static String tblspc(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "CREATE";
            case 0x10 -> "DROP";
            default -> null;
        };
    }

    /** mxactdesc.c; access/multixact.h. */
    private static String multixact(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "ZERO_OFF_PAGE";
            case 0x10 -> "ZERO_MEM_PAGE";
            case 0x20 -> "CREATE_ID";
            case 0x30 -> "TRUNCATE_ID";
            default -> null;
        };
    }

    /** relmapdesc.c; utils/relmapper.h. */
    private static String relmap(int info) {
        return (info & ~XLR_INFO_MASK) == 0x00 ? "UPDATE" : null;
    }

    /** standbydesc.c; storage/standbydefs.h. */
    private static String standby(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "LOCK";
            case 0x10 -> "RUNNING_XACTS";
            case 0x20 -> "INVALIDATIONS";
            default -> null;
        };
    }

    /** heapdesc.c heap2_identify; access/heapam_xlog.h. Only MULTI_INSERT has a "+INIT" (0x80) variant. */
    private static String heap2(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "REWRITE";
            case 0x10 -> "PRUNE";
            case 0x20 -> "VACUUM";
            case 0x30 -> "FREEZE_PAGE";
            case 0x40 -> "VISIBLE";
            case 0x50 -> "MULTI_INSERT";
            case 0x50 | 0x80 -> "MULTI_INSERT+INIT";
            case 0x60 -> "LOCK_UPDATED";
            case 0x70 -> "NEW_CID";
            default -> null;
        };
    }

    /**
     * heapdesc.c heap2_identify of 17 and 18; access/heapam_xlog.h: XLOG_HEAP2_PRUNE_ON_ACCESS,
     * XLOG_HEAP2_PRUNE_VACUUM_SCAN and XLOG_HEAP2_PRUNE_VACUUM_CLEANUP (one xl_heap_prune record that prunes,
     * freezes and marks dead items unused) take the slots of PRUNE, VACUUM and FREEZE_PAGE.
     */
    private static String heap2Since17(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x10 -> "PRUNE_ON_ACCESS";
            case 0x20 -> "PRUNE_VACUUM_SCAN";
            case 0x30 -> "PRUNE_VACUUM_CLEANUP";
            default -> heap2(info);
        };
    }

    /**
     * heapdesc.c heap_identify; access/heapam_xlog.h. XLOG_HEAP_INIT_PAGE (0x80) has names only with INSERT,
     * UPDATE and HOT_UPDATE; any other type with it is NULL.
     */
    private static String heap(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "INSERT";
            case 0x00 | 0x80 -> "INSERT+INIT";
            case 0x10 -> "DELETE";
            case 0x20 -> "UPDATE";
            case 0x20 | 0x80 -> "UPDATE+INIT";
            case 0x30 -> "TRUNCATE";
            case 0x40 -> "HOT_UPDATE";
            case 0x40 | 0x80 -> "HOT_UPDATE+INIT";
            case 0x50 -> "HEAP_CONFIRM";
            case 0x60 -> "LOCK";
            case 0x70 -> "INPLACE";
            default -> null;
        };
    }

    /** nbtdesc.c; access/nbtxlog.h (0x50/0x60 are INSERT_POST/DEDUP since PG13). */
    private static String btree(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "INSERT_LEAF";
            case 0x10 -> "INSERT_UPPER";
            case 0x20 -> "INSERT_META";
            case 0x30 -> "SPLIT_L";
            case 0x40 -> "SPLIT_R";
            case 0x50 -> "INSERT_POST";
            case 0x60 -> "DEDUP";
            case 0x70 -> "DELETE";
            case 0x80 -> "UNLINK_PAGE";
            case 0x90 -> "UNLINK_PAGE_META";
            case 0xA0 -> "NEWROOT";
            case 0xB0 -> "MARK_PAGE_HALFDEAD";
            case 0xC0 -> "VACUUM";
            case 0xD0 -> "REUSE_PAGE";
            case 0xE0 -> "META_CLEANUP";
            default -> null;
        };
    }

    /** hashdesc.c; access/hash_xlog.h. */
    private static String hash(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "INIT_META_PAGE";
            case 0x10 -> "INIT_BITMAP_PAGE";
            case 0x20 -> "INSERT";
            case 0x30 -> "ADD_OVFL_PAGE";
            case 0x40 -> "SPLIT_ALLOCATE_PAGE";
            case 0x50 -> "SPLIT_PAGE";
            case 0x60 -> "SPLIT_COMPLETE";
            case 0x70 -> "MOVE_PAGE_CONTENTS";
            case 0x80 -> "SQUEEZE_PAGE";
            case 0x90 -> "DELETE";
            case 0xA0 -> "SPLIT_CLEANUP";
            case 0xB0 -> "UPDATE_META_PAGE";
            case 0xC0 -> "VACUUM_ONE_PAGE";
            default -> null;
        };
    }

    /** gindesc.c; access/ginxlog.h (0x00, the old CREATE_INDEX, is unused). */
    private static String gin(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x10 -> "CREATE_PTREE";
            case 0x20 -> "INSERT";
            case 0x30 -> "SPLIT";
            case 0x40 -> "VACUUM_PAGE";
            case 0x50 -> "DELETE_PAGE";
            case 0x60 -> "UPDATE_META_PAGE";
            case 0x70 -> "INSERT_LISTPAGE";
            case 0x80 -> "DELETE_LISTPAGE";
            case 0x90 -> "VACUUM_DATA_LEAF_PAGE";
            default -> null;
        };
    }

    /** gistdesc.c; access/gistxlog.h (0x40 and 0x50 are unused). */
    private static String gist(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "PAGE_UPDATE";
            case 0x10 -> "DELETE";
            case 0x20 -> "PAGE_REUSE";
            case 0x30 -> "PAGE_SPLIT";
            case 0x60 -> "PAGE_DELETE";
            case 0x70 -> "ASSIGN_LSN";
            default -> null;
        };
    }

    /** seqdesc.c; commands/sequence.h. */
    private static String seq(int info) {
        return (info & ~XLR_INFO_MASK) == 0x00 ? "LOG" : null;
    }

    /** spgdesc.c; access/spgxlog.h (0x00, the old CREATE_INDEX, is unused). */
    private static String spg(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x10 -> "ADD_LEAF";
            case 0x20 -> "MOVE_LEAFS";
            case 0x30 -> "ADD_NODE";
            case 0x40 -> "SPLIT_TUPLE";
            case 0x50 -> "PICKSPLIT";
            case 0x60 -> "VACUUM_LEAF";
            case 0x70 -> "VACUUM_ROOT";
            case 0x80 -> "VACUUM_REDIRECT";
            default -> null;
        };
    }

    /** brindesc.c; access/brin_xlog.h. XLOG_BRIN_INIT_PAGE (0x80) is named with INSERT and UPDATE only. */
    private static String brin(int info) {
        return switch (info & ~XLR_INFO_MASK) {
            case 0x00 -> "CREATE_INDEX";
            case 0x10 -> "INSERT";
            case 0x10 | 0x80 -> "INSERT+INIT";
            case 0x20 -> "UPDATE";
            case 0x20 | 0x80 -> "UPDATE+INIT";
            case 0x30 -> "SAMEPAGE_UPDATE";
            case 0x40 -> "REVMAP_EXTEND";
            case 0x50 -> "DESUMMARIZE";
            default -> null;
        };
    }

    /** committsdesc.c: {@code switch (info)}, unmasked. */
    private static String commitTs(int info) {
        return switch (info) {
            case 0x00 -> "ZEROPAGE";
            case 0x10 -> "TRUNCATE";
            default -> null;
        };
    }

    /** replorigindesc.c: {@code switch (info)}, unmasked. */
    private static String replorigin(int info) {
        return switch (info) {
            case 0x00 -> "SET";
            case 0x10 -> "DROP";
            default -> null;
        };
    }
}
