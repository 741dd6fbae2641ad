package io.walshadow.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.testing.LocalPg;
import io.walshadow.wal.WalDecodeException.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input gives a typed {@link WalDecodeException} naming the LSN at fault; nothing is skipped silently.
 *
 * <p>The input is real WAL: a workload is run on the local PostgreSQL 15, the segment files holding it are copied
 * out of pg_wal into memory, and each test feeds a copy with bytes corrupted on purpose into an
 * {@link XLogStreamReader} in stream mode, in small irregular chunks. Each test checks the exact error kind and
 * LSN, that every record before the corruption was returned, that none after it was, and that the reader stays
 * failed (a caller that catches and calls again cannot step over the bad record).
 */
class CorruptWalIT {
    private static final int BLCKSZ = 8192;
    private static final int SHORT_PHD = 24;
    private static final int LONG_PHD = 40;
    private static final int RM_XLOG_ID = 0;
    private static final int RM_HEAP_ID = 10;
    private static final int RM_LOGICALMSG_ID = 21;
    private static final int XLOG_SWITCH = 0x40;
    private static final int XLP_FIRST_IS_CONTRECORD = 0x0001;
    private static final int XLP_LONG_HEADER = 0x0002;
    private static final String TABLE = "walshadow_corrupt_wal_test";
    private static final String MESSAGE_PREFIX = "walshadow-corrupt-wal-test";

    /** Irregular chunk sizes, cycled: exercises every split of page headers, record headers and bodies. */
    private static final int[] IRREGULAR = {1, 3, 7, 24, 13, 40, 5, 8191, 2, 8192, 17, 100, 4093, 65536, 11};

    private static WalFormat format;
    private static int segSize;
    /** LSN of {@code wal[0]}: a segment start right after an XLOG_SWITCH, so a record follows its long header. */
    private static long base;
    /** Contiguous, unmodified WAL {@code [base, base + wal.length)} copied from the segment files. */
    private static byte[] wal;
    /** Every record of {@link #wal}, read in one piece. */
    private static List<XLogRecord> clean;
    /** A logical message of 40 kB: spans several pages. */
    private static XLogRecord big;
    /** A record whose 24-byte header crosses a page boundary. */
    private static XLogRecord headerSplit;
    /** An XLOG_SWITCH record that more records follow (in the next segment). */
    private static XLogRecord switchRec;
    /** A small heap record in the middle of one page, well after the start. */
    private static XLogRecord small;

    // ------------------------------------------------------------------------------------------------
    // Fixture: real WAL from the local server
    // ------------------------------------------------------------------------------------------------

    @BeforeAll
    static void captureWal() throws Exception {
        try (Connection c = LocalPg.connect()) {
            format = WalFormat.forServerVersionNum(LocalPg.serverVersionNum(c));
            segSize = LocalPg.segmentSize(c);
            int tli = LocalPg.timeline(c);
            LocalPg.exec(c,
                    "DROP TABLE IF EXISTS " + TABLE,
                    "CREATE TABLE " + TABLE + " (id int PRIMARY KEY, v text)",
                    // PLAIN: a 7 kB value stays in the heap tuple, so its insert record spans a page boundary.
                    "ALTER TABLE " + TABLE + " ALTER COLUMN v SET STORAGE PLAIN",
                    "INSERT INTO " + TABLE + " SELECT g, repeat('p', g % 50) FROM generate_series(1, 300) g",
                    // After a checkpoint, the first change of each page logs a full-page image.
                    "CHECKPOINT");
            int nextId = 1000;
            String failure = null;
            for (int attempt = 0; attempt < 5; attempt++) {
                long sw0 = Lsn.parse(LocalPg.queryString(c, "SELECT pg_switch_wal()"));
                long start = (sw0 + segSize - 1) & -(long) segSize;

                // Many small records of varied sizes, so that some record header crosses a page boundary.
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " VALUES (?, ?)")) {
                    for (int i = 0; i < 3000; i++, nextId++) {
                        ps.setInt(1, nextId);
                        ps.setString(2, "x".repeat((nextId * 37) % 211));
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                c.commit();
                c.setAutoCommit(true);
                LocalPg.exec(c,
                        "SELECT pg_logical_emit_message(false, '" + MESSAGE_PREFIX + "', repeat('m', 40000))",
                        "INSERT INTO " + TABLE + " VALUES (" + (nextId++) + ", repeat('b', 7000))",
                        "UPDATE " + TABLE + " SET v = v || 'u' WHERE id <= 300",
                        "SELECT pg_switch_wal()",
                        "INSERT INTO " + TABLE + " VALUES (" + (nextId++) + ", 'after switch 1')",
                        "INSERT INTO " + TABLE + " VALUES (" + (nextId++) + ", 'after switch 2')");
                long end = LocalPg.flushLsn(c);
                if (end - start > 8L * segSize) {
                    failure = "too much concurrent WAL between " + Lsn.format(start) + " and " + Lsn.format(end);
                    continue;
                }
                byte[] bytes = readWal(LocalPg.walDir(), tli, start, end);
                List<XLogRecord> recs;
                try {
                    recs = readAll(bytes, start, Lsn.INVALID);
                } catch (WalDecodeException e) {
                    failure = "capture starting at " + Lsn.format(start) + " is not readable: " + e.getMessage();
                    continue;
                }
                XLogRecord b = null, h = null, sw = null, sm = null;
                for (int i = 0; i < recs.size(); i++) {
                    XLogRecord r = recs.get(i);
                    if (b == null && r.rmid() == RM_LOGICALMSG_ID && r.totalLength() > 40000
                            && new String(r.rawBytes(), StandardCharsets.ISO_8859_1).contains(MESSAGE_PREFIX)) {
                        b = r;
                    }
                    if (h == null && i > 0 && i + 1 < recs.size() && pageOffset(r.lsn()) > BLCKSZ - XLogRecord.SIZE_OF_HEADER
                            && !isSwitch(r)) {
                        h = r;
                    }
                    if (sw == null && isSwitch(r) && i + 1 < recs.size()) {
                        sw = r;
                    }
                    if (sm == null && i >= 50 && isPlainHeapInsert(r) && r.totalLength() < 200
                            && pageOffset(r.lsn()) > 100 && pageOffset(r.lsn()) + r.totalLength() < BLCKSZ - 100) {
                        sm = r;
                    }
                }
                if (b == null || h == null || sw == null || sm == null) {
                    failure = "capture at " + Lsn.format(start) + " lacks a needed record: big=" + b + " headerSplit=" + h
                            + " switch=" + sw + " small=" + sm;
                    continue;
                }
                base = start;
                wal = bytes;
                clean = recs;
                big = b;
                headerSplit = h;
                switchRec = sw;
                small = sm;
                failure = null;
                break;
            }
            LocalPg.exec(c, "DROP TABLE IF EXISTS " + TABLE);
            if (failure != null) {
                fail(failure);
            }
        }
        assertTrue(clean.stream().anyMatch(r -> r.blocks().stream().anyMatch(BlockRef::hasImage)),
                "the capture holds full-page images");
        assertTrue(big.lsn() + big.totalLength() > pageStart(big.lsn()) + 3L * BLCKSZ, "the message spans 3+ pages");
    }

