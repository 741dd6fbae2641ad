package io.walshadow.change;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.Lookup;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.testing.LocalPg;
import io.walshadow.types.PgNumeric;
import io.walshadow.wal.RelFileLocator;
import java.io.StringReader;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * DDL inside the stream, end to end from the WAL: for each kind of DDL, rows are written before and after it,
 * the WAL is decoded step by step with {@link WalChangeDecoder} (as a job that keeps up), the committed changes are
 * applied to a {@link Replica}, and (a) every row change carries the shape PostgreSQL's pg_attribute had when it
 * was written, (b) the replica's final state equals PostgreSQL's output of every column, value by value.
 */
class DdlInStreamIT {
    private static final int INT4 = 23;
    private static final int INT8 = 20;
    private static final int TEXT = 25;
    private static final int NUMERIC = 1700;
    private static final AtomicLong COMPARED = new AtomicLong();

    @AfterAll
    static void summary() {
        System.out.println("[change] DdlInStreamIT: compared " + COMPARED.get()
                + " decoded values with PostgreSQL's output");
    }

    /** The shape PostgreSQL reports: attnum:name:type:dropped for every attnum > 0. */
    static List<String> pgShape(ChangeStream s, String table) throws SQLException {
        return LocalPg.queryColumn(s.c, "SELECT attnum || ':' || attname || ':' || atttypid || ':' || attisdropped"
                + " FROM pg_attribute WHERE attrelid = '" + table + "'::regclass AND attnum > 0 ORDER BY attnum");
    }

    static List<String> shape(RelationDescriptor d) {
        List<String> out = new ArrayList<>();
        for (Column c : d.columns()) {
            String name = c.name();
            out.add(c.attnum() + ":" + name + ":" + Integer.toUnsignedString(c.typeOid()) + ":" + c.dropped());
        }
        return out;
    }

    static void assertShapes(List<String> expected, List<RowChange> rows, String what) {
        assertFalse(rows.isEmpty(), what + ": no row changes");
        for (RowChange r : rows) {
            assertEquals(expected, shape(r.descriptor()), what + ": " + r.op() + " at " + r.lsn());
        }
    }

    static List<RowChange> rows(List<ChangeStream.Committed> txs, int relOid) {
        List<RowChange> out = new ArrayList<>();
        for (ChangeStream.Committed t : txs) {
            out.addAll(t.rows(relOid));
        }
        return out;
    }

    static String create(ChangeStream s, String base) throws SQLException {
        String t = s.table(base);
        s.exec("CREATE TABLE " + t + " (id int4 PRIMARY KEY, a int4, b text) WITH (autovacuum_enabled = off)");
        return t;
    }

    static void compare(ChangeStream s, Replica replica, String table) throws SQLException {
        COMPARED.addAndGet(replica.assertMatchesPostgres(s, table));
    }

