package io.walshadow.change;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.heap.HeapRecordKind;
import java.io.StringReader;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * A table without a primary key (REPLICA IDENTITY DEFAULT, so UPDATE and DELETE log no old key): the heap TID is
 * the row identity. Row changes from the WAL are applied to a map keyed by TID (an UPDATE moves the row from its
 * old TID to its new one, a DELETE removes the old TID), and the result must equal PostgreSQL's
 * {@code SELECT ctid, format('%s', col) ...}: TIDs and values exactly. The workload has duplicate rows, COPY
 * (multi-insert), HOT updates (same page, no indexed column changed), non-HOT updates (an indexed column
 * changed; a row that no longer fits its page), an update chain inside one transaction, deletes of HOT-updated
 * rows, and a rolled back transaction.
 */
class NoPrimaryKeyIT {
    private int inserts;
    private int updates;
    private int deletes;

    private int run(ChangeStream s, String sql) throws SQLException {
        try (Statement st = s.c.createStatement()) {
            return st.executeUpdate(sql);
        }
    }

    @Test
    void tidIdentity() throws Exception {
        try (ChangeStream s = new ChangeStream("nopk")) {
            String t = s.table("nopk");
            s.exec("CREATE TABLE " + t + " (a int4, b text, c int8, d numeric) WITH (autovacuum_enabled = off)",
                    "CREATE INDEX ON " + t + " (c)");
            int rel = s.oid(t);
            assertEquals("d", s.query("SELECT relreplident FROM pg_class WHERE oid = " + Integer.toUnsignedString(rel)));
            s.start();
            Replica replica = new Replica(s.values);

            inserts += run(s, "INSERT INTO " + t + " VALUES (1, 'one', 10, 1.5), (1, 'one', 10, 1.5), (2, 'two', 20, NULL),"
                    + " (3, NULL, 30, 'NaN'), (4, 'four', 40, -4), (5, 'five', 50, 5)");
            inserts += (int) s.c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + t + " FROM STDIN",
                    new StringReader("6\tsix\t60\t6\n6\tsix\t60\t6\n7\t\\N\t\\N\t\\N\n"));
            replica.applyAll(s.advance());

            updates += run(s, "UPDATE " + t + " SET b = 'one*' WHERE a = 1"); // HOT, both duplicates
            updates += run(s, "UPDATE " + t + " SET c = c + 1 WHERE a = 2"); // indexed column: not HOT
            s.c.setAutoCommit(false);
            updates += run(s, "UPDATE " + t + " SET b = 'x' WHERE a = 3");
            updates += run(s, "UPDATE " + t + " SET b = 'y', d = 3 WHERE a = 3"); // its old TID is the one just written
            s.c.commit();
            s.c.setAutoCommit(true);
            // fill block 0 and spill into block 1, then grow a block-0 row so that it has to move
            inserts += run(s, "INSERT INTO " + t
                    + " SELECT 100 + g, repeat('p', 150), g, g FROM generate_series(1, 60) g");
            String moverCtid = s.query("SELECT ctid FROM " + t + " WHERE a = 101");
            assertTrue(moverCtid.startsWith("(0,"), "test premise: row 101 is on block 0: " + moverCtid);
            // 1440 bytes of hex digits: too few repeats for pglz, too short to be toasted; block 0 has no room
            updates += run(s, "UPDATE " + t + " SET b = (SELECT string_agg(md5(g::text), '')"
                    + " FROM generate_series(1, 45) g) WHERE a = 101");
            String moved = s.query("SELECT ctid FROM " + t + " WHERE a = 101");
            assertTrue(!moved.startsWith("(0,"), "test premise: row 101 left block 0: " + moved);
            deletes += run(s, "DELETE FROM " + t + " WHERE a = 4");
            deletes += run(s, "DELETE FROM " + t + " WHERE ctid = (SELECT min(ctid) FROM " + t + " WHERE a = 1)");
            deletes += run(s, "DELETE FROM " + t + " WHERE a = 6"); // duplicates from COPY
            updates += run(s, "UPDATE " + t + " SET d = d * 2 WHERE a BETWEEN 150 AND 160");
            s.c.setAutoCommit(false);
            run(s, "UPDATE " + t + " SET b = 'rolled back' WHERE a = 5");
            run(s, "DELETE FROM " + t + " WHERE a = 7");
            s.c.rollback();
            s.c.setAutoCommit(true);
            List<ChangeStream.Committed> txs = s.advance();
            replica.applyAll(txs);

            // every UPDATE and DELETE is identified by its old TID alone
            int hot = 0;
            int nonHot = 0;
            int crossBlock = 0;
            int sawUpdates = 0;
            int sawDeletes = 0;
            int sawInserts = 0;
            for (ChangeStream.Committed c : s.committed) {
                for (RowChange r : c.rows(rel)) {
                    switch (r.op()) {
                        case INSERT -> sawInserts++;
                        case UPDATE -> {
                            sawUpdates++;
                            assertNull(r.oldValues(), "no key: an UPDATE logs no old key");
                            assertNotNull(r.oldTid());
                            assertNotNull(r.newTid());
                            HeapRecordKind k = s.heapKinds.get(r.lsn());
                            if (k == HeapRecordKind.HOT_UPDATE) {
                                hot++;
                                assertEquals(r.oldTid().block(), r.newTid().block(), "a HOT update stays on its page");
                            } else {
                                assertEquals(HeapRecordKind.UPDATE, k);
                                nonHot++;
                            }
                            if (r.oldTid().block() != r.newTid().block()) {
                                crossBlock++;
                            }
                        }
                        case DELETE -> {
                            sawDeletes++;
                            assertNull(r.oldValues(), "no key: a DELETE logs no old key");
                            assertNotNull(r.oldTid());
                        }
                        default -> throw new AssertionError(r.op() + " unexpected");
                    }
                }
            }
            assertEquals(inserts, sawInserts, "inserted rows");
            assertEquals(updates, sawUpdates, "updated rows");
            assertEquals(deletes, sawDeletes, "deleted rows");
            assertTrue(hot >= 3, "HOT updates: " + hot);
            assertTrue(nonHot >= 2, "non-HOT updates: " + nonHot);
            assertTrue(crossBlock >= 1, "an update that moved the row to another block: " + crossBlock);

            int compared = replica.assertMatchesPostgres(s, t);
            int live = Integer.parseInt(s.query("SELECT count(*) FROM " + t));
            assertEquals(live * 4, compared);
            assertEquals(inserts - deletes, live);
            System.out.println("[change] NoPrimaryKeyIT: " + live + " rows matched by TID, " + compared
                    + " values compared; " + sawInserts + " inserts, " + sawUpdates + " updates (" + hot + " HOT, "
                    + nonHot + " non-HOT, " + crossBlock + " across blocks), " + sawDeletes + " deletes");
        }
    }
}
