package io.walshadow.xact;

import static io.walshadow.xact.XactInfo.TWOPHASE_MAGIC;
import static io.walshadow.xact.XactInfo.TWOPHASE_RM_END_ID;
import static io.walshadow.xact.XactInfo.TWOPHASE_RM_MAX_ID;
import static io.walshadow.xact.XactInfo.XACT_XINFO_HAS_DBINFO;
import static io.walshadow.xact.XactInfo.XACT_XINFO_HAS_DROPPED_STATS;
import static io.walshadow.xact.XactInfo.XACT_XINFO_HAS_GID;
import static io.walshadow.xact.XactInfo.XACT_XINFO_HAS_INVALS;
import static io.walshadow.xact.XactInfo.XACT_XINFO_HAS_ORIGIN;
import static io.walshadow.xact.XactInfo.XACT_XINFO_HAS_RELFILELOCATORS;
import static io.walshadow.xact.XactInfo.XACT_XINFO_HAS_SUBXACTS;
import static io.walshadow.xact.XactInfo.XACT_XINFO_HAS_TWOPHASE;
import static io.walshadow.xact.XactInfo.XLOG_XACT_ABORT;
import static io.walshadow.xact.XactInfo.XLOG_XACT_ABORT_PREPARED;
import static io.walshadow.xact.XactInfo.XLOG_XACT_ASSIGNMENT;
import static io.walshadow.xact.XactInfo.XLOG_XACT_COMMIT;
import static io.walshadow.xact.XactInfo.XLOG_XACT_COMMIT_PREPARED;
import static io.walshadow.xact.XactInfo.XLOG_XACT_HAS_INFO;
import static io.walshadow.xact.XactInfo.XLOG_XACT_INVALIDATIONS;
import static io.walshadow.xact.XactInfo.XLOG_XACT_OPMASK;
import static io.walshadow.xact.XactInfo.XLOG_XACT_PREPARE;