    @Test
    void addColumnWithAndWithoutDefault() throws Exception {
        try (ChangeStream s = new ChangeStream("ddl")) {
            String t = create(s, "addcol");
            int rel = s.oid(t);
            s.start();
            Replica replica = new Replica(s.values);
            s.xact("INSERT INTO " + t + " VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three')");
            List<String> shape0 = pgShape(s, t);
            List<ChangeStream.Committed> before = s.advance();
            replica.applyAll(before);
            assertShapes(shape0, rows(before, rel), "inserts before ADD COLUMN");

            int addDefault = s.xact("ALTER TABLE " + t + " ADD COLUMN c int4 DEFAULT 7");
            List<ChangeStream.Committed> ddl1 = s.advance();
            replica.applyAll(ddl1);
            int addPlain = s.xact("ALTER TABLE " + t + " ADD COLUMN d text");
            List<String> shape2 = pgShape(s, t);
            List<ChangeStream.Committed> ddl2 = s.advance();
            replica.applyAll(ddl2);
            CatalogChange ch1 = ChangeStream.of(ddl1, addDefault).catalogChange(rel);
            assertNotNull(ch1, "ADD COLUMN ... DEFAULT publishes a catalog change");
            assertEquals(3, ch1.before().natts());
            assertEquals(4, ch1.after().natts());
            Column c = ch1.after().column(4);
            assertTrue(c.hasMissingValue(), "a non-volatile default is a missing value, not a rewrite");
            assertEquals(7, s.values.decode(c, c.missingValue(), 0, c.missingValue().length));
            assertFalse(ch1.storageChanged(), "no rewrite");
            CatalogChange ch2 = ChangeStream.of(ddl2, addPlain).catalogChange(rel);
            assertEquals(5, ch2.after().natts());
            assertFalse(ch2.after().column(5).hasMissingValue());

            s.xact("INSERT INTO " + t + " VALUES (4, 40, 'four', 8, 'dee')");
            s.xact("INSERT INTO " + t + " (id, a, b) VALUES (5, 50, 'five')");
            s.xact("UPDATE " + t + " SET b = 'one!' WHERE id = 1"); // a row written before the DDL
            s.xact("DELETE FROM " + t + " WHERE id = 2");
            List<ChangeStream.Committed> after = s.advance();
            replica.applyAll(after);
            List<RowChange> rs = rows(after, rel);
            assertShapes(shape2, rs, "changes after ADD COLUMN");
            assertEquals(List.of(4, 40, "four", 8, "dee"), List.of(rs.get(0).newValues()));
            assertEquals(7, rs.get(1).newValues()[3], "the default, stored in the new row");
            assertNull(rs.get(1).newValues()[4]);
            assertEquals(7, rs.get(2).newValues()[3], "an updated old row gets the default written out");
            assertEquals(2, rs.get(3).oldValues()[0], "old key of the DELETE of a row older than the DDL");

            // row 3 was last written before both ADD COLUMNs: its columns 4 and 5 read the missing value / NULL
            Replica.Row row3 = replica.table(rel).get("3");
            assertEquals(3, row3.descriptor().natts(), "row 3 was decoded with the old shape");
            assertEquals(List.of("INSERT 1", "INSERT 2", "INSERT 3", "INSERT 4", "INSERT 5", "UPDATE 1", "DELETE 2"),
                    replica.ops(rel));
            compare(s, replica, t);
            assertEquals("7", s.query("SELECT c FROM " + t + " WHERE id = 3"), "test premise");
        }
    }

    @Test
    void dropColumnAndReAddTheSameName() throws Exception {
        try (ChangeStream s = new ChangeStream("ddl")) {
            String t = create(s, "dropcol");
            int rel = s.oid(t);
            s.start();
            Replica replica = new Replica(s.values);
            s.xact("INSERT INTO " + t + " VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three')");
            replica.applyAll(s.advance());

            s.xact("ALTER TABLE " + t + " DROP COLUMN a");
            List<String> shape1 = pgShape(s, t);
            replica.applyAll(s.advance());
            s.xact("INSERT INTO " + t + " VALUES (4, 'four')");
            s.xact("UPDATE " + t + " SET b = 'one!' WHERE id = 1");
            List<ChangeStream.Committed> mid = s.advance();
            replica.applyAll(mid);
            List<RowChange> rs = rows(mid, rel);
            assertShapes(shape1, rs, "changes after DROP COLUMN");
            assertTrue(rs.get(0).descriptor().column(2).dropped(), "attnum 2 is dropped");
            assertEquals(3, rs.get(0).descriptor().natts(), "a dropped column keeps its tuple position");
            assertEquals(4, rs.get(0).newValues()[0]);
            assertEquals("four", rs.get(0).newValues()[2]);
            assertNull(rs.get(0).newValues()[1]);
            assertNull(rs.get(1).newValues()[1]);

            // a new column of the same name is a new attnum, of another type: old values must not leak into it
            s.xact("ALTER TABLE " + t + " ADD COLUMN a int8");
            List<String> shape2 = pgShape(s, t);
            replica.applyAll(s.advance());
            s.xact("INSERT INTO " + t + " VALUES (5, 'five', 5000000000)");
            s.xact("DELETE FROM " + t + " WHERE id = 2");
            List<ChangeStream.Committed> after = s.advance();
            replica.applyAll(after);
            assertShapes(shape2, rows(after, rel), "changes after re-adding a");
            assertEquals("4:a:" + INT8 + ":false", shape2.get(3));
            assertEquals(5000000000L, rows(after, rel).get(0).newValues()[3]);
            compare(s, replica, t); // row 3 still holds a=30 at attnum 2 (dropped); attnum 4 reads NULL
            assertEquals(30, replica.table(rel).get("3").values()[1], "test premise: the old value is in the replica");
        }
    }

