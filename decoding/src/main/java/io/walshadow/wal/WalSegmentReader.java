package io.walshadow.wal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads records from a directory of WAL segment files (pg_wal, or an archive restored to disk), on one timeline,
 * through the same {@link XLogStreamReader} as the replication stream. Ends at the end of written WAL, at a
 * missing segment, or before the first record at or after {@code endLsn}.
 */
public final class WalSegmentReader implements Closeable {
    private static final int CHUNK = 1 << 20;

    private final Path dir;
    private final int segmentSize;
    private final int timeline;
    private final long endLsn;
    private final XLogStreamReader reader;
    private FileChannel file;
    private long fileSegNo = -1;
    private boolean exhausted;

    /** @param endLsn stop before records starting at or after it; {@link Lsn#INVALID} reads to the end of WAL */
    public WalSegmentReader(Path dir, WalFormat format, int segmentSize, int timeline, long startLsn, long endLsn) {
        this.dir = dir;
        this.segmentSize = segmentSize;
        this.timeline = timeline;
        this.endLsn = endLsn;
        this.reader = new XLogStreamReader(format, segmentSize, startLsn, Lsn.INVALID, true);
    }

    /** File name of the segment holding {@code lsn}, as XLogFileName() makes it. */
    public static String segmentFileName(int timeline, long lsn, int segmentSize) {
        long segNo = Long.divideUnsigned(lsn, segmentSize);
        long segsPerXLogId = 0x100000000L / segmentSize;
        return String.format("%08X%08X%08X", timeline, segNo / segsPerXLogId, segNo % segsPerXLogId);
    }

    /** WAL segment size from the long page header at the start of a segment file ({@code xlp_seg_size}). */
    public static int readSegmentSize(Path segmentFile) throws IOException {
        try (FileChannel ch = FileChannel.open(segmentFile, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(XLogStreamReader.SIZE_OF_LONG_PHD);
            while (b.hasRemaining() && ch.read(b) > 0) { /* fill */ }
            if (b.position() < XLogStreamReader.SIZE_OF_LONG_PHD) {
                throw new IOException(segmentFile + " is too short to hold a WAL long page header");
            }
            return Bytes.int32(b.array(), 32);
        }
    }

    /** The next record, or null at the end. */
    public XLogRecord next() throws IOException {
        while (true) {
            XLogRecord r = reader.next();
            if (r != null) {
                if (endLsn != Lsn.INVALID && Long.compareUnsigned(r.lsn(), endLsn) >= 0) {
                    exhausted = true;
                    return null;
                }
                return r;
            }
            if (exhausted || reader.atEndOfWal() || !fill()) {
                return null;
            }
        }
    }

    public XLogStreamReader streamReader() {
        return reader;
    }

    private boolean fill() throws IOException {
        // The tail of a segment after XLOG_SWITCH is never looked at: do not read it.
        long pos = reader.skipUnreadPadding();
        long segNo = Long.divideUnsigned(pos, segmentSize);
        if (segNo != fileSegNo) {
            closeFile();
            try {
                file = FileChannel.open(dir.resolve(segmentFileName(timeline, pos, segmentSize)), StandardOpenOption.READ);
            } catch (NoSuchFileException e) {
                exhausted = true;
                return false;
            }
            fileSegNo = segNo;
        }
        long offset = pos & (segmentSize - 1);
        int want = (int) Math.min(CHUNK, segmentSize - offset);
        if (reader.feed(pos, file, offset, want) == 0) {
            exhausted = true;
            return false;
        }
        return true;
    }

    private void closeFile() throws IOException {
        if (file != null) {
            file.close();
            file = null;
        }
    }

    @Override
    public void close() throws IOException {
        closeFile();
    }

    /** Whether a segment file exists for this LSN. */
    public static boolean segmentExists(Path dir, int timeline, long lsn, int segmentSize) {
        return Files.exists(dir.resolve(segmentFileName(timeline, lsn, segmentSize)));
    }
}
