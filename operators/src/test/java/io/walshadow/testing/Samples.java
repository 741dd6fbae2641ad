package io.walshadow.testing;

import io.walshadow.catalog.Ambiguity;
import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.Lookup.NotCoveredReason;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.ChangeEvent;
import io.walshadow.change.DeferredRecord;
import io.walshadow.change.RowChange;
import io.walshadow.change.TruncateChange;
import io.walshadow.change.XactEvent;
import io.walshadow.heap.Tid;
import io.walshadow.types.PgArray;
import io.walshadow.types.PgBitString;
import io.walshadow.types.PgDate;
import io.walshadow.types.PgInet;
import io.walshadow.types.PgInterval;
import io.walshadow.types.PgJsonb;
import io.walshadow.types.PgMacaddr;
import io.walshadow.types.PgMoney;
import io.walshadow.types.PgNumeric;
import io.walshadow.types.PgRecord;
import io.walshadow.types.PgTid;
import io.walshadow.types.PgTime;
import io.walshadow.types.PgTimeTz;
import io.walshadow.types.PgTimestamp;
import io.walshadow.types.ToastPointer;
import io.walshadow.wal.Bytes;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.XLogRecord;
import io.walshadow.xact.DbInfo;
import io.walshadow.xact.DroppedStatsItem;
import io.walshadow.xact.InvalidationMessage;
import io.walshadow.xact.InvalidationMessages;
import io.walshadow.xact.TwoPhaseRecord;
import io.walshadow.xact.XactAbort;
import io.walshadow.xact.XactAssignment;
import io.walshadow.xact.XactCommit;
import io.walshadow.xact.XactInfo;
import io.walshadow.xact.XactInvalidations;
import io.walshadow.xact.XactOrigin;
import io.walshadow.xact.XactPrepare;
import io.walshadow.xact.XactRecord;
import io.walshadow.xact.XidList;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/** Test fixtures: values of every class the decoders produce, descriptors, and events of every kind. */
public final class Samples {
    private Samples() {}

    public static final RelFileLocator LOC = new RelFileLocator(1663, 16384, 24576);
    public static final RelFileLocator LOC2 = new RelFileLocator(1663, 16384, 0x9000_0001); // relfilenode above 2^31

