package io.walshadow.xact;

import static io.walshadow.xact.XactInfo.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.wal.Bytes;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.XLogRecord;
import io.walshadow.xact.XactParseException.Reason;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The parser on hand-built main data: every part and flag, alignment, the conveniences, and every way the bytes can
 * be wrong. The real-WAL comparison with pg_waldump is {@link XactPgWaldumpOracleIT}.
 */
class XactRecordParserTest {
    private static final long LSN = 0x1_2345_6780L;
    private static final int DB = 16385;

    static XactRecord parse(int info, int xid, byte[] data) {
        return XactRecordParser.parse(LSN, info, xid, 0, 0, data, 0, data.length);
    }

    static XactParseException parseFails(int info, byte[] data, Reason reason, String field) {
        XactParseException e = assertThrows(XactParseException.class, () -> parse(info, 700, data));
        assertEquals(reason, e.reason(), e.getMessage());
        assertEquals(field, e.field(), e.getMessage());
        assertEquals(LSN, e.lsn());
        assertEquals(info & 0xFF, e.info());
        assertTrue(e.getMessage().contains("1/23456780"), e.getMessage());
        return e;
    }

    /** Every strict prefix is TRUNCATED (naming the LSN and info); the whole parses. */
    static void everyPrefixIsTruncated(int info, byte[] data) {
        for (int len = 0; len < data.length; len++) {
            byte[] cut = Arrays.copyOf(data, len); // exact-size array: a read past the end could not go unnoticed
            try {
                XactRecord r = XactRecordParser.parse(LSN, info, 700, 0, 0, cut, 0, len);
                fail("prefix of " + len + "/" + data.length + " bytes parsed as " + r);
            } catch (XactParseException e) {
                assertEquals(Reason.TRUNCATED, e.reason(), "prefix " + len + ": " + e.getMessage());
                assertEquals(LSN, e.lsn());
                assertEquals(info & 0xFF, e.info());
                assertFalse(e.field().isEmpty());
                assertTrue(e.offset() <= len, e.getMessage());
            }
        }
        parse(info, 700, data);
    }

    // ---------------------------------------------------------------------------------------------------------
    // COMMIT / ABORT
    // ---------------------------------------------------------------------------------------------------------

    /** 18's xl_xact_stats_item is 16 bytes (objid as objid_lo, objid_hi): the same bytes are wrong for 15's 12. */
    @Test
    void droppedStatsItemsAreSixteenBytesFrom18On() {
        byte[] data = new MainData().i64(9).i32(XACT_XINFO_HAS_DROPPED_STATS).i32(2)
                .i32(2).i32(DB).i32(17000).i32(0)
                .i32(3).i32(DB).i32(17001).i32(0).toBytes();
        int info = XLOG_XACT_COMMIT | XLOG_XACT_HAS_INFO;
        XactCommit c = (XactCommit) XactRecordParser.parse(io.walshadow.wal.WalFormat.PG18, LSN, info, 700, 0, 0,
                data, 0, data.length);
        assertEquals(List.of(new DroppedStatsItem(2, DB, 17000), new DroppedStatsItem(3, DB, 17001)), c.droppedStats());
        for (io.walshadow.wal.WalFormat f : new io.walshadow.wal.WalFormat[] {io.walshadow.wal.WalFormat.PG15,
            io.walshadow.wal.WalFormat.PG17}) {
            XactParseException e = assertThrows(XactParseException.class,
                    () -> XactRecordParser.parse(f, LSN, info, 700, 0, 0, data, 0, data.length));
            assertEquals(Reason.INVALID, e.reason(), e.getMessage()); // 8 bytes left over after two 12-byte items
        }
    }

    @Test
    void minimalCommitHasOnlyTheTime() {
        XactCommit c = (XactCommit) parse(XLOG_XACT_COMMIT, 700, new MainData().i64(123_456_789L).toBytes());
        assertEquals(123_456_789L, c.xactTime());
        assertEquals(0, c.xinfo());
        assertNull(c.dbInfo());
        assertTrue(c.subxids().isEmpty() && c.rels().isEmpty() && c.droppedStats().isEmpty() && c.invals().isEmpty());
        assertEquals(0, c.twophaseXid());
        assertNull(c.gid());
        assertNull(c.origin());
        assertEquals(700, c.xid());
        assertFalse(c.isPrepared());
        assertEquals(List.of(700), c.allXids());
        everyPrefixIsTruncated(XLOG_XACT_COMMIT, new MainData().i64(1).toBytes());
    }

