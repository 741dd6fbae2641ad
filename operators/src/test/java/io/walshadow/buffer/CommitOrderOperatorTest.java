package io.walshadow.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.walshadow.catalog.TypeSet;
import io.walshadow.change.RowChange;
import io.walshadow.heap.Tid;
import io.walshadow.testing.Samples;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The commit order behind a parallel transaction buffer, in Flink's operator test harness: commits of two buffer
 * subtasks arriving interleaved come out in commit sequence order, each whole; empty commits' markers are dropped;
 * snapshot rows pass; what waits survives a checkpoint; a state-less restore is taken only with one input.
 */
class CommitOrderOperatorTest {
    private final List<OneInputStreamOperatorTestHarness<Drained, Drained>> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (var h : open) {
            h.close();
        }
    }

    private OneInputStreamOperatorTestHarness<Drained, Drained> harness(int inputs, OperatorSubtaskState from,
                                                                       boolean restoredWithoutState) throws Exception {
        var h = new OneInputStreamOperatorTestHarness<>(new CommitOrderOperator(inputs));
        h.setup(new DrainedSerializer());
        open.add(h);
        if (from != null) {
            h.initializeState(from);
        } else if (restoredWithoutState) {
            h.initializeState(OperatorSubtaskState.builder().build()); // a restore whose savepoint lacks this operator
        }
        h.open();
        return h;
    }

    private static DrainedChange row(long seq, long id) {
        return new DrainedChange(seq, seq << 8, seq, 0, new RowChange((seq << 8) - 16 + id, (int) seq,
                RowChange.Op.INSERT, Samples.LOC, Samples.descriptor(), new Tid(0, (int) id), null, Samples.row(id),
                null, false));
    }

    private static DrainedCommit end(long seq) {
        return new DrainedCommit(seq, seq << 8, seq, 0, null, 1, (seq << 8) - 16, List.of("public.t"), false);
    }

    private static DrainedCatalog ddl(long seq) {
        return new DrainedCatalog(seq, seq << 8, seq, 0, List.of(new io.walshadow.catalog.CatalogChange(16390, null,
                Samples.descriptor(), null, null)), TypeSet.EMPTY);
    }

    private static void feed(OneInputStreamOperatorTestHarness<Drained, Drained> h, Drained... ds) throws Exception {
        for (Drained d : ds) {
            h.processElement(new StreamRecord<>(d));
        }
    }

    /** Output as "seq:kind" strings. */
    private static List<String> out(OneInputStreamOperatorTestHarness<Drained, Drained> h) {
        List<String> l = new ArrayList<>();
        for (Object o : h.getOutput()) {
            @SuppressWarnings("unchecked")
            Drained d = ((StreamRecord<Drained>) o).getValue();
            l.add(d.commitSeq() + ":" + (d instanceof DrainedCatalog ? "ddl" : d instanceof DrainedChange c
                    ? "row" + ((RowChange) c.change()).newValues()[0] : "end"));
        }
        h.getOutput().clear();
        return l;
    }

    @Test
    void interleavedCommitsOfTwoSubtasksComeOutInCommitOrder() throws Exception {
        var h = harness(2, null, false);
        // subtask B drained 2 and 4 before subtask A's 1 and 3 arrived; 3 drained nothing
        feed(h, ddl(2), row(2, 1), end(2));
        assertEquals(List.of(), out(h), "2 waits for 1");
        feed(h, row(1, 1), row(1, 2));
        assertEquals(List.of("1:row1", "1:row2"), out(h), "the next commit's rows go on as they arrive");
        feed(h, row(4, 1), end(4), DrainedCommit.orderOnly(3, 3 << 8, 3, 0));
        assertEquals(List.of(), out(h), "1 has not ended yet");
        feed(h, end(1));
        assertEquals(List.of("1:end", "2:ddl", "2:row1", "2:end", "4:row1", "4:end"), out(h),
                "the empty commit 3 lets 4 through and is not passed on");
    }

    @Test
    void aCommitThatWaitedHalfArrivedGoesOnAsTheRestArrives() throws Exception {
        var h = harness(2, null, false);
        feed(h, row(2, 1), row(1, 1));
        feed(h, end(1));
        assertEquals(List.of("1:row1", "1:end", "2:row1"), out(h));
        feed(h, row(3, 1), row(2, 2), end(2));
        assertEquals(List.of("2:row2", "2:end", "3:row1"), out(h));
    }

    @Test
    void snapshotRowsPassWhileCommitsWait() throws Exception {
        var h = harness(2, null, false);
        feed(h, row(2, 1), new DrainedChange(0, 77, 0, 0, row(1, 5).change()));
        assertEquals(List.of("0:row5"), out(h));
    }

    @Test
    void whatWaitsAndTheNextCommitSurviveACheckpoint() throws Exception {
        var h = harness(2, null, false);
        feed(h, row(1, 1), end(1), row(3, 1), end(3), row(2, 1));
        assertEquals(List.of("1:row1", "1:end", "2:row1"), out(h));
        OperatorSubtaskState snap = h.snapshot(1, 1);
        var restored = harness(3, snap, false); // restored with another buffer parallelism
        feed(restored, end(2));
        assertEquals(List.of("2:end", "3:row1", "3:end"), out(restored));
        feed(restored, row(4, 1), end(4));
        assertEquals(List.of("4:row1", "4:end"), out(restored));
    }

    @Test
    void aCommitBehindTheOrderFails() throws Exception {
        var h = harness(1, null, false);
        feed(h, row(1, 1), end(1));
        assertThrows(IllegalStateException.class, () -> feed(h, row(1, 2)));
    }

    @Test
    void aSavepointWithoutTheOrderRestoresAtOneBufferSubtaskOnly() throws Exception {
        var one = harness(1, null, true);
        feed(one, row(41, 1), end(41), row(42, 1));
        assertEquals(List.of("41:row1", "41:end", "42:row1"), out(one), "one input: the first commit to come is next");
        var ex = assertThrows(SuppressRestartsException.class, () -> harness(2, null, true));
        assertEquals(true, ex.getCause().getMessage().contains("--xact.buffer.parallelism 1"), ex.getCause().getMessage());
    }
}
