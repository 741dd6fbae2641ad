package io.walshadow.bench.e2e;

/**
 * One CDC engine under measurement: it captures the workload's row changes from a replication slot of its own.
 *
 * <p>Life cycle, as {@link E2eBenchmark} drives it: {@link #prepare} before the workload writes the first change
 * to capture (so the slot holds all of it); then one or more {@link #start captures}, one at a time, each reading the
 * slot from where {@code prepare} left it and reporting to its {@link Tally} until the runner closes it; then
 * {@link #cleanup}. The latency mode repeats the whole cycle once per round (prepare, one live capture, cleanup).
 *
 * <p>A capture must leave the slot where {@code prepare} left it once closed (no confirmed flush, no advance; or, for
 * a physical slot, which moves as its reader confirms, a fresh copy of an anchor slot put back on close): the
 * throughput rounds re-read the same WAL range, and the runner fails the run if the slot's {@code restart_lsn} or
 * {@code confirmed_flush_lsn} changed.
 *
 * <p>To add a contender: implement this, name its slot with {@link Source#slotName}, and register a factory in
 * {@link E2eBenchmark#CONTENDERS}.
 */
public interface Contender {
    /** Name in the printed tables, e.g. {@code debezium-3.6.1.Final}. */
    String name();

    /** The replication slot it reads: the runner measures that slot's walsender and checks its position. */
    String slot();

    /**
     * Creates the slot, and whatever else must exist before the first change it captures is written (a
     * publication, a catalog seed). Leftovers of an earlier run with the same names are dropped first.
     */
    void prepare(Source source) throws Exception;

    /**
     * Starts capturing from the slot's start, in the background; each row change counts once it is captured
     * ("visible" for a pipeline with a sink), reported to {@code tally} as it happens. Closing the returned
     * capture stops it.
     */
    Capture start(Tally tally) throws Exception;

    /** Drops what {@link #prepare} created; called after a failed prepare or capture too. */
    void cleanup() throws Exception;

    /** A running capture. */
    interface Capture extends AutoCloseable {
        /** Stops capturing and waits until it has stopped (its slot is released). */
        @Override
        void close() throws Exception;
    }
}
