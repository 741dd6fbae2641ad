package io.walshadow.change;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.catalog.CatalogChange;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.Lookup;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.heap.Tid;
import io.walshadow.types.ToastPointer;
import io.walshadow.types.ValueDecoder;
import java.io.ByteArrayOutputStream;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * An in-memory replica built from committed transactions, the way a sink applies them: per relation (by pg_class
 * oid) a map from row key to the last decoded row. The key is the text of the identity (primary key) columns,
 * or the heap TID when the relation has none (then UPDATE moves the row from its old TID to its new one).
 *
 * <p>Application is strict: an INSERT of a key already present, or an UPDATE/DELETE of a key that is absent,
 * fails the test at once (so a lost, duplicated or misattributed change cannot go unnoticed). TRUNCATE empties the
 * relation; a commit that moved a relation to new storage and carries deferred rows for it (a table rewrite:
 * every row is re-inserted into the new relfilenode) starts a new generation of the relation at its first
 * deferred row; a DROP removes it.
 */
final class Replica {
    record Row(RelationDescriptor descriptor, Object[] values, Tid tid, RowChange source) {}

    private final ValueDecoder values;
    /** relOid -> key -> row. TOAST relations are keyed by TID too, so pointers can be resolved from the stream. */
    final Map<Integer, Map<String, Row>> tables = new HashMap<>();
    /** relOid -> what happened, in order: "INSERT k", "UPDATE k", "UPDATE old->new" (old key logged), "DELETE k". */
    final Map<Integer, List<String>> ops = new HashMap<>();
    final Set<Integer> dropped = new HashSet<>();
    int toastResolved;

    Replica(ValueDecoder values) {
        this.values = values;
    }

    void applyAll(List<ChangeStream.Committed> txs) {
        for (ChangeStream.Committed t : txs) {
            apply(t);
        }
    }

    void apply(ChangeStream.Committed t) {
        Set<Integer> rewritten = new HashSet<>();
        for (CatalogChange ch : t.catalogChanges()) {
            if (ch.storageChanged()) {
                rewritten.add(ch.relOid());
            }
        }
        Set<Integer> restarted = new HashSet<>();
        for (ChangeEvent e : t.delivered()) {
            if (e instanceof TruncateChange tc) {
                for (RelationDescriptor d : tc.relations()) {
                    table(d.relOid()).clear();
                    log(d.relOid(), "TRUNCATE");
                }
            } else if (e instanceof RowChange r) {
                if (t.isFromDeferred(r) && rewritten.contains(r.relOid()) && restarted.add(r.relOid())) {
                    table(r.relOid()).clear();
                    log(r.relOid(), "GENERATION");
                }
                apply(r);
            } else {
                fail("not deliverable: " + e);
            }
        }
        for (CatalogChange ch : t.catalogChanges()) {
            if (ch.after() == null && ch.closedAs() == Lookup.NotCoveredReason.DROPPED) {
                tables.remove(ch.relOid());
                dropped.add(ch.relOid());
                log(ch.relOid(), "DROP");
            }
        }
    }

    Map<String, Row> table(int relOid) {
        return tables.computeIfAbsent(relOid, k -> new LinkedHashMap<>());
    }

    List<String> ops(int relOid) {
        return ops.getOrDefault(relOid, List.of());
    }

    private void log(int relOid, String op) {
        ops.computeIfAbsent(relOid, k -> new ArrayList<>()).add(op);
    }

    /**
     * Whether rows are keyed by the identity columns. Not with REPLICA IDENTITY NOTHING: its UPDATE/DELETE
     * records carry no old key even when there is a primary key (TOAST relations: their (chunk_id, chunk_seq)
     * index is a primary key, relreplident is 'n'); then, as without a key, the TID identifies the row.
     */
    static boolean keyed(RelationDescriptor d) {
        return !d.identityAttnums().isEmpty() && d.replicaIdentity() != 'n';
    }

