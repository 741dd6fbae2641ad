package io.walshadow.buffer;

import io.walshadow.change.BufferEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link XactBuffer} and, once at start-up, looks at the prepared families it holds: a function only sees the
 * key of the event in hand, while listing and dropping have to visit every key that holds a GID.
 *
 * <ul>
 *   <li>After a restore it logs, at INFO, every prepared transaction restored (gid, xid, changes, first LSN,
 *       prepared at).
 *   <li>It drops the prepared families whose GID the operator asked for ({@code --xact.prepared.drop}): for a
 *       prepared transaction whose COMMIT / ROLLBACK PREPARED will never reach the job (resolved on another node
 *       during a failover, say). Each drop is logged at WARN and counted ({@code xact_buffer.prepared_dropped});
 *       a requested GID it does not hold is logged at WARN (at INFO when the buffer runs on several subtasks: another
 *       one may hold it).
 * </ul>
 *
 * <p>The request stays in the job's arguments, so it is seen again at every restart from a checkpoint. GIDs can be
 * reused once resolved, so the operator remembers, in operator state, which xid each requested GID was dropped
 * under: a later start drops that GID only under the same xid (a restore from a checkpoint older than the drop),
 * never a newer prepared transaction that reuses the GID. A GID taken out of the request is forgotten, so it can be
 * requested again. A GID held by two families (a stranded one and a newer reuse) is not dropped at all: which one is
 * stranded is the operator's call, not ours.
 *
 * <p>Uid and state names are those of the plain {@code KeyedProcessOperator} this replaces, so savepoints taken
 * before restore into it.
 */
