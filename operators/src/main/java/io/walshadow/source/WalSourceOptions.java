package io.walshadow.source;

import java.io.Serializable;

/**
 * @param slotName physical replication slot to stream from
 * @param createSlot create the slot (with reserved WAL) when it does not exist
 * @param statusIntervalMs how often standby status is sent even without news, so the walsender does not time out
 * @param maxRecordsPerFetch records handed to Flink per fetch, bounding the reader's queue
 */
public record WalSourceOptions(String slotName, boolean createSlot, int statusIntervalMs, int maxRecordsPerFetch)
        implements Serializable {
    public WalSourceOptions {
        if (slotName == null || !slotName.matches("[a-z0-9_]{1,63}")) {
            throw new IllegalArgumentException("slot name must be 1-63 characters of [a-z0-9_]: '" + slotName + "'");
        }
        if (statusIntervalMs < 100) {
            throw new IllegalArgumentException("status interval must be at least 100 ms: " + statusIntervalMs);
        }
        if (maxRecordsPerFetch < 1) {
            throw new IllegalArgumentException("maxRecordsPerFetch must be positive: " + maxRecordsPerFetch);
        }
    }

    public static WalSourceOptions defaults(String slotName) {
        return new WalSourceOptions(slotName, true, 10_000, 4096);
    }
}
