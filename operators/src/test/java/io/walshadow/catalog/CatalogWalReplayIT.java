package io.walshadow.catalog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Lookup.NotCoveredReason;
import io.walshadow.catalog.Lookup.Outcome;
import io.walshadow.pg.JdbcCatalogSource;
import io.walshadow.testing.LocalPg;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The tracker driven by the real server's WAL: DDL runs in PostgreSQL, the commit (and running-xacts) records are
 * read back from pg_wal and applied in WAL order, and lookups before and after each boundary are checked against
 * what PostgreSQL said right after the DDL (pg_attribute, pg_relation_filenode) as the oracle.
 */
class CatalogWalReplayIT {
    final String sfx = Long.toString(System.nanoTime(), 36);

    /** The columns (attnum:name:type:dropped) and relfilenode PostgreSQL reports. */
    record Shape(int relfilenode, List<String> columns) {
    }

    /** A lookup made during the test, replayed against the deserialized history. */
    record Check(RelFileLocator locator, long lsn, Lookup expected) {
    }

    final List<Check> checks = new ArrayList<>();

    static Shape oracle(Connection c, String table) throws SQLException {
        List<String> cols = LocalPg.queryColumn(c, "SELECT attnum || ':' || attname || ':' || atttypid || ':'"
                + " || attisdropped FROM pg_attribute WHERE attrelid = '" + table + "'::regclass AND attnum > 0"
                + " ORDER BY attnum");
        return new Shape(Integer.parseInt(LocalPg.queryString(c, "SELECT pg_relation_filenode('" + table + "')")),
                cols);
    }

    static List<String> columnsOf(RelationDescriptor d) {
        List<String> out = new ArrayList<>();
        for (Column col : d.columns()) {
            out.add(col.attnum() + ":" + col.name() + ":" + Integer.toUnsignedString(col.typeOid()) + ":"
                    + col.dropped());
        }
        return out;
    }

    static int oid(Connection c, String table) throws SQLException {
        return (int) Long.parseLong(LocalPg.queryString(c, "SELECT '" + table + "'::regclass::oid"));
    }

    /** Runs the statements in one transaction; returns its xid. */
    static int xact(Connection c, String... sql) throws SQLException {
        c.setAutoCommit(false);
        try {
            LocalPg.exec(c, sql);
            int xid = (int) Long.parseLong(LocalPg.queryString(c, "SELECT pg_current_xact_id()::text"));
            c.commit();
            return xid;
        } finally {
            c.setAutoCommit(true);
        }
    }

    Lookup check(DescriptorHistory h, RelFileLocator loc, long lsn) {
        Lookup l = h.lookup(loc, lsn);
        checks.add(new Check(loc, lsn, l));
        return l;
    }

    /** Asserts the history says the relation on {@code shape}'s relfilenode has {@code shape}'s columns at lsn. */
    Lookup assertShape(DescriptorHistory h, RelFileLocator db, Shape shape, long lsn, String what) {
        Lookup l = check(h, loc(db, shape.relfilenode()), lsn);
        assertEquals(Outcome.PRESENT, l.outcome(), what + ": " + l);
        assertEquals(shape.columns(), columnsOf(l.descriptor()), what);
        return l;
    }

    static RelFileLocator loc(RelFileLocator db, int relNumber) {
        return new RelFileLocator(db.spcOid(), db.dbOid(), relNumber);
    }

    static WalFeed.Commit commitOf(List<WalFeed.Event> events, Predicate<WalFeed.Commit> p, String what) {
        WalFeed.Commit found = null;
        for (WalFeed.Event e : events) {
            if (e instanceof WalFeed.Commit c && p.test(c)) {
                assertNull(found, "one commit for " + what);
                found = c;
            }
        }
        assertNotNull(found, "commit record for " + what);
        return found;
    }

    static WalFeed.Commit commitOf(List<WalFeed.Event> events, int xid) {
        return commitOf(events, c -> c.xid() == xid, "xid " + Integer.toUnsignedString(xid));
    }

    static List<WalFeed.Heap> heapOn(List<WalFeed.Event> events, RelFileLocator loc) {
        List<WalFeed.Heap> out = new ArrayList<>();
        for (WalFeed.Event e : events) {
            if (e instanceof WalFeed.Heap hp && hp.rels().contains(loc)) {
                out.add(hp);
            }
        }
        return out;
    }

