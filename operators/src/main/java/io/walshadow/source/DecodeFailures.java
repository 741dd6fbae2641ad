package io.walshadow.source;

import io.walshadow.wal.WalDecodeException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * WAL that failed to decode at the same LSN, the same way, in this TaskManager before. A restart reads the same
 * bytes again: a stream cut at a bad moment clears up on the next try, corrupt or unsupported WAL never does. After
 * {@link #LIMIT} tries the job stops with the error instead of restarting for ever. Per JVM: a restart in a new
 * TaskManager counts afresh (it gives up later, but it still gives up).
 */
final class DecodeFailures {
    static final int LIMIT = 3;
    private static final Map<String, Integer> SEEN = new ConcurrentHashMap<>();

    private DecodeFailures() {}

    /** Counts {@code e} for {@code slot}; true when it is the {@link #LIMIT}-th such failure. */
    static boolean exhausted(String slot, WalDecodeException e) {
        if (e.kind() == WalDecodeException.Kind.STREAM_GAP) {
            return false; // the stream's fault, not the WAL's
        }
        return SEEN.merge(slot + "@" + e.lsn() + "/" + e.kind(), 1, Integer::sum) >= LIMIT;
    }
}
