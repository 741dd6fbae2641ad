package io.walshadow.snapshot;

/** The exported snapshot's name, handed from the reader's task thread (events) to its fetcher thread. */
final class SnapshotName {
    private String id;
    private boolean woken;

    synchronized void set(String id) {
        this.id = id;
        notifyAll();
    }

    /** The name, waiting up to {@code millis} for one; null if none came (or {@link #wakeUp} was called). */
    synchronized String await(long millis) throws InterruptedException {
        long end = System.currentTimeMillis() + millis;
        while (id == null && !woken) {
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                break;
            }
            wait(left);
        }
        woken = false;
        return id;
    }

    synchronized void wakeUp() {
        woken = true;
        notifyAll();
    }
}