    /** Flushes, reads the new WAL, drives the tracker with it. */
    static List<WalFeed.Event> advance(Connection c, WalFeed feed, CatalogTracker t, List<CatalogChange> changes)
            throws Exception {
        long end = LocalPg.flushLsn(c);
        List<WalFeed.Event> events = feed.readUpTo(end);
        changes.addAll(feed.drive(t, events));
        return events;
    }

    static RelFileLocator dbLocator(Connection c) throws SQLException {
        return new RelFileLocator(
                Integer.parseInt(LocalPg.queryString(c, "SELECT dattablespace FROM pg_database"
                        + " WHERE datname = current_database()")),
                Integer.parseInt(LocalPg.queryString(c, "SELECT oid FROM pg_database"
                        + " WHERE datname = current_database()")), 0);
    }

    @Test
    void ddlAppliedInStepWithTheWal() throws Exception {
        String s = "cat_wal_" + sfx;
        String other = "cat_wal_x_" + sfx;
        String scratchDb = "cat_wal_db_" + sfx;
        try (Connection c = LocalPg.connect(); Connection loaderConn = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE SCHEMA " + s, "CREATE SCHEMA " + other,
                    "CREATE TABLE " + s + ".t (id int PRIMARY KEY, a text, b int)",
                    "INSERT INTO " + s + ".t VALUES (1, 'one', 1)");
            boolean dbCreated = false;
            try {
                RelFileLocator db = dbLocator(c);
                String table = s + ".t";
                int tOid = oid(c, table);
                int toastOid = Integer.parseInt(LocalPg.queryString(c, "SELECT reltoastrelid FROM pg_class"
                        + " WHERE oid = " + tOid));
                Shape shape0 = oracle(c, table);
                String startSnapshot = LocalPg.queryString(c, "SELECT pg_current_snapshot()::text");
                try (WalFeed feed = new WalFeed(c, "cat_wal_" + sfx)) {
                    CatalogFilter filter = CatalogFilter.parse(s + ".*", null);
                    CatalogTracker tracker = CatalogTracker.seed(filter, new JdbcCatalogSource(loaderConn, filter),
                            feed.start, CatalogSnapshot.Xids.parse(startSnapshot));
                    DescriptorHistory h = tracker.history();
                    List<CatalogChange> changes = new ArrayList<>();

                    // seed
                    Lookup seeded = assertShape(h, db, shape0, feed.start, "seed");
                    assertEquals(List.of(1), seeded.descriptor().identityAttnums());
                    assertEquals(toastOid, seeded.descriptor().toastRelOid());
                    Lookup toast = h.lookupRelation(toastOid, feed.start);
                    assertEquals(Outcome.PRESENT, toast.outcome());
                    assertEquals('t', toast.descriptor().relkind());
                    assertEquals(List.of("chunk_id", "chunk_seq", "chunk_data"),
                            toast.descriptor().columns().stream().map(Column::name).toList());

                    // 1. ADD COLUMN without default
                    int x1 = xact(c, "ALTER TABLE " + table + " ADD COLUMN c int");
                    Shape shape1 = oracle(c, table);
                    List<WalFeed.Event> ev = advance(c, feed, tracker, changes);
                    long c1 = commitOf(ev, x1).lsn();
                    assertShape(h, db, shape0, c1 - 1, "before ADD COLUMN");
                    Lookup l1 = assertShape(h, db, shape1, c1, "after ADD COLUMN");
                    assertFalse(l1.descriptor().column(4).hasMissingValue());

                    // 2. ADD COLUMN with a default: a missing value
                    int x2 = xact(c, "ALTER TABLE " + table + " ADD COLUMN d text DEFAULT 'dflt'");
                    Shape shape2 = oracle(c, table);
                    ev = advance(c, feed, tracker, changes);
                    long c2 = commitOf(ev, x2).lsn();
                    assertShape(h, db, shape1, c2 - 1, "before ADD COLUMN DEFAULT");
                    Lookup l2 = assertShape(h, db, shape2, c2, "after ADD COLUMN DEFAULT");
                    assertArrayEquals(MissingValues.varlena4("dflt".getBytes()), l2.descriptor().column(5).missingValue());

                    // 3. DROP COLUMN
                    int x3 = xact(c, "ALTER TABLE " + table + " DROP COLUMN b");
                    Shape shape3 = oracle(c, table);
                    ev = advance(c, feed, tracker, changes);
                    long c3 = commitOf(ev, x3).lsn();
                    assertShape(h, db, shape2, c3 - 1, "before DROP COLUMN");
                    Lookup l3 = assertShape(h, db, shape3, c3, "after DROP COLUMN");
                    assertTrue(l3.descriptor().column(3).dropped());
                    assertEquals(4, l3.descriptor().column(3).attlen(), "a dropped column keeps its storage shape");

                    // 4. RENAME COLUMN
                    int x4 = xact(c, "ALTER TABLE " + table + " RENAME COLUMN a TO a2");
                    Shape shape4 = oracle(c, table);
                    ev = advance(c, feed, tracker, changes);
                    long c4 = commitOf(ev, x4).lsn();
                    assertShape(h, db, shape3, c4 - 1, "before RENAME");
                    assertShape(h, db, shape4, c4, "after RENAME");

                    // 5. ALTER COLUMN TYPE: a rewrite into a new relfilenode, whose heap inserts precede the commit
                    int x5 = xact(c, "ALTER TABLE " + table + " ALTER COLUMN c TYPE bigint");
                    Shape shape5 = oracle(c, table);
                    assertTrue(shape5.relfilenode() != shape4.relfilenode());
                    ev = advance(c, feed, tracker, changes);
                    long c5 = commitOf(ev, x5).lsn();
                    assertShape(h, db, shape4, c5 - 1, "old relfilenode before the rewrite commit");
                    assertEquals(NotCoveredReason.REPLACED, check(h, loc(db, shape4.relfilenode()), c5).reason());
                    assertShape(h, db, shape5, c5, "new relfilenode at the rewrite commit");
                    List<WalFeed.Heap> rewritten = heapOn(ev, loc(db, shape5.relfilenode()));
                    assertFalse(rewritten.isEmpty(), "the rewrite's records on the new relfilenode");
                    for (WalFeed.Heap hp : rewritten) {
                        if (Long.compareUnsigned(hp.lsn(), c5) < 0) {
                            assertEquals(Outcome.NOT_COVERED, check(h, loc(db, shape5.relfilenode()), hp.lsn()).outcome(),
                                    "at its own LSN, the new relfilenode is not known yet");
                        }
                    }
                    assertTrue(changes.stream().anyMatch(ch -> ch.relOid() == tOid && ch.storageChanged()));

                    // 6. CREATE TABLE + INSERT in one transaction: resolved at the commit
                    String n = s + ".n";
                    int x6 = xact(c, "CREATE TABLE " + n + " (x int, y text)",
                            "INSERT INTO " + n + " VALUES (1, 'one'), (2, 'two')");
                    Shape shapeN = oracle(c, n);
                    int nOid = oid(c, n);
                    ev = advance(c, feed, tracker, changes);
                    long c6 = commitOf(ev, x6).lsn();
                    List<WalFeed.Heap> inserts = heapOn(ev, loc(db, shapeN.relfilenode()));
                    assertFalse(inserts.isEmpty());
                    for (WalFeed.Heap hp : inserts) {
                        assertTrue(Long.compareUnsigned(hp.lsn(), c6) < 0);
                        assertEquals(x6, hp.xid());
                        Lookup atRecord = check(h, loc(db, shapeN.relfilenode()), hp.lsn());
                        assertEquals(Outcome.NOT_COVERED, atRecord.outcome());
                        assertEquals(NotCoveredReason.UNKNOWN, atRecord.reason());
                    }
                    assertShape(h, db, shapeN, c6, "created relation, at its commit");
                    assertTrue(changes.stream().anyMatch(ch -> ch.relOid() == nOid && ch.added()));

                    // 7. TRUNCATE + INSERT in one transaction: new relfilenode
                    int x7 = xact(c, "TRUNCATE " + table,
                            "INSERT INTO " + table + " (id, a2, c, d) VALUES (10, 'ten', 10, 'x')");
                    Shape shape7 = oracle(c, table);
                    assertTrue(shape7.relfilenode() != shape5.relfilenode());
                    ev = advance(c, feed, tracker, changes);
                    WalFeed.Commit commit7 = commitOf(ev, x7);
                    long c7 = commit7.lsn();
                    assertTrue(commit7.dropped().contains(loc(db, shape5.relfilenode())));
                    assertShape(h, db, shape5, c7 - 1, "before TRUNCATE");
                    assertEquals(NotCoveredReason.REPLACED, check(h, loc(db, shape5.relfilenode()), c7).reason());
                    assertShape(h, db, shape7, c7, "after TRUNCATE");
                    assertFalse(heapOn(ev, loc(db, shape7.relfilenode())).isEmpty(), "the INSERT after TRUNCATE");
                    assertEquals(loc(db, shape7.relfilenode()), h.lookupRelation(tOid, c7).locator());
                    assertEquals(loc(db, shape5.relfilenode()), h.lookupRelation(tOid, c7 - 1).locator());

                    // 8. VACUUM FULL: new relfilenode, no xid to capture; found by the relfilenode it drops
                    LocalPg.exec(c, "VACUUM FULL " + table);
                    Shape shape8 = oracle(c, table);
                    assertTrue(shape8.relfilenode() != shape7.relfilenode());
                    ev = advance(c, feed, tracker, changes);
                    long c8 = commitOf(ev, cm -> cm.dropped().contains(loc(db, shape7.relfilenode())), "VACUUM FULL")
                            .lsn();
                    assertShape(h, db, shape7, c8 - 1, "before VACUUM FULL");
                    assertShape(h, db, shape8, c8, "after VACUUM FULL");

                    // 9. the primary key goes away
                    int x9 = xact(c, "ALTER TABLE " + table + " DROP CONSTRAINT t_pkey");
                    ev = advance(c, feed, tracker, changes);
                    long c9 = commitOf(ev, x9).lsn();
                    assertEquals(List.of(1), check(h, loc(db, shape8.relfilenode()), c9 - 1).descriptor()
                            .identityAttnums());
                    assertEquals(List.of(), check(h, loc(db, shape8.relfilenode()), c9).descriptor().identityAttnums());

                    // 10. DROP TABLE
                    int x10 = xact(c, "DROP TABLE " + n);
                    ev = advance(c, feed, tracker, changes);
                    long c10 = commitOf(ev, x10).lsn();
                    assertShape(h, db, shapeN, c10 - 1, "before DROP TABLE");
                    Lookup dropped = check(h, loc(db, shapeN.relfilenode()), c10);
                    assertEquals(NotCoveredReason.DROPPED, dropped.reason());
                    assertNull(dropped.descriptorOrSkip());
                    assertEquals(NotCoveredReason.DROPPED, h.lookupRelation(nOid, c10).reason());

                    // 11. a table outside the filter
                    String e = other + ".e";
                    xact(c, "CREATE TABLE " + e + " (x int)", "INSERT INTO " + e + " VALUES (1)");
                    Shape shapeE = oracle(c, e);
                    ev = advance(c, feed, tracker, changes);
                    List<WalFeed.Heap> outside = heapOn(ev, loc(db, shapeE.relfilenode()));
                    assertFalse(outside.isEmpty());
                    long after = ev.get(ev.size() - 1).lsn();
                    assertEquals(Outcome.NOT_COVERED, check(h, loc(db, shapeE.relfilenode()), after).outcome());
                    assertEquals(Outcome.NOT_COVERED, check(h, loc(db, shapeE.relfilenode()),
                            outside.get(0).lsn()).outcome());

                    // 12. another database of the cluster
                    LocalPg.exec(c, "CREATE DATABASE " + scratchDb);
                    dbCreated = true;
                    int scratchOid = Integer.parseInt(LocalPg.queryString(c,
                            "SELECT oid FROM pg_database WHERE datname = '" + scratchDb + "'"));
                    int scratchRel;
                    try (Connection sc = connectTo(scratchDb)) {
                        LocalPg.exec(sc, "CREATE TABLE f (x int)", "INSERT INTO f VALUES (1)");
                        scratchRel = oracle(sc, "f").relfilenode();
                    }
                    LocalPg.exec(c, "CHECKPOINT"); // logs XLOG_RUNNING_XACTS: the horizon advances
                    ev = advance(c, feed, tracker, changes);
                    RelFileLocator foreign = new RelFileLocator(db.spcOid(), scratchOid, scratchRel);
                    List<WalFeed.Heap> foreignRecords = heapOn(ev, foreign);
                    assertFalse(foreignRecords.isEmpty(), "the other database's insert is in the WAL");
                    Lookup f = check(h, foreign, foreignRecords.get(0).lsn());
                    assertEquals(Outcome.FOREIGN_DB, f.outcome());
                    assertNull(f.descriptorOrSkip());

                    CatalogCounters k = tracker.counters();
                    assertEquals(0, k.catalogAheadDetected(), "in step, the live catalog is never ahead: " + k);
                    assertEquals(0, k.catalogAheadAmbiguous());
                    assertTrue(k.catalogRefreshes() >= 10, k.toString());
                    assertTrue(k.horizonAdvances() >= 1, "the CHECKPOINT logged running xacts: " + k);
                    assertTrue(h.visibility().committedCount() < 50, "committed xids are pruned by the horizon");

                    // the same answers from the serialized history
                    DescriptorHistory r = CatalogHistorySerializer.fromBytes(CatalogHistorySerializer.toBytes(h));
                    for (Check ck : checks) {
                        Lookup again = r.lookup(ck.locator(), ck.lsn());
                        assertEquals(ck.expected().outcome(), again.outcome(), ck.toString());
                        assertEquals(ck.expected().reason(), again.reason(), ck.toString());
                        if (ck.expected().descriptor() != null) {
                            assertTrue(Descriptors.sameContent(ck.expected().descriptor(), again.descriptor()),
                                    ck.toString());
                        }
                    }
                }
            } finally {
                if (dbCreated) {
                    LocalPg.exec(c, "DROP DATABASE IF EXISTS " + scratchDb + " WITH (FORCE)");
                }
                LocalPg.exec(c, "DROP SCHEMA IF EXISTS " + s + " CASCADE", "DROP SCHEMA IF EXISTS " + other + " CASCADE");
            }
        }
    }

    @Test
    void laggingJobAddColumnAndRenameAreExactRewriteThenRenameFailsClosed() throws Exception {
        String s = "cat_lag_" + sfx;
        try (Connection c = LocalPg.connect(); Connection loaderConn = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE SCHEMA " + s);
            try {
                String ad = s + ".ad";
                String rn = s + ".rn";
                String tr = s + ".tr";
                String rw = s + ".rw";
                for (String t : List.of(ad, rn, tr, rw)) {
                    LocalPg.exec(c, "CREATE TABLE " + t + " (id int, a text)", "INSERT INTO " + t + " VALUES (1, 'x')");
                }
                RelFileLocator db = dbLocator(c);
                int rwOid = oid(c, rw);
                Map<String, Shape> before = new HashMap<>();
                for (String t : List.of(ad, rn, tr, rw)) {
                    before.put(t, oracle(c, t));
                }
                String startSnapshot = LocalPg.queryString(c, "SELECT pg_current_snapshot()::text");
                try (WalFeed feed = new WalFeed(c, "cat_lag_" + sfx)) {
                    CatalogFilter filter = CatalogFilter.parse(s + ".*", null);
                    CatalogTracker tracker = CatalogTracker.seed(filter, new JdbcCatalogSource(loaderConn, filter),
                            feed.start, CatalogSnapshot.Xids.parse(startSnapshot));
                    DescriptorHistory h = tracker.history();

                    // all DDL happens before the job processes any of it
                    int a1 = xact(c, "ALTER TABLE " + ad + " ADD COLUMN b int DEFAULT 5");
                    Shape shapeA1 = oracle(c, ad);
                    int a2 = xact(c, "ALTER TABLE " + ad + " ADD COLUMN c text");
                    Shape shapeA2 = oracle(c, ad);
                    int r1 = xact(c, "ALTER TABLE " + rn + " ADD COLUMN b int");
                    Shape shapeR1 = oracle(c, rn);
                    int r2 = xact(c, "ALTER TABLE " + rn + " RENAME COLUMN a TO z");
                    Shape shapeR2 = oracle(c, rn);
                    int w1 = xact(c, "ALTER TABLE " + rw + " ALTER COLUMN id TYPE bigint"); // a rewrite
                    Shape shapeW1 = oracle(c, rw);
                    int w2 = xact(c, "ALTER TABLE " + rw + " RENAME COLUMN id TO k");
                    Shape shapeW2 = oracle(c, rw);
                    int t1 = xact(c, "ALTER TABLE " + tr + " ADD COLUMN b int");
                    Shape shapeT1 = oracle(c, tr);
                    int t2 = xact(c, "TRUNCATE " + tr);
                    Shape shapeT2 = oracle(c, tr);
                    assertTrue(shapeT2.relfilenode() != shapeT1.relfilenode());

                    long end = LocalPg.flushLsn(c);
                    List<WalFeed.Event> events = feed.readUpTo(end);
                    Map<Integer, Long> commitLsn = new HashMap<>();
                    int asserted = 0;
                    for (WalFeed.Event e : events) {
                        feed.drive(tracker, e);
                        if (!(e instanceof WalFeed.Commit cm)) {
                            continue;
                        }
                        commitLsn.put(cm.xid(), cm.lsn());
                        long at = cm.lsn();
                        if (cm.xid() == a1) {
                            // c (added by a2, not reached) is left out; b is exact, with its missing value
                            Lookup l = assertShape(h, db, shapeA1, at, "ADD COLUMN b with ADD COLUMN c ahead");
                            assertArrayEquals(new byte[] {5, 0, 0, 0}, l.descriptor().column(3).missingValue());
                            assertTrue(tracker.counters().catalogAheadExact() >= 1, tracker.counters().toString());
                            asserted++;
                        } else if (cm.xid() == a2) {
                            assertShape(h, db, shapeA1, at - 1, "before a2");
                            assertShape(h, db, shapeA2, at, "after a2");
                            asserted++;
                        } else if (cm.xid() == r1) {
                            // the rename (r2, not reached) rewrote column a's row; the storage is unchanged, so
                            // the previous version's column decodes exactly: shape as of r1, old name
                            assertShape(h, db, before.get(rn), at - 1, "before r1");
                            assertShape(h, db, shapeR1, at, "ADD COLUMN b with RENAME ahead");
                            asserted++;
                        } else if (cm.xid() == r2) {
                            assertShape(h, db, shapeR1, at - 1, "before the rename's commit");
                            assertShape(h, db, shapeR2, at, "after the rename's commit");
                            asserted++;
                        } else if (cm.xid() == w1) {
                            // rewritten here (new relfilenode), and the rewritten column renamed by w2 (not
                            // reached): its type at w1 is gone from the catalog, so the new storage is ambiguous
                            Lookup l = check(h, loc(db, shapeW1.relfilenode()), at);
                            assertEquals(Outcome.AMBIGUOUS, l.outcome(), l.toString());
                            CatalogAheadException ex = assertThrows(CatalogAheadException.class, l::descriptorOrSkip);
                            assertEquals(rwOid, ex.relOid());
                            assertEquals(at, ex.lsn());
                            assertEquals(at, ex.since());
                            assertTrue(ex.awaitedXids().contains(w2), ex.getMessage());
                            assertTrue(ex.getMessage().contains(rw) && ex.getMessage().contains(Lsn.format(at)),
                                    ex.getMessage());
                            assertEquals(Outcome.AMBIGUOUS, h.lookupRelation(rwOid, at).outcome());
                            asserted++;
                        } else if (cm.xid() == w2) {
                            assertEquals(Outcome.AMBIGUOUS, check(h, loc(db, shapeW2.relfilenode()), at - 1).outcome());
                            assertShape(h, db, shapeW2, at, "after the rename's commit");
                            asserted++;
                        } else if (cm.xid() == t1) {
                            // the later TRUNCATE already moved the table; t1 did not drop the old relfilenode
                            assertShape(h, db, shapeT1, at, "ADD COLUMN with TRUNCATE ahead");
                            assertEquals(shapeT1.relfilenode(), before.get(tr).relfilenode());
                            asserted++;
                        } else if (cm.xid() == t2) {
                            assertEquals(NotCoveredReason.REPLACED,
                                    check(h, loc(db, shapeT1.relfilenode()), at).reason());
                            assertShape(h, db, shapeT2, at, "after TRUNCATE");
                            asserted++;
                        }
                    }
                    assertEquals(8, asserted, "all eight commits were seen: " + commitLsn.keySet());
                    // once past w2, the interval stays ambiguous (history does not change) and later LSNs decode
                    assertEquals(Outcome.AMBIGUOUS, h.lookup(loc(db, shapeW1.relfilenode()), commitLsn.get(w1)).outcome());
                    CatalogCounters k = tracker.counters();
                    assertTrue(k.catalogAheadDetected() >= 3, k.toString());
                    assertTrue(k.catalogAheadExact() >= 2, k.toString());
                    assertTrue(k.catalogAheadAmbiguous() >= 1, k.toString());
                    assertTrue(k.ambiguityResolved() >= 1, k.toString());
                }
            } finally {
                LocalPg.exec(c, "DROP SCHEMA IF EXISTS " + s + " CASCADE");
            }
        }
    }

    static Connection connectTo(String database) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", LocalPg.user());
        p.setProperty("password", LocalPg.password());
        return DriverManager.getConnection("jdbc:postgresql://" + LocalPg.host() + ":" + LocalPg.port() + "/"
                + database, p);
    }
}