    /** The key text of a row: identity columns' output joined with '|'. */
    String key(RelationDescriptor d, Object[] v) {
        StringBuilder sb = new StringBuilder();
        for (int attnum : d.identityAttnums()) {
            Column col = d.column(attnum);
            sb.append(sb.length() == 0 ? "" : "|").append(values.toText(col.typeOid(), col.typmod(), v[attnum - 1]));
        }
        return sb.toString();
    }

    private void apply(RowChange r) {
        RelationDescriptor d = r.descriptor();
        Map<String, Row> rows = table(r.relOid());
        String where = r.op() + " at " + io.walshadow.wal.Lsn.format(r.lsn()) + " on " + d.qualifiedName();
        switch (r.op()) {
            case INSERT -> {
                String k = keyed(d) ? key(d, r.newValues()) : r.newTid().toString();
                if (rows.containsKey(k)) {
                    fail(where + ": key " + k + " is already present");
                }
                rows.put(k, new Row(d, r.newValues(), r.newTid(), r));
                log(r.relOid(), "INSERT " + k);
            }
            case UPDATE -> {
                String newKey = keyed(d) ? key(d, r.newValues()) : r.newTid().toString();
                String oldKey;
                if (keyed(d)) {
                    oldKey = r.oldValues() == null ? newKey : key(d, r.oldValues());
                } else {
                    assertNotNull(r.oldTid(), where + ": an UPDATE without key names its old TID");
                    oldKey = r.oldTid().toString();
                }
                if (rows.remove(oldKey) == null) {
                    fail(where + ": old key " + oldKey + " is not present (keys: " + rows.keySet() + ")");
                }
                if (rows.containsKey(newKey)) {
                    fail(where + ": new key " + newKey + " is already present");
                }
                rows.put(newKey, new Row(d, r.newValues(), r.newTid(), r));
                log(r.relOid(), "UPDATE " + (r.oldValues() != null || !keyed(d) ? oldKey + "->" + newKey : newKey));
            }
            case DELETE -> {
                String oldKey;
                if (keyed(d)) {
                    assertNotNull(r.oldValues(), where + ": a DELETE of a table with a key carries the old key");
                    oldKey = key(d, r.oldValues());
                } else {
                    oldKey = r.oldTid().toString();
                }
                if (rows.remove(oldKey) == null) {
                    fail(where + ": old key " + oldKey + " is not present (keys: " + rows.keySet() + ")");
                }
                log(r.relOid(), "DELETE " + oldKey);
            }
            default -> fail(where + ": unexpected in this workload");
        }
    }

    /**
     * The value an external TOAST pointer stands for, reassembled from the TOAST relation's chunk rows as they
     * came through the stream (not read back from PostgreSQL), decoded with the column's type.
     */
    Object resolve(Column col, ToastPointer p) {
        Map<String, Row> chunks = tables.get(p.toastRelOid());
        assertNotNull(chunks, "no rows of TOAST relation " + Integer.toUnsignedString(p.toastRelOid())
                + " came through the stream");
        TreeMap<Integer, byte[]> bySeq = new TreeMap<>();
        for (Row r : chunks.values()) {
            // pg_toast_N: chunk_id oid, chunk_seq int4, chunk_data bytea
            if (((Long) r.values()[0]).intValue() == p.valueId()) {
                bySeq.put((Integer) r.values()[1], (byte[]) r.values()[2]);
            }
        }
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        int expectSeq = 0;
        for (Map.Entry<Integer, byte[]> e : bySeq.entrySet()) {
            assertEquals(expectSeq++, e.getKey(), "chunk_seq of TOAST value " + p);
            data.writeBytes(e.getValue());
        }
        byte[] datum = p.toVarlena(data.toByteArray());
        toastResolved++;
        return values.decode(col, datum, 0, datum.length);
    }

