package io.walshadow.bench.e2e;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Peak heap in use during a capture, from GC notifications: each collection reports the heap pools' use before it
 * (the peak is reached just before a collection) and after it (live data plus garbage not yet collected). As in
 * {@code DecodeBenchmark}: a measurement starts from a collected heap. Shared with the transaction buffer
 * benchmark ({@code io.walshadow.bench.buffer}), which splits a measurement into phases with {@link #lap}.
 */
public final class HeapWatch implements NotificationListener {
    /** Peak use and the most in use right after a collection, in bytes. */
    public record Peak(long peak, long afterGc) {}

    private final Set<String> heapPools = new HashSet<>();
    private final AtomicLong peakBefore = new AtomicLong();
    private final AtomicLong maxAfter = new AtomicLong();
    private final AtomicLong notifications = new AtomicLong();

    public static HeapWatch install() {
        HeapWatch w = new HeapWatch();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                w.heapPools.add(p.getName());
            }
        }
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter e) {
                e.addNotificationListener(w, null, null);
            }
        }
        return w;
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        peakBefore.accumulateAndGet(used(info.getGcInfo().getMemoryUsageBeforeGc()), Math::max);
        maxAfter.accumulateAndGet(used(info.getGcInfo().getMemoryUsageAfterGc()), Math::max);
        notifications.incrementAndGet();
    }

    private long used(Map<String, MemoryUsage> pools) {
        long sum = 0;
        for (Map.Entry<String, MemoryUsage> e : pools.entrySet()) {
            if (heapPools.contains(e.getKey())) {
                sum += e.getValue().getUsed();
            }
        }
        return sum;
    }

    /** A full GC, then waits for its notification, then starts from the heap in use. */
    public void begin() throws InterruptedException {
        long seen = notifications.get();
        System.gc();
        for (int i = 0; i < 100 && notifications.get() == seen; i++) {
            Thread.sleep(10);
        }
        Thread.sleep(20);
        long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        peakBefore.set(now);
        maxAfter.set(now);
    }

    /** The peak since {@link #begin}, the heap in use now included. */
    public Peak end() throws InterruptedException {
        long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        Thread.sleep(20); // late notifications of collections during the capture
        return new Peak(Math.max(peakBefore.get(), now), maxAfter.get());
    }

    /**
     * The peak since {@link #begin} or the previous lap, the heap in use now included, and starts the next phase
     * from the heap in use now (no collection, no waiting: callable from a pipeline's thread). A collection whose
     * notification arrives late counts in the next phase. The next phase's "after GC" starts at 0: it is the most
     * in use right after a collection within the phase (0 if none ran).
     */
    public Peak lap() {
        long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        Peak p = new Peak(Math.max(peakBefore.getAndSet(now), now), maxAfter.getAndSet(0));
        return p;
    }
}
