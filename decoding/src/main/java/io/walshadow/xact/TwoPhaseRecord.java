package io.walshadow.xact;

import java.util.Arrays;

/**
 * One resource-manager record of a two-phase state file ({@code TwoPhaseRecordOnDisk} + payload), as a PREPARE
 * record carries them after the invalidation messages: locks to re-acquire, predicate locks, multixact members,
 * pgstat counts. The terminating {@code TWOPHASE_RM_END_ID} record is not listed.
 */
public record TwoPhaseRecord(int rmid, int info, byte[] data) {
    /** {@code sizeof(TwoPhaseRecordOnDisk)}: {@code uint32 len; uint8 rmid; uint16 info} (padded). */
    public static final int HEADER_SIZE = 8;

    @Override
    public byte[] data() {
        return data.clone();
    }

    public int length() {
        return data.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TwoPhaseRecord r && r.rmid == rmid && r.info == info && Arrays.equals(r.data, data);
    }

    @Override
    public int hashCode() {
        return (rmid * 31 + info) * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "TwoPhaseRecord[rmid=" + rmid + ", info=" + info + ", len=" + data.length + "]";
    }
}