    @Test
    void renameColumnAndTable() throws Exception {
        try (ChangeStream s = new ChangeStream("ddl")) {
            String t = create(s, "rename");
            String renamed = s.table("renamed");
            int rel = s.oid(t);
            s.start();
            Replica replica = new Replica(s.values);
            s.xact("INSERT INTO " + t + " VALUES (1, 10, 'one'), (2, 20, 'two')");
            replica.applyAll(s.advance());

            int x = s.xact("ALTER TABLE " + t + " RENAME COLUMN b TO b_renamed");
            List<String> shape1 = pgShape(s, t);
            List<ChangeStream.Committed> ddl = s.advance();
            replica.applyAll(ddl);
            CatalogChange ch = ChangeStream.of(ddl, x).catalogChange(rel);
            assertEquals("b", ch.before().column(3).name());
            assertEquals("b_renamed", ch.after().column(3).name());

            s.xact("INSERT INTO " + t + " VALUES (3, 30, 'three')");
            s.xact("UPDATE " + t + " SET b_renamed = 'one!' WHERE id = 1");
            List<ChangeStream.Committed> mid = s.advance();
            replica.applyAll(mid);
            assertShapes(shape1, rows(mid, rel), "changes after RENAME COLUMN");

            int y = s.xact("ALTER TABLE " + t + " RENAME TO " + renamed);
            List<ChangeStream.Committed> ddl2 = s.advance();
            replica.applyAll(ddl2);
            assertEquals(renamed, ChangeStream.of(ddl2, y).catalogChange(rel).after().name());
            s.xact("UPDATE " + renamed + " SET a = -2 WHERE id = 2");
            List<ChangeStream.Committed> after = s.advance();
            replica.applyAll(after);
            assertEquals(renamed, rows(after, rel).get(0).descriptor().name());
            compare(s, replica, renamed);
        }
    }

