package io.walshadow.source;

import io.walshadow.wal.XLogRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Test sink stage with two-phase-commit semantics: records seen before a checkpoint barrier become "committed"
 * (appended to a JVM-wide log) only when that checkpoint completes, and pending ones are committed on restore,
 * idempotently. What ends up in the log is what an exactly-once sink downstream of the source would publish.
 */
final class CheckpointCommitLog extends RichMapFunction<XLogRecord, Long> implements CheckpointedFunction, CheckpointListener {
    /** Committed records per log name: {lsn, prev, endLsn}. */
    static final Map<String, List<long[]>> COMMITTED = new ConcurrentHashMap<>();
    /** Position (end LSN of the last record before the barrier) of each snapshotted checkpoint, per log name. */
    static final Map<String, Map<Long, Long>> SNAPSHOT_POSITIONS = new ConcurrentHashMap<>();

    private final String name;
    private transient List<long[]> current;
    private transient TreeMap<Long, List<long[]>> pendingByCheckpoint;
    private transient ListState<long[]> pendingState;

    CheckpointCommitLog(String name) {
        this.name = name;
    }

    static List<long[]> committed(String name) {
        return COMMITTED.computeIfAbsent(name, k -> new CopyOnWriteArrayList<>());
    }

    static Map<Long, Long> snapshotPositions(String name) {
        return SNAPSHOT_POSITIONS.computeIfAbsent(name, k -> new ConcurrentHashMap<>());
    }

    @Override
    public void open(OpenContext ctx) {}

    @Override
    public Long map(XLogRecord r) {
        current.add(new long[] {r.lsn(), r.prev(), r.endLsn()});
        return r.lsn();
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        pendingByCheckpoint.put(ctx.getCheckpointId(), current);
        if (!current.isEmpty()) {
            snapshotPositions(name).put(ctx.getCheckpointId(), current.get(current.size() - 1)[2]);
        }
        current = new ArrayList<>();
        List<long[]> all = new ArrayList<>();
        pendingByCheckpoint.values().forEach(all::addAll);
        pendingState.update(all);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        Map<Long, List<long[]>> done = pendingByCheckpoint.headMap(checkpointId, true);
        for (List<long[]> batch : done.values()) {
            commit(batch, false);
        }
        done.clear();
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) throws Exception {
        pendingState = ctx.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("pending", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        current = new ArrayList<>();
        pendingByCheckpoint = new TreeMap<>();
        if (ctx.isRestored()) {
            List<long[]> restored = new ArrayList<>();
            pendingState.get().forEach(restored::add);
            // The restored checkpoint completed, so its pending records commit now; some may have been committed
            // already before the failure (a committer retry), and only those are skipped.
            commit(restored, true);
        }
    }

    private void commit(List<long[]> batch, boolean retry) {
        List<long[]> log = committed(name);
        long last = log.isEmpty() ? 0 : log.get(log.size() - 1)[0];
        for (long[] r : batch) {
            if (!retry || Long.compareUnsigned(r[0], last) > 0) {
                log.add(r); // outside a retry, a record the source repeats is kept, so the test sees it
            }
        }
    }
}
