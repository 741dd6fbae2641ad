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
    /** End of the last record handed to the pipeline (its EndRecPtr: where the next may start; task thread). */
    volatile long emittedLsn;
    volatile long reportedLsn;
    volatile int timeline;
    /** The slot's {@code wal_status} as a number: 0 reserved, 1 extended, 2 unreserved, 3 lost, -1 unknown. */
    volatile int slotWalStatus = -1;
    /** The slot's {@code safe_wal_size}: bytes of WAL that may still be written before it is invalidated; -1 none. */
    volatile long slotSafeWalSize = -1;
    /**
     * The slot's {@code restart_lsn}, polled: the oldest WAL the server keeps for the job (what it confirmed at its
     * last completed checkpoint); 0 unknown.
     */
    volatile long slotRestartLsn;
    /** Status messages sent while the fetcher waited behind a full queue (backpressure). */
    volatile long keepalivesWhileBackpressured;
    /** Partial records skipped because the server's crash recovery overwrote them (XLOG_OVERWRITE_CONTRECORD). */
    volatile long overwrittenRecords;

    /** Called when a checkpoint completed: a restore from it resumes at {@code lsn}, so WAL before it may go. */
    void confirm(long lsn) {
        confirmed.accumulateAndGet(lsn, (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
    }

    static int walStatusCode(String walStatus) {
        return walStatus == null ? -1 : switch (walStatus) {
            case "reserved" -> 0;
            case "extended" -> 1;
            case "unreserved" -> 2;
            case "lost" -> 3;
            default -> -1;
        };
    }

    long confirmed() {
        return confirmed.get();
    }
}
