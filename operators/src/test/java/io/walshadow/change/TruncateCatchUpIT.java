package io.walshadow.change;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.CatalogAheadException;
import io.walshadow.heap.HeapRecordKind;
import io.walshadow.testing.LocalPg;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TRUNCATE decoded in catch-up (the live catalog already past the transactions that are decoded): a TRUNCATE
 * whose relation is ambiguous because of its own transaction's catalog change is deferred to its commit and
 * comes out there, in its place before the rows the transaction wrote after it; one ambiguous because of
 * another transaction still fails closed.
 */
class TruncateCatchUpIT {
    private static List<TruncateChange> truncates(ChangeStream.Committed t) {
        List<TruncateChange> out = new ArrayList<>();
        for (ChangeEvent e : t.delivered()) {
            if (e instanceof TruncateChange tc) {
                out.add(tc);
            }
        }
        return out;
    }

    private static void assertDeferredTruncateFirst(ChangeStream.Committed t, int rel, String table) {
        assertTrue(t.events().stream().noneMatch(e -> e instanceof TruncateChange),
                "the TRUNCATE is not decoded at its record: " + t.events());
        assertTrue(t.deferred().stream().anyMatch(d -> d.rel() == null && WalChangeDecoder.isDeferredTruncate(d)),
                "the TRUNCATE is deferred: " + t.events());
        List<TruncateChange> truncs = truncates(t);
        assertEquals(1, truncs.size(), t.delivered().toString());
        assertEquals(1, truncs.get(0).relations().size());
        assertEquals(rel, truncs.get(0).relations().get(0).relOid());
        assertEquals("public." + table, truncs.get(0).relations().get(0).qualifiedName());
        assertTrue(t.delivered().get(0) instanceof TruncateChange, "the TRUNCATE drains before the rows written "
                + "after it: " + t.delivered());
        assertFalse(t.rows(rel).isEmpty());
    }

    /**
     * BEGIN; ALTER TABLE RENAME COLUMN; TRUNCATE; INSERT; COMMIT, decoded after the catalog moved on; deferred
     * records resolved by the decoder at the commit, or only from the commit's buffer envelope (as XactBuffer).
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void ownDdlThenTruncateInOneTransaction(boolean viaBuffer) throws Exception {
        try (ChangeStream s = new ChangeStream("trcu")) {
            s.viaBuffer = viaBuffer;
            String t = DdlInStreamIT.create(s, "own");
            int rel = s.oid(t);
            s.exec("INSERT INTO " + t + " VALUES (1, 10, 'one'), (2, 20, 'two')");
            s.start();
            Replica replica = new Replica(s.values);
            s.xact("INSERT INTO " + t + " VALUES (3, 30, 'three')");
            s.xact("ALTER TABLE " + t + " ADD COLUMN c int4");
            // new storage without rows (a rewrite's rows on storage nobody can attribute would fail closed), changed
            // again before the job reaches this commit: the relation is ambiguous until the next commit
            s.xact("TRUNCATE " + t);
            int x = s.xact("ALTER TABLE " + t + " RENAME COLUMN a TO z", "TRUNCATE " + t,
                    "INSERT INTO " + t + " VALUES (4, 40, 'four', 4), (5, 50, 'five', 5)");
            s.xact("INSERT INTO " + t + " VALUES (6, 60, 'six', 6)");
            List<ChangeStream.Committed> all = s.advance(); // only now: the catalog is ahead of all of it
            replica.applyAll(all);
            ChangeStream.Committed tx = ChangeStream.of(all, x);
            assertDeferredTruncateFirst(tx, rel, t);
            assertEquals(2, tx.rows(rel).size());
            assertEquals(List.of("INSERT 3", "TRUNCATE", "TRUNCATE", "INSERT 4", "INSERT 5", "INSERT 6"), replica.ops(rel));
            DdlInStreamIT.compare(s, replica, t);
        }
    }

    /** pgbench -i's shape: CREATE TABLE; BEGIN; TRUNCATE; COPY; COMMIT; ALTER TABLE ADD PRIMARY KEY. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void pgbenchInitShape(boolean viaBuffer) throws Exception {
        try (ChangeStream s = new ChangeStream("trcu")) {
            s.viaBuffer = viaBuffer;
            s.start();
            String t = s.table("bench");
            s.exec("CREATE TABLE " + t + " (id int4 NOT NULL, a int4, b text) WITH (autovacuum_enabled = off)");
            int rel = s.oid(t);
            int x = s.xact("TRUNCATE " + t,
                    "INSERT INTO " + t + " SELECT g, g * 10, 'row ' || g FROM generate_series(1, 50) g");
            s.exec("ALTER TABLE " + t + " ADD PRIMARY KEY (id)");
            List<ChangeStream.Committed> all = s.advance();
            Replica replica = new Replica(s.values);
            replica.applyAll(all);
            ChangeStream.Committed tx = ChangeStream.of(all, x);
            assertDeferredTruncateFirst(tx, rel, t);
            assertEquals(50, tx.rows(rel).size());
            // No primary key at the commit: the replica keys these rows by TID, so compare the values only.
            List<String> got = new ArrayList<>();
            for (Replica.Row r : replica.table(rel).values()) {
                got.add(r.values()[0] + "|" + r.values()[1] + "|" + r.values()[2]);
            }
            got.sort(null);
            List<String> want = LocalPg.queryColumn(s.c, "SELECT id || '|' || a || '|' || b FROM " + t);
            want.sort(null);
            assertEquals(want, got);
        }
    }

    /** A TRUNCATE of a relation ambiguous because of another, later transaction still fails closed. */
    @Test
    void truncateAmbiguousBecauseOfAnotherTransactionFailsClosed() throws Exception {
        try (ChangeStream s = new ChangeStream("trcu")) {
            // No TOAST table and no index: the TRUNCATE's xid stays out of the catalog rows the resolver reads
            // (pg_class is rewritten again by the later transaction), so the ambiguity awaits only that one.
            String t = s.table("other");
            s.exec("CREATE TABLE " + t + " (id int4, a int4) WITH (autovacuum_enabled = off)",
                    "INSERT INTO " + t + " VALUES (1, 10)");
            s.start();
            // new storage here (no rows on it), replaced again by the later rewrite before the job reaches this commit:
            // the relation is ambiguous from here until the later transaction's commit
            s.xact("TRUNCATE " + t);
            int x = s.xact("TRUNCATE " + t);
            int later = s.xact("ALTER TABLE " + t + " RENAME COLUMN a TO z",
                    "ALTER TABLE " + t + " ADD COLUMN d int4 DEFAULT (random() * 100)::int4");
            CatalogAheadException e = assertThrows(CatalogAheadException.class, () -> {
                System.out.println("[trcu] no exception; events " + s.advance());
            });
            System.out.println("[trcu] fails closed as expected: " + e.getMessage());
            assertTrue(java.util.Arrays.stream(e.getStackTrace()).anyMatch(f -> f.getMethodName().equals("truncate")
                    && f.getClassName().equals(WalChangeDecoder.class.getName())), "thrown decoding the TRUNCATE");
            assertTrue(s.heapKinds.containsValue(HeapRecordKind.TRUNCATE), "the TRUNCATE record was read");
            assertEquals(s.oid(t), e.relOid());
            assertFalse(e.awaitedXids().contains(x), e.getMessage());
            assertTrue(e.awaitedXids().contains(later), e.getMessage());
        }
    }
}