    static byte[] fullCommit(String gid) {
        int xinfo = XACT_XINFO_HAS_DBINFO | XACT_XINFO_HAS_SUBXACTS | XACT_XINFO_HAS_RELFILELOCATORS
                | XACT_XINFO_HAS_INVALS | XACT_XINFO_HAS_TWOPHASE | XACT_XINFO_HAS_ORIGIN | XACT_XINFO_HAS_AE_LOCKS
                | XACT_XINFO_HAS_GID | XACT_XINFO_HAS_DROPPED_STATS | XACT_COMPLETION_APPLY_FEEDBACK
                | XACT_COMPLETION_UPDATE_RELCACHE_FILE | XACT_COMPLETION_FORCE_SYNC_COMMIT;
        return new MainData()
                .i64(-5L).i32(xinfo)
                .i32(DB).i32(1663)
                .i32(3).i32(701).i32(702).i32(0xFFFFFFF0)
                .i32(2).rel(1663, DB, 17000).rel(1664, 0, 1262)
                .i32(2).stat(2, DB, 17000).stat(1, 17001, 0)
                .i32(7)
                .inval(80, DB, 0xCAFEBABE)
                .inval(InvalidationMessage.CATALOG_ID, DB, 2601)
                .inval(InvalidationMessage.RELCACHE_ID, DB, 17000)
                .inval(InvalidationMessage.RELCACHE_ID, 0, 0)
                .smgrInval(-1, 0xFFFF, 1663, DB, 17000)
                .inval(InvalidationMessage.RELMAP_ID, DB, 0)
                .inval(InvalidationMessage.SNAPSHOT_ID, DB, 2608)
                .i32(650)
                .cstring(gid)
                .i64(0x1_0ABC_DEF0L).i64(631_152_000_000_001L) // origin: unaligned after the gid
                .toBytes();
    }

    @Test
    void commitPreparedWithEveryPart() {
        byte[] data = fullCommit("gid-ü");
        XactCommit c = (XactCommit) XactRecordParser.parse(LSN, XLOG_XACT_COMMIT_PREPARED | XLOG_XACT_HAS_INFO, 0, 0,
                7, data, 0, data.length);
        assertEquals(-5L, c.xactTime());
        assertEquals(new DbInfo(DB, 1663), c.dbInfo());
        assertEquals(XidList.of(701, 702, 0xFFFFFFF0), c.subxids());
        assertEquals("[701, 702, 4294967280]", c.subxids().toString());
        assertEquals(List.of(new RelFileLocator(1663, DB, 17000), new RelFileLocator(1664, 0, 1262)), c.rels());
        assertEquals(List.of(new DroppedStatsItem(2, DB, 17000), new DroppedStatsItem(1, 17001, 0)), c.droppedStats());
        assertEquals("2/16385/17000", c.droppedStats().get(0).toString());
        assertEquals(List.of(
                new InvalidationMessage.Catcache(80, DB, 0xCAFEBABE),
                new InvalidationMessage.Catalog(DB, 2601),
                new InvalidationMessage.Relcache(DB, 17000),
                new InvalidationMessage.Relcache(0, 0),
                new InvalidationMessage.Smgr(-1, new RelFileLocator(1663, DB, 17000)),
                new InvalidationMessage.Relmap(DB),
                new InvalidationMessage.Snapshot(DB, 2608)), c.invals());
        assertEquals(650, c.twophaseXid());
        assertEquals(650, c.xid());
        assertEquals(0, c.recordXid());
        assertTrue(c.isPrepared());
        assertEquals("gid-ü", c.gid());
        assertEquals(new XactOrigin(7, 0x1_0ABC_DEF0L, 631_152_000_000_001L), c.origin());
        assertTrue(c.applyFeedback() && c.relcacheInitFileInval() && c.forceSyncCommit() && c.hadAccessExclusiveLocks());
        assertEquals(List.of(650, 701, 702, 0xFFFFFFF0), c.allXids());
        assertEquals("COMMIT_PREPARED", c.opName());
        assertEquals(XLOG_XACT_COMMIT_PREPARED, c.op());
        everyPrefixIsTruncated(XLOG_XACT_COMMIT_PREPARED | XLOG_XACT_HAS_INFO, data);

        PgXactDesc desc = new PgXactDesc("202209061");
        assertEquals("COMMIT_PREPARED 650: 2000-01-01 00:00:00.-00005 UTC; rels: base/16385/17000 global/1262;"
                + " subxacts: 701 702 4294967280; dropped stats: 2/16385/17000 1/17001/0;"
                + " relcache init file inval dbid 16385 tsid 1663; inval msgs: catcache 80 catalog 2601"
                + " relcache 17000 relcache 0 smgr relmap db 16385 snapshot 2608; apply_feedback; sync;"
                + " origin: node 7, lsn 1/ABCDEF0, at 2020-01-01 00:00:00.000001 UTC", desc.describe(c));
    }

