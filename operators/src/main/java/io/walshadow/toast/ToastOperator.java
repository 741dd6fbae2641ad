package io.walshadow.toast;

import io.walshadow.buffer.Drained;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.SimpleTimerService;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;

/**
 * Runs {@link ToastStage}: flushes the rows it batches for mirror lookups before each checkpoint barrier (and when the
 * input ends), and prunes its buffered chunks after each completed checkpoint; outside any element, so the operator
 * sets the stage's single key itself.
 */
public final class ToastOperator extends KeyedProcessOperator<Integer, Drained, Drained> {
    private static final long serialVersionUID = 1L;

    private transient TimerService timers;
    private transient TimestampedCollector<Drained> out;

    public ToastOperator(ToastStage stage) {
        super(stage);
    }

    @Override
    public void open() throws Exception {
        super.open();
        // the user timers KeyedProcessOperator registered under this name (one service per name)
        timers = new SimpleTimerService(getInternalTimerService("user-timers", VoidNamespaceSerializer.INSTANCE, this));
        out = new TimestampedCollector<>(output);
        out.eraseTimestamp();
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        ToastStage stage = (ToastStage) getUserFunction();
        setCurrentKey(ToastStage.KEY);
        stage.flushBeforeBarrier(timers, out);
        if (!stage.idle()) {
            // the heap is not in the checkpoint: rows left there would be lost on a restore from it
            throw new IllegalStateException("TOAST stage holds rows at checkpoint " + checkpointId);
        }
    }

    @Override
    public void finish() throws Exception {
        setCurrentKey(ToastStage.KEY);
        ((ToastStage) getUserFunction()).flushBeforeBarrier(timers, out);
        super.finish();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        setCurrentKey(ToastStage.KEY);
        ((ToastStage) getUserFunction()).pruneCommitted();
    }
}
