package io.walshadow.wal;

import static io.walshadow.wal.WalDecodeException.Kind.CRC_MISMATCH;
import static io.walshadow.wal.WalDecodeException.Kind.INVALID_PAGE_HEADER;
import static io.walshadow.wal.WalDecodeException.Kind.INVALID_RECORD_LENGTH;
import static io.walshadow.wal.WalDecodeException.Kind.INVALID_RMGR;
import static io.walshadow.wal.WalDecodeException.Kind.MISSING_CONTRECORD;
import static io.walshadow.wal.WalDecodeException.Kind.PREV_LINK_BROKEN;
import static io.walshadow.wal.WalDecodeException.Kind.STREAM_GAP;
import static io.walshadow.wal.WalDecodeException.Kind.TIMELINE_CHANGE;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Turns a contiguous stream of raw WAL bytes (from a walsender or from segment files) into records, the way
 * xlogreader.c does: page headers are validated and stripped at every page boundary, records may span pages
 * (their 24-byte header included), every record's CRC-32C and prev-link are checked, and an XLOG_SWITCH record
 * makes the rest of its segment padding.
 *
 * <p>Push-pull: {@link #feed} appends bytes at {@link #feedLsn()}, {@link #next()} returns the next complete
 * record or {@code null} when more bytes are needed. Not thread-safe.
 *
 * <p>Reading starts at a record boundary ({@code startLsn}, which may be a page boundary: then the page header
 * comes first). {@code expectedPrev} is the LSN of the record before it, so the prev-link chain is verified across
 * restarts too; pass {@link Lsn#INVALID} when it is not known.
 */
public final class XLogStreamReader {
    public static final int BLCKSZ = 8192;
    static final int SIZE_OF_SHORT_PHD = 24;
    static final int SIZE_OF_LONG_PHD = 40;
    static final int XLP_FIRST_IS_CONTRECORD = 0x0001;
    static final int XLP_LONG_HEADER = 0x0002;
    /** Crash recovery wrote this page over the missing continuation of a record (CreateOverwriteContrecordRecord). */
    static final int XLP_FIRST_IS_OVERWRITE_CONTRECORD = 0x0008;
    static final int XLP_ALL_FLAGS = 0x000F;
    /** Records larger than this cannot be allocated by the server either (AllocSizeIsValid). */
    static final long MAX_RECORD_SIZE = 0x3FFFFFFFL;
    static final int RM_XLOG_ID = 0;
    static final int XLOG_SWITCH = 0x40;
    static final int XLOG_OVERWRITE_CONTRECORD = 0xD0;

    private final WalFormat format;
    private final int segmentSize;
    private final boolean zeroLengthIsEndOfWal;
    private final CRC32C crc = new CRC32C();
    private final XLogRecordDecoder.Scratch scratch = new XLogRecordDecoder.Scratch();

    // Unconsumed bytes are buf[bufStart, bufEnd); buf[bufStart] is at readPtr.
    private byte[] buf = new byte[1 << 17];
    private int bufStart;
    private int bufEnd;
    private long readPtr;
    /** Bytes before this LSN are padding to skip (alignment, or the tail of a switched segment). */
    private long skipUntil;

    private int timeline;
    private long systemId;
    private long expectedPrev;
    private boolean endOfWal;
    private WalDecodeException failure;

    // Record being assembled.
    private byte[] rec;
    private int recFilled;
    private long recLsn;
    private boolean recHeaderChecked;
    /** Start of a record whose continuation was overwritten after a crash; the next record must say so. */
    private long overwrittenLsn = Lsn.INVALID;
    private long overwrittenRecords;
    private long lastOverwritten;

    /**
     * @param zeroLengthIsEndOfWal true when reading segment files, where a zero {@code xl_tot_len} at a record
     *     start means the end of written WAL; false for a walsender stream, which only sends flushed WAL, so zeros
     *     there are corruption.
     */
    public XLogStreamReader(WalFormat format, int segmentSize, long startLsn, long expectedPrev,
                            boolean zeroLengthIsEndOfWal) {
        if (Integer.bitCount(segmentSize) != 1 || segmentSize < (1 << 20)) {
            throw new IllegalArgumentException("WAL segment size must be a power of two >= 1 MB: " + segmentSize);
        }
        if ((startLsn & 7) != 0) {
            throw new IllegalArgumentException("start LSN " + Lsn.format(startLsn) + " is not MAXALIGNed");
        }
        this.format = format;
        this.segmentSize = segmentSize;
        this.readPtr = startLsn;
        this.skipUntil = startLsn;
        this.expectedPrev = expectedPrev;
        this.zeroLengthIsEndOfWal = zeroLengthIsEndOfWal;
    }

    /** LSN of the next byte {@link #feed} expects. */
    public long feedLsn() {
        return readPtr + (bufEnd - bufStart);
    }

    /** Where reading resumes: the end of the last record returned (EndRecPtr), or the start position. */
    public long resumeLsn() {
        return rec == null ? Math.max(readPtr, skipUntil) : recLsn;
    }

    /** LSN of the last record returned (the prev-link the next record must carry), or the one given at start. */
    public long lastRecordLsn() {
        return expectedPrev;
    }

    /** Timeline seen in page headers so far, 0 before the first one. */
    public int timeline() {
        return timeline;
    }

    /** True once a zero-length record start was seen in file mode: the end of written WAL. */
    public boolean atEndOfWal() {
        return endOfWal;
    }

    /**
     * Partial records given up so far because crash recovery overwrote their continuation (each is followed by an
     * XLOG_OVERWRITE_CONTRECORD naming it; {@link #lastOverwrittenLsn()} is the latest).
     */
    public long overwrittenRecords() {
        return overwrittenRecords;
    }

    /** Start of the latest partial record given up ({@link #overwrittenRecords()}), or {@link Lsn#INVALID}. */
    public long lastOverwrittenLsn() {
        return overwrittenRecords == 0 ? Lsn.INVALID : lastOverwritten;
    }

    /** Appends bytes that start at {@code lsn}, which must be {@link #feedLsn()}. */
    public void feed(long lsn, byte[] src, int off, int len) {
        if (lsn != feedLsn()) {
            throw new WalDecodeException(STREAM_GAP, lsn, "received WAL at " + Lsn.format(lsn) + " but expected "
                    + Lsn.format(feedLsn()));
        }
        ensureCapacity(len);
        System.arraycopy(src, off, buf, bufEnd, len);
        bufEnd += len;
    }

    public void feed(long lsn, ByteBuffer src) {
        int len = src.remaining();
        if (src.hasArray()) {
            feed(lsn, src.array(), src.arrayOffset() + src.position(), len);
            src.position(src.limit());
        } else {
            if (lsn != feedLsn()) {
                throw new WalDecodeException(STREAM_GAP, lsn, "received WAL at " + Lsn.format(lsn)
                        + " but expected " + Lsn.format(feedLsn()));
            }
            ensureCapacity(len);
            src.get(buf, bufEnd, len);
            bufEnd += len;
        }
    }

    /**
     * Appends up to {@code maxLen} bytes read from {@code ch} at {@code position}, straight into the reader's buffer
     * (no intermediate copy); they start at {@code lsn}, which must be {@link #feedLsn()}.
     *
     * @return bytes appended; 0 at the end of the file
     */
    int feed(long lsn, FileChannel ch, long position, int maxLen) throws IOException {
        if (lsn != feedLsn()) {
            throw new WalDecodeException(STREAM_GAP, lsn, "received WAL at " + Lsn.format(lsn) + " but expected "
                    + Lsn.format(feedLsn()));
        }
        ensureCapacity(maxLen);
        ByteBuffer dst = ByteBuffer.wrap(buf, bufEnd, maxLen);
        while (dst.hasRemaining()) {
            if (ch.read(dst, position + (dst.position() - bufEnd)) < 0) {
                break;
            }
        }
        int n = dst.position() - bufEnd;
        bufEnd += n;
        return n;
    }

    /**
     * When every byte before the next one the reader will look at is padding it skips unseen (the rest of a
     * segment after XLOG_SWITCH, or MAXALIGN padding) and none is buffered, moves {@link #feedLsn()} past it, so a
     * file reader need not read it. Returns the new {@link #feedLsn()}. (A walsender sends the padding anyway.)
     */
    long skipUnreadPadding() {
        if (bufStart == bufEnd && Long.compareUnsigned(readPtr, skipUntil) < 0) {
            readPtr = skipUntil;
        }
        return feedLsn();
    }

    private void ensureCapacity(int len) {
        if (buf.length - bufEnd >= len) {
            return;
        }
        int live = bufEnd - bufStart;
        if (buf.length - live < len || bufStart == 0) {
            byte[] bigger = new byte[Math.max(buf.length * 2, live + len)];
            System.arraycopy(buf, bufStart, bigger, 0, live);
            buf = bigger;
        } else {
            System.arraycopy(buf, bufStart, buf, 0, live);
        }
        bufStart = 0;
        bufEnd = live;
    }

    private int avail() {
        return bufEnd - bufStart;
    }

    private void consume(int n) {
        bufStart += n;
        readPtr += n;
        if (bufStart == bufEnd) {
            bufStart = 0;
            bufEnd = 0;
        }
    }

    /**
     * The next complete record, or null if more bytes are needed (or the end of WAL was reached in file mode).
     *
     * <p>Fail-stop: once a {@link WalDecodeException} was thrown, every later call throws it again, so a caller
     * that catches and retries cannot step over the bad record; {@link #resumeLsn()} then still points at (not
     * past) the record or page at fault.
     */
    public XLogRecord next() {
        if (failure != null) {
            throw failure;
        }
        try {
            return nextRecord();
        } catch (WalDecodeException e) {
            failure = e;
            throw e;
        }
    }

    /** The error {@link #next()} failed with, or null. */
    public WalDecodeException failure() {
        return failure;
    }

    private XLogRecord nextRecord() {
        while (!endOfWal) {
            if (readPtr < skipUntil) {
                int n = (int) Math.min(avail(), skipUntil - readPtr);
                if (n == 0) {
                    return null;
                }
                consume(n);
                continue;
            }
            if ((readPtr & (BLCKSZ - 1)) == 0) {
                if (!readPageHeader()) {
                    return null;
                }
                continue;
            }
            if (rec == null) {
                if (!startRecord()) {
                    return null;
                }
                if (recFilled == rec.length) {
                    checkRecordHeader();
                    return finishRecord();
                }
            }
            int onPage = BLCKSZ - (int) (readPtr & (BLCKSZ - 1));
            int n = Math.min(Math.min(onPage, avail()), rec.length - recFilled);
            if (n == 0) {
                return null;
            }
            System.arraycopy(buf, bufStart, rec, recFilled, n);
            recFilled += n;
            consume(n);
            if (!recHeaderChecked && recFilled >= XLogRecord.SIZE_OF_HEADER) {
                checkRecordHeader();
            }
            if (recFilled == rec.length) {
                return finishRecord();
            }
        }
        return null;
    }

    private boolean startRecord() {
        if (avail() < 4) {
            return false;
        }
        long totLen = Integer.toUnsignedLong(Bytes.int32(buf, bufStart));
        if (totLen == 0 && zeroLengthIsEndOfWal) {
            endOfWal = true;
            return false;
        }
        if (totLen < XLogRecord.SIZE_OF_HEADER) {
            throw new WalDecodeException(INVALID_RECORD_LENGTH, readPtr,
                    "invalid record length: expected at least " + XLogRecord.SIZE_OF_HEADER + ", got " + totLen);
        }
        if (totLen > MAX_RECORD_SIZE) {
            throw new WalDecodeException(INVALID_RECORD_LENGTH, readPtr, "record length " + totLen + " is too large");
        }
        int len = (int) totLen;
        recLsn = readPtr;
        recHeaderChecked = false;
        if (len <= avail() && len <= BLCKSZ - (int) (readPtr & (BLCKSZ - 1))) {
            // The whole record is buffered and on this page (the common case): one copy, no zeroing first.
            rec = Arrays.copyOfRange(buf, bufStart, bufStart + len);
            recFilled = len;
            consume(len);
        } else {
            rec = new byte[len];
            recFilled = 0;
        }
        return true;
    }

    private void checkRecordHeader() {
        recHeaderChecked = true;
        int rmid = rec[17] & 0xFF;
        if (!format.isValidRmgr(rmid)) {
            throw new WalDecodeException(INVALID_RMGR, recLsn, "invalid resource manager ID " + rmid);
        }
        long prev = Bytes.int64(rec, 8);
        if (expectedPrev != Lsn.INVALID ? prev != expectedPrev : Long.compareUnsigned(prev, recLsn) >= 0) {
            throw new WalDecodeException(PREV_LINK_BROKEN, recLsn, "record with incorrect prev-link "
                    + Lsn.format(prev) + (expectedPrev != Lsn.INVALID ? ", expected " + Lsn.format(expectedPrev) : ""));
        }
    }

    private XLogRecord finishRecord() {
        byte[] r = rec;
        crc.reset();
        crc.update(r, XLogRecord.SIZE_OF_HEADER, r.length - XLogRecord.SIZE_OF_HEADER);
        crc.update(r, 0, 20);
        int stored = Bytes.int32(r, 20);
        if ((int) crc.getValue() != stored) {
            throw new WalDecodeException(CRC_MISMATCH, recLsn, String.format(
                    "incorrect resource manager data checksum: computed %08X, stored %08X",
                    (int) crc.getValue(), stored));
        }
        long end = (readPtr + 7) & ~7L;
        int rmid = r[17] & 0xFF;
        if (rmid == RM_XLOG_ID && ((r[16] & XLogRecord.XLR_RMGR_INFO_MASK) == XLOG_SWITCH)) {
            // The rest of the segment is padding; the next record starts the next segment.
            end = (readPtr + segmentSize - 1) & ~((long) segmentSize - 1);
        }
        // Decode before advancing: if the record is refused, the reader's position stays at its start.
        XLogRecord decoded = XLogRecordDecoder.decode(format, recLsn, end, r, scratch);
        if (overwrittenLsn != Lsn.INVALID) {
            checkOverwrite(decoded);
        }
        rec = null;
        skipUntil = end;
        expectedPrev = recLsn;
        return decoded;
    }

    /**
     * The first record after an overwritten continuation must be XLOG_OVERWRITE_CONTRECORD naming the record given
     * up (xlog_redo checks the same): anything else means the page flag and the WAL disagree.
     */
    private void checkOverwrite(XLogRecord r) {
        ByteBuffer main = r.mainData();
        boolean names = r.rmid() == RM_XLOG_ID && r.rmgrInfo() == XLOG_OVERWRITE_CONTRECORD
                && main.remaining() >= 8 && main.getLong(main.position()) == overwrittenLsn;
        if (!names) {
            throw new WalDecodeException(MISSING_CONTRECORD, r.lsn(), "the page before this record overwrote the"
                    + " continuation of the record at " + Lsn.format(overwrittenLsn) + ", but this record is not"
                    + " an OVERWRITE_CONTRECORD naming it");
        }
        overwrittenLsn = Lsn.INVALID;
    }

    /** Validates and strips the page header at readPtr; false if its bytes have not arrived yet. */
    private boolean readPageHeader() {
        if (avail() < SIZE_OF_SHORT_PHD) {
            return false;
        }
        final long page = readPtr;
        int magic = Bytes.uint16(buf, bufStart);
        int info = Bytes.uint16(buf, bufStart + 2);
        int tli = Bytes.int32(buf, bufStart + 4);
        long pageAddr = Bytes.int64(buf, bufStart + 8);
        int remLen = Bytes.int32(buf, bufStart + 16);
        if (zeroLengthIsEndOfWal && (magic == 0 || pageAddr != page)) {
            // In segment files, a zeroed page or one left over from a recycled segment is where written WAL ends.
            endOfWal = true;
            return false;
        }
        if (magic != format.pageMagic) {
            WalFormat other = WalFormat.forPageMagic(magic, page); // throws, naming the version if known
            throw new WalDecodeException(INVALID_PAGE_HEADER, page, "WAL page magic of PostgreSQL " + other.major
                    + " in a stream decoded as PostgreSQL " + format.major);
        }
        if ((info & ~XLP_ALL_FLAGS) != 0) {
            throw new WalDecodeException(INVALID_PAGE_HEADER, page, String.format("invalid info bits %04X", info));
        }
        boolean isLong = (info & XLP_LONG_HEADER) != 0;
        if (isLong) {
            if (avail() < SIZE_OF_LONG_PHD) {
                return false;
            }
            long sysid = Bytes.int64(buf, bufStart + 24);
            int segSize = Bytes.int32(buf, bufStart + 32);
            int blcksz = Bytes.int32(buf, bufStart + 36);
            if (systemId != 0 && sysid != systemId) {
                throw new WalDecodeException(INVALID_PAGE_HEADER, page, "WAL file is from a different database system: "
                        + "system identifier " + Long.toUnsignedString(sysid) + ", expected " + Long.toUnsignedString(systemId));
            }
            if (segSize != segmentSize) {
                throw new WalDecodeException(INVALID_PAGE_HEADER, page, "WAL segment size " + segSize
                        + " in page header, expected " + segmentSize);
            }
            if (blcksz != BLCKSZ) {
                throw new WalDecodeException(INVALID_PAGE_HEADER, page, "XLOG_BLCKSZ " + blcksz + " in page header, expected " + BLCKSZ);
            }
            systemId = sysid;
        } else if ((page & (segmentSize - 1)) == 0) {
            throw new WalDecodeException(INVALID_PAGE_HEADER, page,
                    String.format("invalid info bits %04X: segment start without a long header", info));
        }
        if (pageAddr != page) {
            throw new WalDecodeException(INVALID_PAGE_HEADER, page, "unexpected pageaddr " + Lsn.format(pageAddr));
        }
        if (timeline == 0) {
            timeline = tli;
        } else if (tli != timeline) {
            throw new WalDecodeException(TIMELINE_CHANGE, page, "timeline changed from " + Integer.toUnsignedString(timeline)
                    + " to " + Integer.toUnsignedString(tli) + "; following a timeline switch is not supported yet");
        }
        boolean cont = (info & XLP_FIRST_IS_CONTRECORD) != 0;
        if (rec != null && (info & XLP_FIRST_IS_OVERWRITE_CONTRECORD) != 0) {
            // The server crashed before the rest of this record was flushed, and recovery wrote new WAL from this
            // page on: the partial record never happened (its transaction did not commit). Read on from here, as
            // xlogreader does; the prev-link chain continues from the last whole record.
            overwrittenLsn = recLsn;
            overwrittenRecords++;
            lastOverwritten = recLsn;
            rec = null;
        } else if (rec != null) {
            if (!cont) {
                throw new WalDecodeException(MISSING_CONTRECORD, recLsn, "there is no contrecord flag at "
                        + Lsn.format(page) + " while " + (rec.length - recFilled) + " bytes of the record are missing");
            }
            long expected = rec.length - recFilled;
            if (Integer.toUnsignedLong(remLen) != expected) {
                throw new WalDecodeException(INVALID_RECORD_LENGTH, recLsn, "invalid contrecord length "
                        + Integer.toUnsignedString(remLen) + " (expected " + expected + ") at " + Lsn.format(page));
            }
        } else if (cont && remLen != 0) {
            throw new WalDecodeException(INVALID_PAGE_HEADER, page,
                    "page continues a record, but a new record was expected here");
        }
        consume(isLong ? SIZE_OF_LONG_PHD : SIZE_OF_SHORT_PHD);
        return true;
    }
}
