package io.walshadow.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.testing.LocalPg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Reads WAL of whichever PostgreSQL major the test's server is (14..18; the stack's env: {@code WALSHADOW_PG_PORT},
 * {@code WALSHADOW_PG_DATA}, ..., and {@code WALSHADOW_PG_MAJOR} when set, which the server must then be) with
 * {@link WalSegmentReader}, and compares every record with what that server's own {@code pg_walinspect} makes of
 * the same WAL: {@code pg_get_wal_records_info(start, end)} record by record (LSN, end LSN, prev LSN, rmgr, record
 * type, xid, record length, main data length, FPI length, block references as the oracle renders them), and
 * {@code pg_get_wal_stats(start, end, per_record => true)} row by row (count, record and FPI bytes per type). The
 * workload is PgWaldumpParityIT's ({@link ParityWorkload}): DDL, DML, COPY, TOAST, savepoints, >64 subtransactions,
 * two-phase commit, multixacts, replication origins, a logical message longer than a segment, rewrites, VACUUM,
 * images compressed with each method the server offers, wal_consistency_checking.
 *
 * <p>The description column (rm_desc) is not compared: its text differs per major and per record body, which this
 * reader frames but does not decode on majors other than 15.
 *
 * <p>PostgreSQL 14 has no oracle here: pg_walinspect arrived in 15, and no pg_waldump 14 is at hand (the server
 * binaries come without client tools, Debian's pg_waldump is 15's and refuses 14's page magic). On 14 the test
 * checks only what holds without one (every record's CRC, prev-links, end positions, images restored to pages with
 * sane headers, every record type named) and then reports itself skipped, saying so.
 */
class WalinspectParityIT {

    /** One row of pg_get_wal_records_info. */
    record Row(long lsn, long end, long prev, String xid, String rmgr, String type, int length, int mainLength,
               int fpiLength, String blockRef) {}

    @Test
    void realWalMatchesPgWalinspect() throws Exception {
        long t0 = System.nanoTime();
        String sfx = Long.toString(System.nanoTime());
        Path walDir = LocalPg.walDir();
        try (Connection c = LocalPg.connect(); Connection c2 = LocalPg.connect(); Connection slot = LocalPg.connect()) {
            WalFormat format = WalFormat.forServerVersionNum(LocalPg.serverVersionNum(c));
            String wanted = System.getenv("WALSHADOW_PG_MAJOR");
            if (wanted != null && !wanted.isEmpty()) {
                assertEquals(Integer.parseInt(wanted), format.major, "the server's major vs WALSHADOW_PG_MAJOR");
            }
            boolean oracle = format.major >= 15; // pg_walinspect arrived in 15
            if (oracle) {
                LocalPg.createExtension(c, "pg_walinspect");
            }
            int segSize = LocalPg.segmentSize(c);
            int tli = LocalPg.timeline(c);
            boolean logical = "logical".equals(LocalPg.queryString(c, "SHOW wal_level"));

            LocalPg.exec(slot,
                    "SELECT pg_create_physical_replication_slot('walshadow_inspect_" + sfx + "', true, true)");
            LocalPg.exec(c, "SELECT pg_switch_wal()", "CHECKPOINT");
            long start = LocalPg.currentLsn(c);

            ParityWorkload w = new ParityWorkload(c, c2, sfx, segSize);
            List<String> methods = w.compressionMethods();
            try {
                w.run();
            } finally {
                w.cleanup();
            }
            long end = LocalPg.flushLsn(c);
            long workloadDone = System.nanoTime();

            List<Row> rows = oracle ? recordsInfo(c, start, end) : List.of();
            long first;
            if (oracle) {
                assertTrue(rows.size() > 1, "pg_walinspect gave " + rows.size() + " records");
                first = rows.get(0).lsn();
                assertTrue(Long.compareUnsigned(first, start) >= 0);
            } else {
                first = start; // a checkpoint's LSN: a record boundary
            }

            PgWaldumpParityIT.Tally t = new PgWaldumpParityIT.Tally(format);
            Iterator<Row> it = rows.iterator();
            XLogRecord prevRec = null;
            try (WalSegmentReader reader = new WalSegmentReader(walDir, format, segSize, tli, first, end)) {
                XLogRecord r;
                while ((r = reader.next()) != null) {
                    if (Long.compareUnsigned(r.endLsn(), end) > 0) {
                        // pg_walinspect stops at the first record whose end (xlogreader's EndRecPtr) is past end
                        assertNull(reader.next(), "records after one that crosses the end bound");
                        break;
                    }
                    long physEnd = PgWaldumpParityIT.physicalEnd(r.lsn(), r.totalLength(), segSize);
                    if (oracle) {
                        if (!it.hasNext()) {
                            fail("at " + Lsn.format(r.lsn()) + ": pg_walinspect gave no more records, ours: "
                                    + line(ours(r)));
                        }
                        compare(r, it.next());
                    }
                    if (prevRec != null) {
                        assertEquals(Lsn.format(prevRec.lsn()), Lsn.format(r.prev()), "prev-link at "
                                + Lsn.format(r.lsn()));
                    }
                    PgWaldumpParityIT.checkEndLsn(r, physEnd, segSize);
                    t.add(r, physEnd, segSize);
                    prevRec = r;
                }
            }
            if (it.hasNext()) {
                Row extra = it.next();
                fail("at " + Lsn.format(extra.lsn()) + ": our reader ended, pg_walinspect still gave " + line(extra));
            }
            if (oracle) {
                compareStats(c, format, t, first, end);
            }

            System.out.printf("WalinspectParityIT PostgreSQL %d: %d records %s (%d block refs, %d images: %s; %d"
                            + " restored, %d for WAL verification), %d record types, longest record %d bytes over %d"
                            + " pages; range %s..%s (%d MB); workload %.1f s, compared after %.1f s%n",
                    format.major, t.records, oracle ? "compared with pg_walinspect" : "read (no oracle on 14)",
                    t.blockRefs, t.images, t.methods, t.restored, t.verificationImages, t.kinds.size(), t.maxRecord,
                    t.maxPagesSpanned, Lsn.format(first), Lsn.format(end), (end - first) >> 20,
                    (workloadDone - t0) / 1e9, (System.nanoTime() - t0) / 1e9);
            System.out.println("WalinspectParityIT PostgreSQL " + format.major + " kinds: " + t.kinds);

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
            // VACUUM's records: renamed in 17 (the combined prune / freeze records)
            expectKinds.add(format.major >= 17 ? "Heap2/PRUNE_VACUUM_SCAN" : "Heap2/PRUNE");
            if (format.major >= 17) {
                expectKinds.add("XLOG/CHECKPOINT_REDO");
            }
            if (logical) {
                expectKinds.addAll(List.of("Heap/TRUNCATE", "Heap2/NEW_CID"));
            }
            for (String k : expectKinds) {
                assertTrue(t.kinds.containsKey(k), "no " + k + " record in the range; kinds seen: " + t.kinds.keySet());
            }
            for (String k : t.kinds.keySet()) {
                assertTrue(!k.contains("UNKNOWN"), "a record type we do not name: " + k);
            }
            for (String rm : List.of("Gin", "Gist", "SPGist", "BRIN")) {
                assertTrue(t.rmgrs.contains(rm), "no " + rm + " record in the range");
            }
            for (String m : methods) {
                assertTrue(t.methods.getOrDefault(m, 0) > 0, "no " + m + "-compressed image: " + t.methods);
            }
            assertTrue(t.restored > 300, "only " + t.restored + " images restored");
            assertTrue(t.verificationImages > 0, "no image for WAL verification (wal_consistency_checking)");
            assertTrue(t.withToplevelXid > 0, "no record carried a top-level xid");
            assertTrue(t.withOrigin > 0, "no record carried a replication origin");
            assertTrue(t.crossingSegment > 0, "no record crossed a segment boundary");
            assertTrue(t.maxPagesSpanned > 100, "longest record spans only " + t.maxPagesSpanned + " pages");

            Assumptions.assumeTrue(oracle, "PostgreSQL " + format.major + " has no pg_walinspect (it arrived in 15)"
                    + " and no pg_waldump of its major is at hand: its " + t.records + " records were read and"
                    + " checked by CRC, prev-links and restored images only, not compared with an oracle");
        }
    }

    /** Rmgrs whose rm_desc reads only main data: described by pg_get_wal_records_info from zero-filled records. */
    private static final int[] DESC_SAFE_RMGRS = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 18, 19, 20, 21};
    /** Index AMs: their rm_desc also reads block data, so they are only named through pg_get_wal_stats. */
    private static final int[] STATS_ONLY_RMGRS = {11, 12, 13, 14, 16, 17};

    /**
     * Every (rmgr, record type slot) named as the server's pg_walinspect names it, beyond the types a workload makes:
     * a synthetic segment of records of every built-in rmgr and info byte, written into the server's pg_wal under
     * the name of a segment long behind the flush position, read back by pg_walinspect and by us. Custom rmgrs are
     * left out (the server refuses ids it has not loaded). It writes into the server's pg_wal, so it runs only on a
     * throwaway server of a major other than 15 (test-majors.sh's): 15's names are checked against pg_waldump by
     * PgWaldumpParityIT, 14 has no pg_walinspect.
     */
    @Test
    void everyRecordTypeSlotIsNamedLikePgWalinspect() throws Exception {
        try (Connection c = LocalPg.connect()) {
            WalFormat format = WalFormat.forServerVersionNum(LocalPg.serverVersionNum(c));
            Assumptions.assumeTrue(format.major >= 16, "PostgreSQL " + format.major + ": not on this major (15:"
                    + " PgWaldumpParityIT names every slot with pg_waldump; 14: no pg_walinspect)");
            LocalPg.createExtension(c, "pg_walinspect");
            int segSize = LocalPg.segmentSize(c);
            Assumptions.assumeTrue(LocalPg.timeline(c) == 1, "the synthetic segment is on timeline 1");
            // segment 1 well behind the flush position, and no checkpoint in it that recovery could need
            LocalPg.exec(c, "SELECT pg_switch_wal()", "SELECT pg_switch_wal()", "SELECT pg_switch_wal()", "CHECKPOINT");
            long flushSeg = Long.divideUnsigned(LocalPg.flushLsn(c), segSize);
            assertTrue(flushSeg >= 3, "flush position still in segment " + flushSeg);

            PgWaldumpParityIT.SyntheticWal wal = new PgWaldumpParityIT.SyntheticWal(segSize, 1, format.pageMagic);
            for (int rmid : DESC_SAFE_RMGRS) {
                for (int slot = 0; slot < 16; slot++) {
                    if (rmid == Rmgrs.RM_XLOG_ID && slot == 4) {
                        continue; // XLOG_SWITCH would end the segment
                    }
                    for (int low : new int[] {0x00, 0x01, 0x02}) { // CommitTs and ReplicationOrigin do not mask
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
            long trailer = wal.add(Rmgrs.RM_XLOG_ID, 0x20, 0); // NOOP: pg_walinspect reads one record past the end
            wal.add(Rmgrs.RM_XLOG_ID, 0x20, 0);
            Path file = LocalPg.walDir().resolve(WalSegmentReader.segmentFileName(1, wal.segStart, segSize));
            UserPrincipal owner = Files.getOwner(LocalPg.walDir());
            wal.writeTo(LocalPg.walDir());
            Files.setOwner(file, owner);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

            List<XLogRecord> records = new ArrayList<>();
            try (WalSegmentReader reader = new WalSegmentReader(LocalPg.walDir(), format, segSize, 1, wal.firstLsn,
                    trailer)) {
                XLogRecord r;
                while ((r = reader.next()) != null) {
                    records.add(r);
                }
            }
            assertEquals(wal.count - 2, records.size(), "records read back from the synthetic segment");

            // record by record: the desc-safe rmgrs, every info byte
            List<Row> rows = recordsInfo(c, wal.firstLsn, statsOnlyStart);
            int i = 0;
            for (Row row : rows) {
                compare(records.get(i++), row);
            }
            assertEquals(DESC_SAFE_RMGRS.length * 16 * 3 - 3, i, "records pg_walinspect described");

            // per type: every (rmgr, slot), index AMs included
            PgWaldumpParityIT.Tally t = new PgWaldumpParityIT.Tally(format);
            for (XLogRecord r : records) {
                t.add(r, PgWaldumpParityIT.physicalEnd(r.lsn(), r.totalLength(), segSize), segSize);
            }
            compareStats(c, format, t, wal.firstLsn, trailer);
            assertEquals((DESC_SAFE_RMGRS.length + STATS_ONLY_RMGRS.length - 1) * 16 + 8 - 1, t.stats.size(),
                    "stats rows (Transaction folds 16 slots into 8; XLOG's SWITCH slot left out)");
            System.out.printf("WalinspectParityIT PostgreSQL %d: %d synthetic records named alike, %d stats rows%n",
                    format.major, i, t.stats.size());
        }
    }

    /** pg_get_wal_records_info without its description (rm_desc: per-major text, and megabytes for the message). */
    private static List<Row> recordsInfo(Connection c, long start, long end) throws Exception {
        List<Row> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT start_lsn::text, end_lsn::text, prev_lsn::text,"
                + " xid::text, resource_manager, record_type, record_length, main_data_length, fpi_length, block_ref"
                + " FROM pg_get_wal_records_info(?::pg_lsn, ?::pg_lsn)")) {
            ps.setString(1, Lsn.format(start));
            ps.setString(2, Lsn.format(end));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Row(Lsn.parse(rs.getString(1)), Lsn.parse(rs.getString(2)),
                            Lsn.parse(rs.getString(3)), rs.getString(4), rs.getString(5), rs.getString(6),
                            rs.getInt(7), rs.getInt(8), rs.getInt(9), normalise(rs.getString(10))));
                }
            }
        }
        return out;
    }

    /**
     * Block references as pg_walinspect renders them (XLogRecGetBlockRefInfo, detailed, not pretty): each
     * {@code blkref #N: ...} after a space; none is '' on 15 and NULL on 16 on. Only that is normalised.
     */
    private static String normalise(String blockRef) {
        return blockRef == null ? "" : blockRef.trim();
    }

    /** Our record as the oracle's row. */
    private static Row ours(XLogRecord r) {
        List<String> blocks = new ArrayList<>();
        for (String b : PgWaldumpParityIT.expectedBlockLines(r, r.format())) {
            blocks.add(b.trim());
        }
        return new Row(r.lsn(), r.endLsn(), r.prev(), Integer.toUnsignedString(r.xid()), Rmgrs.name(r.rmid()),
                Rmgrs.displayId(r.format(), r.rmid(), r.info()), r.totalLength(), r.mainDataLength(), r.fpiLength(),
                String.join(" ", blocks));
    }

    private static void compare(XLogRecord r, Row theirs) {
        Row mine = ours(r);
        if (!mine.equals(theirs)) {
            fail("mismatch at " + Lsn.format(r.lsn()) + "\n  ours:          " + line(mine) + "\n  pg_walinspect: "
                    + line(theirs));
        }
    }

    private static String line(Row r) {
        return String.format("lsn %s end %s prev %s xid %s %s/%s len %d main %d fpi %d blocks [%s]",
                Lsn.format(r.lsn()), Lsn.format(r.end()), Lsn.format(r.prev()), r.xid(), r.rmgr(), r.type(),
                r.length(), r.mainLength(), r.fpiLength(), r.blockRef());
    }

    /** pg_get_wal_stats per record type: count, record bytes (without images), image bytes, both. */
    private static void compareStats(Connection c, WalFormat format, PgWaldumpParityIT.Tally t, long first, long end)
            throws Exception {
        Map<String, String> ours = new TreeMap<>();
        for (Map.Entry<Integer, long[]> e : t.stats.entrySet()) {
            int rmid = e.getKey() >> 4;
            int slot = e.getKey() & 0xF;
            long[] s = e.getValue();
            ours.put(Rmgrs.statsName(format, rmid, slot << 4), s[0] + " " + s[1] + " " + s[2] + " " + (s[1] + s[2]));
        }
        Map<String, String> theirs = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT \"resource_manager/record_type\", count, record_size,"
                + " fpi_size, combined_size FROM pg_get_wal_stats(?::pg_lsn, ?::pg_lsn, true) WHERE count > 0")) {
            ps.setString(1, Lsn.format(first));
            ps.setString(2, Lsn.format(end));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    theirs.put(rs.getString(1), rs.getLong(2) + " " + rs.getLong(3) + " " + rs.getLong(4) + " "
                            + rs.getLong(5));
                }
            }
        }
        assertEquals(String.join("\n", render(theirs)), String.join("\n", render(ours)),
                "pg_get_wal_stats per record type (name count record_size fpi_size combined_size)");
    }

    private static List<String> render(Map<String, String> m) {
        List<String> out = new ArrayList<>();
        m.forEach((k, v) -> out.add(k + " " + v));
        return out;
    }
}
