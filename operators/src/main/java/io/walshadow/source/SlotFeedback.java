package io.walshadow.source;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Hand-off between the task thread, which learns that a checkpoint completed, and the fetcher thread, which owns
 * the replication connection and reports the position to the server. Also carries progress figures for metrics.
 */
final class SlotFeedback {
    private final AtomicLong confirmed = new AtomicLong();
    volatile long receivedLsn;
    /** The server's current WAL position (insert position on a primary, receive position on a standby), polled. */
    volatile long serverWalEnd;
    /** LSN of the last record handed to the pipeline (task thread). */
    volatile long emittedLsn;
    volatile long reportedLsn;
    volatile int timeline;

    /** Called when a checkpoint completed: a restore from it resumes at {@code lsn}, so WAL before it may go. */
    void confirm(long lsn) {
        confirmed.accumulateAndGet(lsn, (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
    }

    long confirmed() {
        return confirmed.get();
    }
}