import io.walshadow.wal.Bytes;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.XLogRecord;
import io.walshadow.xact.XactParseException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Parses every transaction-rmgr record of PostgreSQL 14..18 completely, byte for byte as {@code xactdesc.c}
 * ({@code ParseCommitRecord}, {@code ParseAbortRecord}, {@code ParsePrepareRecord}) and {@code twophase.c}
 * ({@code StartPrepare}/{@code EndPrepare}) lay them out (access/xact.h of each REL_NN_STABLE: the same but for 14's
 * prepare record without stats counts and 18's 16-byte {@code xl_xact_stats_item}):
 *
 * <ul>
 *   <li>COMMIT / COMMIT_PREPARED: {@code xact_time}, {@code xinfo} if XLOG_XACT_HAS_INFO, then as xinfo says, in
 *       this order: dbinfo, subxacts, relfilenodes, dropped stats, invals, twophase xid (+ NUL-terminated gid if
 *       HAS_GID), origin. Only int32 alignment is guaranteed, and none after the gid: every field is read
 *       byte-wise, nothing is padded.
 *   <li>ABORT / ABORT_PREPARED: the same without invals.
 *   <li>PREPARE: the 72-byte {@code xl_xact_prepare} (64 on 14: no stats counts), then gid, subxids, commit
 *       rels, abort rels, commit stats, abort stats, invals, each padded to MAXALIGN (8) from the start of the
 *       main data, then
 *       {@code TwoPhaseRecordOnDisk} records up to the END sentinel. {@code total_len} counts the state file's
 *       CRC, which the record does not carry.
 *   <li>ASSIGNMENT: {@code xtop, nsubxacts, xsub[]}. INVALIDATIONS: {@code nmsgs, msgs[]}.
 * </ul>
 *
 * <p>Strict: the main data must hold exactly the parts the flags announce. A short read, a negative count, an
 * unknown invalidation message id, a bad two-phase magic or leftover bytes throw {@link XactParseException}; no
 * other exception type escapes for any input bytes, and no partial result is returned. Unknown xinfo bits are
 * kept in {@code xinfo} and otherwise ignored, as PostgreSQL 15 does. GIDs are bytes in the server encoding;
 * they are decoded as UTF-8, which is right for server_encoding UTF8.
 */
public final class XactRecordParser {
    private XactRecordParser() {}

    /**
     * Parses a record of the transaction rmgr.
     *
     * @throws IllegalArgumentException if the record is not an RM_XACT_ID record
     * @throws XactParseException if its main data is not a valid record of its type for the record's major
     */
    public static XactRecord parse(XLogRecord r) {
        if (r.rmid() != Rmgrs.RM_XACT_ID) {
            throw new IllegalArgumentException("not a Transaction record: " + r);
        }
        return parse(r.format(), r.lsn(), r.info(), r.xid(), r.toplevelXid(), r.origin(), r.rawBytes(),
                r.mainDataOffset(), r.mainDataLength());
    }

    /** As {@link #parse(WalFormat, long, int, int, int, int, byte[], int, int)} for a PostgreSQL 15 record. */
    public static XactRecord parse(long lsn, int info, int recordXid, int toplevelXid, int originId,
                                   byte[] buf, int offset, int length) {
        return parse(WalFormat.PG15, lsn, info, recordXid, toplevelXid, originId, buf, offset, length);
    }

    /**
     * Parses a transaction-rmgr record from its header fields and main data, for records kept apart from their
     * {@link XLogRecord} (e.g. stashed raw).
     *
     * @param info the whole {@code xl_info} byte
     * @param recordXid {@code xl_xid}
     * @param toplevelXid the XLR_BLOCK_ID_TOPLEVEL_XID value, 0 when absent
     * @param format the major the record is from: 18 widened {@code xl_xact_stats_item}
     * @param originId the XLR_BLOCK_ID_ORIGIN value, 0 (InvalidRepOriginId) when absent
     */
    public static XactRecord parse(WalFormat format, long lsn, int info, int recordXid, int toplevelXid,
                                   int originId, byte[] buf, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, buf.length);
        Cursor c = new Cursor(format, lsn, info & 0xFF, buf, offset, length);
        int op = info & XLOG_XACT_OPMASK;
        return switch (op) {
            case XLOG_XACT_COMMIT, XLOG_XACT_COMMIT_PREPARED -> commit(c, recordXid, originId);
            case XLOG_XACT_ABORT, XLOG_XACT_ABORT_PREPARED -> abort(c, recordXid, toplevelXid, originId);
            case XLOG_XACT_PREPARE -> prepare(c, recordXid, originId);
            case XLOG_XACT_ASSIGNMENT -> assignment(c, recordXid);
            case XLOG_XACT_INVALIDATIONS -> invalidations(c, recordXid, toplevelXid);
            default -> throw c.invalid("xl_info", 0, "unknown transaction record type 0x" + Integer.toHexString(op));
        };
    }

    private static XactCommit commit(Cursor c, int recordXid, int originId) {
        long xactTime = c.int64("xl_xact_commit.xact_time");
        int xinfo = (c.info & XLOG_XACT_HAS_INFO) != 0 ? c.int32("xl_xact_xinfo.xinfo") : 0;
        DbInfo dbInfo = (xinfo & XACT_XINFO_HAS_DBINFO) != 0 ? dbInfo(c) : null;
        XidList subxids = (xinfo & XACT_XINFO_HAS_SUBXACTS) != 0
                ? c.xids(c.count("xl_xact_subxacts.nsubxacts"), "xl_xact_subxacts.subxacts")
                : XidList.empty();
        List<RelFileLocator> rels = (xinfo & XACT_XINFO_HAS_RELFILELOCATORS) != 0
                ? c.rels(c.count("xl_xact_relfilenodes.nrels"), "xl_xact_relfilenodes.xnodes")
                : List.of();
        List<DroppedStatsItem> stats = (xinfo & XACT_XINFO_HAS_DROPPED_STATS) != 0
                ? c.stats(c.count("xl_xact_stats_items.nitems"), "xl_xact_stats_items.items")
                : List.of();
        InvalidationMessages invals = (xinfo & XACT_XINFO_HAS_INVALS) != 0
                ? c.invals(c.count("xl_xact_invals.nmsgs"), "xl_xact_invals.msgs")
                : InvalidationMessages.empty();
        int twophaseXid = 0;
        int twophaseAt = -1;
        String gid = null;
        if ((xinfo & XACT_XINFO_HAS_TWOPHASE) != 0) {
            twophaseAt = c.pos - c.start;
            twophaseXid = c.int32("xl_xact_twophase.xid");
            if ((xinfo & XACT_XINFO_HAS_GID) != 0) {
                gid = c.cstring("twophase_gid");
            }
        }
        XactOrigin origin = (xinfo & XACT_XINFO_HAS_ORIGIN) != 0 ? origin(c, originId) : null;
        c.expectEnd();
        if ((c.info & XLOG_XACT_OPMASK) == XLOG_XACT_COMMIT_PREPARED) {
            requireTwophaseXid(c, xinfo, twophaseXid, twophaseAt);
        }
        return new XactCommit(c.lsn, c.info, recordXid, xactTime, xinfo, dbInfo, subxids, rels, stats, invals,
                twophaseXid, gid, origin);
    }

    private static XactAbort abort(Cursor c, int recordXid, int toplevelXid, int originId) {
        long xactTime = c.int64("xl_xact_abort.xact_time");
        int xinfo = (c.info & XLOG_XACT_HAS_INFO) != 0 ? c.int32("xl_xact_xinfo.xinfo") : 0;
        DbInfo dbInfo = (xinfo & XACT_XINFO_HAS_DBINFO) != 0 ? dbInfo(c) : null;
        XidList subxids = (xinfo & XACT_XINFO_HAS_SUBXACTS) != 0
                ? c.xids(c.count("xl_xact_subxacts.nsubxacts"), "xl_xact_subxacts.subxacts")
                : XidList.empty();
        List<RelFileLocator> rels = (xinfo & XACT_XINFO_HAS_RELFILELOCATORS) != 0
                ? c.rels(c.count("xl_xact_relfilenodes.nrels"), "xl_xact_relfilenodes.xnodes")
                : List.of();
        List<DroppedStatsItem> stats = (xinfo & XACT_XINFO_HAS_DROPPED_STATS) != 0
                ? c.stats(c.count("xl_xact_stats_items.nitems"), "xl_xact_stats_items.items")
                : List.of();
        // ParseAbortRecord reads no invals: aborts never carry them (an XACT_XINFO_HAS_INVALS bit is ignored)
        int twophaseXid = 0;
        int twophaseAt = -1;
        String gid = null;
        if ((xinfo & XACT_XINFO_HAS_TWOPHASE) != 0) {
            twophaseAt = c.pos - c.start;
            twophaseXid = c.int32("xl_xact_twophase.xid");
            if ((xinfo & XACT_XINFO_HAS_GID) != 0) {
                gid = c.cstring("twophase_gid");
            }
        }
        XactOrigin origin = (xinfo & XACT_XINFO_HAS_ORIGIN) != 0 ? origin(c, originId) : null;
        c.expectEnd();
        if ((c.info & XLOG_XACT_OPMASK) == XLOG_XACT_ABORT_PREPARED) {
            requireTwophaseXid(c, xinfo, twophaseXid, twophaseAt);
        }
        return new XactAbort(c.lsn, c.info, recordXid, toplevelXid, xactTime, xinfo, dbInfo, subxids, rels, stats,
                twophaseXid, gid, origin);
    }

    private static void requireTwophaseXid(Cursor c, int xinfo, int twophaseXid, int twophaseAt) {
        // xact_redo takes the finished xid from here; without it the record names no transaction
        if ((xinfo & XACT_XINFO_HAS_TWOPHASE) == 0) {
            throw c.invalid("xl_xact_xinfo.xinfo", 8, "prepared-transaction record without XACT_XINFO_HAS_TWOPHASE");
        }
        if (twophaseXid == 0) {
            throw c.invalid("xl_xact_twophase.xid", twophaseAt, "prepared-transaction record with xid 0");
        }
    }

    private static DbInfo dbInfo(Cursor c) {
        int dbId = c.int32("xl_xact_dbinfo.dbId");
        int tsId = c.int32("xl_xact_dbinfo.tsId");
        return new DbInfo(dbId, tsId);
    }

    private static XactOrigin origin(Cursor c, int originId) {
        // stored unaligned (after the gid): read byte-wise, as ParseCommitRecord memcpy's it
        long originLsn = c.int64("xl_xact_origin.origin_lsn");
        long originTimestamp = c.int64("xl_xact_origin.origin_timestamp");
        return new XactOrigin(originId, originLsn, originTimestamp);
    }

    private static XactPrepare prepare(Cursor c, int recordXid, int originId) {
        int magicAt = c.pos - c.start;
        int magic = c.int32("xl_xact_prepare.magic");
        if (magic != TWOPHASE_MAGIC) {
            throw c.invalid("xl_xact_prepare.magic", magicAt, String.format(
                    "0x%08X is not the two-phase state file magic (0x%08X)", magic, TWOPHASE_MAGIC));
        }
        int totalLen = c.int32("xl_xact_prepare.total_len");
        int xid = c.int32("xl_xact_prepare.xid");
        int database = c.int32("xl_xact_prepare.database");
        long preparedAt = c.int64("xl_xact_prepare.prepared_at");
        int owner = c.int32("xl_xact_prepare.owner");
        int nsubxacts = c.count("xl_xact_prepare.nsubxacts");
        int ncommitrels = c.count("xl_xact_prepare.ncommitrels");
        int nabortrels = c.count("xl_xact_prepare.nabortrels");
        // 14's xl_xact_prepare has no dropped stats (REL_14_STABLE xact.h: 64 bytes, ninvalmsgs after nabortrels)
        boolean hasStats = c.format.major >= 15;
        int ncommitstats = hasStats ? c.count("xl_xact_prepare.ncommitstats") : 0;
        int nabortstats = hasStats ? c.count("xl_xact_prepare.nabortstats") : 0;
        int ninvalmsgs = c.count("xl_xact_prepare.ninvalmsgs");
        int initAt = c.pos - c.start;
        int initfileinval = c.uint8("xl_xact_prepare.initfileinval");
        if (initfileinval > 1) {
            throw c.invalid("xl_xact_prepare.initfileinval", initAt, "bool holds " + initfileinval);
        }
        c.skip(1, "xl_xact_prepare (padding before gidlen)");
        int gidlen = c.uint16("xl_xact_prepare.gidlen");
        long originLsn = c.int64("xl_xact_prepare.origin_lsn");
        long originTimestamp = c.int64("xl_xact_prepare.origin_timestamp");
        // now at MAXALIGN(sizeof(xl_xact_prepare)) == 72 (64 on 14)

        String gid = c.fixedCString(gidlen, "gid");
        c.align8("gid (padding)");
        XidList subxids = c.xids(nsubxacts, "subxacts");
        c.align8("subxacts (padding)");
        List<RelFileLocator> commitRels = c.rels(ncommitrels, "commitrels");
        c.align8("commitrels (padding)");
        List<RelFileLocator> abortRels = c.rels(nabortrels, "abortrels");
        c.align8("abortrels (padding)");
        List<DroppedStatsItem> commitStats = c.stats(ncommitstats, "commitstats");
        c.align8("commitstats (padding)");
        List<DroppedStatsItem> abortStats = c.stats(nabortstats, "abortstats");
        c.align8("abortstats (padding)");
        InvalidationMessages invals = c.invals(ninvalmsgs, "invalmsgs");
        c.align8("invalmsgs (padding)");

        List<TwoPhaseRecord> records = new ArrayList<>();
        while (true) {
            int recAt = c.pos - c.start;
            int len = c.int32("TwoPhaseRecordOnDisk.len");
            int rmid = c.uint8("TwoPhaseRecordOnDisk.rmid");
            c.skip(1, "TwoPhaseRecordOnDisk (padding before info)");
            int rinfo = c.uint16("TwoPhaseRecordOnDisk.info");
            if (rmid > TWOPHASE_RM_MAX_ID) {
                throw c.invalid("TwoPhaseRecordOnDisk.rmid", recAt + 4, "unknown two-phase rmgr id " + rmid);
            }
            if (rmid == TWOPHASE_RM_END_ID) {
                if (len != 0) {
                    throw c.invalid("TwoPhaseRecordOnDisk.len", recAt, "END record with length " + len);
                }
                break;
            }
            if (len < 0) {
                throw c.invalid("TwoPhaseRecordOnDisk.len", recAt, "negative length " + len);
            }
            records.add(new TwoPhaseRecord(rmid, rinfo, c.bytes(len, "TwoPhaseRecordOnDisk data (rmid " + rmid + ")")));
            c.align8("TwoPhaseRecordOnDisk data (padding)");
        }
        c.expectEnd();
        int fileLen = c.pos - c.start;
        if ((long) totalLen != fileLen + 4L) {
            throw c.invalid("xl_xact_prepare.total_len", 4, "total_len " + Integer.toUnsignedString(totalLen)
                    + " does not match the " + fileLen + "-byte state file plus its 4-byte CRC");
        }
        return new XactPrepare(c.lsn, c.info, recordXid, magic, totalLen, xid, database, preparedAt, owner, subxids,
                commitRels, abortRels, commitStats, abortStats, invals, initfileinval != 0, gid, originLsn,
                originTimestamp, originId, List.copyOf(records));
    }

    private static XactAssignment assignment(Cursor c, int recordXid) {
        int xtop = c.int32("xl_xact_assignment.xtop");
        XidList xsub = c.xids(c.count("xl_xact_assignment.nsubxacts"), "xl_xact_assignment.xsub");
        c.expectEnd();
        return new XactAssignment(c.lsn, c.info, recordXid, xtop, xsub);
    }

    private static XactInvalidations invalidations(Cursor c, int recordXid, int toplevelXid) {
        InvalidationMessages msgs =
                c.invals(c.count("xl_xact_invals.nmsgs"), "xl_xact_invals.msgs");
        c.expectEnd();
        return new XactInvalidations(c.lsn, c.info, recordXid, toplevelXid, msgs);
    }

    /** Bounds-checked little-endian reads over the main data; every read names the field it is for. */
    private static final class Cursor {
        final long lsn;
        final int info;
        final byte[] b;
        final int start;
        final int end;
        int pos;

        /** The record's major. */
        final WalFormat format;
        /** sizeof(xl_xact_stats_item) of the record's major. */
        final int statsItemSize;

        Cursor(WalFormat format, long lsn, int info, byte[] b, int start, int length) {
            this.format = format;
            this.statsItemSize = DroppedStatsItem.size(format);
            this.lsn = lsn;
            this.info = info;
            this.b = b;
            this.start = start;
            this.end = start + length;
            this.pos = start;
        }

        XactParseException invalid(String field, int offset, String detail) {
            return new XactParseException(Reason.INVALID, lsn, info, field, offset, detail);
        }

        private void need(long n, String field) {
            if (n > end - pos) {
                throw new XactParseException(Reason.TRUNCATED, lsn, info, field, pos - start, "needs " + n
                        + " bytes, " + (end - pos) + " left (main data length " + (end - start) + ")");
            }
        }

        int int32(String field) {
            need(4, field);
            int v = Bytes.int32(b, pos);
            pos += 4;
            return v;
        }

        long int64(String field) {
            need(8, field);
            long v = Bytes.int64(b, pos);
            pos += 8;
            return v;
        }

        int uint8(String field) {
            need(1, field);
            return b[pos++] & 0xFF;
        }

        int uint16(String field) {
            need(2, field);
            int v = Bytes.uint16(b, pos);
            pos += 2;
            return v;
        }

        void skip(int n, String field) {
            need(n, field);
            pos += n;
        }

        /** MAXALIGN relative to the start of the main data (the two-phase state file's start). */
        void align8(String field) {
            int pad = -(pos - start) & 7;
            if (pad > 0) {
                skip(pad, field);
            }
        }

        /**
         * Reads an int32 element count, which must not be negative. The array reader that follows checks that all
         * elements are there before it allocates anything, so a huge count is a cut array, not an OutOfMemoryError.
         */
        int count(String field) {
            int at = pos - start;
            int n = int32(field);
            if (n < 0) {
                throw invalid(field, at, "negative count " + n);
            }
            return n;
        }

        byte[] bytes(int n, String field) {
            need(n, field);
            byte[] out = Arrays.copyOfRange(b, pos, pos + n);
            pos += n;
            return out;
        }

        XidList xids(int n, String field) {
            need(4L * n, field);
            int[] out = new int[n];
            for (int i = 0; i < n; i++) {
                out[i] = Bytes.int32(b, pos);
                pos += 4;
            }
            return XidList.wrap(out);
        }

        List<RelFileLocator> rels(int n, String field) {
            need(12L * n, field);
            RelFileLocator[] out = new RelFileLocator[n];
            for (int i = 0; i < n; i++) {
                out[i] = new RelFileLocator(Bytes.int32(b, pos), Bytes.int32(b, pos + 4), Bytes.int32(b, pos + 8));
                pos += 12;
            }
            return List.of(out);
        }

        List<DroppedStatsItem> stats(int n, String field) {
            need((long) statsItemSize * n, field);
            DroppedStatsItem[] out = new DroppedStatsItem[n];
            for (int i = 0; i < n; i++) {
                out[i] = new DroppedStatsItem(Bytes.int32(b, pos), Bytes.int32(b, pos + 4), Bytes.int32(b, pos + 8));
                pos += statsItemSize;
            }
            return List.of(out);
        }

        InvalidationMessages invals(int n, String field) {
            need((long) InvalidationMessage.SIZE * n, field);
            InvalidationMessage[] out = new InvalidationMessage[n];
            for (int i = 0; i < n; i++) {
                int p = pos;
                int id = b[p]; // int8, signed
                out[i] = switch (id) {
                    case InvalidationMessage.CATALOG_ID ->
                            new InvalidationMessage.Catalog(Bytes.int32(b, p + 4), Bytes.int32(b, p + 8));
                    case InvalidationMessage.RELCACHE_ID ->
                            new InvalidationMessage.Relcache(Bytes.int32(b, p + 4), Bytes.int32(b, p + 8));
                    case InvalidationMessage.SMGR_ID -> new InvalidationMessage.Smgr(
                            (b[p + 1] << 16) | Bytes.uint16(b, p + 2),
                            new RelFileLocator(Bytes.int32(b, p + 4), Bytes.int32(b, p + 8), Bytes.int32(b, p + 12)));
                    case InvalidationMessage.RELMAP_ID -> new InvalidationMessage.Relmap(Bytes.int32(b, p + 4));
                    case InvalidationMessage.SNAPSHOT_ID ->
                            new InvalidationMessage.Snapshot(Bytes.int32(b, p + 4), Bytes.int32(b, p + 8));
                    default -> {
                        if (id < 0) {
                            throw invalid(field + "[" + i + "].id", p - start,
                                    "unknown shared invalidation message id " + id);
                        }
                        yield new InvalidationMessage.Catcache(id, Bytes.int32(b, p + 4), Bytes.int32(b, p + 8));
                    }
                };
                pos += InvalidationMessage.SIZE;
            }
            return InvalidationMessages.wrap(out);
        }

        /** A NUL-terminated string (the commit/abort gid): the NUL must be within the main data. */
        String cstring(String field) {
            int nul = pos;
            while (nul < end && b[nul] != 0) {
                nul++;
            }
            if (nul == end) {
                throw new XactParseException(Reason.TRUNCATED, lsn, info, field, pos - start,
                        "no terminating NUL in the " + (end - pos) + " bytes left (main data length "
                                + (end - start) + ")");
            }
            String s = new String(b, pos, nul - pos, StandardCharsets.UTF_8);
            pos = nul + 1;
            return s;
        }

        /** {@code len} bytes holding a string up to its first NUL (the PREPARE gid, gidlen counts the NUL). */
        String fixedCString(int len, String field) {
            need(len, field);
            int nul = pos;
            while (nul < pos + len && b[nul] != 0) {
                nul++;
            }
            String s = new String(b, pos, nul - pos, StandardCharsets.UTF_8);
            pos += len;
            return s;
        }

        void expectEnd() {
            if (pos != end) {
                throw invalid("(end of main data)", pos - start, (end - pos)
                        + " bytes left after the last part the record announces");
            }
        }
    }
}