    @Test
    void invalidationConveniencesFollowLocalExecuteInvalidationMessage() {
        InvalidationMessages m = InvalidationMessages.of(List.of(
                new InvalidationMessage.Relcache(DB, 17000),
                new InvalidationMessage.Relcache(DB, 17001),
                new InvalidationMessage.Relcache(DB, 17000),
                new InvalidationMessage.Relcache(0, 1262), // shared: applies everywhere
                new InvalidationMessage.Relcache(99, 5000), // another database
                new InvalidationMessage.Catalog(99, 2601),
                new InvalidationMessage.Catcache(7, DB, 1),
                new InvalidationMessage.Catcache(21, 0, 2),
                new InvalidationMessage.Snapshot(DB, 2608),
                new InvalidationMessage.Relmap(0)));
        assertEquals(List.of(17000, 17001, 1262), List.copyOf(m.relcacheRelIds(DB)));
        assertEquals(Set.of(5000, 1262), m.relcacheRelIds(99));
        assertFalse(m.resetsAllRelations(DB));
        assertFalse(m.resetsCatalog(DB));
        assertTrue(m.resetsCatalog(99));
        assertEquals(Set.of(2601), m.catalogResetIds(99));
        assertEquals(Set.of(7, 21), m.catcacheIds(DB));
        assertEquals(Set.of(21), m.catcacheIds(99));
        assertEquals(Set.of(2608), m.snapshotRelIds(DB));
        assertTrue(m.relmapChanged());
        assertTrue(m.relmapChanged(DB)); // the shared map
        assertEquals(2, m.ofType(InvalidationMessage.Catcache.class).size());

        InvalidationMessages all = InvalidationMessages.of(List.of(new InvalidationMessage.Relcache(DB, 0),
                new InvalidationMessage.Relmap(DB)));
        assertTrue(all.resetsAllRelations(DB));
        assertFalse(all.resetsAllRelations(99));
        assertTrue(all.relcacheRelIds(DB).isEmpty());
        assertTrue(all.relmapChanged(DB));
        assertFalse(all.relmapChanged(99));
        assertTrue(((InvalidationMessage.Relcache) all.get(0)).isAllRelations());
    }

    @Test
    void smgrMessageBackendAndCatcacheIdRange() {
        byte[] data = new MainData().i32(3)
                .smgrInval(0, 5, 1663, DB, 17000) // temp relation of backend 5
                .smgrInval(1, 2, 1663, DB, 17001) // backend_hi 1: 65538
                .inval(127, DB, 9) // largest catcache id
                .toBytes();
        XactInvalidations inv = (XactInvalidations) parse(XLOG_XACT_INVALIDATIONS, 700, data);
        assertEquals(5, ((InvalidationMessage.Smgr) inv.invals().get(0)).backend());
        assertEquals(65538, ((InvalidationMessage.Smgr) inv.invals().get(1)).backend());
        assertEquals(DB, inv.invals().get(1).dbId());
        assertEquals(new InvalidationMessage.Catcache(127, DB, 9), inv.invals().get(2));
        assertEquals(127, inv.invals().get(2).id());
        assertEquals(InvalidationMessage.SMGR_ID, inv.invals().get(0).id());
    }