    /**
     * Compares the replica's rows of {@code table} with PostgreSQL's own output of every live column, value by
     * value ({@code format('%s', col)}, the type's output function, against {@link ValueDecoder#toText}). Rows
     * are matched by key (the identity columns' output, or {@code ctid} for a table without a key); columns by
     * attnum (a row last written before ADD COLUMN reads the column's missing value, as PostgreSQL does). Values
     * that came out as TOAST pointers are resolved from the stream's TOAST rows first. Returns the number of
     * values compared.
     */
    int assertMatchesPostgres(ChangeStream s, String table) throws SQLException {
        int relOid = s.oid(table);
        Lookup cur = s.decoder.history().current(relOid);
        assertEquals(Lookup.Outcome.PRESENT, cur.outcome(), table + " in the history: " + cur);
        RelationDescriptor now = cur.descriptor();
        List<Integer> attnums = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try (Statement st = s.c.createStatement(); ResultSet rs = st.executeQuery("SELECT attnum, quote_ident(attname)"
                + " FROM pg_attribute WHERE attrelid = " + Integer.toUnsignedString(relOid)
                + " AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
            while (rs.next()) {
                attnums.add(rs.getInt(1));
                names.add(rs.getString(2));
            }
        }
        String keyExpr;
        if (!keyed(now)) {
            keyExpr = "ctid::text";
        } else {
            List<String> parts = new ArrayList<>();
            for (int a : now.identityAttnums()) {
                parts.add("format('%s', " + names.get(attnums.indexOf(a)) + ")");
            }
            keyExpr = String.join(" || '|' || ", parts);
        }
        StringBuilder sql = new StringBuilder("SELECT ").append(keyExpr);
        for (String n : names) {
            // format('%s', NULL) is '' and a composite of NULL fields IS NULL: num_nulls tells a NULL datum only
            sql.append(", CASE WHEN num_nulls(").append(n).append(") = 1 THEN NULL ELSE format('%s', ").append(n)
                    .append(") END");
        }
        sql.append(" FROM ").append(table);
        Map<String, String[]> pg = new LinkedHashMap<>();
        try (Statement st = s.c.createStatement(); ResultSet rs = st.executeQuery(sql.toString())) {
            while (rs.next()) {
                String[] v = new String[names.size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = rs.getString(i + 2);
                }
                assertNull(pg.put(rs.getString(1), v), table + ": duplicate key in PostgreSQL");
            }
        }
        Map<String, Row> mine = tables.getOrDefault(relOid, Map.of());
        assertEquals(new TreeMap<>(pg).keySet(), new TreeMap<>(mine).keySet(), table + ": row keys");
        List<String> mismatches = new ArrayList<>();
        int compared = 0;
        for (Map.Entry<String, String[]> e : pg.entrySet()) {
            Row row = mine.get(e.getKey());
            for (int i = 0; i < attnums.size(); i++) {
                int attnum = attnums.get(i);
                String got;
                try {
                    got = text(row, now, attnum);
                } catch (RuntimeException ex) {
                    got = "<" + ex + ">";
                }
                compared++;
                String expected = e.getValue()[i];
                if (!java.util.Objects.equals(expected, got)) {
                    mismatches.add(table + " key " + e.getKey() + " " + names.get(i) + " (attnum " + attnum
                            + "): PostgreSQL [" + expected + "] decoded [" + got + "]");
                }
            }
        }
        assertTrue(mismatches.isEmpty(), mismatches.size() + " mismatch(es):\n"
                + String.join("\n", mismatches.subList(0, Math.min(40, mismatches.size()))));
        return compared;
    }

    /** The decoded text of one column of a replica row (see {@link #assertMatchesPostgres}). */
    String text(Row row, RelationDescriptor now, int attnum) {
        if (attnum > row.descriptor().natts()) {
            // written before the column existed: PostgreSQL reads attmissingval, or NULL
            Column col = now.column(attnum);
            if (!col.hasMissingValue()) {
                return null;
            }
            byte[] mv = col.missingValue();
            return values.toText(col.typeOid(), col.typmod(), values.decode(col, mv, 0, mv.length));
        }
        Column col = row.descriptor().column(attnum);
        if (col.dropped()) {
            throw new IllegalStateException("attnum " + attnum + " is dropped in the row's descriptor");
        }
        Object v = row.values()[attnum - 1];
        if (v instanceof ToastPointer p) {
            v = resolve(col, p);
        }
        return values.toText(col.typeOid(), col.typmod(), v);
    }
}
