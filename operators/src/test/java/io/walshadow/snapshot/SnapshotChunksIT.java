package io.walshadow.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Against the local PostgreSQL: chunks read by parallel readers that imported one exported snapshot, while a writer
 * inserts, updates and deletes, give exactly the snapshot's rows (the exporting transaction's own view is the
 * oracle), each TID once, and the plan covers the whole table.
 */
class SnapshotChunksIT {
    private static final PgConnectionConfig PG = FlinkTestJobs.localPg();

    @Test
    void parallelReadersSeeOneSnapshotAndEachRowOnce() throws Exception {
        String s = "snap_" + Long.toString(System.nanoTime(), 36);
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE SCHEMA " + s,
                    "CREATE TABLE " + s + ".t (id int PRIMARY KEY, v text) WITH (fillfactor = 70)",
                    "INSERT INTO " + s + ".t SELECT g, md5(g::text) FROM generate_series(1, 100000) g",
                    "DELETE FROM " + s + ".t WHERE id % 11 = 0"); // holes in the pages
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger writes = new AtomicInteger();
            Thread writer = new Thread(() -> {
                Random rnd = new Random(7);
                int next = 200000;
                try (Connection w = LocalPg.connect()) {
                    while (!stop.get()) {
                        int id = 1 + rnd.nextInt(100000);
                        LocalPg.exec(w, "INSERT INTO " + s + ".t VALUES (" + next++ + ", 'new')",
                                "UPDATE " + s + ".t SET v = 'changed' WHERE id = " + id,
                                "DELETE FROM " + s + ".t WHERE id = " + (id + 1));
                        writes.incrementAndGet();
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            writer.start();
            try {
                while (writes.get() < 20) {
                    Thread.sleep(10);
                }
                try (ExportedSnapshot snap = ExportedSnapshot.export(PG)) {
                    String oracle = LocalPg.queryString(snap.connection(), "SELECT count(*) || ':' || sum(id) || ':'"
                            + " || sum(length(v)) FROM " + s + ".t");
                    long pages;
                    try (SnapshotChunkReader r = SnapshotChunkReader.open(PG, snap.id())) {
                        pages = r.relPages(s + ".t");
                    }
                    List<TidRange> plan = ChunkPlanner.plan(pages, 64);
                    assertTrue(plan.size() > 5, "a plan of many chunks: " + plan.size() + " for " + pages + " pages");
                    ConcurrentLinkedQueue<TidRange> todo = new ConcurrentLinkedQueue<>(plan);
                    Map<Long, Integer> tids = new ConcurrentHashMap<>();
                    long[] idSum = new long[2];
                    long[] lengthSum = new long[2];
                    ExecutorService pool = Executors.newFixedThreadPool(2);
                    List<Future<Long>> readers = new ArrayList<>();
                    for (int w = 0; w < 2; w++) {
                        int me = w;
                        readers.add(pool.submit(() -> {
                            long rows = 0;
                            try (SnapshotChunkReader r = SnapshotChunkReader.open(PG, snap.id())) {
                                for (TidRange range; (range = todo.poll()) != null; ) {
                                    Thread.sleep(5); // let the writer move on between chunks
                                    rows += r.read(s + ".t", "id, v", range, row -> {
                                        tids.merge(row.block() << 16 | row.offset(), 1, Integer::sum);
                                        idSum[me] += Long.parseLong(row.values()[0]);
                                        lengthSum[me] += row.values()[1].length();
                                    });
                                }
                            }
                            return rows;
                        }));
                    }
                    long rows = 0;
                    for (Future<Long> f : readers) {
                        rows += f.get();
                    }
                    pool.shutdown();
                    assertEquals(oracle, rows + ":" + (idSum[0] + idSum[1]) + ":" + (lengthSum[0] + lengthSum[1]),
                            "count:sum(id):sum(length(v)) of the chunks vs the snapshot");
                    assertEquals(rows, tids.size(), "each TID once");
                    // the writer changed the table meanwhile: the live table is not what the chunks read
                    assertNotEquals(oracle, LocalPg.queryString(c, "SELECT count(*) || ':' || sum(id) || ':'"
                            + " || sum(length(v)) FROM " + s + ".t"));
                    System.out.println("snapshot at " + snap.lsn() + ": " + rows + " rows in " + plan.size()
                            + " chunks of 64 pages, " + writes.get() + " writer transactions meanwhile");
                }
            } finally {
                stop.set(true);
                writer.join();
                // the table wrote tens of MB of WAL: move the redo point past it, or the next test's new slot
                // (which reserves WAL from the last checkpoint's redo point) starts with all of it to read
                LocalPg.exec(c, "DROP SCHEMA " + s + " CASCADE", "CHECKPOINT");
            }
        }
    }

    @Test
    void missingToastReadPrivilegeIsNamed() throws Exception {
        String role = "snap_nopriv_" + Long.toString(System.nanoTime(), 36);
        String s = "snap_priv_" + Long.toString(System.nanoTime(), 36);
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE SCHEMA " + s, "CREATE TABLE " + s + ".big (v text)");
            long toastOid = Long.parseLong(LocalPg.queryString(c, "SELECT reltoastrelid FROM pg_class WHERE oid = '"
                    + s + ".big'::regclass"));
            String toast = "pg_toast.pg_toast_" + LocalPg.queryString(c, "SELECT '" + s + ".big'::regclass::oid");
            ToastReadPrivilege.require(c, toastOid); // the test user may
            LocalPg.exec(c, "CREATE ROLE " + role, "SET ROLE " + role);
            try {
                SQLException e = assertThrows(SQLException.class, () -> ToastReadPrivilege.require(c, toastOid));
                assertTrue(e.getMessage().contains("GRANT pg_read_all_data TO " + role) && e.getMessage().contains(toast),
                        e.getMessage());
            } finally {
                LocalPg.exec(c, "RESET ROLE", "DROP ROLE " + role, "DROP SCHEMA " + s + " CASCADE");
            }
        }
    }
}