    @Test
    void abortWithPartsAndSubtransactionAbortHeader() {
        int xinfo = XACT_XINFO_HAS_DBINFO | XACT_XINFO_HAS_SUBXACTS | XACT_XINFO_HAS_RELFILELOCATORS
                | XACT_XINFO_HAS_DROPPED_STATS | XACT_XINFO_HAS_TWOPHASE | XACT_XINFO_HAS_GID | XACT_XINFO_HAS_ORIGIN;
        byte[] data = new MainData().i64(10).i32(xinfo).i32(DB).i32(1663).i32(1).i32(801).i32(1)
                .rel(1663, DB, 17002).i32(1).stat(2, DB, 17002).i32(800).cstring("g").i64(5).i64(6).toBytes();
        XactAbort a = (XactAbort) XactRecordParser.parse(LSN, XLOG_XACT_ABORT_PREPARED | XLOG_XACT_HAS_INFO, 0, 0, 3,
                data, 0, data.length);
        assertEquals(800, a.xid());
        assertTrue(a.isPrepared());
        assertEquals(new DbInfo(DB, 1663), a.dbInfo());
        assertEquals(List.of(801), a.subxids());
        assertEquals(List.of(new RelFileLocator(1663, DB, 17002)), a.rels());
        assertEquals(List.of(new DroppedStatsItem(2, DB, 17002)), a.droppedStats());
        assertEquals("g", a.gid());
        assertEquals(new XactOrigin(3, 5, 6), a.origin());
        assertEquals(List.of(800, 801), a.allXids());
        everyPrefixIsTruncated(XLOG_XACT_ABORT_PREPARED | XLOG_XACT_HAS_INFO, data);

        // a subtransaction rolled back to its savepoint: header xid is the subxid, the top is in the header block
        byte[] sub = new MainData().i64(10).i32(XACT_XINFO_HAS_SUBXACTS).i32(1).i32(903).toBytes();
        XactAbort s = (XactAbort) XactRecordParser.parse(LSN, XLOG_XACT_ABORT | XLOG_XACT_HAS_INFO, 902, 900, 0,
                sub, 0, sub.length);
        assertEquals(902, s.xid());
        assertEquals(900, s.toplevelXid());
        assertFalse(s.isPrepared());
        assertEquals(List.of(902, 903), s.allXids());
    }

    @Test
    void abortIgnoresAnInvalsBitAsParseAbortRecordDoes() {
        byte[] data = new MainData().i64(10).i32(XACT_XINFO_HAS_INVALS).toBytes();
        XactAbort a = (XactAbort) parse(XLOG_XACT_ABORT | XLOG_XACT_HAS_INFO, 700, data);
        assertEquals(XACT_XINFO_HAS_INVALS, a.xinfo());
        // and bytes that would be invals are left over
        byte[] more = new MainData().i64(10).i32(XACT_XINFO_HAS_INVALS).i32(0).toBytes();
        parseFails(XLOG_XACT_ABORT | XLOG_XACT_HAS_INFO, more, Reason.INVALID, "(end of main data)");
    }

    @Test
    void unknownXinfoBitsAreKeptAndOtherwiseIgnored() {
        byte[] data = new MainData().i64(10).i32(1 << 9 | 1 << 20).toBytes();
        XactCommit c = (XactCommit) parse(XLOG_XACT_COMMIT | XLOG_XACT_HAS_INFO, 700, data);
        assertEquals(1 << 9 | 1 << 20, c.xinfo());
    }

    @Test
    void gidWithoutTwophaseIsNotRead() {
        // ParseCommitRecord reads the gid only inside the HAS_TWOPHASE block
        byte[] data = new MainData().i64(10).i32(XACT_XINFO_HAS_GID).toBytes();
        assertNull(((XactCommit) parse(XLOG_XACT_COMMIT | XLOG_XACT_HAS_INFO, 700, data)).gid());
    }