    /**
     * ALTER COLUMN TYPE with a rewrite: PostgreSQL copies every row into a new relfilenode inside the DDL
     * transaction, as ordinary heap INSERT records. That relfilenode is unknown until the commit, so the decoder
     * emits them as {@link DeferredRecord}s (one per row, nothing else for the table), and decoded at the commit
     * they are INSERTs of every row in the new shape on the new relfilenode, while the commit's catalog change says
     * {@link CatalogChange#storageChanged()}. A consumer must take them as a new generation of the table (the rows
     * replace the old storage's rows); applied as plain inserts they collide with the rows already there, which
     * {@link Replica} refuses.
     */
    @Test
    void alterColumnTypeRewrite() throws Exception {
        try (ChangeStream s = new ChangeStream("ddl")) {
            String t = create(s, "retype");
            int rel = s.oid(t);
            s.start();
            Replica replica = new Replica(s.values);
            s.xact("INSERT INTO " + t + " VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three'), (4, 40, 'four')");
            s.xact("DELETE FROM " + t + " WHERE id = 3");
            s.xact("UPDATE " + t + " SET a = 41 WHERE id = 4");
            replica.applyAll(s.advance());
            assertEquals("10", replica.text(replica.table(rel).get("1"), null, 2), "int4 text before the rewrite");
            int oldFilenode = s.relfilenode(t);

            int x = s.xact("ALTER TABLE " + t + " ALTER COLUMN a TYPE numeric(10,2) USING a");
            int newFilenode = s.relfilenode(t);
            List<String> shape1 = pgShape(s, t);
            assertNotEquals(oldFilenode, newFilenode, "test premise: a rewrite");
            List<ChangeStream.Committed> ddl = s.advance();
            ChangeStream.Committed rewrite = ChangeStream.of(ddl, x);
            int live = 3;
            // what the decoder emitted for the table inside the DDL transaction: only deferred records, one
            // per live row, all on the new relfilenode
            List<DeferredRecord> deferred = rewrite.deferred();
            assertEquals(live, deferred.size(), "one deferred heap INSERT per row: " + rewrite.events());
            for (DeferredRecord d : deferred) {
                assertEquals(newFilenode, d.rel().relNumber(), "deferred record on the new relfilenode");
            }
            for (ChangeEvent e : rewrite.events()) {
                assertFalse(e instanceof RowChange, "no row change before the commit names the relation: " + e);
            }
            CatalogChange ch = rewrite.catalogChange(rel);
            assertTrue(ch.storageChanged(), "the commit moves the table to new storage");
            assertEquals(INT4, ch.before().column(2).typeOid());
            assertEquals(NUMERIC, ch.after().column(2).typeOid());
            // decoded at the commit: INSERTs of every row, new shape, new relfilenode
            List<RowChange> rs = rewrite.rows(rel);
            assertEquals(live, rs.size());
            assertShapes(shape1, rs, "rewrite rows");
            for (RowChange r : rs) {
                assertEquals(RowChange.Op.INSERT, r.op());
                assertTrue(rewrite.isFromDeferred(r));
                assertEquals(newFilenode, r.descriptor().locator().relNumber());
                assertInstanceOf(PgNumeric.class, r.newValues()[1]);
            }
            replica.applyAll(ddl);
            assertTrue(replica.ops(rel).contains("GENERATION"), "the rewrite started a new generation");
            assertEquals("10.00", replica.text(replica.table(rel).get("1"), null, 2), "numeric(10,2) text after");

            s.xact("UPDATE " + t + " SET a = 10.5 WHERE id = 1");
            s.xact("INSERT INTO " + t + " VALUES (5, 50.25, 'five')");
            s.xact("DELETE FROM " + t + " WHERE id = 2");
            List<ChangeStream.Committed> after = s.advance();
            replica.applyAll(after);
            for (ChangeStream.Committed c : after) {
                assertTrue(c.rows(rel).stream().noneMatch(c::isFromDeferred), "after the commit the new relfilenode is known");
            }
            assertShapes(shape1, rows(after, rel), "changes after the rewrite");
            assertEquals(List.of("INSERT 1", "INSERT 2", "INSERT 3", "INSERT 4", "DELETE 3", "UPDATE 4", "GENERATION",
                    "INSERT 1", "INSERT 2", "INSERT 4", "UPDATE 1", "INSERT 5", "DELETE 2"), replica.ops(rel));
            compare(s, replica, t);
        }
    }

