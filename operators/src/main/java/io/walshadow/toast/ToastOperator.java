package io.walshadow.toast;

import io.walshadow.buffer.Drained;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;

/**
 * Runs {@link ToastStage} and prunes its buffered chunks after each completed checkpoint (outside any element, so
 * the operator sets the stage's single key itself).
 */
public final class ToastOperator extends KeyedProcessOperator<Integer, Drained, Drained> {
    private static final long serialVersionUID = 1L;

    public ToastOperator(ToastStage stage) {
        super(stage);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        if (!((ToastStage) getUserFunction()).idle()) {
            // rows are only held within one commit's drain, which no barrier splits; held rows here would be lost
            throw new IllegalStateException("TOAST stage holds rows at checkpoint " + checkpointId);
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        setCurrentKey(ToastStage.KEY);
        ((ToastStage) getUserFunction()).pruneCommitted();
    }
}
