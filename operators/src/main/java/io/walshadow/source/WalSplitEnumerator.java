package io.walshadow.source;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/** Hands the slot's split to the lowest-numbered registered reader, and takes it back when that reader fails. */
final class WalSplitEnumerator implements SplitEnumerator<WalSplit, WalEnumeratorState> {
    private final SplitEnumeratorContext<WalSplit> context;
    private final List<WalSplit> unassigned;

    WalSplitEnumerator(SplitEnumeratorContext<WalSplit> context, List<WalSplit> unassigned) {
        this.context = context;
        this.unassigned = new ArrayList<>(unassigned);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        assignPending();
    }

    @Override
    public void addSplitsBack(List<WalSplit> splits, int subtaskId) {
        unassigned.addAll(splits);
        assignPending();
    }

    @Override
    public void addReader(int subtaskId) {
        assignPending();
    }

    private void assignPending() {
        if (unassigned.isEmpty() || context.registeredReaders().isEmpty()) {
            return;
        }
        int reader = context.registeredReaders().keySet().stream().min(Integer::compare).orElseThrow();
        for (WalSplit s : unassigned) {
            context.assignSplit(s, reader);
        }
        unassigned.clear();
    }

    @Override
    public WalEnumeratorState snapshotState(long checkpointId) {
        return new WalEnumeratorState(unassigned);
    }

    @Override
    public void close() {}
}
