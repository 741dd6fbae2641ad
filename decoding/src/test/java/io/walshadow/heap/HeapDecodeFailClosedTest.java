package io.walshadow.heap;

import static io.walshadow.heap.RecordBuilder.concat;
import static io.walshadow.heap.RecordBuilder.le;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.heap.HeapDecodeException.Kind;
import io.walshadow.wal.Bytes;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.XLogRecord;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Hand-made records and tuples for what a workload cannot produce: every malformed shape must raise a typed
 * {@link HeapDecodeException} naming the record's LSN (and the relation, where there is one), never a guess or a
 * bare runtime exception; plus the corner cases of tuple layout that no user table reaches (cstrings).
 */
class HeapDecodeFailClosedTest {
    private static final RelFileLocator REL = new RelFileLocator(1663, 5, 16500);
    private static final RelFileLocator OTHER = new RelFileLocator(1663, 5, 16501);
    private static final int HEAP = Rmgrs.RM_HEAP_ID;
    private static final int HEAP2 = Rmgrs.RM_HEAP2_ID;

    // a int4, b text, c int8, d cstring
    private static final byte[] DATA = concat(le(42, 4), new byte[] {7, 'h', 'i'}, new byte[1], le(-3L, 8),
            "xyz\0".getBytes(StandardCharsets.US_ASCII));

    private static Column col(int attnum, String name, int attlen, char align) {
        return new Column(attnum, name, 25, -1, attlen, align, attlen > 0 && attlen <= 8, 'p', false, false, null);
    }

    private static RelationDescriptor desc(List<Column> cols) {
        return new RelationDescriptor(16400, REL, "public", "t", 'r', 'p', 'd', 0, cols, List.of());
    }

    private static final RelationDescriptor DESC = desc(List.of(col(1, "a", 4, 'i'), col(2, "b", -1, 'i'),
            col(3, "c", 8, 'd'), col(4, "d", -2, 'c')));

    /** xl_heap_header + t_bits area + data, for a tuple without nulls (hoff 24: one pad byte). */
    private static byte[] walTuple(int natts, byte[] data) {
        return concat(le(natts, 2, 0x0002, 2, 24, 1), new byte[1], data);
    }

    private static byte[] insertMain(int offnum, int flags) {
        return le(offnum, 2, flags, 1);
    }

    private static HeapDecodeException fails(Kind kind, Supplier<?> action) {
        HeapDecodeException e = assertThrows(HeapDecodeException.class, action::get);
        assertEquals(kind, e.kind(), e.getMessage());
        assertEquals(RecordBuilder.LSN, e.lsn());
        assertTrue(e.getMessage().startsWith(kind + " at " + Lsn.format(RecordBuilder.LSN)), e.getMessage());
        return e;
    }

