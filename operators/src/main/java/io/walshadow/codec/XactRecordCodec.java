package io.walshadow.codec;

import io.walshadow.wal.RelFileLocator;
import io.walshadow.xact.DbInfo;
import io.walshadow.xact.DroppedStatsItem;
import io.walshadow.xact.InvalidationMessage;
import io.walshadow.xact.InvalidationMessages;
import io.walshadow.xact.TwoPhaseRecord;
import io.walshadow.xact.XactAbort;
import io.walshadow.xact.XactAssignment;
import io.walshadow.xact.XactCommit;
import io.walshadow.xact.XactInvalidations;
import io.walshadow.xact.XactOrigin;
import io.walshadow.xact.XactPrepare;
import io.walshadow.xact.XactRecord;
import io.walshadow.xact.XidList;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Binary form of a parsed transaction record ({@link XactRecord}): its fields, variant by variant, so that the
 * decoded record (including PREPARE's two-phase records) comes back equal without keeping, or re-parsing, the WAL
 * bytes it came from.
 *
 * <p>Format version {@value #FORMAT_VERSION} (primitives as in {@link Wire}; oids and xids are fixed 4-byte ints,
 * LSNs and timestamps fixed 8-byte longs): a kind byte, then
 * <pre>
 *   1 COMMIT / COMMIT_PREPARED: lsn, byte info, recordXid, xactTime, xinfo, dbInfo?, xids subxids, rels,
 *     stats droppedStats, invals, twophaseXid, string gid, origin?
 *   2 ABORT / ABORT_PREPARED: lsn, byte info, recordXid, toplevelXid, xactTime, xinfo, dbInfo?, xids subxids,
 *     rels, stats droppedStats, twophaseXid, string gid, origin?
 *   3 PREPARE: lsn, byte info, recordXid, magic, totalLength, xid, dbId, preparedAt, owner, xids subxids,
 *     rels commitRels, rels abortRels, stats commitStats, stats abortStats, invals, bool initFileInval, string gid,
 *     originLsn, originTimestamp, originNodeId, count n, n x (uvarint rmid, uvarint info, bytes data)
 *   4 ASSIGNMENT: lsn, byte info, recordXid, xtop, xids subxids
 *   5 INVALIDATIONS: lsn, byte info, recordXid, toplevelXid, invals
 * dbInfo?: bool present [, dbId, tsId]; origin?: bool present [, nodeId, originLsn, originTimestamp]
 * xids / rels / stats / invals: nullable count, then the elements (rel: spcOid, dbOid, relNumber;
 *   stats item: kind, dbOid, objOid; inval: byte id, then by id: catcache (id &gt;= 0) dbId, hashValue;
 *   -1 catalog dbId, catId; -2 relcache dbId, relId; -3 smgr backend, spcOid, dbOid, relNumber;
 *   -4 relmap dbId; -5 snapshot dbId, relId)
 * </pre>
 */
public final class XactRecordCodec {
    /** Version of the byte format above; bump it (keeping the old reader) for any change. */
    public static final int FORMAT_VERSION = 1;

    public static final int COMMIT = 1;
    public static final int ABORT = 2;
    public static final int PREPARE = 3;
    public static final int ASSIGNMENT = 4;
    public static final int INVALIDATIONS = 5;

    private XactRecordCodec() {}

    public static void write(DataOutput out, XactRecord x) throws IOException {
        if (x instanceof XactCommit c) {
            out.writeByte(COMMIT);
            out.writeLong(c.lsn());
            out.writeByte(c.info());
            out.writeInt(c.recordXid());
            out.writeLong(c.xactTime());
            out.writeInt(c.xinfo());
            writeDbInfo(out, c.dbInfo());
            writeXids(out, c.subxids());
            writeRels(out, c.rels());
            writeStats(out, c.droppedStats());
            writeInvals(out, c.invals());
            out.writeInt(c.twophaseXid());
            Wire.writeString(out, c.gid());
            writeOrigin(out, c.origin());
        } else if (x instanceof XactAbort a) {
            out.writeByte(ABORT);
            out.writeLong(a.lsn());
            out.writeByte(a.info());
            out.writeInt(a.recordXid());
            out.writeInt(a.toplevelXid());
            out.writeLong(a.xactTime());
            out.writeInt(a.xinfo());
            writeDbInfo(out, a.dbInfo());
            writeXids(out, a.subxids());
            writeRels(out, a.rels());
            writeStats(out, a.droppedStats());
            out.writeInt(a.twophaseXid());
            Wire.writeString(out, a.gid());
            writeOrigin(out, a.origin());
        } else if (x instanceof XactPrepare p) {
            out.writeByte(PREPARE);
            out.writeLong(p.lsn());
            out.writeByte(p.info());
            out.writeInt(p.recordXid());
            out.writeInt(p.magic());
            out.writeInt(p.totalLength());
            out.writeInt(p.xid());
            out.writeInt(p.dbId());
            out.writeLong(p.preparedAt());
            out.writeInt(p.owner());
            writeXids(out, p.subxids());
            writeRels(out, p.commitRels());
            writeRels(out, p.abortRels());
            writeStats(out, p.commitStats());
            writeStats(out, p.abortStats());
            writeInvals(out, p.invals());
            out.writeBoolean(p.initFileInval());
            Wire.writeString(out, p.gid());
            out.writeLong(p.originLsn());
            out.writeLong(p.originTimestamp());
            out.writeInt(p.originNodeId());
            List<TwoPhaseRecord> recs = p.twoPhaseRecords();
            Wire.writeNullableCount(out, recs == null ? -1 : recs.size());
            if (recs != null) {
                for (TwoPhaseRecord r : recs) {
                    Wire.writeUVarInt(out, r.rmid());
                    Wire.writeUVarInt(out, r.info());
                    Wire.writeBytes(out, r.data());
                }
            }
        } else if (x instanceof XactAssignment a) {
            out.writeByte(ASSIGNMENT);
            out.writeLong(a.lsn());
            out.writeByte(a.info());
            out.writeInt(a.recordXid());
            out.writeInt(a.xtop());
            writeXids(out, a.subxids());
        } else if (x instanceof XactInvalidations i) {
            out.writeByte(INVALIDATIONS);
            out.writeLong(i.lsn());
            out.writeByte(i.info());
            out.writeInt(i.recordXid());
            out.writeInt(i.toplevelXid());
            writeInvals(out, i.invals());
        } else {
            throw new IllegalArgumentException("XactRecordCodec cannot encode " + x);
        }
    }

    /** Reads a record written by this build's {@link #write}. */
    public static XactRecord read(DataInput in) throws IOException {
        return read(in, FORMAT_VERSION);
    }

    /** Reads a record written in format {@code version}. */
    public static XactRecord read(DataInput in, int version) throws IOException {
        if (version != 1) {
            throw new StateFormatException("transaction record format version " + version
                    + " is not readable by this build (it reads version 1 to " + FORMAT_VERSION + ")");
        }
        int kind = in.readUnsignedByte();
        switch (kind) {
            case COMMIT: {
                long lsn = in.readLong();
                int info = in.readUnsignedByte();
                int recordXid = in.readInt();
                long xactTime = in.readLong();
                int xinfo = in.readInt();
                DbInfo db = readDbInfo(in);
                XidList subxids = readXids(in);
                List<RelFileLocator> rels = readRels(in);
                List<DroppedStatsItem> stats = readStats(in);
                InvalidationMessages invals = readInvals(in);
                int twophaseXid = in.readInt();
                String gid = Wire.readString(in);
                return new XactCommit(lsn, info, recordXid, xactTime, xinfo, db, subxids, rels, stats, invals,
                        twophaseXid, gid, readOrigin(in));
            }
            case ABORT: {
                long lsn = in.readLong();
                int info = in.readUnsignedByte();
                int recordXid = in.readInt();
                int toplevelXid = in.readInt();
                long xactTime = in.readLong();
                int xinfo = in.readInt();
                DbInfo db = readDbInfo(in);
                XidList subxids = readXids(in);
                List<RelFileLocator> rels = readRels(in);
                List<DroppedStatsItem> stats = readStats(in);
                int twophaseXid = in.readInt();
                String gid = Wire.readString(in);
                return new XactAbort(lsn, info, recordXid, toplevelXid, xactTime, xinfo, db, subxids, rels, stats,
                        twophaseXid, gid, readOrigin(in));
            }
            case PREPARE: {
                long lsn = in.readLong();
                int info = in.readUnsignedByte();
                int recordXid = in.readInt();
                int magic = in.readInt();
                int totalLength = in.readInt();
                int xid = in.readInt();
                int dbId = in.readInt();
                long preparedAt = in.readLong();
                int owner = in.readInt();
                XidList subxids = readXids(in);
                List<RelFileLocator> commitRels = readRels(in);
                List<RelFileLocator> abortRels = readRels(in);
                List<DroppedStatsItem> commitStats = readStats(in);
                List<DroppedStatsItem> abortStats = readStats(in);
                InvalidationMessages invals = readInvals(in);
                boolean initFileInval = in.readBoolean();
                String gid = Wire.readString(in);
                long originLsn = in.readLong();
                long originTimestamp = in.readLong();
                int originNodeId = in.readInt();
                int n = Wire.readNullableCount(in, "two-phase record count");
                List<TwoPhaseRecord> recs = null;
                if (n >= 0) {
                    List<TwoPhaseRecord> l = new ArrayList<>(Wire.capacity(n));
                    for (int i = 0; i < n; i++) {
                        l.add(new TwoPhaseRecord(Wire.readUVarInt(in, "two-phase rmid"),
                                Wire.readUVarInt(in, "two-phase info"), Wire.readBytes(in, "two-phase data")));
                    }
                    recs = List.copyOf(l);
                }
                return new XactPrepare(lsn, info, recordXid, magic, totalLength, xid, dbId, preparedAt, owner,
                        subxids, commitRels, abortRels, commitStats, abortStats, invals, initFileInval, gid,
                        originLsn, originTimestamp, originNodeId, recs);
            }
            case ASSIGNMENT: {
                long lsn = in.readLong();
                int info = in.readUnsignedByte();
                int recordXid = in.readInt();
                int xtop = in.readInt();
                return new XactAssignment(lsn, info, recordXid, xtop, readXids(in));
            }
            case INVALIDATIONS: {
                long lsn = in.readLong();
                int info = in.readUnsignedByte();
                int recordXid = in.readInt();
                int toplevelXid = in.readInt();
                return new XactInvalidations(lsn, info, recordXid, toplevelXid, readInvals(in));
            }
            default:
                throw new StateFormatException("unknown transaction record kind " + kind
                        + " (transaction record format version " + FORMAT_VERSION + " knows kinds 1.." + INVALIDATIONS
                        + "): data from a newer build, or damaged");
        }
    }

    private static void writeDbInfo(DataOutput out, DbInfo d) throws IOException {
        out.writeBoolean(d != null);
        if (d != null) {
            out.writeInt(d.dbId());
            out.writeInt(d.tsId());
        }
    }

    private static DbInfo readDbInfo(DataInput in) throws IOException {
        return in.readBoolean() ? new DbInfo(in.readInt(), in.readInt()) : null;
    }

    private static void writeOrigin(DataOutput out, XactOrigin o) throws IOException {
        out.writeBoolean(o != null);
        if (o != null) {
            out.writeInt(o.nodeId());
            out.writeLong(o.originLsn());
            out.writeLong(o.originTimestamp());
        }
    }

    private static XactOrigin readOrigin(DataInput in) throws IOException {
        return in.readBoolean() ? new XactOrigin(in.readInt(), in.readLong(), in.readLong()) : null;
    }

    private static void writeXids(DataOutput out, XidList xids) throws IOException {
        Wire.writeNullableCount(out, xids == null ? -1 : xids.size());
        if (xids != null) {
            for (int i = 0; i < xids.size(); i++) {
                out.writeInt(xids.getInt(i));
            }
        }
    }

    private static XidList readXids(DataInput in) throws IOException {
        int n = Wire.readNullableCount(in, "xid count");
        if (n < 0) {
            return null;
        }
        if (n == 0) {
            return XidList.empty();
        }
        int[] xids = new int[Math.min(n, 1 << 16)];
        for (int i = 0; i < n; i++) {
            if (i == xids.length) {
                xids = Arrays.copyOf(xids, (int) Math.min(n, 2L * xids.length));
            }
            xids[i] = in.readInt();
        }
        return XidList.of(xids);
    }

    public static void writeRels(DataOutput out, List<RelFileLocator> rels) throws IOException {
        Wire.writeNullableCount(out, rels == null ? -1 : rels.size());
        if (rels != null) {
            for (RelFileLocator r : rels) {
                out.writeInt(r.spcOid());
                out.writeInt(r.dbOid());
                out.writeInt(r.relNumber());
            }
        }
    }

    public static List<RelFileLocator> readRels(DataInput in) throws IOException {
        int n = Wire.readNullableCount(in, "relation file count");
        if (n < 0) {
            return null;
        }
        List<RelFileLocator> l = new ArrayList<>(Wire.capacity(n));
        for (int i = 0; i < n; i++) {
            l.add(new RelFileLocator(in.readInt(), in.readInt(), in.readInt()));
        }
        return List.copyOf(l);
    }

    private static void writeStats(DataOutput out, List<DroppedStatsItem> stats) throws IOException {
        Wire.writeNullableCount(out, stats == null ? -1 : stats.size());
        if (stats != null) {
            for (DroppedStatsItem s : stats) {
                out.writeInt(s.kind());
                out.writeInt(s.dbOid());
                out.writeInt(s.objOid());
            }
        }
    }

    private static List<DroppedStatsItem> readStats(DataInput in) throws IOException {
        int n = Wire.readNullableCount(in, "dropped stats count");
        if (n < 0) {
            return null;
        }
        List<DroppedStatsItem> l = new ArrayList<>(Wire.capacity(n));
        for (int i = 0; i < n; i++) {
            l.add(new DroppedStatsItem(in.readInt(), in.readInt(), in.readInt()));
        }
        return List.copyOf(l);
    }

    private static void writeInvals(DataOutput out, InvalidationMessages msgs) throws IOException {
        Wire.writeNullableCount(out, msgs == null ? -1 : msgs.size());
        if (msgs == null) {
            return;
        }
        for (InvalidationMessage m : msgs) {
            if (m.id() < Byte.MIN_VALUE || m.id() > Byte.MAX_VALUE) {
                throw new IllegalArgumentException("invalidation message id " + m.id() + " is not an int8: " + m);
            }
            out.writeByte(m.id());
            if (m instanceof InvalidationMessage.Catcache c) {
                out.writeInt(c.dbId());
                out.writeInt(c.hashValue());
            } else if (m instanceof InvalidationMessage.Catalog c) {
                out.writeInt(c.dbId());
                out.writeInt(c.catId());
            } else if (m instanceof InvalidationMessage.Relcache r) {
                out.writeInt(r.dbId());
                out.writeInt(r.relId());
            } else if (m instanceof InvalidationMessage.Smgr s) {
                out.writeInt(s.backend());
                out.writeInt(s.locator().spcOid());
                out.writeInt(s.locator().dbOid());
                out.writeInt(s.locator().relNumber());
            } else if (m instanceof InvalidationMessage.Relmap r) {
                out.writeInt(r.dbId());
            } else if (m instanceof InvalidationMessage.Snapshot s) {
                out.writeInt(s.dbId());
                out.writeInt(s.relId());
            } else {
                throw new IllegalArgumentException("XactRecordCodec cannot encode invalidation message " + m);
            }
        }
    }

    private static InvalidationMessages readInvals(DataInput in) throws IOException {
        int n = Wire.readNullableCount(in, "invalidation message count");
        if (n < 0) {
            return null;
        }
        List<InvalidationMessage> l = new ArrayList<>(Wire.capacity(n));
        for (int i = 0; i < n; i++) {
            int id = in.readByte();
            l.add(switch (id) {
                case InvalidationMessage.CATALOG_ID -> new InvalidationMessage.Catalog(in.readInt(), in.readInt());
                case InvalidationMessage.RELCACHE_ID -> new InvalidationMessage.Relcache(in.readInt(), in.readInt());
                case InvalidationMessage.SMGR_ID -> new InvalidationMessage.Smgr(in.readInt(),
                        new RelFileLocator(in.readInt(), in.readInt(), in.readInt()));
                case InvalidationMessage.RELMAP_ID -> new InvalidationMessage.Relmap(in.readInt());
                case InvalidationMessage.SNAPSHOT_ID -> new InvalidationMessage.Snapshot(in.readInt(), in.readInt());
                default -> {
                    if (id < 0) {
                        throw new StateFormatException("unknown invalidation message id " + id);
                    }
                    yield new InvalidationMessage.Catcache(id, in.readInt(), in.readInt());
                }
            });
        }
        return InvalidationMessages.of(l);
    }
}