    @Test
    void invalidCommitAndAbortContents() {
        int hi = XLOG_XACT_HAS_INFO;
        parseFails(XLOG_XACT_COMMIT | hi, new MainData().i64(1).i32(XACT_XINFO_HAS_SUBXACTS).i32(-1).toBytes(),
                Reason.INVALID, "xl_xact_subxacts.nsubxacts");
        parseFails(XLOG_XACT_COMMIT | hi, new MainData().i64(1).i32(XACT_XINFO_HAS_RELFILELOCATORS).i32(-7).toBytes(),
                Reason.INVALID, "xl_xact_relfilenodes.nrels");
        parseFails(XLOG_XACT_ABORT | hi, new MainData().i64(1).i32(XACT_XINFO_HAS_DROPPED_STATS).i32(-2).toBytes(),
                Reason.INVALID, "xl_xact_stats_items.nitems");
        parseFails(XLOG_XACT_COMMIT | hi, new MainData().i64(1).i32(XACT_XINFO_HAS_INVALS)
                .i32(Integer.MIN_VALUE).toBytes(), Reason.INVALID, "xl_xact_invals.nmsgs");
        // huge counts are cut arrays (and allocate nothing)
        parseFails(XLOG_XACT_COMMIT | hi, new MainData().i64(1).i32(XACT_XINFO_HAS_INVALS).i32(Integer.MAX_VALUE)
                .toBytes(), Reason.TRUNCATED, "xl_xact_invals.msgs");
        parseFails(XLOG_XACT_COMMIT | hi, new MainData().i64(1).i32(XACT_XINFO_HAS_INVALS).i32(0x10000000)
                .zeros(16).toBytes(), Reason.TRUNCATED, "xl_xact_invals.msgs"); // 0x10000000 * 16 overflows an int
        parseFails(XLOG_XACT_COMMIT | hi, new MainData().i64(1).i32(XACT_XINFO_HAS_SUBXACTS).i32(0x40000001)
                .i32(5).toBytes(), Reason.TRUNCATED, "xl_xact_subxacts.subxacts");
        parseFails(XLOG_XACT_COMMIT | hi, new MainData().i64(1).i32(XACT_XINFO_HAS_RELFILELOCATORS).i32(0x20000000)
                .toBytes(), Reason.TRUNCATED, "xl_xact_relfilenodes.xnodes");
        // unknown invalidation message ids
        XactParseException e = parseFails(XLOG_XACT_COMMIT | hi, new MainData().i64(1).i32(XACT_XINFO_HAS_INVALS)
                .i32(2).inval(5, DB, 1).inval(-6, DB, 1).toBytes(), Reason.INVALID, "xl_xact_invals.msgs[1].id");
        assertEquals(8 + 4 + 4 + 16, e.offset());
        parseFails(XLOG_XACT_INVALIDATIONS, new MainData().i32(1).inval(-128, 0, 0).toBytes(), Reason.INVALID,
                "xl_xact_invals.msgs[0].id");
        // leftovers
        parseFails(XLOG_XACT_COMMIT, new MainData().i64(1).i8(0).toBytes(), Reason.INVALID, "(end of main data)");
        parseFails(XLOG_XACT_COMMIT | hi, new MainData().i64(1).i32(0).i32(0).toBytes(), Reason.INVALID,
                "(end of main data)");
        // a gid without NUL
        parseFails(XLOG_XACT_COMMIT_PREPARED | hi, new MainData().i64(1)
                .i32(XACT_XINFO_HAS_TWOPHASE | XACT_XINFO_HAS_GID).i32(5).bytes("abc".getBytes()).toBytes(),
                Reason.TRUNCATED, "twophase_gid");
        // prepared-transaction records that name no transaction
        parseFails(XLOG_XACT_COMMIT_PREPARED, new MainData().i64(1).toBytes(), Reason.INVALID, "xl_xact_xinfo.xinfo");
        parseFails(XLOG_XACT_ABORT_PREPARED | hi, new MainData().i64(1).i32(XACT_XINFO_HAS_TWOPHASE).i32(0).toBytes(),
                Reason.INVALID, "xl_xact_twophase.xid");
        // unknown record type
        parseFails(0x70, new MainData().i64(1).toBytes(), Reason.INVALID, "xl_info");
        parseFails(0xF0, new byte[0], Reason.INVALID, "xl_info");
    }

    // ---------------------------------------------------------------------------------------------------------
    // PREPARE
    // ---------------------------------------------------------------------------------------------------------