    private static HeapDecodeException failsOnRel(Kind kind, Supplier<?> action) {
        HeapDecodeException e = fails(kind, action);
        assertEquals(REL, e.rel());
        assertTrue(e.getMessage().contains("rel " + REL), e.getMessage());
        return e;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Baselines: the well-formed versions of what is broken below
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void wellFormedInsertDeformsPerPostgresRules() {
        XLogRecord r = new RecordBuilder(HEAP, 0x00).block(0, REL, 7, walTuple(4, DATA)).main(insertMain(3, 0x08))
                .build();
        List<HeapChange> out = HeapRecordDecoder.decode(r);
        assertEquals(1, out.size());
        HeapChange ch = out.get(0);
        assertEquals(HeapChange.Operation.INSERT, ch.op());
        assertEquals(new Tid(7, 3), ch.newTid());
        assertEquals(777, ch.xid());
        assertTrue(ch.flaggedContainsNewTuple());
        DeformedRow row = TupleDeformer.deform(ch.newTuple(), DESC);
        int base = ch.newTuple().dataOffset();
        // int4 at 0; short varlena unaligned right after it at 4; int8 aligned to 8 over one pad byte; cstring
        assertArrayEquals(new int[] {0, 4, 8, 16}, new int[] {row.datumOffset(1) - base, row.datumOffset(2) - base,
                row.datumOffset(3) - base, row.datumOffset(4) - base});
        assertArrayEquals(new int[] {4, 3, 8, 4}, new int[] {row.datumLength(1), row.datumLength(2),
                row.datumLength(3), row.datumLength(4)});
        assertEquals(VarlenaHeader.Kind.SHORT, row.varlenaKind(2));
        assertEquals(-3L, row.datum(3).getLong());
        assertArrayEquals("xyz\0".getBytes(StandardCharsets.US_ASCII), row.datumBytes(4));
        assertArrayEquals(new int[] {1, 2, 3, 4}, row.liveAttnums());
    }

    @Test
    void padByteRuleForFourByteHeadersStartingWithZero() {
        // a int2 = 1; b text of 256 bytes: 4-byte header 0x00000400 (first byte 0), so it was aligned to 4 over
        // two pad bytes; then a 1-byte-header varlena right after a int2 needs no alignment at all.
        RelationDescriptor d = desc(List.of(col(1, "a", 2, 's'), col(2, "b", -1, 'i'), col(3, "c", 2, 's'),
                col(4, "e", -1, 'i')));
        byte[] big = new byte[256];
        Bytes.putInt32(big, 0, 256 << 2);
        Arrays.fill(big, 4, 256, (byte) 'x');
        byte[] data = concat(le(1, 2), new byte[2], big, le(9, 2), new byte[] {7, 'a', 'b'});
        XLogRecord r = new RecordBuilder(HEAP, 0x00).block(0, REL, 0, walTuple(4, data)).main(insertMain(1, 0x08))
                .build();
        DeformedRow row = TupleDeformer.deform(HeapRecordDecoder.decode(r).get(0).newTuple(), d);
        int base = row.tuple().dataOffset();
        assertEquals(4, row.datumOffset(2) - base);
        assertEquals(256, row.datumLength(2));
        assertEquals(VarlenaHeader.Kind.PLAIN, row.varlenaKind(2));
        assertEquals(260, row.datumOffset(3) - base);
        assertEquals(262, row.datumOffset(4) - base);
        assertEquals(3, row.datumLength(4));
        assertEquals(ByteOrder.LITTLE_ENDIAN, row.datum(2).order());
        assertTrue(row.datum(2).isReadOnly());
    }

    @Test
    void nullsMissingValuesAndDroppedColumns() {
        // tuple of 3 attributes: a NULL, b dropped (stored: an int4 7), c int8; descriptor adds d (missing 42)
        // and e (no missing value: NULL)
        Column dropped = new Column(2, "........pg.dropped.2........", 0, -1, 4, 'i', true, 'p', true, false, null);
        RelationDescriptor d = desc(List.of(col(1, "a", 4, 'i'), dropped, col(3, "c", 8, 'd'),
                new Column(4, "d", 23, -1, 4, 'i', true, 'p', false, false, le(42, 4)), col(5, "e", -1, 'i')));
        byte[] tuple = concat(le(3, 2, 0x0001, 2, 24, 1), new byte[] {0b110}, le(7, 4), new byte[4], le(5L, 8));
        XLogRecord r = new RecordBuilder(HEAP, 0x00).block(0, REL, 0, tuple).main(insertMain(1, 0x08)).build();
        DeformedRow row = TupleDeformer.deform(HeapRecordDecoder.decode(r).get(0).newTuple(), d);
        assertEquals(3, row.tupleNatts());
        assertEquals(5, row.natts());
        assertTrue(row.isNull(1));
        assertTrue(row.isDropped(2) && row.isNull(2));
        assertEquals(5L, row.datum(3).getLong());
        assertEquals(8, row.datumOffset(3) - row.tuple().dataOffset());
        assertTrue(row.isMissingValue(4));
        assertEquals(42, row.datum(4).getInt());
        assertEquals(DeformedRow.Source.NULL, row.source(5));
        assertArrayEquals(new int[] {1, 3, 4, 5}, row.liveAttnums());
        assertThrows(IllegalStateException.class, () -> row.datumOffset(1));
        assertThrows(IllegalStateException.class, () -> row.datumOffset(2));
    }

    @Test
    void tupleFromPageImageWhenTheRecordCarriesNoData() {
        byte[] page = page(new int[][] {{1, 8192 - 48}});
        byte[] tupleBytes = concat(le(900, 4, 0, 4, 0, 4, 0, 2, 0, 2, 1, 2, 4, 2, 0x0802, 2, 24, 1), new byte[1],
                DATA);
        System.arraycopy(tupleBytes, 0, page, 8192 - 48, tupleBytes.length);
        setItem(page, 1, 8192 - 48, 1, tupleBytes.length);
        XLogRecord r = new RecordBuilder(HEAP, 0x00).imageBlock(0, REL, 0, page, null).main(insertMain(1, 0x00))
                .build();
        HeapChange ch = HeapRecordDecoder.decode(r).get(0);
        assertTrue(ch.newTupleFromImage());
        assertEquals(900, ch.newTuple().xmin());
        assertEquals(new Tid(0, 1), ch.newTuple().ctid());
        DeformedRow row = TupleDeformer.deform(ch.newTuple(), DESC);
        assertEquals(42, row.datum(1).getInt());
        // prefix/suffix flags do not matter when the tuple comes from the image
        byte[] updMain = le(900, 4, 5, 2, 0, 1, 0x60, 1, 0, 4, 1, 2);
        XLogRecord u = new RecordBuilder(HEAP, 0x40).imageBlock(0, REL, 0, page, null).main(updMain).build();
        assertTrue(HeapRecordDecoder.decode(u).get(0).newTupleFromImage());
        // the image does not have the offset, or it is not a normal line pointer
        XLogRecord beyond = new RecordBuilder(HEAP, 0x00).imageBlock(0, REL, 0, page, null).main(insertMain(2, 0))
                .build();
        failsOnRel(Kind.BAD_PAGE_ITEM, () -> HeapRecordDecoder.decode(beyond));
        setItem(page, 1, 0, 0, 0);
        XLogRecord unused = new RecordBuilder(HEAP, 0x00).imageBlock(0, REL, 0, page, null).main(insertMain(1, 0))
                .build();
        failsOnRel(Kind.BAD_PAGE_ITEM, () -> HeapRecordDecoder.decode(unused));
    }

    /** An empty heap page with the given {offnum, upper} line pointer space reserved. */
    private static byte[] page(int[][] items) {
        byte[] p = new byte[8192];
        int lower = 24 + 4 * items.length;
        int upper = 8192;
        for (int[] it : items) {
            upper = Math.min(upper, it[1]);
        }
        p[12] = (byte) lower;
        p[13] = (byte) (lower >> 8);
        p[14] = (byte) upper;
        p[15] = (byte) (upper >> 8);
        p[16] = 0;
        p[17] = (byte) 0x20; // pd_special 8192
        p[18] = 4;
        p[19] = (byte) 0x20; // pd_pagesize_version 8192 | 4
        return p;
    }

    private static void setItem(byte[] page, int offnum, int lpOff, int lpFlags, int lpLen) {
        Bytes.putInt32(page, 24 + 4 * (offnum - 1), lpOff | (lpFlags << 15) | (lpLen << 17));
    }

    // ------------------------------------------------------------------------------------------------------------
    // Records
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void unknownInfoCodes() {
        for (int info : new int[] {0x90, 0xB0, 0xD0, 0xE0, 0xF0}) { // INIT_PAGE on DELETE/TRUNCATE/CONFIRM/LOCK/INPLACE
            XLogRecord r = new RecordBuilder(HEAP, info).block(0, REL, 0, null).main(new byte[8]).build();
            fails(Kind.UNKNOWN_INFO, () -> HeapRecordDecoder.kind(r));
            fails(Kind.UNKNOWN_INFO, () -> HeapRecordDecoder.decode(r));
            fails(Kind.UNKNOWN_INFO, () -> HeapRecordDecoder.decode(r, rel -> false));
        }
        for (int info : new int[] {0x80, 0x90, 0xA0, 0xB0, 0xC0, 0xE0, 0xF0}) { // Heap2: only MULTI_INSERT has INIT
            XLogRecord r = new RecordBuilder(HEAP2, info).block(0, REL, 0, null).main(new byte[8]).build();
            fails(Kind.UNKNOWN_INFO, () -> HeapRecordDecoder.decode(r));
        }
        // low four bits belong to the WAL machinery (XLR_SPECIAL_REL_UPDATE, XLR_CHECK_CONSISTENCY) and are ignored
        XLogRecord ok = new RecordBuilder(HEAP, 0x02).block(0, REL, 0, walTuple(4, DATA)).main(insertMain(1, 8))
                .build();
        assertEquals(1, HeapRecordDecoder.decode(ok).size());
    }

    @Test
    void otherRmgrsAndChangeFreeKindsGiveNothing() {
        XLogRecord btree = new RecordBuilder(Rmgrs.RM_BTREE_ID, 0x00).block(0, REL, 0, new byte[] {1}).build();
        assertNull(HeapRecordDecoder.kind(btree));
        assertTrue(HeapRecordDecoder.decode(btree).isEmpty());
        for (int info : new int[] {0x60, 0x70}) { // LOCK, INPLACE
            XLogRecord r = new RecordBuilder(HEAP, info).block(0, REL, 0, new byte[] {1}).main(new byte[2]).build();
            assertTrue(HeapRecordDecoder.decode(r).isEmpty());
        }
        XLogRecord inplace = new RecordBuilder(HEAP, 0x70).block(0, REL, 4, new byte[] {1}).main(le(9, 2)).build();
        assertEquals(new Tid(4, 9), HeapRecordDecoder.inplaceTid(inplace));
        for (int info = 0x00; info <= 0x70; info += 0x10) {
            XLogRecord r = new RecordBuilder(HEAP2, info).block(0, REL, 0, new byte[] {1}).main(new byte[2]).build();
            assertEquals(info == 0x50, HeapRecordDecoder.kind(r).producesChanges());
        }
    }

    @Test
    void relationFilterSkipsBeforeParsing() {
        XLogRecord broken = new RecordBuilder(HEAP, 0x00).block(0, REL, 0, new byte[2]).main(new byte[1]).build();
        assertTrue(HeapRecordDecoder.decode(broken, rel -> !rel.equals(REL)).isEmpty());
        failsOnRel(Kind.SHORT_MAIN_DATA, () -> HeapRecordDecoder.decode(broken, rel -> true));
    }

    @Test
    void shortAndInconsistentInserts() {
        failsOnRel(Kind.SHORT_MAIN_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x00)
                .block(0, REL, 0, walTuple(4, DATA)).main(le(1, 2)).build()));
        failsOnRel(Kind.MALFORMED_RECORD, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x00)
                .block(0, REL, 0, walTuple(4, DATA)).main(le(1, 2, 8, 1, 0, 1)).build()));
        failsOnRel(Kind.SHORT_BLOCK_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x00)
                .block(0, REL, 0, new byte[3]).main(insertMain(1, 8)).build()));
        fails(Kind.MISSING_BLOCK, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x00)
                .main(insertMain(1, 8)).build()));
        failsOnRel(Kind.NO_TUPLE_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x00)
                .block(0, REL, 0, null).main(insertMain(1, 8)).build()));
    }

    @Test
    void malformedTupleHeaders() {
        // t_hoff not MAXALIGNed; t_hoff below the fixed header; null bitmap of 20 attributes in a 24-byte header
        for (byte[] hdr : List.of(le(4, 2, 2, 2, 25, 1), le(4, 2, 2, 2, 16, 1), le(20, 2, 1, 2, 24, 1))) {
            failsOnRel(Kind.MALFORMED_TUPLE, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x00)
                    .block(0, REL, 0, concat(hdr, new byte[1], DATA)).main(insertMain(1, 8)).build()));
        }
        // t_hoff beyond the tuple
        failsOnRel(Kind.MALFORMED_TUPLE, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x00)
                .block(0, REL, 0, concat(le(0, 2, 0, 2, 32, 1), new byte[2])).main(insertMain(1, 8)).build()));
    }

    @Test
    void updatesFailClosed() {
        byte[] upd = le(900, 4, 5, 2, 0, 1, 0x10, 1, 0, 4, 6, 2);
        XLogRecord ok = new RecordBuilder(HEAP, 0x20).block(0, REL, 3, walTuple(4, DATA)).block(1, REL, 8, null)
                .main(upd).build();
        HeapChange ch = HeapRecordDecoder.decode(ok).get(0);
        assertEquals(new Tid(3, 6), ch.newTid());
        assertEquals(new Tid(8, 5), ch.oldTid());
        // prefix and/or suffix taken from the old tuple: not in the record, refuse
        for (int flags : new int[] {0x20, 0x40, 0x60}) {
            HeapDecodeException e = failsOnRel(Kind.PREFIX_SUFFIX_COMPRESSED, () -> HeapRecordDecoder.decode(
                    new RecordBuilder(HEAP, 0x40).block(0, REL, 3, concat(le(2, 2), walTuple(4, DATA)))
                            .main(le(900, 4, 5, 2, 0, 1, flags, 1, 0, 4, 6, 2)).build()));
            assertTrue(e.getMessage().contains(String.format("0x%02X", flags)), e.getMessage());
        }
        // old key announced but cut short; bytes after the struct without a flag; both old flags
        failsOnRel(Kind.SHORT_MAIN_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x20)
                .block(0, REL, 3, walTuple(4, DATA)).main(concat(le(900, 4, 5, 2, 0, 1, 0x18, 1, 0, 4, 6, 2),
                        new byte[3])).build()));
        failsOnRel(Kind.MALFORMED_RECORD, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x20)
                .block(0, REL, 3, walTuple(4, DATA)).main(concat(upd, new byte[5])).build()));
        failsOnRel(Kind.MALFORMED_RECORD, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x20)
                .block(0, REL, 3, walTuple(4, DATA)).main(concat(le(900, 4, 5, 2, 0, 1, 0x1C, 1, 0, 4, 6, 2),
                        walTuple(4, DATA))).build()));
        failsOnRel(Kind.SHORT_MAIN_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x20)
                .block(0, REL, 3, walTuple(4, DATA)).main(new byte[13]).build()));
        // old page in another relation
        failsOnRel(Kind.MALFORMED_RECORD, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x20)
                .block(0, REL, 3, walTuple(4, DATA)).block(1, OTHER, 8, null).main(upd).build()));
    }

    @Test
    void deletesFailClosed() {
        byte[] key = walTuple(4, DATA);
        HeapChange ok = HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x10).block(0, REL, 2, null)
                .main(concat(le(900, 4, 4, 2, 0, 1, 0x04, 1), key)).build()).get(0);
        assertEquals(HeapChange.OldTupleKind.KEY, ok.oldTupleKind());
        assertEquals(new Tid(2, 4), ok.oldTid());
        failsOnRel(Kind.MALFORMED_RECORD, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x10)
                .block(0, REL, 2, null).main(concat(le(900, 4, 4, 2, 0, 1, 0x06, 1), key)).build()));
        failsOnRel(Kind.SHORT_MAIN_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x10)
                .block(0, REL, 2, null).main(concat(le(900, 4, 4, 2, 0, 1, 0x02, 1), new byte[4])).build()));
        failsOnRel(Kind.SHORT_MAIN_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x10)
                .block(0, REL, 2, null).main(new byte[7]).build()));
        failsOnRel(Kind.MALFORMED_RECORD, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x10)
                .block(0, REL, 2, null).main(new byte[9]).build()));
    }

    @Test
    void multiInsertsFailClosed() {
        byte[] odd = Arrays.copyOf(DATA, DATA.length - 1);
        byte[] t1 = concat(le(1 + odd.length, 2, 4, 2, 2, 2, 24, 1), new byte[1], odd); // 7 + 20 bytes: odd length
        byte[] two = concat(t1, new byte[1], t1);                                       // the SHORTALIGN pad
        XLogRecord ok = new RecordBuilder(HEAP2, 0x50).block(0, REL, 1, two).main(le(0x0A, 1, 0, 1, 2, 2, 5, 2, 9, 2))
                .build();
        List<HeapChange> out = HeapRecordDecoder.decode(ok);
        assertEquals(List.of(new Tid(1, 5), new Tid(1, 9)), out.stream().map(HeapChange::newTid).toList());
        assertTrue(out.get(1).isLastInMulti());
        assertFalse(out.get(0).isLastInMulti());
        XLogRecord init = new RecordBuilder(HEAP2, 0xD0).block(0, REL, 1, two).main(le(0x08, 1, 0, 1, 2, 2)).build();
        assertEquals(List.of(new Tid(1, 1), new Tid(1, 2)),
                HeapRecordDecoder.decode(init).stream().map(HeapChange::newTid).toList());

        failsOnRel(Kind.SHORT_BLOCK_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP2, 0x50)
                .block(0, REL, 1, t1).main(le(8, 1, 0, 1, 2, 2, 5, 2, 9, 2)).build()));
        failsOnRel(Kind.MALFORMED_RECORD, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP2, 0x50)
                .block(0, REL, 1, concat(two, new byte[2])).main(le(8, 1, 0, 1, 2, 2, 5, 2, 9, 2)).build()));
        failsOnRel(Kind.SHORT_MAIN_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP2, 0x50)
                .block(0, REL, 1, two).main(le(8, 1, 0, 1, 3, 2, 5, 2, 9, 2)).build()));
        failsOnRel(Kind.MALFORMED_RECORD, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP2, 0x50)
                .block(0, REL, 1, two).main(le(8, 1, 0, 1, 0, 2)).build()));
        // a tuple announcing more bytes than the block data holds
        byte[] lying = concat(le(500, 2, 4, 2, 2, 2, 24, 1), new byte[1], DATA);
        failsOnRel(Kind.SHORT_BLOCK_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP2, 0xD0)
                .block(0, REL, 1, lying).main(le(8, 1, 0, 1, 1, 2)).build()));
    }

    @Test
    void truncateAndConfirm() {
        HeapChange ok = HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x30)
                .main(le(5, 4, 2, 4, 3, 1, 0, 3, 16400, 4, 16410, 4)).build()).get(0);
        assertNull(ok.rel());
        assertArrayEquals(new int[] {16400, 16410}, ok.truncateRelids());
        assertTrue(ok.truncateCascade() && ok.truncateRestartSeqs());
        HeapDecodeException e = fails(Kind.SHORT_MAIN_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP,
                0x30).main(le(5, 4, 3, 4, 0, 1, 0, 3, 16400, 4, 16410, 4)).build()));
        assertNull(e.rel());
        fails(Kind.MALFORMED_RECORD, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x30)
                .main(le(5, 4, 1, 4, 0, 1, 0, 3, 16400, 4, 16410, 4)).build()));
        fails(Kind.SHORT_MAIN_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x30)
                .main(new byte[11]).build()));
        assertEquals(new Tid(6, 2), HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x50).block(0, REL, 6, null)
                .main(le(2, 2)).build()).get(0).newTid());
        failsOnRel(Kind.SHORT_MAIN_DATA, () -> HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x50)
                .block(0, REL, 6, null).main(new byte[1]).build()));
    }

    // ------------------------------------------------------------------------------------------------------------
    // Tuples that do not fit their descriptor
    // ------------------------------------------------------------------------------------------------------------

    private static HeapTuple tuple(int natts, byte[] data) {
        return HeapRecordDecoder.decode(new RecordBuilder(HEAP, 0x00).block(0, REL, 0, walTuple(natts, data))
                .main(insertMain(1, 8)).build()).get(0).newTuple();
    }

    private static void deformFails(Kind kind, HeapTuple t, RelationDescriptor d) {
        failsOnRel(kind, () -> TupleDeformer.deform(t, d));
    }

    @Test
    void descriptorMismatches() {
        // more attributes in the tuple than the descriptor knows: a stale catalog, not something to cut off
        deformFails(Kind.DESCRIPTOR_MISMATCH, tuple(4, DATA), desc(DESC.columns().subList(0, 3)));
        // bytes left after the last attribute
        deformFails(Kind.DESCRIPTOR_MISMATCH, tuple(4, concat(DATA, new byte[4])), DESC);
        // a fixed-length attribute running past the end
        deformFails(Kind.DESCRIPTOR_MISMATCH, tuple(1, le(1, 2)), DESC);
        // invalid attalign / attlen
        deformFails(Kind.DESCRIPTOR_MISMATCH, tuple(1, le(1, 4)), desc(List.of(col(1, "a", 4, 'x'))));
        deformFails(Kind.DESCRIPTOR_MISMATCH, tuple(1, le(1, 4)), desc(List.of(col(1, "a", -3, 'i'))));
        // attnums not dense
        deformFails(Kind.DESCRIPTOR_MISMATCH, tuple(1, le(1, 4)), desc(List.of(col(2, "a", 4, 'i'))));
    }

    @Test
    void malformedVarlenasAndCstrings() {
        RelationDescriptor text = desc(List.of(col(1, "b", -1, 'i')));
        // external pointers other than on-disk TOAST (indirect, expanded) never appear in stored tuples
        for (int tag : new int[] {1, 2, 3, 17}) {
            byte[] ptr = new byte[18];
            ptr[0] = 1;
            ptr[1] = (byte) tag;
            deformFails(Kind.MALFORMED_TUPLE, tuple(1, ptr), text);
        }
        byte[] ondisk = new byte[18];
        ondisk[0] = 1;
        ondisk[1] = 18;
        DeformedRow row = TupleDeformer.deform(tuple(1, ondisk), text);
        assertEquals(VarlenaHeader.Kind.EXTERNAL_ONDISK, row.varlenaKind(1));
        assertEquals(18, row.datumLength(1));
        // 4-byte header claiming more than the tuple has; compressed header shorter than its va_tcinfo
        deformFails(Kind.MALFORMED_TUPLE, tuple(1, concat(le(100 << 2, 4), new byte[10])), text);
        deformFails(Kind.MALFORMED_TUPLE, tuple(1, concat(le((6 << 2) | 2, 4), new byte[2])), text);
        // header byte 0x01 is always an external pointer (a 1-byte header of size 0 cannot exist): tag 0
        deformFails(Kind.MALFORMED_TUPLE, tuple(1, new byte[] {1, 0}), desc(List.of(col(1, "b", -1, 'c'))));
        // cstring without its NUL
        deformFails(Kind.MALFORMED_TUPLE, tuple(1, "abc".getBytes(StandardCharsets.US_ASCII)),
                desc(List.of(col(1, "d", -2, 'c'))));
    }

    @Test
    void missingValuesFailClosedWhenUnusable() {
        List<Column> cols = new ArrayList<>(DESC.columns());
        // the catalog's marker for an attmissingval it could not turn into on-disk bytes
        cols.add(new Column(5, "e", 23, -1, 4, 'i', true, 'p', false, false, Column.UNRESOLVED_MISSING));
        RelationDescriptor unresolved = desc(cols);
        deformFails(Kind.UNRESOLVED_MISSING_VALUE, tuple(4, DATA), unresolved);
        cols.set(4, new Column(5, "e", 23, -1, 4, 'i', true, 'p', false, false, new byte[0])); // any empty one too
        deformFails(Kind.UNRESOLVED_MISSING_VALUE, tuple(4, DATA), desc(cols));
        cols.set(4, unresolved.column(5));
        // the same column, stored in the tuple: its missing value is not needed, nothing to refuse
        assertEquals(7, TupleDeformer.deform(tuple(5, concat(DATA, le(7, 4))), unresolved).datum(5).getInt());
        cols.set(4, new Column(5, "e", 23, -1, 4, 'i', true, 'p', false, false, le(7, 2)));
        deformFails(Kind.DESCRIPTOR_MISMATCH, tuple(4, DATA), desc(cols));
        cols.set(4, new Column(5, "e", 25, -1, -1, 'i', false, 'x', false, false, new byte[] {9, 'a'}));
        deformFails(Kind.DESCRIPTOR_MISMATCH, tuple(4, DATA), desc(cols));
        cols.set(4, new Column(5, "e", 25, -1, -1, 'i', false, 'x', false, false, le(6 << 2, 4, 'a' | 'b' << 8, 2)));
        assertEquals(6, TupleDeformer.deform(tuple(4, DATA), desc(cols)).datumLength(5));
    }
}
