package io.walshadow.bench.buffer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's resident set from /proc (Linux): heap, RocksDB's native memory, network buffers, code, everything.
 * The peak (VmHWM) can be reset by writing 5 to /proc/self/clear_refs (Linux 4.0+), which gives a peak per phase.
 * Also this JVM's CPU time and the machine's load average: on a shared machine, CPU seconds per row say more than
 * wall-clock rates.
 */
public final class ProcStats {
    private ProcStats() {}

    /** CPU time (user + system) of this JVM so far, in nanoseconds. */
    public static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** The 1-minute load average (runnable threads on the machine, all processes), NaN when unknown. */
    public static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** Current resident set in bytes, -1 when unknown. */
    public static long current() {
        return field("VmRSS:");
    }

    /** Peak resident set since the last reset (or the start) in bytes, then resets it; -1 when unknown. */
    public static long peakAndReset() {
        long hwm = field("VmHWM:");
        reset();
        return hwm;
    }

    public static void reset() {
        try {
            Files.writeString(Path.of("/proc/self/clear_refs"), "5");
        } catch (IOException | RuntimeException e) {
            // not Linux, or not allowed: the peak then counts from the start
        }
    }

    private static long field(String name) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(name)) {
                    String[] f = line.substring(name.length()).trim().split("\\s+");
                    return Long.parseLong(f[0]) * 1024; // kB
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
    }
}
