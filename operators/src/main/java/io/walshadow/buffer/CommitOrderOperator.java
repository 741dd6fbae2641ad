package io.walshadow.buffer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Puts the drains of a parallel transaction buffer back into commit order, for the stages behind it (TOAST, sink),
 * which rely on it: DDL before the rows that need it, a TOAST chunk before the row that points to it, one commit's
 * events together.
 *
 * <p>Each buffer subtask drains the commits of its own keys (top-level xids) at their commit records, in WAL order,
 * so a commit's events arrive together, in order, from one input channel; commits of different subtasks interleave.
 * The decoder numbers commits densely ({@link io.walshadow.change.BufferEvent#commitSeq}) and every commit ends in
 * a {@link DrainedCommit} (an {@link DrainedCommit#orderOnly} one when it drained nothing, dropped here), so this
 * operator knows which commit comes next: its events go on as they arrive; later commits wait on the heap until
 * every commit before them has ended. How much waits is bounded by the network buffers in flight: a buffer
 * subtask busy draining a large commit stops taking events, and the decoder stops behind it.
 *
 * <p>With aligned checkpoints nothing waits at a barrier (every commit before it, on every channel, has been
 * drained and has arrived), but what waits is kept in operator state anyway, with the next commit sequence number.
 * Snapshot rows (sequence number 0) carry no commit and go straight on.
 *
 * <p>Runs with parallelism 1; at buffer parallelism 1 it is chained behind the buffer and has nothing to reorder.
 * Metrics (group {@code commit_order}): gauges {@code held_events}, {@code held_commits}, {@code next_commit_seq};
 * counter {@code empty_commits} (commits that drained nothing).
 */
public final class CommitOrderOperator extends AbstractStreamOperator<Drained>
        implements OneInputStreamOperator<Drained, Drained> {
    private static final long serialVersionUID = 1L;
    private static final ListStateDescriptor<Long> NEXT = new ListStateDescriptor<>("commit-order-next", Types.LONG);

    /** Parallelism of the buffer in front (input channels): with one, a state-less restore can take the order as it comes. */
    private final int inputs;

    private transient ListState<Long> nextState;
    private transient ListState<Drained> heldState;
    /** Commit sequence number whose events go on as they arrive; 0: not known yet (see {@link #initializeState}). */
    private transient long next;
    private transient TreeMap<Long, List<Drained>> held;
    private transient long heldEvents;
    private transient Counter emptyCommits;

    /** @param inputs parallelism of the transaction buffer in front */
    public CommitOrderOperator(int inputs) {
        this.inputs = inputs;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        nextState = context.getOperatorStateStore().getListState(NEXT);
        heldState = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("commit-order-held", DrainedSerializer.typeInfo()));
        held = new TreeMap<>();
        heldEvents = 0;
        next = context.isRestored() ? 0 : 1; // a new decoder numbers commits from 1
        for (Long n : nextState.get()) {
            next = n;
        }
        for (Drained d : heldState.get()) {
            hold(d);
        }
        if (context.isRestored() && next == 0 && inputs > 1) {
            // A savepoint of a build without this operator: where the decoder's numbering stands is not known here,
            // and with several buffer subtasks the first commit to arrive need not be the next one.
            throw new SuppressRestartsException(new IllegalStateException("the restored state has no commit order "
                    + "(written by a build before xact.buffer.parallelism existed): restore it once with "
                    + "--xact.buffer.parallelism 1, take a savepoint, and restore that one at parallelism " + inputs));
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        if (getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks() != 1) {
            throw new IllegalStateException("the commit order runs with parallelism 1");
        }
        MetricGroup g = getRuntimeContext().getMetricGroup().addGroup("commit_order");
        g.gauge("held_events", () -> heldEvents);
        g.gauge("held_commits", () -> held.size());
        g.gauge("next_commit_seq", () -> next);
        emptyCommits = g.counter("empty_commits");
    }

    @Override
    public void processElement(StreamRecord<Drained> element) throws Exception {
        Drained d = element.getValue();
        long seq = d.commitSeq();
        if (seq <= 0) {
            output.collect(element); // a snapshot row: committed before the stream, in no order with it
            return;
        }
        if (next == 0) {
            next = seq; // one input restored without this operator's state: what comes first is next
        }
        if (seq == next) {
            emit(d, element);
            if (d instanceof DrainedCommit) {
                next++;
                release();
            }
        } else if (seq > next) {
            hold(d);
        } else {
            throw new IllegalStateException("commit seq " + seq + " (commit LSN "
                    + io.walshadow.wal.Lsn.format(d.commitLsn()) + ") arrived after its commit had ended (next: "
                    + next + ")");
        }
    }

    /** Sends on the commits that waited for the one that just ended, as long as each of them has ended too. */
    private void release() {
        while (!held.isEmpty() && held.firstKey() == next) {
            List<Drained> events = held.pollFirstEntry().getValue();
            boolean ended = false;
            for (Drained d : events) {
                emit(d, new StreamRecord<>(d));
                heldEvents--;
                ended = d instanceof DrainedCommit;
            }
            if (!ended) {
                return; // the rest of this commit is still on its way: it goes on as it arrives
            }
            next++;
        }
    }

    private void emit(Drained d, StreamRecord<Drained> record) {
        if (d instanceof DrainedCommit c && c.isOrderOnly()) {
            emptyCommits.inc();
            return;
        }
        output.collect(record);
    }

    private void hold(Drained d) {
        held.computeIfAbsent(d.commitSeq(), k -> new ArrayList<>()).add(d);
        heldEvents++;
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        nextState.update(next == 0 ? List.of() : List.of(next));
        List<Drained> all = new ArrayList<>();
        for (Map.Entry<Long, List<Drained>> e : held.entrySet()) {
            all.addAll(e.getValue());
        }
        heldState.update(all);
    }
}