    /** Copies WAL bytes [start, end) out of the segment files. */
    private static byte[] readWal(Path dir, int tli, long start, long end) throws IOException {
        byte[] out = new byte[(int) (end - start)];
        long pos = start;
        while (pos < end) {
            long segStart = pos & -(long) segSize;
            byte[] seg = Files.readAllBytes(dir.resolve(WalSegmentReader.segmentFileName(tli, pos, segSize)));
            int from = (int) (pos - segStart);
            int n = (int) Math.min(seg.length - from, end - pos);
            System.arraycopy(seg, from, out, (int) (pos - start), n);
            pos += n;
        }
        return out;
    }

    private static List<XLogRecord> readAll(byte[] bytes, long start, long expectedPrev) {
        XLogStreamReader r = new XLogStreamReader(format, segSize, start, expectedPrev, false);
        r.feed(start, bytes, 0, bytes.length);
        List<XLogRecord> out = new ArrayList<>();
        for (XLogRecord rec; (rec = r.next()) != null; ) {
            out.add(rec);
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------------------------------------

    /**
     * XLOG_HEAP_INSERT with one block reference carrying data and no image, no origin or top-level xid header, and a
     * short main data block: the layout the length-field tests edit (block header at 24, data length at 26, then
     * XLR_BLOCK_ID_DATA_SHORT and the main data length just before the payload).
     */
    private static boolean isPlainHeapInsert(XLogRecord r) {
        if (r.rmid() != RM_HEAP_ID || (r.info() & 0x70) != 0 || r.blocks().size() != 1) {
            return false;
        }
        BlockRef b = r.blocks().get(0);
        return b.id() == 0 && b.hasData() && b.dataLength() > 1 && !b.hasImage() && r.rawBytes()[24] == 0
                && r.mainDataLength() > 1 && r.mainDataLength() <= 255;
    }

    private static boolean isSwitch(XLogRecord r) {
        return r.rmid() == RM_XLOG_ID && r.rmgrInfo() == XLOG_SWITCH;
    }

    private static int pageOffset(long lsn) {
        return (int) (lsn & (BLCKSZ - 1));
    }

    private static long pageStart(long lsn) {
        return lsn & -(long) BLCKSZ;
    }

    private static int off(long lsn) {
        return Math.toIntExact(lsn - base);
    }

    /** LSN of byte {@code k} of the record at {@code recLsn}, stepping over the page headers it spans. */
    private static long lsnOfRecordByte(long recLsn, int k) {
        long p = recLsn;
        int left = k;
        while (true) {
            if (pageOffset(p) == 0) {
                p += (p & (segSize - 1)) == 0 ? LONG_PHD : SHORT_PHD;
            }
            int onPage = BLCKSZ - pageOffset(p);
            if (left < onPage) {
                return p + left;
            }
            left -= onPage;
            p += onPage;
        }
    }

    /** First byte after the record, before MAXALIGN. */
    private static long rawEnd(XLogRecord r) {
        return lsnOfRecordByte(r.lsn(), r.totalLength() - 1) + 1;
    }

    /** Writes a (modified) record image back into a copy of the stream, around the page headers it spans. */
    private static void writeRecord(byte[] stream, long recLsn, byte[] rec) {
        for (int k = 0; k < rec.length; k++) {
            stream[off(lsnOfRecordByte(recLsn, k))] = rec[k];
        }
    }

    /** Recomputes xl_crc the way XLogInsert does: over the payload, then the header up to xl_crc. */
    private static void fixCrc(byte[] rec) {
        CRC32C crc = new CRC32C();
        crc.update(rec, XLogRecord.SIZE_OF_HEADER, rec.length - XLogRecord.SIZE_OF_HEADER);
        crc.update(rec, 0, 20);
        Bytes.putInt32(rec, 20, (int) crc.getValue());
    }

    /** A copy of the capture with the record at {@code r} replaced by {@code edit(copy of its bytes)}, CRC fixed. */
    private static byte[] withRecordEdited(XLogRecord r, boolean recomputeCrc, Consumer<byte[]> edit) {
        byte[] copy = wal.clone();
        byte[] rec = r.rawBytes().clone();
        edit.accept(rec);
        if (recomputeCrc) {
            fixCrc(rec);
        }
        writeRecord(copy, r.lsn(), rec);
        return copy;
    }

    /** A copy of the capture with the page header at {@code page} edited in place. */
    private static byte[] withPageHeaderEdited(long page, Consumer<ByteBuffer> edit) {
        assertEquals(0, pageOffset(page));
        byte[] copy = wal.clone();
        ByteBuffer hdr = ByteBuffer.wrap(copy, off(page), LONG_PHD).slice().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        edit.accept(hdr);
        return copy;
    }

    private static int indexOf(XLogRecord r) {
        for (int i = 0; i < clean.size(); i++) {
            if (clean.get(i).lsn() == r.lsn()) {
                return i;
            }
        }
        throw new AssertionError("not a captured record: " + r);
    }

    /** Identity of a record for comparisons: LSN, length, CRC and end. */
    private record Rec(long lsn, int length, int crc, long end) {
        static Rec of(XLogRecord r) {
            return new Rec(r.lsn(), r.totalLength(), r.crc(), r.endLsn());
        }

        @Override
        public String toString() {
            return Lsn.format(lsn) + "/" + length + "/" + Integer.toHexString(crc) + "->" + Lsn.format(end);
        }
    }

    private static List<Rec> ids(List<XLogRecord> recs) {
        return recs.stream().map(Rec::of).toList();
    }

    private static List<Rec> cleanBefore(int index) {
        return ids(clean.subList(0, index));
    }

    /** Records of the capture that end at or before {@code lsn}. */
    private static List<Rec> cleanEndingBy(long lsn) {
        return ids(clean.stream().filter(r -> Long.compareUnsigned(rawEnd(r), lsn) <= 0).toList());
    }

    /** Index in {@link #clean} of the first record at or after {@code from} that is not in {@code before}, or -1. */
    private static int firstMissing(long from, List<Rec> before) {
        long after = before.isEmpty() ? from : before.get(before.size() - 1).lsn() + 1;
        for (int i = 0; i < clean.size(); i++) {
            if (Long.compareUnsigned(clean.get(i).lsn(), after) >= 0) {
                return i;
            }
        }
        return -1;
    }

    /** The outcome of feeding a byte range into a fresh reader. */
    private static final class Run {
        final long start;
        final XLogStreamReader reader;
        final List<XLogRecord> records = new ArrayList<>();
        /** resumeLsn() right after each record was returned. */
        final List<Long> resumeAfter = new ArrayList<>();
        WalDecodeException error;
        /** feedLsn() when the error was thrown. */
        long fedUpTo;

        Run(long start, XLogStreamReader reader) {
            this.start = start;
            this.reader = reader;
        }
    }

    /**
     * Feeds {@code bytes[from, to)} (at LSN {@code base + from}) in chunks cycling through {@code chunks}, calling
     * next() until it returns null after every chunk; stops at the first error.
     */
    private static Run feed(byte[] bytes, int from, int to, long expectedPrev, boolean fileMode, int... chunks) {
        Run run = new Run(base + from, new XLogStreamReader(format, segSize, base + from, expectedPrev, fileMode));
        int pos = from;
        int i = 0;
        try {
            while (pos < to && !run.reader.atEndOfWal()) {
                int n = Math.min(chunks[i++ % chunks.length], to - pos);
                run.reader.feed(base + pos, bytes, pos, n);
                pos += n;
                for (XLogRecord r; (r = run.reader.next()) != null; ) {
                    run.records.add(r);
                    run.resumeAfter.add(run.reader.resumeLsn());
                }
            }
        } catch (WalDecodeException e) {
            run.error = e;
            run.fedUpTo = run.reader.feedLsn();
        }
        return run;
    }

    /** Feeds from the start of the capture to 64 kB past {@code corruptAt} (or the end), irregularly chunked. */
    private static Run feedCorrupt(byte[] bytes, long corruptAt) {
        int to = (int) Math.min(bytes.length, off(corruptAt) + 65536L);
        return feed(bytes, 0, to, Lsn.INVALID, false, IRREGULAR);
    }

    /**
     * The run failed with {@code kind} at {@code lsn}, returned exactly {@code expectedBefore}, and stays failed:
     * calling next() again, even after more bytes arrive, throws the same error and returns no later record.
     */
    private static WalDecodeException assertFailed(Run run, Kind kind, long lsn, List<Rec> expectedBefore) {
        assertNotNull(run.error, () -> "expected " + kind + " at " + Lsn.format(lsn) + ", but the reader returned "
                + run.records.size() + " records without error");
        assertEquals(kind, run.error.kind(), run.error::getMessage);
        assertEquals(Lsn.format(lsn), Lsn.format(run.error.lsn()), run.error::getMessage);
        assertTrue(run.error.getMessage().contains(Lsn.format(lsn)), run.error::getMessage);
        assertEquals(expectedBefore, ids(run.records), "records before the corruption, all of them and no more");
        // The resume position never passes the bad bytes: it lies between the end of the last record returned and
        // the start of the first one not returned, so a restart would read the bad bytes again and fail again.
        long lastEnd = run.records.isEmpty() ? run.start : run.records.get(run.records.size() - 1).endLsn();
        int firstMissing = firstMissing(run.start, expectedBefore);
        long resume = run.reader.resumeLsn();
        assertTrue(Long.compareUnsigned(lastEnd, resume) <= 0 && Long.compareUnsigned(resume, lsn) <= 0
                        && (firstMissing < 0 || Long.compareUnsigned(resume, clean.get(firstMissing).lsn()) <= 0),
                () -> "resumeLsn " + Lsn.format(resume) + " after " + kind + " at " + Lsn.format(lsn));
        // Fail-stop.
        WalDecodeException again = assertThrows(WalDecodeException.class, run.reader::next);
        assertSame(run.error, again);
        int more = Math.min(wal.length - off(run.fedUpTo), 3 * BLCKSZ);
        if (more > 0) {
            run.reader.feed(run.fedUpTo, wal, off(run.fedUpTo), more);
        }
        assertSame(run.error, assertThrows(WalDecodeException.class, run.reader::next));
        assertSame(run.error, run.reader.failure());
        return run.error;
    }

    // ------------------------------------------------------------------------------------------------
    // Positive tests
    // ------------------------------------------------------------------------------------------------

    @Test
    void captureIsConsistentAndMatchesTheSegmentFileReader() throws IOException {
        // Records tile the stream: each starts where the previous one ended (after a page header, if one is
        // there), carries the previous record's LSN as xl_prev, and ends at MAXALIGN of its last byte.
        for (int i = 0; i < clean.size(); i++) {
            XLogRecord r = clean.get(i);
            if (isSwitch(r)) {
                long nextSeg = (rawEnd(r) + segSize - 1) & -(long) segSize;
                assertEquals(Lsn.format(nextSeg), Lsn.format(r.endLsn()), "XLOG_SWITCH ends its segment");
            } else {
                assertEquals(Lsn.format((rawEnd(r) + 7) & ~7L), Lsn.format(r.endLsn()), "EndRecPtr of " + r);
            }
            if (i + 1 < clean.size()) {
                XLogRecord n = clean.get(i + 1);
                long expectedStart = r.endLsn();
                if (pageOffset(expectedStart) == 0) {
                    expectedStart += (expectedStart & (segSize - 1)) == 0 ? LONG_PHD : SHORT_PHD;
                }
                assertEquals(Lsn.format(expectedStart), Lsn.format(n.lsn()), "record after " + r);
                assertEquals(Lsn.format(r.lsn()), Lsn.format(n.prev()), "xl_prev of " + n);
            }
        }
        // The file reader over the same segments finds the same records.
        List<XLogRecord> fromFiles = new ArrayList<>();
        long end = base + wal.length;
        try (WalSegmentReader files = new WalSegmentReader(LocalPg.walDir(), format, segSize, timelineOfCapture(),
                base, end)) {
            for (XLogRecord r; (r = files.next()) != null; ) {
                if (Long.compareUnsigned(rawEnd(r), end) <= 0) {
                    fromFiles.add(r);
                }
            }
        }
        assertEquals(ids(clean), ids(fromFiles));
    }

    private static int timelineOfCapture() {
        return Bytes.int32(wal, 4);
    }

    @Test
    void chunkingDoesNotChangeTheRecords() {
        List<Rec> whole = ids(clean);
        for (int[] chunks : new int[][] {{1}, {7}, {8191}, {wal.length}, IRREGULAR}) {
            Run run = feed(wal, 0, wal.length, Lsn.INVALID, false, chunks);
            assertNull(run.error, () -> "chunks " + Arrays.toString(chunks) + ": " + run.error);
            assertEquals(whole, ids(run.records), "chunks of " + Arrays.toString(chunks));
            // Same bytes too, and the same decoded block references.
            for (int i = 0; i < clean.size(); i++) {
                XLogRecord a = clean.get(i), b = run.records.get(i);
                assertTrue(Arrays.equals(a.rawBytes(), b.rawBytes()), "bytes of " + a);
                assertEquals(a.blocks().size(), b.blocks().size());
                assertEquals(a.mainDataLength(), b.mainDataLength());
                assertEquals(a.fpiLength(), b.fpiLength());
            }
            // resumeLsn() right after a record is its EndRecPtr.
            for (int i = 0; i < run.records.size(); i++) {
                assertEquals(Lsn.format(run.records.get(i).endLsn()), Lsn.format(run.resumeAfter.get(i)));
            }
        }
    }

    @Test
    void recordsSpanningPagesAreReassembled() {
        // The 40 kB message: its body continues over several pages whose headers carry XLP_FIRST_IS_CONTRECORD.
        long p = pageStart(big.lsn()) + BLCKSZ;
        int pages = 0;
        long remaining = big.totalLength() - (p - big.lsn());
        while (remaining > 0) {
            int info = Bytes.uint16(wal, off(p) + 2);
            assertEquals(XLP_FIRST_IS_CONTRECORD, info & XLP_FIRST_IS_CONTRECORD, "contrecord flag at " + Lsn.format(p));
            assertEquals(remaining, Integer.toUnsignedLong(Bytes.int32(wal, off(p) + 16)), "xlp_rem_len at " + Lsn.format(p));
            int hdr = (info & XLP_LONG_HEADER) != 0 ? LONG_PHD : SHORT_PHD;
            remaining -= BLCKSZ - hdr;
            p += BLCKSZ;
            pages++;
        }
        assertTrue(pages >= 4, "continuation pages: " + pages);
        String text = new String(big.rawBytes(), StandardCharsets.ISO_8859_1);
        assertTrue(text.endsWith("m".repeat(40000)), "message body reassembled");
        // The header-split record: its header straddles a page boundary, and it is read intact.
        assertTrue(pageOffset(headerSplit.lsn()) + XLogRecord.SIZE_OF_HEADER > BLCKSZ);
        assertEquals(clean.get(indexOf(headerSplit) - 1).lsn(), headerSplit.prev());
    }

    @Test
    void readerStartedMidStreamAtARecord() {
        int k = indexOf(small);
        long prev = clean.get(k - 1).lsn();
        Run run = feed(wal, off(small.lsn()), wal.length, prev, false, IRREGULAR);
        assertNull(run.error);
        assertEquals(ids(clean.subList(k, clean.size())), ids(run.records));

        // Also at a record whose header straddles a page boundary, and at the record that follows a page boundary.
        int h = indexOf(headerSplit);
        run = feed(wal, off(headerSplit.lsn()), wal.length, clean.get(h - 1).lsn(), false, 1, 5, 8191);
        assertNull(run.error);
        assertEquals(ids(clean.subList(h, clean.size())), ids(run.records));

        // With a wrong expectedPrev, the first record fails the prev-link check.
        run = feed(wal, off(small.lsn()), wal.length, clean.get(k - 2).lsn(), false, IRREGULAR);
        assertFailed(run, Kind.PREV_LINK_BROKEN, small.lsn(), List.of());

        // With no expectedPrev, only xl_prev < lsn can be checked: it is, and reading works.
        run = feed(wal, off(small.lsn()), wal.length, Lsn.INVALID, false, IRREGULAR);
        assertNull(run.error);
        assertEquals(ids(clean.subList(k, clean.size())), ids(run.records));
    }

    @Test
    void resumeLsnAndEndLsn() {
        // Mid-record: resumeLsn is the start of the record being assembled; lastRecordLsn the one before.
        int b = indexOf(big);
        Run run = feed(wal, 0, off(big.lsn()) + 20000, Lsn.INVALID, false, IRREGULAR);
        assertNull(run.error);
        assertEquals(cleanBefore(b), ids(run.records));
        assertEquals(Lsn.format(big.lsn()), Lsn.format(run.reader.resumeLsn()));
        assertEquals(Lsn.format(clean.get(b - 1).lsn()), Lsn.format(run.reader.lastRecordLsn()));
        assertEquals(Lsn.format(base + off(big.lsn()) + 20000), Lsn.format(run.reader.feedLsn()));

        // A record that ends mid-page: EndRecPtr is MAXALIGNed and a new reader resumes there.
        int k = indexOf(small);
        long end = small.endLsn();
        assertEquals(0, end & 7);
        assertTrue(end >= small.lsn() + small.totalLength() && end < small.lsn() + small.totalLength() + 8);
        run = feed(wal, off(end), wal.length, small.lsn(), false, IRREGULAR);
        assertNull(run.error);
        assertEquals(ids(clean.subList(k + 1, clean.size())), ids(run.records));

        // XLOG_SWITCH: EndRecPtr is the next segment's start; the rest of the segment is skipped, whatever it holds.
        int s = indexOf(switchRec);
        long nextSeg = (switchRec.lsn() + segSize) & -(long) segSize;
        assertEquals(Lsn.format(nextSeg), Lsn.format(switchRec.endLsn()));
        XLogRecord after = clean.get(s + 1);
        assertEquals(Lsn.format(nextSeg + LONG_PHD), Lsn.format(after.lsn()));
        assertEquals(switchRec.lsn(), after.prev());

        run = feed(wal, 0, off(rawEnd(switchRec)), Lsn.INVALID, false, IRREGULAR);
        assertNull(run.error);
        assertEquals(cleanBefore(s + 1), ids(run.records));
        assertEquals(Lsn.format(nextSeg), Lsn.format(run.reader.resumeLsn()));
        assertEquals(Lsn.format(switchRec.lsn()), Lsn.format(run.reader.lastRecordLsn()));

        // Padding after the switch is not looked at: garbage there changes nothing.
        byte[] garbage = wal.clone();
        for (int i = off(rawEnd(switchRec)) + 8; i < off(nextSeg); i += 997) {
            garbage[i] ^= 0x5A;
        }
        run = feed(garbage, 0, garbage.length, Lsn.INVALID, false, 8191);
        assertNull(run.error);
        assertEquals(ids(clean), ids(run.records));

        // Resuming at the next segment's start with expectedPrev = the switch record.
        run = feed(wal, off(nextSeg), wal.length, switchRec.lsn(), false, IRREGULAR);
        assertNull(run.error);
        assertEquals(ids(clean.subList(s + 1, clean.size())), ids(run.records));
        assertEquals(Bytes.int32(wal, 4), run.reader.timeline());
    }

    // ------------------------------------------------------------------------------------------------
    // Record-level corruption
    // ------------------------------------------------------------------------------------------------

    @Test
    void crcMismatchInRecordBody() {
        byte[] bad = withRecordEdited(small, false, rec -> rec[rec.length - 1] ^= 0x01);
        Run run = feedCorrupt(bad, small.lsn());
        WalDecodeException e = assertFailed(run, Kind.CRC_MISMATCH, small.lsn(), cleanBefore(indexOf(small)));
        assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    }

    @Test
    void crcMismatchOnAContinuationPage() {
        // A byte of the 40 kB message on its third page: only the CRC of the reassembled record can catch it.
        long target = pageStart(big.lsn()) + 2L * BLCKSZ + 1000;
        byte[] bad = wal.clone();
        bad[off(target)] ^= 0x40;
        Run run = feedCorrupt(bad, target);
        assertFailed(run, Kind.CRC_MISMATCH, big.lsn(), cleanBefore(indexOf(big)));
    }

    @Test
    void crcMismatchInRecordHeader() {
        // xl_xid is covered by the CRC too (the header part is summed last).
        byte[] bad = withRecordEdited(small, false, rec -> rec[4] ^= 0x10);
        Run run = feedCorrupt(bad, small.lsn());
        assertFailed(run, Kind.CRC_MISMATCH, small.lsn(), cleanBefore(indexOf(small)));
    }

    @Test
    void brokenPrevLinkWithValidCrc() {
        byte[] bad = withRecordEdited(small, true, rec -> Bytes.putInt64(rec, 8, Bytes.int64(rec, 8) - 8));
        Run run = feedCorrupt(bad, small.lsn());
        WalDecodeException e = assertFailed(run, Kind.PREV_LINK_BROKEN, small.lsn(), cleanBefore(indexOf(small)));
        assertTrue(e.getMessage().contains(Lsn.format(clean.get(indexOf(small) - 1).lsn())), e.getMessage());
    }

    @Test
    void brokenPrevLinkInAHeaderThatCrossesAPage() {
        byte[] bad = withRecordEdited(headerSplit, true, rec -> Bytes.putInt64(rec, 8, headerSplit.lsn() - 8192));
        Run run = feedCorrupt(bad, headerSplit.lsn());
        assertFailed(run, Kind.PREV_LINK_BROKEN, headerSplit.lsn(), cleanBefore(indexOf(headerSplit)));
    }

    @Test
    void prevLinkPointingForwardAtTheFirstRecord() {
        // The first record read has no known predecessor; xl_prev >= its own LSN is still refused.
        XLogRecord first = clean.get(0);
        byte[] bad = withRecordEdited(first, true, rec -> Bytes.putInt64(rec, 8, first.lsn()));
        Run run = feedCorrupt(bad, first.lsn());
        assertFailed(run, Kind.PREV_LINK_BROKEN, first.lsn(), List.of());
    }

    /** Offset in the record of the first payload byte (block image/data, or main data): headers end there. */
    private static int payloadStart(XLogRecord r) {
        int p = r.mainDataOffset();
        for (BlockRef b : r.blocks()) {
            p = Math.min(p, b.hasImage() ? b.imageOffset() : b.dataOffset());
        }
        return p;
    }

    @Test
    void truncatedMainDataLength() {
        // Heap insert: block 0 header, then XLR_BLOCK_ID_DATA_SHORT and the main data length as the last header.
        int at = payloadStart(small) - 2;
        assertEquals(0xFF, small.rawBytes()[at] & 0xFF, "XLR_BLOCK_ID_DATA_SHORT");
        assertEquals(small.mainDataLength(), small.rawBytes()[at + 1] & 0xFF);
        byte[] bad = withRecordEdited(small, true, rec -> rec[at + 1]--);
        Run run = feedCorrupt(bad, small.lsn());
        assertFailed(run, Kind.TRUNCATED_RECORD, small.lsn(), cleanBefore(indexOf(small)));
    }

    @Test
    void truncatedBlockDataLength() {
        BlockRef b0 = small.blocks().get(0);
        assertTrue(b0.hasData() && b0.dataLength() > 1);
        // block id at 24, fork_flags at 25, data_length (uint16) at 26
        assertEquals(b0.id(), small.rawBytes()[24]);
        assertEquals(b0.dataLength(), Bytes.uint16(small.rawBytes(), 26));
        byte[] bad = withRecordEdited(small, true, rec -> rec[26]--);
        Run run = feedCorrupt(bad, small.lsn());
        assertFailed(run, Kind.TRUNCATED_RECORD, small.lsn(), cleanBefore(indexOf(small)));
    }

    @Test
    void headerFieldRunningPastTheRecord() {
        // The main data length byte becomes a long-length marker: its 4-byte length is read from the payload and
        // announces far more data than the record holds.
        int at = payloadStart(small) - 2;
        byte[] bad = withRecordEdited(small, true, rec -> rec[at] = (byte) 0xFE);
        Run run = feedCorrupt(bad, small.lsn());
        assertFailed(run, Kind.TRUNCATED_RECORD, small.lsn(), cleanBefore(indexOf(small)));
    }

    @Test
    void invalidRmgr() {
        byte[] bad = withRecordEdited(small, true, rec -> rec[17] = 50);
        Run run = feedCorrupt(bad, small.lsn());
        WalDecodeException e = assertFailed(run, Kind.INVALID_RMGR, small.lsn(), cleanBefore(indexOf(small)));
        assertTrue(e.getMessage().contains("50"), e.getMessage());
    }

    @Test
    void zeroTotalLengthInStreamModeIsCorruption() {
        byte[] bad = wal.clone();
        Arrays.fill(bad, off(small.lsn()), off(small.lsn()) + 4, (byte) 0);
        Run run = feedCorrupt(bad, small.lsn());
        assertFailed(run, Kind.INVALID_RECORD_LENGTH, small.lsn(), cleanBefore(indexOf(small)));
    }

    @Test
    void zeroTotalLengthInFileModeIsTheEndOfWal() {
        byte[] bad = wal.clone();
        Arrays.fill(bad, off(small.lsn()), off(small.lsn()) + 4, (byte) 0);
        Run run = feed(bad, 0, off(small.lsn()) + 65536, Lsn.INVALID, true, IRREGULAR);
        assertNull(run.error);
        assertTrue(run.reader.atEndOfWal());
        assertEquals(cleanBefore(indexOf(small)), ids(run.records));
        run.reader.feed(run.reader.feedLsn(), bad, off(run.reader.feedLsn()), 100);
        assertNull(run.reader.next());
        assertEquals(Lsn.format(small.lsn()), Lsn.format(run.reader.resumeLsn()));
    }

    @Test
    void tooShortTotalLength() {
        byte[] bad = wal.clone();
        Bytes.putInt32(bad, off(small.lsn()), 23);
        assertFailed(feedCorrupt(bad, small.lsn()), Kind.INVALID_RECORD_LENGTH, small.lsn(),
                cleanBefore(indexOf(small)));
    }

    @Test
    void hugeTotalLength() {
        byte[] bad = wal.clone();
        Bytes.putInt32(bad, off(small.lsn()), 0x7FFFFFF8);
        assertFailed(feedCorrupt(bad, small.lsn()), Kind.INVALID_RECORD_LENGTH, small.lsn(),
                cleanBefore(indexOf(small)));
    }

    // ------------------------------------------------------------------------------------------------
    // Page-level corruption
    // ------------------------------------------------------------------------------------------------

    /** A page in the middle of the small-record workload that no record continues into. */
    private static long quietPage() {
        for (XLogRecord r : clean.subList(indexOf(small), clean.size())) {
            long p = pageStart(r.lsn()) + BLCKSZ;
            if (rawEnd(r) <= p && (Bytes.uint16(wal, off(p) + 2) & XLP_FIRST_IS_CONTRECORD) == 0
                    && (p & (segSize - 1)) != 0 && Long.compareUnsigned(p, switchRec.lsn()) < 0) {
                return p;
            }
        }
        throw new AssertionError("no page boundary between records");
    }

    /** The first continuation page of the 40 kB message. */
    private static long bigContinuationPage() {
        return pageStart(big.lsn()) + BLCKSZ;
    }

    /**
     * The stream up to {@code page} (inside the 40 kB message), then {@code page} as crash recovery rewrites it when
     * the message's continuation was never flushed (CreateOverwriteContrecordRecord): the page flag
     * XLP_FIRST_IS_OVERWRITE_CONTRECORD and, first on it, XLOG_OVERWRITE_CONTRECORD naming {@code named}, linked to the
     * record before the message.
     */
    private static byte[] overwrittenAt(long page, long named) {
        int hdr = (page & (segSize - 1)) == 0 ? LONG_PHD : SHORT_PHD;
        byte[] rec = new byte[XLogRecord.SIZE_OF_HEADER + 2 + 16];
        Bytes.putInt32(rec, 0, rec.length);
        Bytes.putInt64(rec, 8, clean.get(indexOf(big) - 1).lsn());
        rec[16] = (byte) 0xD0; // XLOG_OVERWRITE_CONTRECORD
        rec[17] = RM_XLOG_ID;
        rec[24] = (byte) 255; // XLR_BLOCK_ID_DATA_SHORT
        rec[25] = 16;
        Bytes.putInt64(rec, 26, named); // xl_overwrite_contrecord.overwritten_lsn
        Bytes.putInt64(rec, 34, 123_456_789L); // .overwrite_time
        fixCrc(rec);
        byte[] out = Arrays.copyOf(wal, off(page) + hdr + rec.length);
        ByteBuffer h = ByteBuffer.wrap(out, off(page), hdr).slice().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        h.putShort(2, (short) ((h.getShort(2) & XLP_LONG_HEADER) | 0x0008));
        h.putInt(16, 0); // xlp_rem_len
        System.arraycopy(rec, 0, out, off(page) + hdr, rec.length);
        return out;
    }

    @Test
    void partialRecordOverwrittenByCrashRecoveryIsSkippedAsTheServerDoes() {
        for (long page : new long[] {bigContinuationPage(), bigContinuationPage() + 2L * BLCKSZ}) {
            byte[] stream = overwrittenAt(page, big.lsn());
            Run run = feed(stream, 0, stream.length, Lsn.INVALID, false, IRREGULAR);
            assertNull(run.error, () -> run.error.getMessage());
            List<Rec> expected = new ArrayList<>(cleanBefore(indexOf(big)));
            XLogRecord overwrite = run.records.get(run.records.size() - 1);
            assertEquals(expected, ids(run.records.subList(0, run.records.size() - 1)), "records before the message");
            int hdr = (page & (segSize - 1)) == 0 ? LONG_PHD : SHORT_PHD;
            assertEquals(Lsn.format(page + hdr), Lsn.format(overwrite.lsn()), "reading went on at the page");
            assertEquals(RM_XLOG_ID, overwrite.rmid());
            assertEquals(0xD0, overwrite.rmgrInfo());
            assertEquals(1, run.reader.overwrittenRecords());
            assertEquals(Lsn.format(big.lsn()), Lsn.format(run.reader.lastOverwrittenLsn()));
            assertEquals(Lsn.format(overwrite.endLsn()), Lsn.format(run.reader.resumeLsn()));
        }
    }

    @Test
    void overwritePageWhoseFirstRecordDoesNotNameThePartialRecordFails() {
        long page = bigContinuationPage();
        byte[] stream = overwrittenAt(page, big.lsn() + 8);
        Run run = feed(stream, 0, stream.length, Lsn.INVALID, false, IRREGULAR);
        assertNotNull(run.error, "an overwrite naming another record was accepted");
        assertEquals(Kind.MISSING_CONTRECORD, run.error.kind(), run.error::getMessage);
        assertTrue(run.error.getMessage().contains(Lsn.format(big.lsn())), run.error::getMessage);
        assertEquals(cleanBefore(indexOf(big)), ids(run.records));
        assertSame(run.error, assertThrows(WalDecodeException.class, run.reader::next));
    }

    @Test
    void badPageMagic() {
        for (long page : new long[] {quietPage(), bigContinuationPage()}) {
            byte[] bad = withPageHeaderEdited(page, h -> h.putShort(0, (short) 0xBEEF));
            WalDecodeException e = assertFailed(feedCorrupt(bad, page), Kind.INVALID_PAGE_HEADER, page,
                    cleanEndingBy(page));
            assertTrue(e.getMessage().contains("BEEF"), e.getMessage());
        }
    }

    /**
     * A page of another major in the stream: a major the reader knows (16) is a damaged stream, named as such; one
     * outside the supported range (13) is named as unsupported.
     */
    @Test
    void pageMagicOfAnotherMajorVersion() {
        long page = quietPage();
        byte[] bad = withPageHeaderEdited(page, h -> h.putShort(0, (short) 0xD113));
        WalDecodeException e = assertFailed(feedCorrupt(bad, page), Kind.INVALID_PAGE_HEADER, page, cleanEndingBy(page));
        assertTrue(e.getMessage().contains("PostgreSQL 16 in a stream decoded as PostgreSQL 15"), e.getMessage());
        byte[] older = withPageHeaderEdited(page, h -> h.putShort(0, (short) 0xD106));
        e = assertFailed(feedCorrupt(older, page), Kind.UNSUPPORTED_VERSION, page, cleanEndingBy(page));
        assertTrue(e.getMessage().contains("PostgreSQL 13, which is not supported"), e.getMessage());
    }

    @Test
    void wrongPageAddress() {
        for (long page : new long[] {quietPage(), bigContinuationPage()}) {
            byte[] bad = withPageHeaderEdited(page, h -> h.putLong(8, page + BLCKSZ));
            WalDecodeException e = assertFailed(feedCorrupt(bad, page), Kind.INVALID_PAGE_HEADER, page,
                    cleanEndingBy(page));
            assertTrue(e.getMessage().contains("pageaddr " + Lsn.format(page + BLCKSZ)), e.getMessage());
        }
    }

    @Test
    void unknownInfoBits() {
        long page = quietPage();
        byte[] bad = withPageHeaderEdited(page, h -> h.putShort(2, (short) (h.getShort(2) | 0x0010)));
        WalDecodeException e = assertFailed(feedCorrupt(bad, page), Kind.INVALID_PAGE_HEADER, page, cleanEndingBy(page));
        assertTrue(e.getMessage().contains("info bits"), e.getMessage());
    }

    @Test
    void timelineChangeInALaterPage() {
        long page = quietPage();
        int tli = Bytes.int32(wal, 4);
        byte[] bad = withPageHeaderEdited(page, h -> h.putInt(4, tli + 1));
        WalDecodeException e = assertFailed(feedCorrupt(bad, page), Kind.TIMELINE_CHANGE, page, cleanEndingBy(page));
        assertTrue(e.getMessage().contains("from " + tli + " to " + (tli + 1)), e.getMessage());
    }

    @Test
    void missingContrecordFlag() {
        long page = pageStart(big.lsn()) + 2L * BLCKSZ;
        byte[] bad = withPageHeaderEdited(page, h -> h.putShort(2, (short) (h.getShort(2) & ~XLP_FIRST_IS_CONTRECORD)));
        WalDecodeException e = assertFailed(feedCorrupt(bad, page), Kind.MISSING_CONTRECORD, big.lsn(),
                cleanBefore(indexOf(big)));
        assertTrue(e.getMessage().contains(Lsn.format(page)), "names the page: " + e.getMessage());
    }

    @Test
    void wrongRemainingLength() {
        long page = pageStart(big.lsn()) + 2L * BLCKSZ;
        byte[] bad = withPageHeaderEdited(page, h -> h.putInt(16, h.getInt(16) + 8));
        WalDecodeException e = assertFailed(feedCorrupt(bad, page), Kind.INVALID_RECORD_LENGTH, big.lsn(),
                cleanBefore(indexOf(big)));
        assertTrue(e.getMessage().contains(Lsn.format(page)), "names the page: " + e.getMessage());
    }

    @Test
    void contrecordFlagWhereARecordShouldStart() {
        long page = quietPage();
        byte[] bad = withPageHeaderEdited(page, h -> {
            h.putShort(2, (short) (h.getShort(2) | XLP_FIRST_IS_CONTRECORD));
            h.putInt(16, 100);
        });
        assertFailed(feedCorrupt(bad, page), Kind.INVALID_PAGE_HEADER, page, cleanEndingBy(page));
    }

    @Test
    void badLongHeaderAtTheNextSegment() {
        long seg = switchRec.endLsn();
        List<Rec> before = cleanBefore(indexOf(switchRec) + 1);
        long sysid = Bytes.int64(wal, 24);
        List<Consumer<ByteBuffer>> edits = List.of(
                h -> h.putShort(2, (short) (h.getShort(2) & ~XLP_LONG_HEADER)), // segment start without long header
                h -> h.putInt(32, segSize * 2),                                 // xlp_seg_size
                h -> h.putInt(36, BLCKSZ * 2),                                  // xlp_xlog_blcksz
                h -> h.putLong(24, sysid + 1));                                 // another system
        for (Consumer<ByteBuffer> edit : edits) {
            byte[] bad = withPageHeaderEdited(seg, edit);
            Run run = feed(bad, 0, off(seg) + 65536, Lsn.INVALID, false, 4093, 65536, 1 << 20);
            assertFailed(run, Kind.INVALID_PAGE_HEADER, seg, before);
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Feeding errors
    // ------------------------------------------------------------------------------------------------

    @Test
    void streamGap() {
        XLogStreamReader r = new XLogStreamReader(format, segSize, base, Lsn.INVALID, false);
        int first = off(small.lsn()) + 50; // in the middle of a record
        r.feed(base, wal, 0, first);
        List<XLogRecord> got = new ArrayList<>();
        for (XLogRecord rec; (rec = r.next()) != null; ) {
            got.add(rec);
        }
        assertEquals(cleanBefore(indexOf(small)), ids(got));

        // Bytes that skip ahead, or go back, are refused before anything is appended.
        long skipped = base + first + 8;
        WalDecodeException e = assertThrows(WalDecodeException.class, () -> r.feed(skipped, wal, first + 8, 1000));
        assertEquals(Kind.STREAM_GAP, e.kind());
        assertEquals(skipped, e.lsn());
        assertTrue(e.getMessage().contains(Lsn.format(base + first)), "names the expected LSN: " + e.getMessage());
        e = assertThrows(WalDecodeException.class, () -> r.feed(base + first - 8, wal, first - 8, 1000));
        assertEquals(Kind.STREAM_GAP, e.kind());
        assertEquals(base + first - 8, e.lsn());
        // The ByteBuffer path, with a direct buffer.
        ByteBuffer direct = ByteBuffer.allocateDirect(1000);
        direct.put(wal, first + 8, 1000).flip();
        e = assertThrows(WalDecodeException.class, () -> r.feed(skipped, direct));
        assertEquals(Kind.STREAM_GAP, e.kind());
        assertEquals(skipped, e.lsn());
        assertEquals(base + first, r.feedLsn(), "nothing appended");
        assertEquals(1000, direct.remaining(), "nothing consumed");

        // The reader was left intact: feeding the right bytes continues without loss.
        ByteBuffer rest = ByteBuffer.allocateDirect(wal.length - first);
        rest.put(wal, first, wal.length - first).flip();
        r.feed(base + first, rest);
        for (XLogRecord rec; (rec = r.next()) != null; ) {
            got.add(rec);
        }
        assertEquals(ids(clean), ids(got));
    }

    @Test
    void startLsnMustBeMaxaligned() {
        assertThrows(IllegalArgumentException.class,
                () -> new XLogStreamReader(format, segSize, small.lsn() + 4, Lsn.INVALID, false));
    }

    @Test
    void fileModeEndsAtAZeroedPage() {
        // In segment files, a page that was never written (zeros) ends the WAL: no error, nothing invented.
        long page = quietPage();
        byte[] bad = wal.clone();
        Arrays.fill(bad, off(page), off(page) + BLCKSZ, (byte) 0);
        Run run = feed(bad, 0, off(page) + 65536, Lsn.INVALID, true, IRREGULAR);
        assertNull(run.error);
        assertTrue(run.reader.atEndOfWal());
        assertEquals(cleanEndingBy(page), ids(run.records));
        // The same bytes in stream mode are corruption.
        assertFailed(feedCorrupt(bad, page), Kind.INVALID_PAGE_HEADER, page, cleanEndingBy(page));
    }

    @Test
    void recordPartiallyWrittenAtTheEndOfFileWal() {
        // The 40 kB message's third page is zeroed: a torn write at the end of WAL, not an error in file mode.
        long page = pageStart(big.lsn()) + 2L * BLCKSZ;
        byte[] bad = wal.clone();
        Arrays.fill(bad, off(page), bad.length, (byte) 0);
        Run run = feed(bad, 0, bad.length, Lsn.INVALID, true, IRREGULAR);
        assertNull(run.error);
        assertTrue(run.reader.atEndOfWal());
        assertEquals(cleanBefore(indexOf(big)), ids(run.records));
        assertFalse(run.records.stream().anyMatch(r -> r.lsn() >= big.lsn()));
        assertEquals(Lsn.format(big.lsn()), Lsn.format(run.reader.resumeLsn()));
    }
}