public final class XactBufferOperator extends KeyedProcessOperator<Integer, BufferEvent, Drained> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(XactBufferOperator.class);

    /** Union state: after a rescale every subtask must know every earlier drop, whichever keys it gets. */
    private static final ListStateDescriptor<Tuple2<String, Integer>> DROPPED = new ListStateDescriptor<>(
            "xact-prepared-dropped", Types.TUPLE(Types.STRING, Types.INT));

    private final Set<String> dropGids;

    private transient boolean restored;
    private transient ListState<Tuple2<String, Integer>> droppedState;
    /** Requested GID → xid it was dropped under, by this start or an earlier one. */
    private transient Map<String, Integer> dropped;

    /** @param dropGids GIDs of prepared transactions to discard at start-up (empty: none) */
    public XactBufferOperator(XactBuffer buffer, Set<String> dropGids) {
        super(buffer);
        this.dropGids = new LinkedHashSet<>(dropGids);
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        restored = context.isRestored();
        droppedState = context.getOperatorStateStore().getUnionListState(DROPPED);
        dropped = new HashMap<>();
        for (Tuple2<String, Integer> d : droppedState.get()) {
            if (dropGids.contains(d.f0)) {
                dropped.put(d.f0, d.f1);
            }
        }
    }

    /**
     * Before the barrier goes on: every family still on the heap goes to keyed state, so the checkpoint holds
     * all open families (after a restore the WAL is re-read from the checkpoint on, which does not hold their
     * earlier changes again).
     */
    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        XactBuffer buffer = (XactBuffer) userFunction;
        for (int key : buffer.heapKeys()) {
            setCurrentKey(key);
            buffer.spillHeapFamily(key);
        }
    }

    /**
     * The running-transactions horizon visits every family (the function sees only the key in hand): those older
     * than it, not prepared, were cut off by a crash and are discarded. A few keys at most, every 15 s or so.
     */
    @Override
    public void processElement(StreamRecord<BufferEvent> element) throws Exception {
        BufferEvent e = element.getValue();
        if (!e.isRunningXacts()) {
            super.processElement(element);
            return;
        }
        XactBuffer buffer = (XactBuffer) userFunction;
        Set<Integer> keys = new HashSet<>(buffer.heapKeys());
        try (Stream<Integer> s = this.<Integer>getKeyedStateBackend().getKeys(XactBuffer.metaStateName(),
                VoidNamespace.INSTANCE)) {
            s.forEach(keys::add);
        }
        int oldest = (int) e.fullXid();
        for (int key : keys) {
            setCurrentKey(key);
            buffer.discardIfCutOff(key, oldest, e.event().lsn());
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<Tuple2<String, Integer>> l = new ArrayList<>();
        dropped.forEach((g, x) -> l.add(Tuple2.of(g, x)));
        droppedState.update(l);
    }

    @Override
    public void open() throws Exception {
        super.open(); // opens the function: its state handles exist from here on
        if (getKeyedStateBackend() instanceof org.apache.flink.runtime.state.heap.HeapKeyedStateBackend) {
            // The drain of a large family relies on RocksDB iterating a key's map in key order (a small one would
            // drain right by point lookups, so without this a heap backend would fail only at a large commit).
            throw new IllegalStateException("the transaction buffer needs the RocksDB state backend"
                    + " (state.backend.type: rocksdb), not the heap backend");
        }
        XactBuffer buffer = (XactBuffer) userFunction;
        buffer.enableHeapTier(); // prepareSnapshotPreBarrier below moves the heap families to state
        List<Integer> keys;
        // Collected first: the drops below delete keys of the state being iterated.
        try (Stream<Integer> s = this.<Integer>getKeyedStateBackend().getKeys(XactBuffer.gidStateDescriptor().getName(),
                VoidNamespace.INSTANCE)) {
            keys = s.toList();
        }
        List<PreparedTransaction> held = new ArrayList<>();
        for (int key : keys) {
            setCurrentKey(key);
            PreparedTransaction p = buffer.heldPrepared(key);
            if (p != null) {
                held.add(p);
            }
        }
        held.sort(Comparator.comparingLong(PreparedTransaction::firstLsn));
        String subtask = "subtask " + (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() + 1) + "/"
                + getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        if (restored) {
            StringBuilder sb = new StringBuilder();
            for (PreparedTransaction p : held) {
                sb.append("\n  ").append(p);
            }
            LOG.info("transaction buffer ({}) restored {} prepared transaction(s){}", subtask, held.size(), sb);
        }
        for (String g : dropGids) {
            List<PreparedTransaction> matches = held.stream().filter(p -> p.gid().equals(g)).toList();
            Integer before = dropped.get(g);
            if (matches.isEmpty() && getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks() > 1) {
                // each subtask holds the families of its own xids: another one may hold it
                LOG.info("--xact.prepared.drop: {} holds no prepared transaction with gid '{}' (another subtask may)",
                        subtask, g);
            } else if (matches.isEmpty()) {
                LOG.warn("--xact.prepared.drop: {} holds no prepared transaction with gid '{}'{}", subtask, g,
                        before == null ? "" : " (dropped under xid " + Integer.toUnsignedString(before)
                                + " at an earlier start; the request can be removed)");
            } else if (matches.size() > 1) {
                LOG.warn("--xact.prepared.drop: gid '{}' is held by {} prepared transactions, none dropped: {}", g,
                        matches.size(), matches);
            } else if (before != null && before != matches.get(0).xid()) {
                LOG.warn("--xact.prepared.drop: gid '{}' was dropped under xid {} at an earlier start and is now "
                        + "held by a newer prepared transaction, not dropped: {}. To drop it, restart once without "
                        + "the gid in the request, then with it.", g, Integer.toUnsignedString(before),
                        matches.get(0));
            } else {
                PreparedTransaction p = matches.get(0);
                setCurrentKey(p.xid());
                buffer.dropPrepared(p.xid());
                dropped.put(g, p.xid());
                LOG.warn("--xact.prepared.drop: dropped prepared transaction {}; its rows will not be replicated "
                        + "even if it is committed", p);
            }
        }
    }
}