    @Test
    void createTableAndInsertInOneTransaction() throws Exception {
        try (ChangeStream s = new ChangeStream("ddl")) {
            s.start();
            Replica replica = new Replica(s.values);
            String t = s.table("born");
            String never = s.table("never");
            s.c.setAutoCommit(false);
            s.exec("CREATE TABLE " + t + " (id int4 PRIMARY KEY, v text, n numeric) WITH (autovacuum_enabled = off)",
                    "INSERT INTO " + t + " VALUES (1, 'one', 1.5)",
                    "INSERT INTO " + t + " VALUES (2, NULL, NULL)");
            // COPY writes MULTI_INSERT records
            long copied = s.c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + t + " FROM STDIN",
                    new StringReader("3\tthree\t3.25\n4\t\\N\t-4\n5\tfive\tNaN\n"));
            assertEquals(3, copied);
            int x = (int) Long.parseLong(s.query("SELECT pg_current_xact_id()::text"));
            s.c.commit();
            // the same, rolled back
            s.exec("CREATE TABLE " + never + " (id int4 PRIMARY KEY)", "INSERT INTO " + never + " VALUES (1)");
            int aborted = (int) Long.parseLong(s.query("SELECT pg_current_xact_id()::text"));
            s.c.rollback();
            s.c.setAutoCommit(true);
            int rel = s.oid(t);
            int filenode = s.relfilenode(t);
            List<String> shape = pgShape(s, t);

            List<ChangeStream.Committed> txs = s.advance();
            ChangeStream.Committed born = ChangeStream.of(txs, x);
            List<DeferredRecord> deferred = new ArrayList<>();
            for (DeferredRecord d : born.deferred()) {
                if (d.rel().relNumber() == filenode) {
                    deferred.add(d);
                }
            }
            assertEquals(3, deferred.size(), "two INSERT records and one MULTI_INSERT, deferred: " + born.events());
            for (ChangeEvent e : born.events()) {
                assertInstanceOf(DeferredRecord.class, e, "nothing in the creating transaction decodes before its commit");
            }
            assertTrue(born.catalogChange(rel).added());
            List<RowChange> rs = born.rows(rel);
            assertEquals(5, rs.size(), "decoded at the commit: one row change per row");
            assertShapes(shape, rs, "rows of the new table");
            for (RowChange r : rs) {
                assertEquals(RowChange.Op.INSERT, r.op());
            }
            for (RelFileLocator l : s.decoder.pendingCreated()) {
                assertNotEquals(filenode, l.relNumber(), "the new relfilenode is settled by the commit");
            }
            boolean sawAborted = false;
            for (ChangeEvent e : s.events) {
                if (e instanceof DeferredRecord d && d.xid() == aborted) {
                    sawAborted = true;
                    assertFalse(s.decoder.pendingCreated().contains(d.rel()), "aborted storage is forgotten");
                }
            }
            assertTrue(sawAborted, "the rolled back CREATE TABLE + INSERT was deferred too");
            for (ChangeStream.Committed c : txs) {
                assertNotEquals(aborted, c.xid());
            }
            replica.applyAll(txs);

            s.xact("UPDATE " + t + " SET v = 'two' WHERE id = 2");
            s.xact("INSERT INTO " + t + " VALUES (6, 'six', 6)");
            List<ChangeStream.Committed> after = s.advance();
            for (ChangeStream.Committed c : after) {
                assertTrue(c.rows(rel).stream().noneMatch(c::isFromDeferred), "later transactions decode at once");
            }
            replica.applyAll(after);
            assertEquals(List.of("INSERT 1", "INSERT 2", "INSERT 3", "INSERT 4", "INSERT 5", "UPDATE 2", "INSERT 6"),
                    replica.ops(rel));
            compare(s, replica, t);
        }
    }

    @Test
    void truncate() throws Exception {
        try (ChangeStream s = new ChangeStream("ddl")) {
            String t = create(s, "trunc");
            int rel = s.oid(t);
            s.start();
            Replica replica = new Replica(s.values);
            s.xact("INSERT INTO " + t + " VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three')");
            replica.applyAll(s.advance());
            int filenode0 = s.relfilenode(t);

            int x = s.xact("TRUNCATE " + t);
            List<ChangeStream.Committed> ddl = s.advance();
            replica.applyAll(ddl);
            ChangeStream.Committed tr = ChangeStream.of(ddl, x);
            List<TruncateChange> truncs = new ArrayList<>();
            for (ChangeEvent e : tr.events()) {
                if (e instanceof TruncateChange tc) {
                    truncs.add(tc);
                }
            }
            assertEquals(1, truncs.size(), "one TruncateChange: " + tr.events());
            assertEquals(1, truncs.get(0).relations().size());
            assertEquals(rel, truncs.get(0).relations().get(0).relOid());
            assertEquals("public." + t, truncs.get(0).relations().get(0).qualifiedName());
            assertFalse(truncs.get(0).cascade());
            assertFalse(truncs.get(0).restartSequences());
            assertTrue(tr.catalogChange(rel).storageChanged());
            assertTrue(replica.table(rel).isEmpty());
            int filenode1 = s.relfilenode(t);
            assertNotEquals(filenode0, filenode1);

            s.xact("INSERT INTO " + t + " VALUES (4, 40, 'four'), (1, 11, 'one again')");
            List<ChangeStream.Committed> mid = s.advance();
            replica.applyAll(mid);
            for (RowChange r : rows(mid, rel)) {
                assertEquals(filenode1, r.descriptor().locator().relNumber(), "inserts into the new relfilenode");
            }
            assertTrue(mid.stream().allMatch(c -> c.rows(rel).stream().noneMatch(c::isFromDeferred)),
                    "decoded at once, not deferred");

            // TRUNCATE and INSERT in one transaction: the inserts go to storage created by the transaction
            int y = s.xact("TRUNCATE " + t + " RESTART IDENTITY", "INSERT INTO " + t + " VALUES (7, 70, 'seven')");
            List<ChangeStream.Committed> ddl2 = s.advance();
            replica.applyAll(ddl2);
            ChangeStream.Committed tr2 = ChangeStream.of(ddl2, y);
            assertTrue(tr2.events().get(0) instanceof TruncateChange tc && tc.restartSequences(), tr2.events().toString());
            assertEquals(1, tr2.deferred().size());
            assertEquals(1, tr2.rows(rel).size());
            s.xact("UPDATE " + t + " SET b = 'seven!' WHERE id = 7", "INSERT INTO " + t + " VALUES (8, 80, 'eight')");
            replica.applyAll(s.advance());
            assertEquals(List.of("INSERT 1", "INSERT 2", "INSERT 3", "TRUNCATE", "INSERT 4", "INSERT 1", "TRUNCATE",
                    "GENERATION", "INSERT 7", "UPDATE 7", "INSERT 8"), replica.ops(rel));
            compare(s, replica, t);
        }
    }

    @Test
    void dropTable() throws Exception {
        try (ChangeStream s = new ChangeStream("ddl")) {
            String t = create(s, "dropped");
            int rel = s.oid(t);
            s.start();
            Replica replica = new Replica(s.values);
            s.xact("INSERT INTO " + t + " VALUES (1, 10, 'one'), (2, 20, 'two')");
            replica.applyAll(s.advance());
            RelationDescriptor d = s.decoder.history().current(rel).descriptor();
            RelFileLocator loc = d.locator();

            int x = s.xact("DROP TABLE " + t);
            List<ChangeStream.Committed> ddl = s.advance();
            replica.applyAll(ddl);
            ChangeStream.Committed drop = ChangeStream.of(ddl, x);
            CatalogChange ch = drop.catalogChange(rel);
            assertNotNull(ch);
            assertNull(ch.after());
            assertEquals(Lookup.NotCoveredReason.DROPPED, ch.closedAs());
            assertTrue(replica.dropped.contains(rel));
            assertFalse(replica.tables.containsKey(rel));
            Lookup before = s.decoder.history().lookup(loc, drop.lsn() - 1);
            assertEquals(Lookup.Outcome.PRESENT, before.outcome(), "records before the drop's commit still decode");
            Lookup later = s.decoder.history().lookup(loc, drop.lsn());
            assertEquals(Lookup.Outcome.NOT_COVERED, later.outcome());
            assertEquals(Lookup.NotCoveredReason.DROPPED, later.reason());
            Lookup byOid = s.decoder.history().lookupRelation(rel, drop.lsn() + 1000);
            assertEquals(Lookup.Outcome.NOT_COVERED, byOid.outcome());
            assertEquals(Lookup.NotCoveredReason.DROPPED, byOid.reason());

            // a new table of the same name is another relation: nothing of the old one leaks into it
            s.exec("CREATE TABLE " + t + " (id int4 PRIMARY KEY, a int4, b text) WITH (autovacuum_enabled = off)");
            s.xact("INSERT INTO " + t + " VALUES (2, 22, 'two, new')");
            int rel2 = s.oid(t);
            assertNotEquals(rel, rel2);
            replica.applyAll(s.advance());
            assertEquals(List.of("INSERT 2"), replica.ops(rel2));
            Lookup stillDropped = s.decoder.history().lookup(loc, s.decoder.history().lastBoundaryLsn());
            assertEquals(Lookup.Outcome.NOT_COVERED, stillDropped.outcome());
            compare(s, replica, t);
        }
    }

    @Test
    void vacuumFull() throws Exception {
        try (ChangeStream s = new ChangeStream("ddl")) {
            String t = create(s, "vacfull");
            int rel = s.oid(t);
            s.start();
            Replica replica = new Replica(s.values);
            s.xact("INSERT INTO " + t + " SELECT g, g * 10, repeat('x', g) FROM generate_series(1, 8) g");
            s.xact("DELETE FROM " + t + " WHERE id IN (2, 4)");
            s.xact("UPDATE " + t + " SET b = 'five' WHERE id = 5");
            replica.applyAll(s.advance());
            int filenode0 = s.relfilenode(t);
            String ctid5Before = s.query("SELECT ctid FROM " + t + " WHERE id = 5");

            s.exec("VACUUM FULL " + t);
            int filenode1 = s.relfilenode(t);
            assertNotEquals(filenode0, filenode1);
            String ctid5 = s.query("SELECT ctid FROM " + t + " WHERE id = 5");
            assertNotEquals(ctid5Before, ctid5, "test premise: VACUUM FULL moved row 5");
            List<ChangeStream.Committed> vac = s.advance();
            ChangeStream.Committed rewrite = null;
            for (ChangeStream.Committed c : vac) {
                CatalogChange ch = c.catalogChange(rel);
                if (ch != null && ch.storageChanged()) {
                    assertNull(rewrite, "one commit moves the table");
                    rewrite = c;
                }
            }
            assertNotNull(rewrite, "VACUUM FULL's commit moves the table to new storage");
            assertEquals(filenode1, rewrite.catalogChange(rel).after().locator().relNumber());
            // VACUUM FULL copies pages, not rows: the copies in the pages it writes whole (XLOG_FPI) re-insert
            // every live row at its new TID, in the new storage
            List<RowChange> copies = rewrite.rows(rel);
            assertEquals(6, copies.size(), "the live rows, each once: " + rewrite.events());
            String ctid5Copied = null;
            for (RowChange r : copies) {
                assertEquals(filenode1, r.descriptor().locator().relNumber());
                if ("5".equals(String.valueOf(r.newValues()[0]))) {
                    ctid5Copied = r.newTid().toString();
                }
            }
            assertEquals(ctid5, ctid5Copied, "row 5 arrives at the TID VACUUM FULL gave it");
            replica.applyAll(vac);

            s.xact("UPDATE " + t + " SET b = 'after' WHERE id = 5");
            s.xact("DELETE FROM " + t + " WHERE id = 3");
            s.xact("INSERT INTO " + t + " VALUES (9, 90, 'nine')");
            List<ChangeStream.Committed> after = s.advance();
            replica.applyAll(after);
            List<RowChange> rs = rows(after, rel);
            assertEquals(3, rs.size());
            for (RowChange r : rs) {
                assertEquals(filenode1, r.descriptor().locator().relNumber());
            }
            assertEquals(ctid5, rs.get(0).oldTid().toString(), "the update names row 5's TID in the new storage");
            List<String> ops = replica.ops(rel);
            assertEquals(List.of("INSERT 1", "INSERT 2", "INSERT 3", "INSERT 4", "INSERT 5", "INSERT 6", "INSERT 7",
                    "INSERT 8", "DELETE 2", "DELETE 4", "UPDATE 5"), ops.subList(0, 11));
            assertEquals("GENERATION", ops.get(11), "the rewrite starts a new generation of the table");
            assertEquals(new java.util.TreeSet<>(List.of("INSERT 1", "INSERT 3", "INSERT 5", "INSERT 6", "INSERT 7",
                    "INSERT 8")), new java.util.TreeSet<>(ops.subList(12, 18)), "the rewrite's re-inserts");
            assertEquals(List.of("UPDATE 5", "DELETE 3", "INSERT 9"), ops.subList(18, ops.size()));
            compare(s, replica, t);
        }
    }

    /**
     * A migration in one transaction: DML, then ALTER TABLE, then DML that writes tuples of the new shape (the
     * backfill of the new column), all before the commit that publishes the new shape.
     */
    @Test
    void ddlAndDmlInOneTransaction() throws Exception {
        try (ChangeStream s = new ChangeStream("ddl")) {
            String t = create(s, "migrate");
            int rel = s.oid(t);
            s.start();
            Replica replica = new Replica(s.values);
            s.xact("INSERT INTO " + t + " VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three')");
            List<String> shape0 = pgShape(s, t);
            replica.applyAll(s.advance());

            int x = s.xact("INSERT INTO " + t + " VALUES (4, 40, 'four')",
                    "ALTER TABLE " + t + " ADD COLUMN c int4 DEFAULT 0",
                    "UPDATE " + t + " SET c = id * 2 WHERE id <> 3",
                    "INSERT INTO " + t + " VALUES (5, 50, 'five', 55)",
                    "ALTER TABLE " + t + " RENAME COLUMN b TO b2",
                    "INSERT INTO " + t + " VALUES (6, 60, 'six', 66)");
            List<String> shape1 = pgShape(s, t);
            List<ChangeStream.Committed> txs = s.advance();
            replica.applyAll(txs);
            ChangeStream.Committed m = ChangeStream.of(txs, x);
            List<RowChange> rs = m.rows(rel);
            assertEquals(6, rs.size(), "insert 4, three updates, inserts 5 and 6: " + m.events());
            assertShapes(shape0, rs.subList(0, 1), "the insert before the ALTER");
            assertShapes(shape1, rs.subList(1, 6), "changes after the ALTER, decoded with the shape at the commit");
            assertEquals(List.of("INSERT 1", "INSERT 2", "INSERT 3", "INSERT 4", "UPDATE 1", "UPDATE 2", "UPDATE 4",
                    "INSERT 5", "INSERT 6"), replica.ops(rel));
            s.xact("UPDATE " + t + " SET b2 = 'three!' WHERE id = 3");
            replica.applyAll(s.advance());
            compare(s, replica, t);
        }
    }

    /**
     * The same inside savepoints: DDL in a subtransaction that is rolled back (its rows of the new shape go with
     * it), DDL in a released subtransaction followed by DML of the top-level transaction.
     */
    @Test
    void ddlInSubtransactions() throws Exception {
        try (ChangeStream s = new ChangeStream("ddl")) {
            String t = create(s, "subddl");
            int rel = s.oid(t);
            s.start();
            Replica replica = new Replica(s.values);
            List<String> shape0 = pgShape(s, t);
            int x = s.xact("INSERT INTO " + t + " VALUES (7, 70, 'seven')",
                    "SAVEPOINT s1",
                    "ALTER TABLE " + t + " ADD COLUMN e int4",
                    "INSERT INTO " + t + " VALUES (8, 80, 'eight', 88)",
                    "ROLLBACK TO SAVEPOINT s1",
                    "INSERT INTO " + t + " VALUES (9, 90, 'nine')",
                    "SAVEPOINT s2",
                    "ALTER TABLE " + t + " ADD COLUMN f text DEFAULT 'x'",
                    "RELEASE SAVEPOINT s2",
                    "INSERT INTO " + t + " VALUES (10, 100, 'ten', 'y')");
            List<String> shape1 = pgShape(s, t);
            assertEquals(4, shape1.size(), "test premise: e is gone, f is attnum 4");
            List<ChangeStream.Committed> txs = s.advance();
            replica.applyAll(txs);
            List<RowChange> rs = ChangeStream.of(txs, x).rows(rel);
            assertEquals(3, rs.size(), "rows 7, 9 and 10; row 8 went with its subtransaction");
            assertShapes(shape0, rs.subList(0, 1), "the insert before any DDL");
            assertShapes(shape1, rs.subList(1, 3), "inserts after the DDL");
            assertEquals(List.of("INSERT 7", "INSERT 9", "INSERT 10"), replica.ops(rel));
            compare(s, replica, t);
        }
    }
}
