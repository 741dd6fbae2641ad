package io.walshadow.xact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.testing.LocalPg;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.WalSegmentReader;
import io.walshadow.wal.XLogRecord;
import io.walshadow.xact.XactParseException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL 15 as the oracle: a workload on the local server produces every kind of transaction record (commits
 * with and without catalog changes, &gt; 64 subtransactions and their ASSIGNMENT records, savepoint rollbacks, aborts
 * that drop created tables, PREPARE / COMMIT PREPARED / ROLLBACK PREPARED with subtransactions and DDL,
 * synchronous_commit = remote_apply, replication origins, CREATE/DROP DATABASE, a catalog VACUUM FULL, a
 * FOR ALL TABLES publication, a tablespace); its WAL range is read with {@link WalSegmentReader}, every
 * Transaction record is parsed and rendered as pg_waldump would ({@link PgXactDesc}) and compared, record by
 * record, with pg_waldump's own output (TZ=UTC) for the same LSN. Then the parse is checked against what the
 * workload knows (xids, gids, oids, origins), and every real record is cut at every length.
 */
class XactPgWaldumpOracleIT {
    private static final Pattern RECORD_LINE = Pattern.compile(
            "^rmgr: (\\S+)\\s+len \\(rec/tot\\):\\s*(\\d+)/\\s*(\\d+), tx:\\s*(\\d+), lsn: ([0-9A-F]+/[0-9A-F]+),"
                    + " prev ([0-9A-F]+/[0-9A-F]+), desc: (.*)$");

    /** A Transaction record of the range, as we read it and as pg_waldump printed it. */
    record Seen(XLogRecord record, XactRecord parsed, String pgDesc) {}

    private static final List<Seen> SEEN = new ArrayList<>();
    private static final Workload W = new Workload();

