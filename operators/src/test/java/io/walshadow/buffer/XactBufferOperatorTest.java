package io.walshadow.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.change.BufferEvent;
import io.walshadow.change.ChangeEvent;
import io.walshadow.change.RowChange;
import io.walshadow.change.XactEvent;
import io.walshadow.heap.Tid;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.testing.Samples;
import io.walshadow.xact.InvalidationMessages;
import io.walshadow.xact.XactAbort;
import io.walshadow.xact.XactCommit;
import io.walshadow.xact.XactInfo;
import io.walshadow.xact.XactPrepare;
import io.walshadow.xact.XidList;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transaction buffer as Flink runs it, in Flink's operator test harness with RocksDB keyed state and no server:
 * families held until their commit, drained in commit order, a rolled-back savepoint's rows left out, open and
 * prepared families carried across a checkpoint and restore, and the cut-off horizon (RUNNING_XACTS).
 */
class XactBufferOperatorTest {
    private static final PgConnectionConfig NO_SERVER = new PgConnectionConfig("127.0.0.1", 1, "none", "none", "",
            "disable", null);
    private final List<KeyedOneInputStreamOperatorTestHarness<Integer, BufferEvent, Drained>> open = new ArrayList<>();
    private long lsn = 0x1_0000_0000L;
    private long seq;

    @AfterEach
    void close() throws Exception {
        for (var h : open) {
            h.close();
        }
    }

    private KeyedOneInputStreamOperatorTestHarness<Integer, BufferEvent, Drained> harness(OperatorSubtaskState from)
            throws Exception {
        return harness(from, new XactBuffer(NO_SERVER, true));
    }

