package io.walshadow.bench.buffer;

import io.walshadow.bench.e2e.HeapWatch;
import io.walshadow.buffer.Drained;
import io.walshadow.buffer.DrainedChange;
import io.walshadow.buffer.DrainedCommit;
import io.walshadow.change.RowChange;
import io.walshadow.types.ToastPointer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * The benchmark's end of the pipeline, chained to the transaction buffer (same thread, no serialization): counts
 * what the buffer drains, in static fields the benchmark's main thread reads (the MiniCluster runs in this JVM).
 *
 * <p>Counted for every drained change: changes, commits, the bytes of its values ({@link #valueBytes}) and changes
 * by table and operation. For the one <em>watched</em> transaction ({@link #watch}; the large one), also: the time
 * of its first drained row (the buffer starts its drain at the commit record, so this is the drain's start to
 * within one RocksDB seek) and of its commit marker, its rows, value bytes, the sum of its first column (the id),
 * values that came out as TOAST pointers (there must be none: the bytes would not be the row's), and the heap
 * phases (the ingest phase ends at the first drained row, the drain phase at the marker).
 *
 * <p>Written by the one pipeline thread, read by the main thread: volatile fields and atomics, updated once per
 * change (their cost is part of the measured drain, and small next to deserializing the change).
 */
public final class DrainCounter implements MapFunction<Drained, Long> {
    private static final long serialVersionUID = 1L;
    private static final int OPS = RowChange.Op.values().length + 1; // last slot: TRUNCATE

    static volatile long changes;
    /** Commit markers of commits that drained changes. */
    static volatile long commits;
    static volatile long valueBytes;
    static volatile long firstNanos;
    static volatile long lastNanos;
    /** Changes by {@code schema.table}, by {@link RowChange.Op} ordinal (last index: TRUNCATE). */
    static final Map<String, AtomicLongArray> BY_TABLE = new ConcurrentHashMap<>();

    private static volatile int watchedXid;
    private static volatile HeapWatch heap;
    static volatile long wFirstNanos;
    static volatile long wMarkerNanos;
    /** This JVM's CPU time at the watched transaction's first drained row and at its marker. */
    static volatile long wFirstCpu;
    static volatile long wMarkerCpu;
    static volatile long wRows;
    static volatile long wBytes;
    static volatile long wIdSum;
    static volatile long wToastPointers;
    /** The changes count on the watched transaction's commit marker. */
    static volatile long wMarkerChanges;
    static volatile HeapWatch.Peak ingestPeak;
    static volatile HeapWatch.Peak drainPeak;
    static volatile long ingestRssPeak;
    static volatile long drainRssPeak;
    private static volatile CountDownLatch watchedDone = new CountDownLatch(1);

    /** Zeroes every count; forgets the watched transaction. */
    static void reset() {
        changes = 0;
        commits = 0;
        valueBytes = 0;
        firstNanos = 0;
        lastNanos = 0;
        BY_TABLE.clear();
        watchedXid = 0;
        heap = null;
        wFirstNanos = 0;
        wMarkerNanos = 0;
        wFirstCpu = 0;
        wMarkerCpu = 0;
        wRows = 0;
        wBytes = 0;
        wIdSum = 0;
        wToastPointers = 0;
        wMarkerChanges = -1;
        ingestPeak = null;
        drainPeak = null;
        ingestRssPeak = -1;
        drainRssPeak = -1;
        watchedDone = new CountDownLatch(1);
    }

    /** Watch the transaction with this (32-bit) xid; phases laps of {@code heap}. */
    static void watch(int xid, HeapWatch heapWatch) {
        heap = heapWatch;
        watchedXid = xid;
    }

    static CountDownLatch watchedDone() {
        return watchedDone;
    }

    @Override
    public Long map(Drained d) {
        long now = System.nanoTime();
        int xid = d.xid();
        boolean watched = xid == watchedXid && xid != 0;
        if (d instanceof DrainedChange dc) {
            if (firstNanos == 0) {
                firstNanos = now;
            }
            lastNanos = now;
            changes++;
            long bytes = 0;
            int op;
            String table;
            if (dc.change() instanceof RowChange r) {
                bytes = valueBytes(r.newValues(), watched) + valueBytes(r.oldValues(), watched);
                op = r.op().ordinal();
                table = r.descriptor().qualifiedName();
            } else {
                op = OPS - 1;
                table = "(truncate)";
            }
            valueBytes += bytes;
            AtomicLongArray t = BY_TABLE.get(table);
            if (t == null) {
                t = BY_TABLE.computeIfAbsent(table, k -> new AtomicLongArray(OPS));
            }
            t.incrementAndGet(op);
            if (watched) {
                if (wFirstNanos == 0) {
                    wFirstNanos = now;
                    wFirstCpu = ProcStats.cpuNanos();
                    HeapWatch h = heap;
                    if (h != null) {
                        ingestPeak = h.lap();
                    }
                    ingestRssPeak = ProcStats.peakAndReset();
                }
                wRows++;
                wBytes += bytes;
                if (dc.change() instanceof RowChange r && r.newValues() != null && r.newValues()[0] instanceof Long id) {
                    wIdSum += id;
                }
            }
        } else if (d instanceof DrainedCommit c) {
            if (c.changes() > 0) {
                commits++; // not DDL-only ones (an ANALYZE's catalog refresh may drain as one)
            }
            if (watched) {
                wMarkerNanos = now;
                wMarkerCpu = ProcStats.cpuNanos();
                wMarkerChanges = c.changes();
                HeapWatch h = heap;
                if (h != null) {
                    drainPeak = h.lap();
                }
                drainRssPeak = ProcStats.peakAndReset();
                watchedDone.countDown();
            }
        }
        return d.commitSeq();
    }

    /**
     * Bytes of a row's values as decoded: characters of text (ASCII here: bytes), bytes of bytea, 8 for a long or
     * double, 4 for an int or float, 2 for a short, 1 for a boolean or byte, 8 for any other typed value (dates,
     * timestamps, numerics: an estimate). The large transaction is text and bigint only, so its figure is exact
     * and the benchmark compares it with PostgreSQL's {@code octet_length}.
     */
    private static long valueBytes(Object[] values, boolean watched) {
        if (values == null) {
            return 0;
        }
        long n = 0;
        for (Object v : values) {
            if (v == null) {
                continue;
            }
            if (v instanceof CharSequence cs) {
                n += cs.length();
            } else if (v instanceof byte[] b) {
                n += b.length;
            } else if (v instanceof Long || v instanceof Double) {
                n += 8;
            } else if (v instanceof Integer || v instanceof Float) {
                n += 4;
            } else if (v instanceof Short) {
                n += 2;
            } else if (v instanceof Boolean || v instanceof Byte) {
                n += 1;
            } else if (v instanceof ToastPointer) {
                if (watched) {
                    wToastPointers++;
                }
            } else {
                n += 8;
            }
        }
        return n;
    }
}