    @BeforeAll
    static void runWorkloadAndReadItsWal() throws Exception {
        W.sfx = Long.toString(System.nanoTime(), 36);
        Path walDir = LocalPg.walDir();
        try (Connection c = LocalPg.connect(); Connection c2 = LocalPg.connect(); Connection slot = LocalPg.connect()) {
            WalFormat format = WalFormat.forServerVersionNum(LocalPg.serverVersionNum(c));
            int segSize = LocalPg.segmentSize(c);
            int tli = LocalPg.timeline(c);
            assertEquals("logical", LocalPg.queryString(c, "SHOW wal_level"), "the workload expects wal_level=logical");
            W.catversion = LocalPg.queryString(c, "SELECT catalog_version_no FROM pg_control_system()");
            // keeps the range's segments from being recycled; goes away with its session
            LocalPg.exec(slot, "SELECT pg_create_physical_replication_slot('xq_slot_" + W.sfx + "', true, true)");
            long start = LocalPg.currentLsn(c);
            try {
                W.run(c, c2);
            } finally {
                W.cleanup(c, c2);
            }
            long end = LocalPg.flushLsn(c);
            W.nextFullXid = Long.parseLong(LocalPg.queryString(c, "SELECT pg_current_xact_id()::text"));

            Map<Long, String[]> pg = new TreeMap<>(Long::compareUnsigned);
            for (String line : waldump("-p", walDir.toString(), "-s", Lsn.format(start), "-e", Lsn.format(end),
                    "-r", "Transaction")) {
                Matcher m = RECORD_LINE.matcher(line);
                if (!m.matches()) {
                    fail("unexpected pg_waldump line: " + line);
                }
                pg.put(Lsn.parse(m.group(5)), new String[] {m.group(3), m.group(4), m.group(7)});
            }
            assertFalse(pg.isEmpty(), "pg_waldump printed no Transaction record");
            long first = pg.keySet().iterator().next();

            Set<Long> ours = new HashSet<>();
            try (WalSegmentReader reader = new WalSegmentReader(walDir, format, segSize, tli, first, end)) {
                XLogRecord r;
                while ((r = reader.next()) != null) {
                    if (r.rmid() != Rmgrs.RM_XACT_ID) {
                        continue;
                    }
                    String[] p = pg.get(r.lsn());
                    if (p == null) {
                        fail("pg_waldump printed no Transaction record at " + Lsn.format(r.lsn()) + ": " + r);
                    }
                    assertEquals(p[0], Integer.toString(r.totalLength()), "tot_len at " + Lsn.format(r.lsn()));
                    assertEquals(p[1], Integer.toUnsignedString(r.xid()), "tx at " + Lsn.format(r.lsn()));
                    ours.add(r.lsn());
                    SEEN.add(new Seen(r, XactRecordParser.parse(r), p[2]));
                }
            }
            for (long lsn : pg.keySet()) {
                assertTrue(ours.contains(lsn), "our reader found no Transaction record at " + Lsn.format(lsn));
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // The comparison with pg_waldump
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void everyTransactionRecordDescribesLikePgWaldump() {
        PgXactDesc desc = new PgXactDesc(W.catversion);
        Map<String, Integer> kinds = new TreeMap<>();
        Map<String, Integer> features = new TreeMap<>();
        int mismatches = 0;
        StringBuilder report = new StringBuilder();
        for (Seen s : SEEN) {
            String ours = desc.describe(s.parsed());
            if (!ours.equals(s.pgDesc())) {
                if (mismatches++ < 10) {
                    report.append("\nat ").append(Lsn.format(s.record().lsn())).append("\n  pg_waldump: ")
                            .append(s.pgDesc()).append("\n  ours:       ").append(ours);
                }
            }
            kinds.merge(s.parsed().opName(), 1, Integer::sum);
            for (String f : List.of("; rels:", "; subxacts:", "; dropped stats:", "; inval msgs:", " catcache ",
                    " catalog ", " relcache ", " relcache 0", " snapshot ", "; relcache init file inval",
                    "; apply_feedback", "; sync", "; origin:", "rels(commit)", "rels(abort)", "commit dropped stats",
                    "abort dropped stats", "pg_tblspc/", "global/")) {
                if (s.pgDesc().contains(f)) {
                    features.merge(s.parsed().opName() + f, 1, Integer::sum);
                }
            }
        }
        System.out.printf("XactPgWaldumpOracleIT: %d Transaction records compared with pg_waldump, %d mismatches;"
                + " kinds %s%n  features %s%n", SEEN.size(), mismatches, kinds, features);
        assertEquals(0, mismatches, mismatches + " records differ from pg_waldump:" + report);

        for (String k : List.of("COMMIT", "ABORT", "PREPARE", "COMMIT_PREPARED", "ABORT_PREPARED", "ASSIGNMENT",
                "INVALIDATION")) {
            assertTrue(kinds.containsKey(k), "no " + k + " record compared: " + kinds);
        }
        List<String> expect = new ArrayList<>(List.of("COMMIT; rels:", "COMMIT; subxacts:", "COMMIT; dropped stats:",
                "COMMIT catalog ", "COMMIT relcache 0", "COMMIT; relcache init file inval", "COMMIT; apply_feedback",
                "COMMIT; sync", "COMMIT; origin:", "ABORT; rels:", "ABORT; subxacts:", "ABORT; dropped stats:",
                "PREPARErels(commit)", "PREPARErels(abort)", "PREPAREcommit dropped stats",
                "PREPAREabort dropped stats", "PREPARE; subxacts:", "PREPARE; inval msgs:", "PREPARE; origin:",
                "COMMIT_PREPARED; inval msgs:", "COMMIT_PREPARED; subxacts:", "COMMIT_PREPARED; origin:",
                "ABORT_PREPARED; rels:", "ABORT_PREPARED; subxacts:", "ABORT_PREPARED; origin:",
                "ABORT_PREPARED; dropped stats:", "INVALIDATION snapshot "));
        if (W.tablespaceOid != 0) {
            expect.add("COMMITpg_tblspc/");
        }
        for (String f : expect) {
            assertTrue(features.containsKey(f), "no " + f + " in the compared records: " + features);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // What the workload knows
    // ------------------------------------------------------------------------------------------------------------

    private static <T extends XactRecord> List<T> all(Class<T> type, Predicate<T> p) {
        List<T> out = new ArrayList<>();
        for (Seen s : SEEN) {
            if (type.isInstance(s.parsed()) && p.test(type.cast(s.parsed()))) {
                out.add(type.cast(s.parsed()));
            }
        }
        return out;
    }

    private static <T extends XactRecord> T one(Class<T> type, String what, Predicate<T> p) {
        List<T> l = all(type, p);
        assertEquals(1, l.size(), what + ": " + l);
        return l.get(0);
    }

    private static XactCommit commitOf(long fullXid) {
        return one(XactCommit.class, "commit of " + fullXid, c -> !c.isPrepared() && c.xid() == (int) fullXid);
    }

    private static XactAbort abortOf(long fullXid) {
        return one(XactAbort.class, "abort of " + fullXid, a -> !a.isPrepared() && a.xid() == (int) fullXid);
    }

    @Test
    void parsedRecordsAgreeWithTheWorkload() {
        int db = W.dbOid;
        long now = W.serverNowMicros;

        // CREATE TABLE: relcache invalidation of the new relation, in our database, at about now
        XactCommit create = commitOf(W.createXid);
        assertTrue(create.invals().relcacheRelIds(db).contains(W.t1Oid), create.toString());
        assertEquals(db, create.dbInfo().dbId());
        assertEquals(1663, create.dbInfo().tsId());
        assertTrue(Math.abs(PgTimestamps.toUnixMicros(create.xactTime()) - now) < 600_000_000L,
                "commit time " + PgTimestamps.toInstant(create.xactTime()) + " vs server clock " + now);
        assertTrue(create.rels().isEmpty() && create.subxids().isEmpty());

        // plain INSERT: nothing but the time (wal_level=logical adds dbinfo)
        XactCommit insert = commitOf(W.insertXid);
        assertTrue(insert.invals().isEmpty() && insert.rels().isEmpty() && insert.droppedStats().isEmpty());
        assertNull(insert.origin());
        assertFalse(insert.applyFeedback() || insert.forceSyncCommit() || insert.relcacheInitFileInval());

        // more than 64 subtransactions: ASSIGNMENT records, the commit's authoritative list, rolled back subxacts
        XactCommit big = commitOf(W.bigXid);
        // committed: every savepoint that inserted and was not rolled back, plus the subtransaction each ROLLBACK TO
        // restarts, which got an xid when its child wrote (AssignTransactionId gives parents xids first)
        assertTrue(new HashSet<>(big.subxids()).containsAll(W.bigCommitted), big.subxids().toString());
        assertEquals(W.bigCommitted.size() + W.bigRolledBack.size(), big.subxids().size());
        for (int x : W.bigRolledBack) {
            assertFalse(big.subxids().containsXid(x), "rolled back subxid " + x + " listed as committed");
        }
        for (int x : big.subxids()) {
            assertTrue(TransactionIds.follows(x, big.xid()), "subxid " + x + " follows its top " + big.xid());
        }
        Set<Integer> assigned = new HashSet<>();
        List<XactAssignment> assignments = all(XactAssignment.class, a -> a.xtop() == (int) W.bigXid);
        for (XactAssignment a : assignments) {
            // written by the subtransaction whose xid assignment filled the batch, not by the top
            assertEquals(a.subxids().getInt(a.subxids().size() - 1), a.recordXid(), a.toString());
            assigned.addAll(a.subxids());
        }
        assertTrue(assigned.size() >= 64 && !assignments.isEmpty(), "assigned subxids " + assigned.size());
        for (int x : assigned) {
            assertTrue(big.subxids().containsXid(x) || W.bigRolledBack.contains(x), "assigned subxid " + x);
        }
        // each rolled-back savepoint wrote an ABORT for its subxid (it had no children)
        for (int x : W.bigRolledBack) {
            XactAbort a = abortOf(x & 0xFFFFFFFFL);
            assertTrue(a.subxids().isEmpty(), a.toString());
        }
        // the DROP TABLE in a subtransaction: rels, dropped stats, invals, subxacts and dbinfo in one commit
        assertTrue(big.rels().contains(W.droppedInBigRel), big.rels().toString());
        assertTrue(big.droppedStats().contains(new DroppedStatsItem(2, db, W.droppedInBigOid)));
        assertTrue(big.invals().relcacheRelIds(db).contains(W.droppedInBigOid));
        assertTrue(big.hadAccessExclusiveLocks());
        // the DDL rolled back with its savepoint: a subtransaction ABORT dropping the new file
        assertTrue(all(XactAbort.class, a -> a.rels().contains(W.rolledBackSubRel)).size() == 1);
        // INVALIDATIONS at command end, written by a subtransaction
        assertFalse(all(XactInvalidations.class, i -> big.subxids().containsXid(i.recordXid())).isEmpty());

        // an aborted transaction that created a table drops its files and stats
        XactAbort ab = abortOf(W.abortXid);
        assertTrue(ab.rels().contains(W.abortedRel), ab.toString());
        assertTrue(ab.droppedStats().contains(new DroppedStatsItem(2, db, W.abortedOid)), ab.toString());
        assertEquals(W.abortReleased, new HashSet<>(ab.subxids()));
        assertNull(ab.dbInfo());
        XactAbort open = abortOf(W.abortOpenSubxid & 0xFFFFFFFFL);
        assertTrue(open.subxids().isEmpty() && open.rels().isEmpty(), open.toString());
        assertTrue(Long.compareUnsigned(open.lsn(), ab.lsn()) < 0, "the open subtransaction aborts first");

        // PREPARE + COMMIT PREPARED
        XactPrepare p1 = one(XactPrepare.class, "p1", p -> p.gid().equals(W.gid("p1")));
        assertEquals((int) W.p1Xid, p1.xid());
        assertEquals(p1.xid(), p1.recordXid());
        assertEquals(db, p1.dbId());
        // a, c, and the b that ROLLBACK TO SAVEPOINT b restarted (given an xid before its child c)
        assertTrue(new HashSet<>(p1.subxids()).containsAll(W.p1Committed), p1.subxids().toString());
        assertEquals(3, p1.subxids().size());
        assertFalse(p1.subxids().containsXid(W.p1RolledBack));
        abortOf(W.p1RolledBack & 0xFFFFFFFFL);
        assertTrue(p1.abortRels().contains(W.p1Rel), p1.toString());
        assertTrue(p1.abortStats().contains(new DroppedStatsItem(2, db, W.p1Oid)));
        assertTrue(p1.commitRels().isEmpty());
        assertTrue(p1.invals().relcacheRelIds(db).contains(W.p1Oid));
        assertTrue(p1.twoPhaseRecords().stream().anyMatch(r -> r.rmid() == XactInfo.TWOPHASE_RM_LOCK_ID));
        assertEquals(W.ownerOid, p1.owner());
        XactCommit cp1 = one(XactCommit.class, "commit prepared p1", c -> c.isPrepared() && c.xid() == p1.xid());
        assertEquals(W.gid("p1"), cp1.gid());
        assertEquals(p1.subxids(), cp1.subxids());
        assertEquals(p1.invals(), cp1.invals());
        assertEquals(db, cp1.dbInfo().dbId());
        assertTrue(Long.compareUnsigned(cp1.lsn(), p1.lsn()) > 0);

        // PREPARE of a DROP TABLE, ROLLBACK PREPARED
        XactPrepare p2 = one(XactPrepare.class, "p2", p -> p.gid().equals(W.gid("p2")));
        assertTrue(p2.commitRels().contains(W.p1Rel));
        assertTrue(p2.commitStats().contains(new DroppedStatsItem(2, db, W.p1Oid)));
        XactAbort ap2 = one(XactAbort.class, "rollback prepared p2", a -> a.isPrepared() && a.xid() == p2.xid());
        assertEquals(W.gid("p2"), ap2.gid());
        assertTrue(ap2.rels().isEmpty() && ap2.droppedStats().isEmpty());

        // a prepared transaction with 70 subtransactions and a new table, rolled back
        XactPrepare p3 = one(XactPrepare.class, "p3", p -> p.gid().equals(W.gid("p3")));
        assertEquals(70, p3.subxids().size());
        XactAbort ap3 = one(XactAbort.class, "rollback prepared p3", a -> a.isPrepared() && a.xid() == p3.xid());
        assertEquals(p3.subxids(), ap3.subxids());
        assertEquals(p3.abortRels(), ap3.rels());
        assertEquals(p3.abortStats(), ap3.droppedStats());
        assertEquals(db, ap3.dbInfo().dbId());

        // a read-only prepared transaction with a non-ASCII gid
        XactPrepare pu = one(XactPrepare.class, "p-ü", p -> p.gid().equals(W.gid("ü")));
        assertTrue(pu.subxids().isEmpty() && pu.invals().isEmpty() && pu.commitRels().isEmpty());
        one(XactCommit.class, "commit prepared p-ü", c -> c.isPrepared() && W.gid("ü").equals(c.gid()));

        // synchronous_commit = remote_apply
        assertTrue(commitOf(W.remoteApplyXid).applyFeedback());
        assertFalse(commitOf(W.asyncXid).applyFeedback());

        // replication origins
        XactCommit oc = commitOf(W.originCommitXid);
        assertEquals(new XactOrigin(W.originId, W.originLsn, W.originTs), oc.origin());
        XactPrepare op = one(XactPrepare.class, "o1", p -> p.gid().equals(W.gid("o1")));
        assertEquals(new XactOrigin(W.originId, W.originLsn + 8, W.originTs + 1), op.origin());
        XactAbort oap = one(XactAbort.class, "rollback prepared o1", a -> a.isPrepared() && a.xid() == op.xid());
        assertEquals(new XactOrigin(W.originId, W.originLsn + 8, W.originTs + 1), oap.origin());
        assertFalse(oap.rels().isEmpty() || oap.droppedStats().isEmpty());
        XactPrepare op2 = one(XactPrepare.class, "o2", p -> p.gid().equals(W.gid("o2")));
        XactCommit ocp = one(XactCommit.class, "commit prepared o2", c -> c.isPrepared() && c.xid() == op2.xid());
        assertEquals(W.originId, ocp.origin().nodeId());
        // an abort (not prepared) in the origin session carries no origin in 15
        assertNull(abortOf(W.originAbortXid).origin());

        // own database: CREATE DATABASE, VACUUM FULL of a catalog, FOR ALL TABLES publication, DROP FUNCTION
        List<XactCommit> inDb2 = all(XactCommit.class, c -> c.dbInfo() != null && c.dbInfo().dbId() == W.db2Oid);
        XactCommit vacuumFull = inDb2.stream().filter(c -> c.invals().resetsCatalog(W.db2Oid)).findFirst().orElseThrow();
        assertTrue(vacuumFull.invals().catalogResetIds(W.db2Oid).contains(2601), vacuumFull.toString()); // pg_am
        assertTrue(vacuumFull.relcacheInitFileInval());
        assertTrue(vacuumFull.rels().stream().anyMatch(r -> r.dbOid() == W.db2Oid));
        assertTrue(inDb2.stream().anyMatch(c -> c.invals().resetsAllRelations(W.db2Oid)), "publication FOR ALL TABLES");
        assertFalse(inDb2.stream().anyMatch(c -> c.invals().relcacheRelIds(W.db2Oid).contains(0)));
        assertTrue(inDb2.stream().anyMatch(c -> c.droppedStats().stream().anyMatch(
                s -> s.kind() == DroppedStatsItem.PGSTAT_KIND_FUNCTION && s.objOid() == W.db2FuncOid)));
        XactCommit dropDb = one(XactCommit.class, "drop database", c -> c.droppedStats().contains(
                new DroppedStatsItem(DroppedStatsItem.PGSTAT_KIND_DATABASE, W.db2Oid, 0)));
        assertTrue(dropDb.forceSyncCommit());
        assertTrue(all(XactCommit.class, XactCommit::forceSyncCommit).size() >= 2);

        // a tablespace (when the test can create one)
        if (W.tablespaceOid != 0) {
            assertFalse(all(XactCommit.class, c -> c.rels().stream().anyMatch(r -> r.spcOid() == W.tablespaceOid)
                    && c.droppedStats().contains(new DroppedStatsItem(2, db, W.tsTableOid))).isEmpty());
        }

        // 64-bit xids: the next full xid after the workload is a valid reference for all of its xids
        for (long full : List.of(W.createXid, W.bigXid, W.p1Xid, W.abortXid)) {
            assertEquals(full, TransactionIds.fullXidRelativeTo(W.nextFullXid, (int) full));
            assertEquals(full, TransactionIds.fullXidRelativeTo(full, (int) full));
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Damaged copies of the real records
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void everyPrefixOfEveryRealRecordIsATruncationError() {
        int records = 0;
        long prefixes = 0;
        boolean richCommitCut = false;
        for (Seen s : SEEN) {
            XLogRecord r = s.record();
            if (r.mainDataLength() > 32 * 1024) {
                continue;
            }
            byte[] main = Arrays.copyOfRange(r.rawBytes(), r.mainDataOffset(), r.mainDataOffset() + r.mainDataLength());
            XactRecord whole = XactRecordParser.parse(r.lsn(), r.info(), r.xid(), r.toplevelXid(), r.origin(), main,
                    0, main.length);
            assertEquals(s.parsed(), whole);
            for (int len = 0; len < main.length; len++) {
                byte[] cut = Arrays.copyOf(main, len);
                try {
                    XactRecord partial = XactRecordParser.parse(r.lsn(), r.info(), r.xid(), r.toplevelXid(),
                            r.origin(), cut, 0, len);
                    fail("a " + len + "-byte prefix of " + Lsn.format(r.lsn()) + " parsed: " + partial);
                } catch (XactParseException e) {
                    assertEquals(Reason.TRUNCATED, e.reason(), e.getMessage());
                    assertEquals(r.lsn(), e.lsn());
                    assertEquals(r.info(), e.info());
                    assertNotNull(e.field());
                    assertTrue(e.getMessage().contains(Lsn.format(r.lsn())), e.getMessage());
                }
                prefixes++;
            }
            records++;
            if (s.parsed() instanceof XactCommit c && !c.subxids().isEmpty() && !c.invals().isEmpty()
                    && !c.rels().isEmpty() && !c.droppedStats().isEmpty() && c.dbInfo() != null) {
                richCommitCut = true;
            }
        }
        System.out.printf("XactPgWaldumpOracleIT: %d prefixes of %d real records all fail as TRUNCATED%n",
                prefixes, records);
        assertTrue(richCommitCut, "no commit with subxacts, rels, dropped stats, invals and dbinfo was cut");
        assertTrue(records > 100, records + " records");
    }

    @Test
    void randomDamageOfRealRecordsOnlyEverThrowsXactParseException() {
        Random rnd = new Random(1234);
        int parsed = 0;
        int failed = 0;
        for (Seen s : SEEN) {
            XLogRecord r = s.record();
            byte[] main = Arrays.copyOfRange(r.rawBytes(), r.mainDataOffset(), r.mainDataOffset() + r.mainDataLength());
            for (int round = 0; round < 200 && main.length > 0; round++) {
                byte[] b = main.clone();
                for (int f = 1 + rnd.nextInt(2); f > 0; f--) {
                    // bias towards the counts and flags near the start
                    int at = rnd.nextBoolean() ? rnd.nextInt(Math.min(b.length, 80)) : rnd.nextInt(b.length);
                    b[at] = (byte) (rnd.nextInt(3) == 0 ? 0xFF : rnd.nextInt(256));
                }
                try {
                    assertInstanceOf(XactRecord.class,
                            XactRecordParser.parse(r.lsn(), r.info(), r.xid(), 0, 0, b, 0, b.length));
                    parsed++;
                } catch (XactParseException e) {
                    failed++;
                }
            }
        }
        assertTrue(parsed > 0 && failed > 0, parsed + " parsed, " + failed + " failed");
    }

    // ------------------------------------------------------------------------------------------------------------
    // pg_waldump
    // ------------------------------------------------------------------------------------------------------------

    static List<String> waldump(String... args) throws IOException, InterruptedException {
        return io.walshadow.testing.PgWaldump.run(java.nio.charset.StandardCharsets.UTF_8, args);
    }

    // ------------------------------------------------------------------------------------------------------------
    // The workload
    // ------------------------------------------------------------------------------------------------------------

    /** Runs the SQL and remembers what the checks need: full xids, oids, relfilenodes, gids. */
    static final class Workload {
        String sfx;
        String catversion;
        int dbOid;
        int ownerOid;
        long serverNowMicros;
        long nextFullXid;
        long createXid;
        int t1Oid;
        long insertXid;
        long bigXid;
        final Set<Integer> bigCommitted = new HashSet<>();
        final Set<Integer> bigRolledBack = new HashSet<>();
        final Set<Integer> p1Committed = new HashSet<>();
        int p1RolledBack;
        int droppedInBigOid;
        RelFileLocator droppedInBigRel;
        RelFileLocator rolledBackSubRel;
        long abortXid;
        final Set<Integer> abortReleased = new HashSet<>();
        int abortOpenSubxid;
        int abortedOid;
        RelFileLocator abortedRel;
        long p1Xid;
        int p1Oid;
        RelFileLocator p1Rel;
        long remoteApplyXid;
        long asyncXid;
        int originId;
        long originLsn = 0x1_0ABC_DEF0L;
        long originTs = PgTimestamps.fromInstant(Instant.parse("2020-01-02T03:04:05.678901Z"));
        long originCommitXid;
        long originAbortXid;
        int db2Oid;
        int db2FuncOid;
        int tablespaceOid;
        int tsTableOid;
        Path tablespaceDir;

        String n(String base) {
            return "xq_" + base + "_" + sfx;
        }

        String gid(String base) {
            return "xq-" + sfx + "-" + base;
        }

        static long q(Connection c, String sql) throws SQLException {
            return Long.parseLong(LocalPg.queryString(c, sql));
        }

        static long xid(Connection c) throws SQLException {
            return q(c, "SELECT pg_current_xact_id()::text");
        }

        RelFileLocator locator(Connection c, String table) throws SQLException {
            String[] p = LocalPg.queryString(c, "SELECT concat_ws('/', CASE WHEN reltablespace = 0 THEN"
                    + " (SELECT dattablespace FROM pg_database WHERE datname = current_database()) ELSE reltablespace"
                    + " END, (SELECT oid FROM pg_database WHERE datname = current_database()), relfilenode)"
                    + " FROM pg_class WHERE oid = '" + table + "'::regclass").split("/");
            return new RelFileLocator(Integer.parseUnsignedInt(p[0]), Integer.parseUnsignedInt(p[1]),
                    Integer.parseUnsignedInt(p[2]));
        }

        /** The xid that inserted a row: in a subtransaction, its subxid. */
        static int rowXmin(Connection c, String table, int id) throws SQLException {
            return (int) q(c, "SELECT xmin::text::int8 FROM " + table + " WHERE id = " + id);
        }

        static int oid(Connection c, String table) throws SQLException {
            return (int) q(c, "SELECT '" + table + "'::regclass::oid::int8");
        }

        void run(Connection c, Connection c2) throws Exception {
            LocalPg.exec(c, "SET application_name = 'xq_oracle'");
            dbOid = (int) q(c, "SELECT oid::int8 FROM pg_database WHERE datname = current_database()");
            ownerOid = (int) q(c, "SELECT oid::int8 FROM pg_roles WHERE rolname = current_user");
            serverNowMicros = q(c, "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::int8");
            String t1 = n("t1");

            // DDL and plain commits
            LocalPg.exec(c, "BEGIN", "CREATE TABLE " + t1 + " (id int PRIMARY KEY, v text)");
            createXid = xid(c);
            t1Oid = oid(c, t1);
            LocalPg.exec(c, "COMMIT");
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + t1 + " VALUES (0, 'zero')");
            insertXid = xid(c);
            LocalPg.exec(c, "COMMIT",
                    "ALTER TABLE " + t1 + " ADD COLUMN w int",
                    "CREATE INDEX ON " + t1 + " (v)",
                    "TRUNCATE " + t1,
                    "CREATE TABLE " + n("dropme") + " (a int, b text)",
                    "CREATE TEMP TABLE " + n("tmp") + " (a int)",
                    "DROP TABLE " + n("tmp"));

            // > 64 subtransactions: ASSIGNMENT records; rollbacks to savepoints; DDL inside subtransactions
            droppedInBigOid = oid(c, n("dropme"));
            droppedInBigRel = locator(c, n("dropme"));
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + t1 + " VALUES (1, 'top')");
            bigXid = xid(c);
            for (int i = 0; i < 80; i++) {
                LocalPg.exec(c, "SAVEPOINT s" + i, "INSERT INTO " + t1 + " VALUES (" + (100 + i) + ", 'sub')");
                int subxid = rowXmin(c, t1, 100 + i);
                if (i == 11) {
                    LocalPg.exec(c, "CREATE TABLE " + n("sub") + " (a int)");
                }
                if (i == 17) {
                    LocalPg.exec(c, "CREATE TABLE " + n("subrb") + " (a int)");
                    rolledBackSubRel = locator(c, n("subrb"));
                }
                if (i == 40) {
                    LocalPg.exec(c, "DROP TABLE " + n("dropme"));
                }
                if (i % 7 == 3) {
                    LocalPg.exec(c, "ROLLBACK TO SAVEPOINT s" + i);
                    bigRolledBack.add(subxid);
                } else {
                    bigCommitted.add(subxid);
                    if (i % 5 == 0) {
                        LocalPg.exec(c, "RELEASE SAVEPOINT s" + i);
                    }
                }
            }
            LocalPg.exec(c, "COMMIT");

            // an aborted transaction that created a table, with two subtransactions
            // (a and b are released into the top and listed by its ABORT; c is still open and aborts on its own)
            String ab = n("aborted");
            LocalPg.exec(c, "BEGIN", "CREATE TABLE " + ab + " (id int, a text)", "INSERT INTO " + ab
                    + " VALUES (1, 'x')", "SAVEPOINT a", "INSERT INTO " + ab + " VALUES (2, 'y')", "SAVEPOINT b",
                    "INSERT INTO " + ab + " VALUES (3, 'z')", "RELEASE SAVEPOINT a", "SAVEPOINT c",
                    "INSERT INTO " + ab + " VALUES (4, 'w')");
            abortReleased.add(rowXmin(c, ab, 2));
            abortReleased.add(rowXmin(c, ab, 3));
            abortOpenSubxid = rowXmin(c, ab, 4);
            abortXid = xid(c);
            abortedOid = oid(c, n("aborted"));
            abortedRel = locator(c, n("aborted"));
            LocalPg.exec(c, "ROLLBACK");

            // two-phase commit with subtransactions and DDL
            LocalPg.exec(c, "BEGIN", "INSERT INTO " + t1 + " VALUES (2, 'p1')");
            p1Xid = xid(c);
            LocalPg.exec(c, "SAVEPOINT a", "INSERT INTO " + t1 + " VALUES (3, 'p1a')", "SAVEPOINT b",
                    "INSERT INTO " + t1 + " VALUES (4, 'p1b')");
            p1Committed.add(rowXmin(c, t1, 3));
            p1RolledBack = rowXmin(c, t1, 4);
            LocalPg.exec(c, "ROLLBACK TO SAVEPOINT b", "SAVEPOINT c", "INSERT INTO " + t1 + " VALUES (5, 'p1c')",
                    "CREATE TABLE " + n("p1") + " (a int, b text)");
            p1Committed.add(rowXmin(c, t1, 5));
            p1Oid = oid(c, n("p1"));
            p1Rel = locator(c, n("p1"));
            LocalPg.exec(c, "PREPARE TRANSACTION '" + gid("p1") + "'", "COMMIT PREPARED '" + gid("p1") + "'");
            LocalPg.exec(c, "BEGIN", "DROP TABLE " + n("p1"), "INSERT INTO " + t1 + " VALUES (6, 'p2')",
                    "PREPARE TRANSACTION '" + gid("p2") + "'", "ROLLBACK PREPARED '" + gid("p2") + "'");
            LocalPg.exec(c, "BEGIN", "CREATE TABLE " + n("p3") + " (a int)");
            for (int i = 0; i < 70; i++) {
                LocalPg.exec(c, "SAVEPOINT s" + i, "INSERT INTO " + n("p3") + " VALUES (" + i + ")");
            }
            LocalPg.exec(c, "PREPARE TRANSACTION '" + gid("p3") + "'", "ROLLBACK PREPARED '" + gid("p3") + "'");
            LocalPg.exec(c, "BEGIN", "SELECT 1", "PREPARE TRANSACTION '" + gid("ü") + "'",
                    "COMMIT PREPARED '" + gid("ü") + "'");

            // commit flags
            LocalPg.exec(c, "BEGIN", "SET LOCAL synchronous_commit = remote_apply",
                    "INSERT INTO " + t1 + " VALUES (7, 'apply')");
            remoteApplyXid = xid(c);
            LocalPg.exec(c, "COMMIT", "BEGIN", "SET LOCAL synchronous_commit = off",
                    "INSERT INTO " + t1 + " VALUES (8, 'async')");
            asyncXid = xid(c);
            LocalPg.exec(c, "COMMIT");

            // replication origins (commit, prepare, rollback prepared with dropped files, commit prepared)
            LocalPg.exec(c, "SELECT pg_replication_origin_create('" + n("origin") + "')");
            originId = (int) q(c, "SELECT pg_replication_origin_oid('" + n("origin") + "')::int8");
            String setup = "SELECT pg_replication_origin_xact_setup('%s', '%s')";
            LocalPg.exec(c2, "SELECT pg_replication_origin_session_setup('" + n("origin") + "')");
            LocalPg.exec(c2, "BEGIN", String.format(setup, Lsn.format(originLsn), ts(originTs)),
                    "INSERT INTO " + t1 + " VALUES (9, 'origin')");
            originCommitXid = xid(c2);
            LocalPg.exec(c2, "COMMIT");
            LocalPg.exec(c2, "BEGIN", "INSERT INTO " + t1 + " VALUES (10, 'origin abort')");
            originAbortXid = xid(c2);
            LocalPg.exec(c2, "ROLLBACK");
            LocalPg.exec(c2, "BEGIN", String.format(setup, Lsn.format(originLsn + 8), ts(originTs + 1)),
                    "CREATE TABLE " + n("o1") + " (a text)", "INSERT INTO " + n("o1") + " VALUES ('o')",
                    "PREPARE TRANSACTION '" + gid("o1") + "'", "ROLLBACK PREPARED '" + gid("o1") + "'");
            LocalPg.exec(c2, "BEGIN", String.format(setup, Lsn.format(originLsn + 16), ts(originTs + 2)),
                    "INSERT INTO " + t1 + " VALUES (11, 'o2')", "PREPARE TRANSACTION '" + gid("o2") + "'",
                    "COMMIT PREPARED '" + gid("o2") + "'");
            LocalPg.exec(c2, "SELECT pg_replication_origin_session_reset()");

            // own database: ForceSyncCommit, a catalog rewrite (whole-catalog and init file invalidations), a
            // FOR ALL TABLES publication (relcache invalidation of every relation), function stats dropped
            String db2 = n("db");
            LocalPg.exec(c, "CREATE DATABASE " + db2 + " TEMPLATE template0");
            db2Oid = (int) q(c, "SELECT oid::int8 FROM pg_database WHERE datname = '" + db2 + "'");
            try (Connection d = connect(db2)) {
                LocalPg.exec(d, "CREATE TABLE t (a int)", "VACUUM FULL pg_am",
                        "CREATE PUBLICATION " + n("pub") + " FOR ALL TABLES",
                        "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'");
                db2FuncOid = (int) q(d, "SELECT 'f()'::regprocedure::oid::int8");
                LocalPg.exec(d, "DROP FUNCTION f()");
            }
            LocalPg.exec(c, "DROP DATABASE " + db2 + " WITH (FORCE)");

            tablespace(c);

            LocalPg.exec(c, "DROP TABLE " + t1 + ", " + n("sub"));
        }

        private void tablespace(Connection c) throws SQLException {
            // only when the server runs here and this process may hand a directory to its owner
            String host = LocalPg.host();
            if (!(host.equals("127.0.0.1") || host.equals("localhost")) || !Files.isDirectory(LocalPg.dataDir())) {
                System.out.println("XactPgWaldumpOracleIT: server not local, no tablespace case");
                return;
            }
            try {
                tablespaceDir = Files.createTempDirectory("xq_ts_");
                Files.setOwner(tablespaceDir, Files.getOwner(LocalPg.dataDir()));
                Files.setPosixFilePermissions(tablespaceDir, PosixFilePermissions.fromString("rwx------"));
            } catch (IOException | UnsupportedOperationException e) {
                System.out.println("XactPgWaldumpOracleIT: no tablespace case: " + e);
                return;
            }
            String ts = n("ts");
            LocalPg.exec(c, "CREATE TABLESPACE " + ts + " LOCATION '" + tablespaceDir + "'");
            tablespaceOid = (int) q(c, "SELECT oid::int8 FROM pg_tablespace WHERE spcname = '" + ts + "'");
            LocalPg.exec(c, "CREATE TABLE " + n("tst") + " (a int) TABLESPACE " + ts,
                    "INSERT INTO " + n("tst") + " VALUES (1)");
            tsTableOid = oid(c, n("tst"));
            LocalPg.exec(c, "DROP TABLE " + n("tst"), "DROP TABLESPACE " + ts);
        }

        static String ts(long pgMicros) {
            return PgTimestamps.toInstant(pgMicros).toString();
        }

        static Connection connect(String database) throws SQLException {
            Properties p = new Properties();
            p.setProperty("user", LocalPg.user());
            p.setProperty("password", LocalPg.password());
            return DriverManager.getConnection("jdbc:postgresql://" + LocalPg.host() + ":" + LocalPg.port() + "/"
                    + database, p);
        }

        /** Best effort: leaves no prepared transaction, origin, database, tablespace or table behind. */
        void cleanup(Connection c, Connection c2) {
            List<String> errors = new ArrayList<>();
            Runnable[] steps = {
                () -> run(errors, () -> LocalPg.exec(c2, "ROLLBACK")),
                () -> run(errors, () -> LocalPg.exec(c2, "SELECT pg_replication_origin_session_reset()"
                        + " WHERE pg_replication_origin_session_is_setup()")),
                () -> run(errors, () -> LocalPg.exec(c, "ROLLBACK")),
                () -> run(errors, () -> {
                    for (String g : LocalPg.queryColumn(c, "SELECT gid FROM pg_prepared_xacts WHERE gid LIKE 'xq-"
                            + sfx + "-%'")) {
                        LocalPg.exec(c, "ROLLBACK PREPARED '" + g + "'");
                    }
                }),
                () -> run(errors, () -> LocalPg.exec(c, "SELECT pg_replication_origin_drop(roname) FROM"
                        + " pg_replication_origin WHERE roname = '" + n("origin") + "'")),
                () -> run(errors, () -> LocalPg.exec(c, "DROP DATABASE IF EXISTS " + n("db") + " WITH (FORCE)")),
                () -> run(errors, () -> LocalPg.exec(c, "DROP TABLE IF EXISTS " + n("tst"))),
                () -> run(errors, () -> LocalPg.exec(c, "DROP TABLESPACE IF EXISTS " + n("ts"))),
                () -> run(errors, () -> {
                    for (String t : List.of("t1", "dropme", "sub", "subrb", "aborted", "p1", "p3", "o1")) {
                        LocalPg.exec(c, "DROP TABLE IF EXISTS " + n(t));
                    }
                }),
                () -> run(errors, () -> {
                    if (tablespaceDir != null && Files.exists(tablespaceDir)) {
                        try (Stream<Path> files = Files.walk(tablespaceDir)) {
                            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                                Files.deleteIfExists(p);
                            }
                        }
                    }
                }),
            };
            for (Runnable r : steps) {
                r.run();
            }
            List<String> left;
            try {
                left = LocalPg.queryColumn(c, "SELECT gid FROM pg_prepared_xacts WHERE gid LIKE 'xq-" + sfx + "-%'");
            } catch (SQLException e) {
                left = List.of("? " + e);
            }
            assertTrue(left.isEmpty(), "prepared transactions left behind: " + left);
            if (!errors.isEmpty()) {
                System.out.println("XactPgWaldumpOracleIT cleanup notes: " + errors);
            }
        }

        interface Step {
            void run() throws Exception;
        }

        private static void run(List<String> errors, Step s) {
            try {
                s.run();
            } catch (Exception e) {
                errors.add(e.getMessage());
            }
        }
    }
}
