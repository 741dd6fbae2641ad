package io.walshadow.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.testing.LocalPg;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads WAL with {@link WalSegmentReader} and compares every record, block reference and full-page image with
 * what PostgreSQL 15's own pg_waldump makes of the same bytes:
 *
 * <ul>
 *   <li>{@link #realWalMatchesPgWaldump}: a generated workload on the local server (DDL, DML, COPY, TOAST,
 *       savepoints, >64 subtransactions, two-phase commit, multixacts, replication origins, logical messages
 *       that span segments, rewrites, checkpoints, wal_compression pglz/lz4/zstd, wal_consistency_checking);
 *       its whole WAL range, as {@code pg_waldump -b} and {@code --stats=record} print it.
 *   <li>{@link #everyRecordTypeSlotIsNamedLikePgWaldump}: a synthetic segment holding one record for every
 *       (rmgr, info) combination, to check {@link Rmgrs} names beyond the types a workload produces.
 * </ul>
 */
class PgWaldumpParityIT {
    private static final int BLCKSZ = 8192;
    private static final String[] FORK_NAMES = {"main", "fsm", "vm", "init"};
    private static final Pattern RECORD_LINE = Pattern.compile(
            "^rmgr: (\\S+)\\s+len \\(rec/tot\\):\\s*(\\d+)/\\s*(\\d+), tx:\\s*(\\d+), lsn: ([0-9A-F]+/[0-9A-F]+),"
                    + " prev ([0-9A-F]+/[0-9A-F]+), desc: (.*)$");
    private static final Pattern STATS_ROW = Pattern.compile(
            "^(\\S.*?)\\s+(\\d+) \\(\\s*[0-9.]+\\)\\s+(\\d+) \\(\\s*[0-9.]+\\)\\s+(\\d+) \\(\\s*[0-9.]+\\)"
                    + "\\s+(\\d+) \\(\\s*[0-9.]+\\)$");
    private static final Pattern STATS_TOTAL = Pattern.compile(
            "^Total\\s+(\\d+)\\s+(\\d+) \\[[0-9.]+%]\\s+(\\d+) \\[[0-9.]+%]\\s+(\\d+) \\[[0-9.]+%]$");

    // ------------------------------------------------------------------------------------------------------------
    // Real WAL from a workload
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void realWalMatchesPgWaldump() throws Exception {
        long t0 = System.nanoTime();
        String sfx = Long.toString(System.nanoTime());
        Path walDir = LocalPg.walDir();
        try (Connection c = LocalPg.connect(); Connection c2 = LocalPg.connect(); Connection slot = LocalPg.connect()) {
            WalFormat format = WalFormat.forServerVersionNum(LocalPg.serverVersionNum(c));
            int segSize = LocalPg.segmentSize(c);
            int tli = LocalPg.timeline(c);
            boolean logical = "logical".equals(LocalPg.queryString(c, "SHOW wal_level"));

            // A temporary physical slot that reserves WAL keeps the range's segments from being recycled by the
            // checkpoints below; it goes away with its session.
            LocalPg.exec(slot,
                    "SELECT pg_create_physical_replication_slot('walshadow_parity_" + sfx + "', true, true)");
            LocalPg.exec(c, "SELECT pg_switch_wal()", "CHECKPOINT");
            long start = LocalPg.currentLsn(c);

            ParityWorkload w = new ParityWorkload(c, c2, sfx, segSize);
            try {
                w.run();
            } finally {
                w.cleanup();
            }
            long end = LocalPg.flushLsn(c);
            long workloadDone = System.nanoTime();

            // pg_waldump -s finds the first record at or after start; -e prints only records that end by end.
            List<PgRecord> pg = parseDetailed(waldump("-b", "-p", walDir.toString(), "-s", Lsn.format(start),
                    "-e", Lsn.format(end)));
            assertTrue(pg.size() > 1, "pg_waldump printed " + pg.size() + " records");
            long first = pg.get(0).lsn;
            assertTrue(Long.compareUnsigned(first, start) >= 0);
            List<String> statsOut = waldump("--stats=record", "-p", walDir.toString(), "-s", Lsn.format(first),
                    "-e", Lsn.format(end));

            Tally t = new Tally(format);
            Iterator<PgRecord> it = pg.iterator();
            XLogRecord prevRec = null;
            List<long[]> restarts = new ArrayList<>();
            XLogRecord bigMessage = null;
            long bigMessagePrev = Lsn.INVALID;
            try (WalSegmentReader reader = new WalSegmentReader(walDir, format, segSize, tli, first, end)) {
                XLogRecord r;
                while ((r = reader.next()) != null) {
                    long physEnd = physicalEnd(r.lsn(), r.totalLength(), segSize);
                    if (Long.compareUnsigned(physEnd, end) > 0) {
                        // Starts before end but does not end by it: pg_waldump -e leaves it out (see
                        // endBoundSemantics). WalSegmentReader stops before the next record anyway.
                        assertNull(reader.next(), "records after one that crosses the end bound");
                        break;
                    }
                    if (!it.hasNext()) {
                        fail("at " + Lsn.format(r.lsn()) + ": pg_waldump printed no more records, ours: "
                                + expectedRecordLine(r));
                    }
                    compare(r, it.next(), format);
                    if (prevRec != null) {
                        assertEquals(prevRec.lsn(), r.prev(), "prev-link at " + Lsn.format(r.lsn()));
                        // resume points to try again below: all on a page boundary (after a SWITCH, a segment
                        // start: the long page header comes first), and a sample of others
                        if (prevRec.endLsn() % BLCKSZ == 0 || t.records % 4999 == 0) {
                            restarts.add(new long[] {prevRec.endLsn(), r.lsn()});
                        }
                    }
                    checkEndLsn(r, physEnd, segSize);
                    t.add(r, physEnd, segSize);
                    if (r.rmid() == Rmgrs.RM_LOGICALMSG_ID && (bigMessage == null
                            || r.totalLength() > bigMessage.totalLength())) {
                        bigMessage = r;
                        bigMessagePrev = prevRec == null ? Lsn.INVALID : prevRec.lsn();
                    }
                    prevRec = r;
                }
            }
            if (it.hasNext()) {
                PgRecord extra = it.next();
                fail("at " + Lsn.format(extra.lsn) + ": our reader ended, pg_waldump still printed: " + extra.line);
            }

            compareStats(t, statsOut);

            // XLogRecord.endLsn() is where reading resumes: a reader started there returns the next record first
            int pageBoundaryRestarts = 0;
            for (long[] rs : restarts) {
                try (WalSegmentReader reader = new WalSegmentReader(walDir, format, segSize, tli, rs[0], end)) {
                    XLogRecord r = reader.next();
                    assertEquals(Lsn.format(rs[1]), r == null ? "none" : Lsn.format(r.lsn()),
                            "first record when reading from " + Lsn.format(rs[0]));
                }
                if (rs[0] % BLCKSZ == 0) {
                    pageBoundaryRestarts++;
                }
            }
            assertTrue(pageBoundaryRestarts > 0, "no resume point on a page boundary was tried");

            System.out.printf("PgWaldumpParityIT: %d records compared (%d block refs, %d images: %s; %d restored,"
                            + " %d new/zero pages, %d for WAL verification), %d record types, longest record %d"
                            + " bytes over %d pages, %d records crossing segments; range %s..%s (%d MB);"
                            + " workload %.1f s, compared after %.1f s%n",
                    t.records, t.blockRefs, t.images, t.methods, t.restored, t.zeroPages, t.verificationImages,
                    t.kinds.size(), t.maxRecord, t.maxPagesSpanned, t.crossingSegment, Lsn.format(first),
                    Lsn.format(end), (end - first) >> 20, (workloadDone - t0) / 1e9, (System.nanoTime() - t0) / 1e9);
            System.out.printf("PgWaldumpParityIT edge cases: %d record headers split over pages, %d records ending"
                            + " on a page boundary, %d with long main data, %d compressed images with a hole,"
                            + " highest block id %d; %d restarts (%d at page boundaries)%n",
                    t.headerSplit, t.endOnPageBoundary, t.longMainData, t.compressedWithHole, t.maxBlockId,
                    restarts.size(), pageBoundaryRestarts);
            System.out.println("PgWaldumpParityIT kinds: " + t.kinds);

            // What the workload must have produced, so that none of the comparisons above was vacuous.
            assertTrue(t.records > 5000, "only " + t.records + " records compared");
            List<String> expectKinds = new ArrayList<>(List.of(
                    "XLOG/CHECKPOINT_ONLINE", "XLOG/SWITCH", "XLOG/FPI", "Transaction/COMMIT", "Transaction/ABORT",
                    "Transaction/PREPARE", "Transaction/COMMIT_PREPARED", "Transaction/ABORT_PREPARED",
                    "Transaction/ASSIGNMENT", "Storage/CREATE", "Standby/LOCK", "Heap/INSERT", "Heap/INSERT+INIT",
                    "Heap/UPDATE", "Heap/HOT_UPDATE", "Heap/DELETE", "Heap/LOCK", "Heap2/MULTI_INSERT",
                    "Heap2/MULTI_INSERT+INIT", "Btree/INSERT_LEAF", "MultiXact/CREATE_ID", "Sequence/LOG",
                    "Hash/INIT_META_PAGE", "Hash/INSERT", "ReplicationOrigin/SET", "ReplicationOrigin/DROP",
                    "LogicalMessage/MESSAGE"));
            if (logical) {
                expectKinds.addAll(List.of("Heap/TRUNCATE", "Heap2/NEW_CID"));
            }
            for (String k : expectKinds) {
                assertTrue(t.kinds.containsKey(k), "no " + k + " record in the range; kinds seen: " + t.kinds.keySet());
            }
            for (String rm : List.of("Gin", "Gist", "SPGist", "BRIN")) {
                assertTrue(t.rmgrs.contains(rm), "no " + rm + " record in the range");
            }
            assertTrue(t.methods.getOrDefault("pglz", 0) > 0, "no pglz-compressed image: " + t.methods);
            assertTrue(t.methods.getOrDefault("lz4", 0) > 0, "no lz4-compressed image: " + t.methods);
            assertTrue(t.methods.getOrDefault("zstd", 0) > 0, "no zstd-compressed image: " + t.methods);
            assertEquals(t.methods.get("zstd"), t.zstdRefused, "zstd images must be refused by restore");
            assertTrue(t.restored > 300, "only " + t.restored + " images restored");
            assertTrue(t.verificationImages > 0, "no image for WAL verification (wal_consistency_checking)");
            assertTrue(t.withToplevelXid > 0, "no record carried a top-level xid");
            assertTrue(t.withOrigin > 0, "no record carried a replication origin");
            assertTrue(t.crossingSegment > 0, "no record crossed a segment boundary");
            assertTrue(t.maxPagesSpanned > 100, "longest record spans only " + t.maxPagesSpanned + " pages");

            endBoundSemantics(walDir, format, segSize, tli, bigMessagePrev, bigMessage);
        }
    }

    /** Everything counted over the compared range. */
    static final class Tally {
        final WalFormat format;
        int records;
        int blockRefs;
        int images;
        int restored;
        int zeroPages;
        int zstdRefused;
        int verificationImages;
        int withToplevelXid;
        int withOrigin;
        int crossingSegment;
        int maxRecord;
        long maxPagesSpanned;
        int headerSplit;
        int endOnPageBoundary;
        int longMainData;
        int compressedWithHole;
        int maxBlockId = -1;
        final Map<String, Integer> methods = new TreeMap<>();
        final Map<String, Integer> kinds = new TreeMap<>();
        final Set<String> rmgrs = new TreeSet<>();
        /** (rmid << 4 | stats slot) -> {count, rec_len, fpi_len}, in pg_waldump's row order. */
        final Map<Integer, long[]> stats = new TreeMap<>();

        Tally(WalFormat format) {
            this.format = format;
        }

        void add(XLogRecord r, long physEnd, int segSize) {
            records++;
            assertEquals(ByteOrder.LITTLE_ENDIAN, r.mainData().order(), "main data byte order");
            if (!r.blocks().isEmpty()) {
                assertEquals(ByteOrder.LITTLE_ENDIAN, r.blocks().get(0).data().order(), "block data byte order");
            }
            kinds.merge(Rmgrs.name(r.rmid()) + "/" + Rmgrs.displayId(format, r.rmid(), r.info()), 1, Integer::sum);
            rmgrs.add(Rmgrs.name(r.rmid()));
            long[] s = stats.computeIfAbsent(r.rmid() << 4 | Rmgrs.statsSlot(r.rmid(), r.info()), k -> new long[3]);
            s[0]++;
            s[1] += r.totalLength() - r.fpiLength();
            s[2] += r.fpiLength();
            if (r.toplevelXid() != 0) {
                withToplevelXid++;
            }
            if (r.origin() != XLogRecord.INVALID_ORIGIN) {
                withOrigin++;
            }
            if (Long.divideUnsigned(r.lsn(), segSize) != Long.divideUnsigned(physEnd - 1, segSize)) {
                crossingSegment++;
            }
            maxRecord = Math.max(maxRecord, r.totalLength());
            if (r.lsn() % BLCKSZ > BLCKSZ - XLogRecord.SIZE_OF_HEADER) {
                headerSplit++; // the record header itself continues on the next page
            }
            if (physEnd % BLCKSZ == 0) {
                endOnPageBoundary++;
            }
            if (r.mainDataLength() > 255) {
                longMainData++;
            }
            maxPagesSpanned = Math.max(maxPagesSpanned, (physEnd - 1) / BLCKSZ - r.lsn() / BLCKSZ + 1);
            for (BlockRef b : r.blocks()) {
                blockRefs++;
                maxBlockId = Math.max(maxBlockId, b.id());
                if (!b.hasImage()) {
                    continue;
                }
                images++;
                if (!BlockImages.isApply(format, b)) {
                    verificationImages++;
                }
                String method = BlockImages.compression(format, b);
                methods.merge(method, 1, Integer::sum);
                if (format.isCompressed(b.bimgInfo()) && b.holeLength() > 0) {
                    compressedWithHole++;
                }
                String where = "block " + b.id() + " of " + Lsn.format(r.lsn());
                if (method.equals("zstd")) {
                    WalDecodeException e = assertThrows(WalDecodeException.class,
                            () -> BlockImages.restore(format, r.lsn(), b), where);
                    assertEquals(WalDecodeException.Kind.IMAGE_DECOMPRESSION, e.kind(), where);
                    zstdRefused++;
                    continue;
                }
                byte[] page = BlockImages.restore(format, r.lsn(), b);
                assertEquals(BLCKSZ, page.length, where);
                checkPage(page, b, r, where);
                restored++;
            }
        }

        private void checkPage(byte[] page, BlockRef b, XLogRecord r, String where) {
            boolean zero = true;
            for (byte x : page) {
                if (x != 0) {
                    zero = false;
                    break;
                }
            }
            if (zero) {
                zeroPages++; // a never-initialized page: PageIsNew, no header to check
                assertEquals(0, b.holeLength(), where);
                return;
            }
            long pdLsn = (Integer.toUnsignedLong(Bytes.int32(page, 0)) << 32)
                    | Integer.toUnsignedLong(Bytes.int32(page, 4));
            int lower = Bytes.uint16(page, 12);
            int upper = Bytes.uint16(page, 14);
            int special = Bytes.uint16(page, 16);
            int sizeVersion = Bytes.uint16(page, 18);
            String hdr = where + " (" + BlockImages.compression(format, b) + "): pd_lower " + lower + " pd_upper "
                    + upper + " pd_special " + special + " pd_pagesize_version " + sizeVersion + " pd_lsn "
                    + Lsn.format(pdLsn) + ", hole " + b.holeOffset() + "+" + b.holeLength();
            assertTrue(24 <= lower && lower <= upper && upper <= special && special <= BLCKSZ, hdr);
            assertEquals(BLCKSZ | 4, sizeVersion, hdr);
            if (b.holeLength() > 0) {
                // XLogRecordAssemble cuts the hole at exactly [pd_lower, pd_upper) of a standard page
                assertEquals(lower, b.holeOffset(), hdr);
                assertEquals(upper, b.holeOffset() + b.holeLength(), hdr);
            }
            // the image is taken before the record's own LSN is set on the page
            assertTrue(Long.compareUnsigned(pdLsn, r.lsn()) <= 0, hdr);
        }
    }

    private static void compare(XLogRecord r, PgRecord p, WalFormat format) {
        String ours = expectedRecordLine(r);
        if (!p.line.startsWith(ours)) {
            fail(mismatch(r.lsn(), "record", ours, p.line));
        }
        String desc = expectedDesc(r);
        if (desc != null && !p.line.startsWith(ours + desc)) {
            fail(mismatch(r.lsn(), "description (main data)", ours + desc, p.line));
        }
        List<String> blocks = expectedBlockLines(r, format);
        if (!blocks.equals(p.blocks)) {
            fail(mismatch(r.lsn(), "block references", String.join("\n", blocks), String.join("\n", p.blocks)));
        }
    }

    private static String mismatch(long lsn, String what, String ours, String theirs) {
        String indent = "\n              ";
        return "mismatch at " + Lsn.format(lsn) + " in " + what + "\n  ours:       " + ours.replace("\n", indent)
                + "\n  pg_waldump: " + theirs.replace("\n", indent);
    }

    /** pg_waldump's record line up to and including the identify name (rm_desc's text is not compared). */
    static String expectedRecordLine(XLogRecord r) {
        return String.format("rmgr: %-11s len (rec/tot): %6d/%6d, tx: %10s, lsn: %s, prev %s, desc: %s ",
                Rmgrs.name(r.rmid()), r.totalLength() - r.fpiLength(), r.totalLength(),
                Integer.toUnsignedString(r.xid()), Lsn.format(r.lsn()), Lsn.format(r.prev()),
                Rmgrs.displayId(r.format(), r.rmid(), r.info()));
    }

    /**
     * For a few record types, the start of rm_desc's text rebuilt from our main data, which checks where the main
     * data starts and how long it is (the CRC already proves the bytes): Heap INSERT ("off %u flags 0x%02X" of
     * xl_heap_insert), Btree inserts ("off %u") and LogicalMessage (xl_logical_message's prefix and size). Null
     * for other types.
     */
    static String expectedDesc(XLogRecord r) {
        ByteBuffer m = r.mainData();
        int type = r.info() & 0xF0;
        switch (r.rmid()) {
            case Rmgrs.RM_HEAP_ID:
                if ((type & 0x70) == 0x00 && m.remaining() >= 3) { // XLOG_HEAP_INSERT, with or without INIT_PAGE
                    return String.format("off %d flags 0x%02X", m.getShort(0) & 0xFFFF, m.get(2) & 0xFF);
                }
                return null;
            case Rmgrs.RM_BTREE_ID:
                if ((type == 0x00 || type == 0x10 || type == 0x20 || type == 0x50) && m.remaining() >= 2) {
                    return "off " + (m.getShort(0) & 0xFFFF);
                }
                return null;
            case Rmgrs.RM_LOGICALMSG_ID: {
                if (type != 0x00 || m.remaining() < 24) {
                    return null;
                }
                StringBuilder prefix = new StringBuilder();
                for (int i = 24; i < m.limit() && m.get(i) != 0; i++) {
                    prefix.append((char) (m.get(i) & 0xFF));
                }
                return String.format("%s, prefix \"%s\"; payload (%d bytes): ",
                        m.get(4) != 0 ? "transactional" : "non-transactional", prefix, m.getLong(16));
            }
            default:
                return null;
        }
    }

    /** The lines {@code pg_waldump -b} prints per block reference (XLogRecGetBlockRefInfo, detailed format). */
    static List<String> expectedBlockLines(XLogRecord r, WalFormat format) {
        List<String> out = new ArrayList<>();
        for (BlockRef b : r.blocks()) {
            StringBuilder sb = new StringBuilder().append("\tblkref #").append(b.id()).append(": rel ").append(b.rel())
                    .append(" fork ").append(FORK_NAMES[b.forkNumber()]).append(" blk ").append(b.blockNumber());
            if (b.hasImage()) {
                sb.append(" (FPW").append(BlockImages.isApply(format, b) ? "" : " for WAL verification")
                        .append("); hole: offset: ").append(b.holeOffset()).append(", length: ").append(b.holeLength());
                if (format.isCompressed(b.bimgInfo())) {
                    sb.append(", compression saved: ").append(BLCKSZ - b.holeLength() - b.imageLength())
                            .append(", method: ").append(BlockImages.compression(format, b));
                }
            }
            out.add(sb.toString());
        }
        return out;
    }

    private static void compareStats(Tally t, List<String> out) {
        List<String> ours = new ArrayList<>();
        long[] total = new long[3];
        for (Map.Entry<Integer, long[]> e : t.stats.entrySet()) {
            int rmid = e.getKey() >> 4;
            int slot = e.getKey() & 0xF;
            long[] s = e.getValue();
            ours.add(Rmgrs.statsName(rmid, slot << 4) + " " + s[0] + " " + s[1] + " " + s[2] + " " + (s[1] + s[2]));
            for (int i = 0; i < 3; i++) {
                total[i] += s[i];
            }
        }
        List<String> theirs = new ArrayList<>();
        String totalLine = null;
        for (String line : out) {
            Matcher m = STATS_ROW.matcher(line);
            if (m.matches()) {
                theirs.add(m.group(1) + " " + m.group(2) + " " + m.group(3) + " " + m.group(4) + " " + m.group(5));
            } else if (line.startsWith("Total")) {
                totalLine = line;
            }
        }
        assertEquals(String.join("\n", ours), String.join("\n", theirs), "pg_waldump --stats=record rows");
        Matcher m = STATS_TOTAL.matcher(totalLine == null ? "" : totalLine);
        assertTrue(m.matches(), "no Total line in pg_waldump --stats output: " + totalLine);
        assertEquals(total[0] + " " + total[1] + " " + total[2] + " " + (total[1] + total[2]),
                m.group(1) + " " + m.group(2) + " " + m.group(3) + " " + m.group(4), "pg_waldump --stats Total");
    }

    /** XLogRecord.endLsn() is xlogreader's EndRecPtr: the MAXALIGNed end, or the next segment after a SWITCH. */
    static void checkEndLsn(XLogRecord r, long physEnd, int segSize) {
        boolean isSwitch = r.rmid() == Rmgrs.RM_XLOG_ID && (r.info() & 0xF0) == 0x40;
        long expected = isSwitch ? (physEnd + segSize - 1) & -(long) segSize : (physEnd + 7) & ~7L;
        assertEquals(Lsn.format(expected), Lsn.format(r.endLsn()), "endLsn of " + Lsn.format(r.lsn()));
    }

    /**
     * pg_waldump -e E prints the records whose last byte lies before E (WALDumpReadPage refuses to read at or past
     * E), while WalSegmentReader's endLsn stops before records that start at or after it. So for a bound at a
     * record boundary both give the same records; a bound inside a record excludes that record from pg_waldump's
     * output but not from ours. Checked around the longest record, the logical message.
     */
    private static void endBoundSemantics(Path walDir, WalFormat format, int segSize, int tli, long before,
                                          XLogRecord big) throws Exception {
        assertTrue(big != null && before != Lsn.INVALID, "no logical message record to check -e around");
        long bigEnd = physicalEnd(big.lsn(), big.totalLength(), segSize);
        long[][] cases = {
            // bound, does pg_waldump print the big record?
            {big.lsn(), 0}, {big.lsn() + 1, 0}, {big.lsn() + BLCKSZ, 0}, {bigEnd - 1, 0}, {bigEnd, 1},
        };
        for (long[] cs : cases) {
            long bound = cs[0];
            List<Long> pgLsns = new ArrayList<>();
            for (PgRecord p : parseDetailed(waldump("-b", "-p", walDir.toString(), "-s", Lsn.format(before),
                    "-e", Lsn.format(bound)))) {
                pgLsns.add(p.lsn);
            }
            List<Long> expected = cs[1] == 1 ? List.of(before, big.lsn()) : List.of(before);
            assertEquals(lsns(expected), lsns(pgLsns), "pg_waldump -e " + Lsn.format(bound));

            List<Long> oursAll = new ArrayList<>();
            List<Long> oursEnded = new ArrayList<>();
            try (WalSegmentReader reader = new WalSegmentReader(walDir, format, segSize, tli, before, bound)) {
                XLogRecord r;
                while ((r = reader.next()) != null) {
                    oursAll.add(r.lsn());
                    if (Long.compareUnsigned(physicalEnd(r.lsn(), r.totalLength(), segSize), bound) <= 0) {
                        oursEnded.add(r.lsn());
                    }
                }
            }
            // WalSegmentReader: everything that starts before the bound
            assertEquals(lsns(bound == big.lsn() ? List.of(before) : List.of(before, big.lsn())), lsns(oursAll),
                    "WalSegmentReader endLsn " + Lsn.format(bound));
            assertEquals(lsns(pgLsns), lsns(oursEnded), "records ending by " + Lsn.format(bound));
        }
    }

    private static List<String> lsns(List<Long> l) {
        List<String> out = new ArrayList<>();
        for (long x : l) {
            out.add(Lsn.format(x));
        }
        return out;
    }

    /**
     * The position after a record's last byte: its bytes fill the rest of each page, skipping the page header
     * (long at a segment start) at every page boundary.
     */
    static long physicalEnd(long lsn, long totLen, int segSize) {
        long pos = lsn;
        long left = totLen;
        while (left > 0) {
            if (pos % BLCKSZ == 0) {
                pos += pos % segSize == 0 ? XLogStreamReader.SIZE_OF_LONG_PHD : XLogStreamReader.SIZE_OF_SHORT_PHD;
            }
            long n = Math.min(left, BLCKSZ - pos % BLCKSZ);
            pos += n;
            left -= n;
        }
        return pos;
    }

    // ------------------------------------------------------------------------------------------------------------
    // pg_waldump
    // ------------------------------------------------------------------------------------------------------------

    /** One record of {@code pg_waldump -b} output: its line and its block reference lines. */
    record PgRecord(long lsn, String line, List<String> blocks) {}

    static List<PgRecord> parseDetailed(List<String> lines) {
        List<PgRecord> out = new ArrayList<>();
        for (String line : lines) {
            Matcher m = RECORD_LINE.matcher(line);
            if (m.matches()) {
                out.add(new PgRecord(Lsn.parse(m.group(5)), line, new ArrayList<>()));
            } else if (line.startsWith("\tblkref #") && !out.isEmpty()) {
                out.get(out.size() - 1).blocks().add(line);
            } else {
                fail("unexpected pg_waldump output line after "
                        + (out.isEmpty() ? "start" : Lsn.format(out.get(out.size() - 1).lsn())) + ": " + line);
            }
        }
        return out;
    }

    /** Runs pg_waldump; fails on a nonzero exit or anything on stderr. Output is read as Latin-1 (desc is bytes). */
    static List<String> waldump(String... args) throws IOException, InterruptedException {
        return io.walshadow.testing.PgWaldump.run(args);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Synthetic WAL: every record type slot of every rmgr
    // ------------------------------------------------------------------------------------------------------------

    /** Rmgrs whose rm_desc only reads main data, so pg_waldump can describe zero-filled records of any type. */
    private static final int[] DESC_SAFE_RMGRS = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 18, 19, 20, 21, 128, 200, 255};
    /** Index AMs: their rm_desc also reads block data, so they are only checked through --stats=record. */
    private static final int[] STATS_ONLY_RMGRS = {11, 12, 13, 14, 16, 17};

    @Test
    void everyRecordTypeSlotIsNamedLikePgWaldump(@TempDir Path dir) throws Exception {
        SyntheticWal wal = new SyntheticWal();
        for (int rmid : DESC_SAFE_RMGRS) {
            for (int slot = 0; slot < 16; slot++) {
                if (rmid == Rmgrs.RM_XLOG_ID && slot == 4) {
                    continue; // XLOG_SWITCH ends the segment: it comes last
                }
                // the low bits too: most rm_identify mask them, CommitTs and ReplicationOrigin do not
                for (int low : new int[] {0x00, 0x01, 0x02}) {
                    wal.add(rmid, slot << 4 | low, 240);
                }
            }
        }
        long statsOnlyStart = wal.nextRecordLsn();
        for (int rmid : STATS_ONLY_RMGRS) {
            for (int slot = 0; slot < 16; slot++) {
                wal.add(rmid, slot << 4, 0);
                wal.add(rmid, slot << 4 | 0x02, 0);
            }
        }
        long switchLsn = wal.add(Rmgrs.RM_XLOG_ID, 0x40, 0);
        long switchEnd = switchLsn + XLogRecord.SIZE_OF_HEADER;
        wal.writeTo(dir);

        // our reader over the synthetic segment
        List<XLogRecord> records = new ArrayList<>();
        try (WalSegmentReader reader = new WalSegmentReader(dir, WalFormat.PG15, SyntheticWal.SEG, 1,
                wal.firstLsn, Lsn.INVALID)) {
            XLogRecord r;
            while ((r = reader.next()) != null) {
                records.add(r);
            }
        }
        assertEquals(wal.count, records.size(), "records read back from the synthetic segment");

        // display: the identify name (or UNKNOWN) for every info byte of the desc-safe rmgrs
        List<PgRecord> pg = parseDetailed(waldump("-b", "-p", dir.toString(), "-s", Lsn.format(wal.firstLsn),
                "-e", Lsn.format(statsOnlyStart)));
        int i = 0;
        for (PgRecord p : pg) {
            compare(records.get(i++), p, WalFormat.PG15);
        }
        assertEquals(DESC_SAFE_RMGRS.length * 16 * 3 - 3, i, "records pg_waldump described");

        // stats: the row name of every (rmgr, slot), as pg_waldump --stats=record names it
        Tally t = new Tally(WalFormat.PG15);
        long end = Lsn.INVALID;
        for (XLogRecord r : records) {
            t.add(r, physicalEnd(r.lsn(), r.totalLength(), SyntheticWal.SEG), SyntheticWal.SEG);
            end = r.lsn();
        }
        assertEquals(switchLsn, end);
        compareStats(t, waldump("--stats=record", "-p", dir.toString(), "-s", Lsn.format(wal.firstLsn),
                "-e", Lsn.format(switchEnd)));
        assertEquals((DESC_SAFE_RMGRS.length + STATS_ONLY_RMGRS.length - 1) * 16 + 8, t.stats.size(),
                "stats rows (Transaction folds 16 slots into 8)");
    }

    /**
     * Writes a WAL segment (timeline 1) of records with no block references: 1 MB, segment 1, PostgreSQL 15's page
     * magic, or as given (WalinspectParityIT writes one of a server's own size and major).
     */
    static final class SyntheticWal {
        static final int SEG = 1 << 20;
        final int segSize;
        final int magic;
        final long segStart;
        final byte[] seg;
        final CRC32C crc = new CRC32C();
        long pos;
        long prev = Lsn.INVALID;
        long firstLsn = Lsn.INVALID;
        int count;

        SyntheticWal() {
            this(SEG, 1, WalFormat.PG15.pageMagic);
        }

        SyntheticWal(int segSize, long segNo, int magic) {
            this.segSize = segSize;
            this.magic = magic;
            this.segStart = segNo * segSize;
            this.seg = new byte[segSize];
            this.pos = segStart;
        }

        long nextRecordLsn() {
            return pos % BLCKSZ == 0 ? pos + (pos % segSize == 0 ? 40 : 24) : pos;
        }

        /** Appends a record of {@code dataLen} zero bytes of main data; returns its LSN. */
        long add(int rmid, int info, int dataLen) {
            byte[] rec = new byte[XLogRecord.SIZE_OF_HEADER + (dataLen > 0 ? 2 + dataLen : 0)];
            Bytes.putInt32(rec, 0, rec.length);
            Bytes.putInt64(rec, 8, prev);
            rec[16] = (byte) info;
            rec[17] = (byte) rmid;
            if (dataLen > 0) {
                rec[24] = (byte) 255; // XLR_BLOCK_ID_DATA_SHORT
                rec[25] = (byte) dataLen;
            }
            crc.reset();
            crc.update(rec, XLogRecord.SIZE_OF_HEADER, rec.length - XLogRecord.SIZE_OF_HEADER);
            crc.update(rec, 0, 20);
            Bytes.putInt32(rec, 20, (int) crc.getValue());

            if (pos % BLCKSZ == 0) {
                pageHeader(0);
            }
            long lsn = pos;
            int off = 0;
            while (off < rec.length) {
                if (pos % BLCKSZ == 0) {
                    pageHeader(rec.length - off);
                }
                int n = (int) Math.min(rec.length - off, BLCKSZ - pos % BLCKSZ);
                System.arraycopy(rec, off, seg, (int) (pos - segStart), n);
                pos += n;
                off += n;
            }
            pos = (pos + 7) & ~7L;
            prev = lsn;
            if (firstLsn == Lsn.INVALID) {
                firstLsn = lsn;
            }
            count++;
            return lsn;
        }

        private void pageHeader(int remLen) {
            int o = (int) (pos - segStart);
            boolean isLong = o == 0;
            seg[o] = (byte) magic; // xlp_magic
            seg[o + 1] = (byte) (magic >> 8);
            seg[o + 2] = (byte) ((isLong ? 0x02 : 0) | (remLen > 0 ? 0x01 : 0));
            Bytes.putInt32(seg, o + 4, 1); // timeline
            Bytes.putInt64(seg, o + 8, pos);
            Bytes.putInt32(seg, o + 16, remLen);
            if (isLong) {
                Bytes.putInt64(seg, o + 24, 7000000000000000001L);
                Bytes.putInt32(seg, o + 32, segSize);
                Bytes.putInt32(seg, o + 36, BLCKSZ);
            }
            pos += isLong ? 40 : 24;
        }

        void writeTo(Path dir) throws IOException {
            Files.write(dir.resolve(WalSegmentReader.segmentFileName(1, segStart, segSize)), seg);
        }
    }
}