    /** Scalar values of every class, with edge cases. */
    public static List<Object> scalars() {
        List<Object> v = new ArrayList<>();
        v.add(null);
        v.addAll(List.of(true, false));
        v.addAll(List.of((short) 0, (short) -1, Short.MIN_VALUE, Short.MAX_VALUE));
        v.addAll(List.of(0, -1, 1, 63, 64, -64, -65, 127, 128, Integer.MIN_VALUE, Integer.MAX_VALUE));
        v.addAll(List.of(0L, -1L, 4294967295L, Long.MIN_VALUE, Long.MAX_VALUE, 0x0000_0001_0000_0000L));
        v.addAll(List.of(0.0f, -0.0f, Float.NaN, Float.intBitsToFloat(0x7fc0_0001), Float.intBitsToFloat(0xffc0_0000),
                Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, Float.MAX_VALUE, 1.1f));
        v.addAll(List.of(0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff8_0000_0000_0001L),
                Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, 0.1));
        v.addAll(List.of("", "plain ascii", "ümlaut € 𝄞 日本", "nul\0inside", "\uD800 lone surrogate", "\uDFFF",
                "x".repeat(70_000)));
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        byte[] big = new byte[300_000];
        new java.util.Random(7).nextBytes(big);
        v.addAll(List.of(new byte[0], all, big));
        v.addAll(List.of((byte) 0, (byte) -128, (byte) 127, (byte) 0x80 /* "char" \200 */));
        v.addAll(List.of(new UUID(0, 0), new UUID(-1, -1), UUID.fromString("123e4567-e89b-12d3-a456-426614174000")));
        v.addAll(List.of(PgNumeric.of(BigDecimal.ZERO), PgNumeric.of(new BigDecimal("0.00")),
                PgNumeric.of(new BigDecimal("1.50")), PgNumeric.of(new BigDecimal("-1.50")),
                PgNumeric.of(new BigDecimal("-0.000000000000000000000000000001")),
                PgNumeric.of(new BigDecimal("123456789012345678901234567890.123456789012345678901234567890")),
                PgNumeric.of(new BigDecimal("-123456789012345678901234567890123456789")),
                PgNumeric.of(new BigDecimal(BigInteger.valueOf(Long.MIN_VALUE), 3)),
                PgNumeric.of(new BigDecimal(BigInteger.valueOf(Long.MAX_VALUE), 0)),
                PgNumeric.of(new BigDecimal(BigInteger.ONE.shiftLeft(63), 0)),
                PgNumeric.of(new BigDecimal(BigInteger.ONE.shiftLeft(63).negate().subtract(BigInteger.ONE), 0)),
                PgNumeric.of(new BigDecimal(BigInteger.ONE, -5)), PgNumeric.of(new BigDecimal(BigInteger.TEN, 16383)),
                PgNumeric.NAN, PgNumeric.POSITIVE_INFINITY, PgNumeric.NEGATIVE_INFINITY));
        v.addAll(List.of(new PgMoney(0), new PgMoney(-100), new PgMoney(Long.MIN_VALUE), new PgMoney(Long.MAX_VALUE)));
        v.addAll(List.of(new PgJsonb("{}"), new PgJsonb("{\"a\": [1, 2.50, null], \"ü\": \"x\"}"), new PgJsonb("")));
        v.addAll(List.of(new PgDate(0), new PgDate(-1), new PgDate(PgDate.NOBEGIN), new PgDate(PgDate.NOEND),
                new PgDate(-2451545 - 4713 * 365)));
        v.addAll(List.of(new PgTime(0), new PgTime(PgTime.MAX), new PgTime(45_296_789_012L)));
        v.addAll(List.of(new PgTimeTz(0, 0), new PgTimeTz(PgTime.MAX, -19800), new PgTimeTz(1, 57_599),
                new PgTimeTz(1, -57_599)));
        v.addAll(List.of(new PgTimestamp(0, false), new PgTimestamp(0, true), new PgTimestamp(-1, true),
                new PgTimestamp(PgTimestamp.NOBEGIN, false), new PgTimestamp(PgTimestamp.NOEND, true),
                new PgTimestamp(725_846_400_123_456L, true)));
        v.addAll(List.of(new PgInterval(0, 0, 0), new PgInterval(14, -3, 14_706_789_000L),
                new PgInterval(Integer.MIN_VALUE, Integer.MAX_VALUE, Long.MIN_VALUE)));
        v.addAll(List.of(new PgInet(false, 32, new byte[] {10, 0, 0, 1}), new PgInet(true, 0, new byte[4]),
                new PgInet(true, 24, new byte[] {(byte) 192, (byte) 168, 1, 0}),
                new PgInet(false, 128, bytes(16, 0xfe)), new PgInet(true, 64, bytes(16, 0x20))));
        v.addAll(List.of(new PgMacaddr(new byte[] {8, 0, 0x2b, 1, 2, 3}), new PgMacaddr(bytes(8, 0xff))));
        v.addAll(List.of(new PgBitString(0, new byte[0]), new PgBitString(1, new byte[] {(byte) 0x80}),
                new PgBitString(9, new byte[] {(byte) 0xA5, (byte) 0x80}), new PgBitString(64, bytes(8, 0x5a))));
        v.addAll(List.of(new PgTid(0, 0), new PgTid(4294967295L, 65535), new PgTid(12, 7)));
        v.addAll(List.of(new ToastPointer(0x8000_0001, 16390, 2004, 1000, ToastPointer.Compression.PGLZ),
                new ToastPointer(1, 0xFFFF_FFFF, 5, 1, ToastPointer.Compression.NONE),
                new ToastPointer(-1, 16390, Integer.MAX_VALUE, 0x3FFF_FFFF, ToastPointer.Compression.LZ4)));
        return v;
    }

    public static byte[] bytes(int n, int value) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return b;
    }

    /** Arrays and records, nested both ways, with nulls. */
    public static List<Object> composites() {
        PgArray empty = new PgArray(23, new int[0], new int[0], new Object[0]);
        PgArray ints = new PgArray(23, new int[] {4}, new int[] {1}, new Object[] {1, null, -7, Integer.MIN_VALUE});
        PgArray matrix = new PgArray(25, new int[] {2, 3}, new int[] {0, -5},
                new Object[] {"a", "b", null, "", "ü", "𝄞"});
        PgArray floats = new PgArray(701, new int[] {3}, new int[] {1}, new Object[] {-0.0, Double.NaN, 1e308});
        PgRecord inner = new PgRecord(70001, List.of(new PgRecord.Field("n", 1700, 655366,
                PgNumeric.of(new BigDecimal("12.3400"))), new PgRecord.Field("nothing", 25, -1, null)));
        PgRecord outer = new PgRecord(70002, List.of(
                new PgRecord.Field("id", 20, -1, 42L),
                new PgRecord.Field("tags", 1009, -1, matrix),
                new PgRecord.Field("inner", 70001, -1, inner),
                new PgRecord.Field("bytes", 17, -1, new byte[] {1, 2, 3}),
                new PgRecord.Field("when", 1184, -1, new PgTimestamp(1, true))));
        PgArray ofRecords = new PgArray(70002, new int[] {2}, new int[] {1}, new Object[] {outer, null});
        PgRecord deepest = new PgRecord(70003, List.of(new PgRecord.Field("arr", 70005, -1, ofRecords)));
        PgArray ofArraysInRecords = new PgArray(70003, new int[] {1, 1}, new int[] {1, 1}, new Object[] {deepest});
        return List.of(empty, ints, matrix, floats, inner, outer, ofRecords, deepest, ofArraysInRecords,
                new PgRecord(70004, List.of()));
    }

    public static Column col(int attnum, String name, int typeOid, int attlen, char align, boolean byval) {
        return new Column(attnum, name, typeOid, -1, attlen, align, byval, byval ? 'p' : 'x', false, false, null);
    }

    public static RelationDescriptor descriptor() {
        List<Column> cols = List.of(
                col(1, "id", 20, 8, 'd', true),
                col(2, "name", 25, -1, 'i', false),
                new Column(3, "........pg.dropped.3........", 0, -1, 4, 'i', true, 'p', true, false, null),
                new Column(4, "amount", 1700, 655366, -1, 'i', false, 'm', false, true, null),
                new Column(5, "dflt", 25, -1, -1, 'i', false, 'x', false, false, new byte[] {0x13, 'a', 'b', 'c'}),
                new Column(6, "lost", 3802, -1, -1, 'i', false, 'x', false, false, Column.UNRESOLVED_MISSING),
                new Column(7, "grüße", 1007, -1, -1, 'i', false, 'x', false, false, new byte[0]));
        return new RelationDescriptor(16390, LOC, "sales", "orders ü", 'r', 'p', 'd', 16393, cols, List.of(1));
    }

    public static RelationDescriptor descriptor2() {
        return new RelationDescriptor(0x8000_0002, LOC2, "public", "t2", 'p', 'p', 'f', 0,
                List.of(col(1, "a", 23, 4, 'i', true)), List.of());
    }

    /** A row matching {@link #descriptor()}. */
    public static Object[] row(long id) {
        return new Object[] {id, "name " + id, null, PgNumeric.of(new BigDecimal("10.50")), "abc",
                new ToastPointer(77, 16393, 10_000, 3000, ToastPointer.Compression.LZ4),
                new PgArray(23, new int[] {2}, new int[] {1}, new Object[] {1, null})};
    }

    public static XLogRecord walRecord(int rmid, int info, int xid, byte[] mainData, long lsn) {
        byte[] rec = new byte[XLogRecord.SIZE_OF_HEADER + 2 + mainData.length];
        Bytes.putInt32(rec, 0, rec.length);
        Bytes.putInt32(rec, 4, xid);
        Bytes.putInt64(rec, 8, lsn - 0x58);
        rec[16] = (byte) info;
        rec[17] = (byte) rmid;
        rec[XLogRecord.SIZE_OF_HEADER] = (byte) 255; // XLR_BLOCK_ID_DATA_SHORT
        rec[XLogRecord.SIZE_OF_HEADER + 1] = (byte) mainData.length;
        System.arraycopy(mainData, 0, rec, XLogRecord.SIZE_OF_HEADER + 2, mainData.length);
        return XLogRecord.fromVerifiedBytes(WalFormat.PG15, lsn, (lsn + rec.length + 7) & ~7L, rec);
    }

    public static List<XactRecord> xactRecords() {
        InvalidationMessages invals = InvalidationMessages.of(List.of(
                new InvalidationMessage.Catcache(7, 16384, 0xDEADBEEF),
                new InvalidationMessage.Catcache(0, 0, 1),
                new InvalidationMessage.Catalog(16384, 1259),
                new InvalidationMessage.Relcache(16384, 16390),
                new InvalidationMessage.Relcache(0, 0),
                new InvalidationMessage.Smgr(-1, LOC),
                new InvalidationMessage.Smgr((5 << 16) | 3, LOC2),
                new InvalidationMessage.Relmap(0),
                new InvalidationMessage.Snapshot(16384, 2608)));
        int commitInfo = XactInfo.XLOG_XACT_COMMIT | XactInfo.XLOG_XACT_HAS_INFO;
        List<XactRecord> out = new ArrayList<>();
        out.add(new XactCommit(0x1_0000_0028L, commitInfo, 1000, 725_846_400_000_000L, 0xFFFF_FFFF,
                new DbInfo(16384, 1663), XidList.of(1001, 1002, 0xFFFF_FFF0), List.of(LOC, LOC2),
                List.of(new DroppedStatsItem(2, 16384, 16390), new DroppedStatsItem(1, 0, 0)), invals, 0, "gid ü",
                new XactOrigin(3, 0x5000, -1)));
        out.add(new XactCommit(0x20, XactInfo.XLOG_XACT_COMMIT, 1003, 0, 0, null, XidList.empty(), List.of(),
                List.of(), InvalidationMessages.empty(), 0, null, null));
        out.add(new XactCommit(0x30, XactInfo.XLOG_XACT_COMMIT_PREPARED | XactInfo.XLOG_XACT_HAS_INFO, 0, 5,
                XactInfo.XACT_XINFO_HAS_TWOPHASE, null, null, null, null, null, 1004, null, null)); // null lists
        out.add(new XactAbort(0x40, XactInfo.XLOG_XACT_ABORT | XactInfo.XLOG_XACT_HAS_INFO, 1005, 1000, -5,
                XactInfo.XACT_XINFO_HAS_SUBXACTS, new DbInfo(1, 2), XidList.of(1006), List.of(LOC),
                List.of(new DroppedStatsItem(3, 5, 6)), 0, "", new XactOrigin(65535, -1, Long.MIN_VALUE)));
        out.add(new XactAbort(0x50, XactInfo.XLOG_XACT_ABORT_PREPARED, 0, 0, 0, 0, null, XidList.empty(), List.of(),
                List.of(), 1007, null, null));
        out.add(new XactPrepare(0x60, XactInfo.XLOG_XACT_PREPARE, 1008, XactInfo.TWOPHASE_MAGIC, 500, 1008, 16384,
                725_846_400_000_001L, 10, XidList.of(1009), List.of(LOC), List.of(LOC2),
                List.of(new DroppedStatsItem(2, 16384, 1)), List.of(), invals, true, "prepared gid", 0x7000, 99, 2,
                List.of(new TwoPhaseRecord(1, 0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}),
                        new TwoPhaseRecord(4, 65535, new byte[0]))));
        out.add(new XactAssignment(0x70, XactInfo.XLOG_XACT_ASSIGNMENT, 1100, 1000,
                XidList.of(1036, 1037, 1038)));
        out.add(new XactInvalidations(0x80, XactInfo.XLOG_XACT_INVALIDATIONS, 1001, 1000, invals));
        return out;
    }

    public static List<CatalogChange> catalogChanges() {
        RelationDescriptor d = descriptor();
        RelationDescriptor moved = new RelationDescriptor(d.relOid(), LOC2, d.schema(), d.name(), d.relkind(),
                d.relpersistence(), d.replicaIdentity(), d.toastRelOid(), d.columns(), d.identityAttnums());
        List<CatalogChange> out = new ArrayList<>();
        out.add(new CatalogChange(16390, null, d, null, null));
        out.add(new CatalogChange(16391, null, d, null, null, true)); // attached with rows the WAL does not hold
        out.add(new CatalogChange(16390, d, moved, null, null));
        out.add(new CatalogChange(0x8000_0002, descriptor2(), null,
                new Ambiguity(0x8000_0002, "public.t2", 0x4000, List.of(1601, 0xFFFF_FFFE), "renamed ahead"), null));
        out.add(new CatalogChange(5, null, null, new Ambiguity(5, null, 0, List.of(), null), null));
        for (NotCoveredReason r : NotCoveredReason.values()) {
            out.add(new CatalogChange(16390, d, null, null, r));
        }
        return out;
    }

    /** Events of every kind and every operation. */
    public static List<ChangeEvent> events() {
        RelationDescriptor d = descriptor();
        RelationDescriptor d2 = descriptor2();
        List<ChangeEvent> out = new ArrayList<>();
        out.add(new RowChange(0x1_0000_0100L, 1000, RowChange.Op.INSERT, LOC, d, new Tid(0, 1), null, row(1), null,
                false));
        out.add(new RowChange(0x1_0000_0200L, 1000, RowChange.Op.SPECULATIVE_INSERT, LOC, d, new Tid(4294967295L, 65535),
                null, row(2), null, false));
        out.add(new RowChange(0x1_0000_0300L, 1000, RowChange.Op.SPECULATIVE_CONFIRM, LOC, d, new Tid(1, 2), null,
                null, null, false));
        out.add(new RowChange(0x1_0000_0400L, 1000, RowChange.Op.SPECULATIVE_ABORT, LOC, d, null, new Tid(1, 2), null,
                null, false));
        Object[] key = new Object[d.natts()];
        key[0] = 1L;
        out.add(new RowChange(0x1_0000_0500L, 0xFFFF_FFFE, RowChange.Op.UPDATE, LOC, d, new Tid(3, 1), new Tid(0, 1),
                row(1), key, false));
        out.add(new RowChange(0x1_0000_0600L, 1001, RowChange.Op.UPDATE, LOC, d, new Tid(3, 2), new Tid(3, 1), row(1),
                null, false));
        out.add(new RowChange(0x1_0000_0700L, 1001, RowChange.Op.DELETE, LOC2, d2, null, new Tid(9, 9), null,
                new Object[] {5}, true));
        // rel differing from the descriptor's locator (not produced today, but representable), and empty rows
        out.add(new RowChange(0x1_0000_0800L, 1002, RowChange.Op.INSERT, LOC2, d, new Tid(0, 1), null, new Object[0],
                new Object[0], false));
        out.add(new RowChange(-1, 0, RowChange.Op.DELETE, null, d2, null, null, null, null, false));
        out.add(new RowChange(0, 0, RowChange.Op.INSERT, LOC, null, null, null, new Object[] {1}, null, false));
        out.add(new TruncateChange(0x1_0000_0900L, 1003, List.of(d, d2), true, false));
        out.add(new TruncateChange(0x1_0000_0A00L, 1003, List.of(d2), false, true));
        out.add(new TruncateChange(0x1_0000_0B00L, 1003, List.of(), false, false));
        XLogRecord heapInsert = walRecord(Rmgrs.RM_HEAP_ID, 0x00, 1004, new byte[] {1, 0, 0, 0}, 0x1_0000_0C00L);
        out.add(new DeferredRecord(heapInsert.lsn(), heapInsert.xid(), LOC2, heapInsert));
        out.add(new DeferredRecord(5, 6, null, null));
        List<CatalogChange> changes = catalogChanges();
        for (XactRecord x : xactRecords()) {
            out.add(new XactEvent(x, x instanceof XactCommit ? changes : List.of()));
        }
        out.add(new XactEvent(xactRecords().get(0), null));
        return out;
    }
}