    private KeyedOneInputStreamOperatorTestHarness<Integer, BufferEvent, Drained> harness(OperatorSubtaskState from,
            XactBuffer buffer) throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new XactBufferOperator(buffer, Set.of()), BufferEvent::topXid, Types.INT);
        h.setStateBackend(new EmbeddedRocksDBStateBackend());
        h.setup(new DrainedSerializer()); // the job's: the harness would guess a POJO type from the first element
        if (from != null) {
            h.initializeState(from);
        }
        h.open();
        open.add(h);
        return h;
    }

    private BufferEvent insert(int top, int xid, long id) {
        lsn += 0x100;
        return BufferEvent.of(top, new RowChange(lsn, xid, RowChange.Op.INSERT, Samples.LOC, Samples.descriptor(),
                new Tid(0, (int) id), null, Samples.row(id), null, false));
    }

    private BufferEvent commit(int xid, int... subxacts) {
        lsn += 0x100;
        XactCommit c = new XactCommit(lsn, XactInfo.XLOG_XACT_COMMIT | XactInfo.XLOG_XACT_HAS_INFO, xid, 1000 + seq,
                subxacts.length > 0 ? XactInfo.XACT_XINFO_HAS_SUBXACTS : 0, null, XidList.of(subxacts), List.of(),
                List.of(), InvalidationMessages.empty(), 0, null, null);
        return new BufferEvent(xid, ++seq, (7L << 32) | xid, new XactEvent(c, List.of()), Map.of());
    }

    private BufferEvent rollbackToSavepoint(int top, int sub) {
        lsn += 0x100;
        return BufferEvent.of(top, new XactEvent(new XactAbort(lsn, XactInfo.XLOG_XACT_ABORT, sub, top, 0, 0, null,
                XidList.empty(), List.of(), List.of(), 0, null, null), List.of()));
    }

    private BufferEvent prepare(int xid, String gid) {
        lsn += 0x100;
        return BufferEvent.of(xid, new XactEvent(new XactPrepare(lsn, XactInfo.XLOG_XACT_PREPARE, xid,
                XactInfo.TWOPHASE_MAGIC, 0, xid, 16384, 725_846_400_000_001L, 0, XidList.empty(), List.of(),
                List.of(), List.of(), List.of(), InvalidationMessages.empty(), false, gid, 0, 0, 0, List.of()),
                List.of()));
    }

    private BufferEvent commitPrepared(int xid) {
        lsn += 0x100;
        XactCommit c = new XactCommit(lsn, XactInfo.XLOG_XACT_COMMIT_PREPARED | XactInfo.XLOG_XACT_HAS_INFO, 0,
                2000, XactInfo.XACT_XINFO_HAS_TWOPHASE, null, XidList.empty(), List.of(), List.of(),
                InvalidationMessages.empty(), xid, null, null);
        return new BufferEvent(xid, ++seq, xid, new XactEvent(c, List.of()), Map.of());
    }

    private static void feed(KeyedOneInputStreamOperatorTestHarness<Integer, BufferEvent, Drained> h,
                             BufferEvent... events) throws Exception {
        for (BufferEvent e : events) {
            h.processElement(new StreamRecord<>(e));
        }
    }

    /** What came out, as "commit seq: ids..." per committed family, in order. */
    private static List<String> drained(KeyedOneInputStreamOperatorTestHarness<Integer, BufferEvent, Drained> h) {
        List<String> out = new ArrayList<>();
        StringBuilder family = new StringBuilder();
        for (Drained d : h.extractOutputValues()) {
            if (d instanceof DrainedChange c) {
                ChangeEvent e = c.change();
                family.append(' ').append(((RowChange) e).newValues()[0]);
            } else if (d instanceof DrainedCommit c) {
                out.add(c.commitSeq() + ":" + family + " (" + c.changes() + ")");
                family.setLength(0);
            }
        }
        return out;
    }

    @Test
    void familiesDrainAtTheirCommitInCommitOrderWithoutRolledBackSavepoints() throws Exception {
        var h = harness(null);
        feed(h, insert(100, 100, 1), insert(101, 101, 10), insert(100, 100, 2),
                insert(101, 102, 11), rollbackToSavepoint(101, 102), insert(101, 103, 12),
                commit(101, 103), commit(100));
        assertEquals(List.of("1: 10 12 (2)", "2: 1 2 (2)"), drained(h));
    }

    @Test
    void openAndPreparedFamiliesSurviveACheckpointAndRestore() throws Exception {
        var h = harness(null);
        feed(h, insert(200, 200, 1), insert(201, 201, 5), insert(201, 201, 6), prepare(201, "gid-201"),
                insert(202, 202, 7), commit(202));
        assertEquals(List.of("1: 7 (1)"), drained(h));
        h.prepareSnapshotPreBarrier(1); // as the task does before it sends the barrier on
        OperatorSubtaskState snapshot = h.snapshot(1, 1);
        h.close();
        open.remove(h);

        var restored = harness(snapshot); // the WAL after the checkpoint comes again; what was before is in state
        feed(restored, insert(200, 200, 2), commit(200), commitPrepared(201));
        assertEquals(List.of("2: 1 2 (2)", "3: 5 6 (2)"), drained(restored));
    }

    @Test
    void aFamilyCutOffByACrashIsDiscardedAtTheRunningXactsHorizonButAPreparedOneIsKept() throws Exception {
        var h = harness(null);
        feed(h, insert(300, 300, 1), insert(301, 301, 2), prepare(301, "kept"), insert(310, 310, 3));
        lsn += 0x100;
        feed(h, BufferEvent.runningXacts(lsn, (7L << 32) | 305)); // 300 ended without a record; 310 runs on
        feed(h, insert(300, 300, 4), commit(300), commitPrepared(301), commit(310));
        // 300's first row was cut off with its crashed family; the reused xid's new family drains alone
        List<String> out = drained(h);
        assertEquals(List.of("1: 4 (1)", "2: 2 (1)", "3: 3 (1)"), out);
        assertTrue(h.extractOutputValues().size() >= 6);
    }

    /**
     * In front of the commit order (a parallel buffer), every commit ends in a {@link DrainedCommit}: one that
     * buffered nothing in an order-only end; one whose rows were all rolled back in an ordinary, empty one.
     */
    @Test
    void withOrderMarkersEveryCommitEnds() throws Exception {
        var h = harness(null, new XactBuffer(NO_SERVER, true).withOrderMarkers());
        feed(h, commit(400), insert(401, 402, 1), rollbackToSavepoint(401, 402), commit(401), insert(403, 403, 2),
                commit(403));
        List<Drained> out = h.extractOutputValues();
        List<String> ends = new ArrayList<>();
        for (Drained d : out) {
            if (d instanceof DrainedCommit c) {
                ends.add(c.commitSeq() + (c.isOrderOnly() ? " order-only" : " changes " + c.changes()));
            }
        }
        assertEquals(List.of("1 order-only", "2 changes 0", "3 changes 1"), ends);
        var without = harness(null);
        feed(without, commit(404));
        assertEquals(List.of(), without.extractOutputValues(), "without the commit order, nothing");
    }
}