    /** A state file as StartPrepare/EndPrepare write it: every chunk MAXALIGNed. */
    static byte[] prepareBody(String gid, int[] subxids, int ncommit, int nabort, int ncstats, int nastats,
                              int ninvals, boolean init, int originLsnLow, byte[][] twoPhaseData) {
        byte[] g = (gid + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        MainData d = new MainData().i32(TWOPHASE_MAGIC).i32(0 /* total_len, patched below */).i32(900).i32(DB)
                .i64(777_000_000L).i32(10).i32(subxids.length).i32(ncommit).i32(nabort).i32(ncstats).i32(nastats)
                .i32(ninvals).i8(init ? 1 : 0).i8(0).i16(g.length).i64(originLsnLow).i64(4242);
        assertEquals(XactPrepare.HEADER_SIZE, d.size());
        d.bytes(g).maxalign();
        for (int x : subxids) {
            d.i32(x);
        }
        d.maxalign();
        for (int i = 0; i < ncommit; i++) {
            d.rel(1663, DB, 18000 + i);
        }
        d.maxalign();
        for (int i = 0; i < nabort; i++) {
            d.rel(1663, DB, 19000 + i);
        }
        d.maxalign();
        for (int i = 0; i < ncstats; i++) {
            d.stat(2, DB, 18000 + i);
        }
        d.maxalign();
        for (int i = 0; i < nastats; i++) {
            d.stat(2, DB, 19000 + i);
        }
        d.maxalign();
        for (int i = 0; i < ninvals; i++) {
            d.inval(InvalidationMessage.RELCACHE_ID, DB, 18000 + i);
        }
        d.maxalign();
        for (int i = 0; i < twoPhaseData.length; i++) {
            d.i32(twoPhaseData[i].length).i8(i % 4 + 1).i8(0).i16(i).bytes(twoPhaseData[i]).maxalign();
        }
        d.i32(0).i8(TWOPHASE_RM_END_ID).i8(0).i16(0);
        byte[] b = d.toBytes();
        Bytes.putInt32(b, 4, b.length + 4);
        return b;
    }

    @Test
    void prepareWithEveryPartAndPadding() {
        byte[][] recs = {new byte[20], {1, 2, 3}, new byte[16]};
        recs[1][2] = 9;
        byte[] data = prepareBody("xq-gid", new int[] {901, 902, 903}, 1, 2, 1, 2, 3, true, 0x99, recs);
        XactPrepare p = (XactPrepare) XactRecordParser.parse(LSN, XLOG_XACT_PREPARE, 900, 0, 4, data, 0, data.length);
        assertEquals(TWOPHASE_MAGIC, p.magic());
        assertEquals(data.length + 4, p.totalLength());
        assertEquals(900, p.xid());
        assertEquals(DB, p.dbId());
        assertEquals(777_000_000L, p.preparedAt());
        assertEquals(10, p.owner());
        assertEquals("xq-gid", p.gid());
        assertEquals(List.of(901, 902, 903), p.subxids());
        assertEquals(List.of(new RelFileLocator(1663, DB, 18000)), p.commitRels());
        assertEquals(List.of(new RelFileLocator(1663, DB, 19000), new RelFileLocator(1663, DB, 19001)), p.abortRels());
        assertEquals(List.of(new DroppedStatsItem(2, DB, 18000)), p.commitStats());
        assertEquals(2, p.abortStats().size());
        assertEquals(List.of(18000, 18001, 18002), List.copyOf(p.invals().relcacheRelIds(DB)));
        assertTrue(p.initFileInval());
        assertEquals(new XactOrigin(4, 0x99, 4242), p.origin());
        assertEquals(3, p.twoPhaseRecords().size());
        assertEquals(new TwoPhaseRecord(2, 1, new byte[] {1, 2, 9}), p.twoPhaseRecords().get(1));
        assertArrayEquals(new byte[] {1, 2, 9}, p.twoPhaseRecords().get(1).data());
        assertEquals(new TwoPhaseRecord(1, 0, new byte[20]), p.twoPhaseRecords().get(0));
        everyPrefixIsTruncated(XLOG_XACT_PREPARE, data);

        XactPrepare bare = (XactPrepare) parse(XLOG_XACT_PREPARE, 900,
                prepareBody("g", new int[0], 0, 0, 0, 0, 0, false, 0, new byte[0][]));
        assertNull(bare.origin());
        assertTrue(bare.subxids().isEmpty() && bare.invals().isEmpty() && bare.twoPhaseRecords().isEmpty());
        assertEquals("PREPARE gid g: 2000-01-01 00:12:57.000000 UTC", new PgXactDesc("1").describe(bare));
    }

    @Test
    void invalidPrepareContents() {
        byte[] ok = prepareBody("g", new int[] {901}, 1, 0, 0, 0, 1, false, 0, new byte[][] {new byte[4]});
        parse(XLOG_XACT_PREPARE, 900, ok);

        byte[] b = ok.clone();
        Bytes.putInt32(b, 0, 0x57F94533); // PG14's magic
        parseFails(XLOG_XACT_PREPARE, b, Reason.INVALID, "xl_xact_prepare.magic");

        b = ok.clone();
        Bytes.putInt32(b, 4, ok.length); // total_len without the CRC
        parseFails(XLOG_XACT_PREPARE, b, Reason.INVALID, "xl_xact_prepare.total_len");

        b = ok.clone();
        Bytes.putInt32(b, 28, -1);
        parseFails(XLOG_XACT_PREPARE, b, Reason.INVALID, "xl_xact_prepare.nsubxacts");

        b = ok.clone();
        Bytes.putInt32(b, 48, 0x7FFFFFFF);
        parseFails(XLOG_XACT_PREPARE, b, Reason.TRUNCATED, "invalmsgs");

        b = ok.clone();
        b[52] = 2; // bool
        parseFails(XLOG_XACT_PREPARE, b, Reason.INVALID, "xl_xact_prepare.initfileinval");

        // the first rmgr record follows header 72 + gid 8 + subxids 8 + commitrels 16 + inval 16 = 120
        b = ok.clone();
        b[124] = 5;
        parseFails(XLOG_XACT_PREPARE, b, Reason.INVALID, "TwoPhaseRecordOnDisk.rmid");
        b = ok.clone();
        Bytes.putInt32(b, 120, -3);
        parseFails(XLOG_XACT_PREPARE, b, Reason.INVALID, "TwoPhaseRecordOnDisk.len");
        b = ok.clone();
        Bytes.putInt32(b, 120, 1 << 30);
        parseFails(XLOG_XACT_PREPARE, b, Reason.TRUNCATED, "TwoPhaseRecordOnDisk data (rmid 1)");
        // END (at 120 + 8 + 8) with a length
        b = ok.clone();
        Bytes.putInt32(b, 136, 4);
        parseFails(XLOG_XACT_PREPARE, b, Reason.INVALID, "TwoPhaseRecordOnDisk.len");
        // bytes after END
        b = Arrays.copyOf(ok, ok.length + 8);
        Bytes.putInt32(b, 4, b.length + 4);
        parseFails(XLOG_XACT_PREPARE, b, Reason.INVALID, "(end of main data)");
    }

    // ---------------------------------------------------------------------------------------------------------
    // ASSIGNMENT, INVALIDATIONS
    // ---------------------------------------------------------------------------------------------------------

    @Test
    void assignmentAndInvalidations() {
        byte[] data = new MainData().i32(750).i32(3).i32(751).i32(752).i32(753).toBytes();
        XactAssignment a = (XactAssignment) parse(XLOG_XACT_ASSIGNMENT, 750, data);
        assertEquals(750, a.xtop());
        assertEquals(List.of(751, 752, 753), a.subxids());
        assertEquals("ASSIGNMENT xtop 750: subxacts: 751 752 753", new PgXactDesc("1").describe(a));
        everyPrefixIsTruncated(XLOG_XACT_ASSIGNMENT, data);
        parseFails(XLOG_XACT_ASSIGNMENT, new MainData().i32(750).i32(-1).toBytes(), Reason.INVALID,
                "xl_xact_assignment.nsubxacts");
        parseFails(XLOG_XACT_ASSIGNMENT, new MainData().i32(750).i32(1).i32(751).i32(752).toBytes(), Reason.INVALID,
                "(end of main data)");

        byte[] inv = new MainData().i32(2).inval(55, DB, 1).inval(InvalidationMessage.SNAPSHOT_ID, DB, 2608).toBytes();
        XactInvalidations i = (XactInvalidations) XactRecordParser.parse(LSN, XLOG_XACT_INVALIDATIONS, 761, 760, 0,
                inv, 0, inv.length);
        assertEquals(761, i.recordXid());
        assertEquals(760, i.toplevelXid());
        assertEquals("INVALIDATION ; inval msgs: catcache 55 snapshot 2608", new PgXactDesc("1").describe(i));
        everyPrefixIsTruncated(XLOG_XACT_INVALIDATIONS, inv);
        XactInvalidations none = (XactInvalidations) parse(XLOG_XACT_INVALIDATIONS, 761, new MainData().i32(0).toBytes());
        assertEquals("INVALIDATION ", new PgXactDesc("1").describe(none));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Through XLogRecord, and random damage
    // ---------------------------------------------------------------------------------------------------------

    /** A record as XLogRecordAssemble lays it out: header, origin, top-level xid, main data header, main data. */
    static XLogRecord record(int rmid, int info, int xid, int origin, int toplevelXid, byte[] main) {
        MainData d = new MainData().i32(0).i32(xid).i64(0x1_2345_6700L).i8(info).i8(rmid).i16(0).i32(0);
        if (origin != 0) {
            d.i8(253).i16(origin);
        }
        if (toplevelXid != 0) {
            d.i8(252).i32(toplevelXid);
        }
        if (main.length < 256) {
            d.i8(255).i8(main.length);
        } else {
            d.i8(254).i32(main.length);
        }
        byte[] b = d.bytes(main).toBytes();
        Bytes.putInt32(b, 0, b.length);
        return XLogRecord.fromVerifiedBytes(WalFormat.PG15, LSN, LSN + ((b.length + 7) & ~7), b);
    }

    @Test
    void parsesFromXLogRecordWithHeaderBlocks() {
        byte[] main = fullCommit("g1");
        XactCommit c = (XactCommit) XactRecordParser.parse(
                record(1, XLOG_XACT_COMMIT_PREPARED | XLOG_XACT_HAS_INFO, 0, 12, 0, main));
        assertEquals(12, c.origin().nodeId());
        assertEquals(LSN, c.lsn());
        assertEquals("g1", c.gid());

        byte[] sub = new MainData().i64(10).toBytes();
        XactAbort a = (XactAbort) XactRecordParser.parse(record(1, XLOG_XACT_ABORT, 902, 0, 900, sub));
        assertEquals(900, a.toplevelXid());
        assertEquals(902, a.recordXid());

        assertThrows(IllegalArgumentException.class, () -> XactRecordParser.parse(record(10, 0, 5, 0, 0, sub)));
    }

    @Test
    void randomDamageNeverEscapesAsAnotherException() {
        Random rnd = new Random(42);
        List<byte[]> samples = List.of(fullCommit("gid-x"),
                prepareBody("xq", new int[] {1, 2, 3}, 2, 1, 1, 1, 4, false, 0, new byte[][] {new byte[12]}),
                new MainData().i32(750).i32(2).i32(751).i32(752).toBytes());
        int[] infos = {XLOG_XACT_COMMIT | XLOG_XACT_HAS_INFO, XLOG_XACT_PREPARE, XLOG_XACT_ASSIGNMENT};
        int parsed = 0;
        int failed = 0;
        for (int s = 0; s < samples.size(); s++) {
            for (int round = 0; round < 20_000; round++) {
                byte[] b = samples.get(s).clone();
                int flips = 1 + rnd.nextInt(3);
                for (int f = 0; f < flips; f++) {
                    int at = rnd.nextInt(b.length);
                    b[at] = rnd.nextInt(4) == 0 ? (byte) 0xFF : (byte) rnd.nextInt(256);
                }
                int info = rnd.nextInt(8) == 0 ? rnd.nextInt(256) : infos[s];
                try {
                    assertInstanceOf(XactRecord.class, XactRecordParser.parse(LSN, info, 1, 0, 0, b, 0, b.length));
                    parsed++;
                } catch (XactParseException e) {
                    failed++;
                }
            }
        }
        assertTrue(parsed > 0 && failed > 0, parsed + " parsed, " + failed + " failed");
    }
}
