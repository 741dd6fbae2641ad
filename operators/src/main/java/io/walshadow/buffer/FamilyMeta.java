package io.walshadow.buffer;

import java.util.Arrays;

/**
 * What the transaction buffer keeps per transaction family beside its changes, as PostgreSQL's ReorderBufferTXN
 * does: the next entry sequence number, the first change's LSN, live entries and their estimated bytes, when the
 * first change arrived, and the PREPARE's timestamp. Kept in keyed state {@code xact-meta} as a {@code long[]} in
 * that order ({@link #fromState} reads the shorter arrays of states written before a slot existed: 0).
 */
final class FamilyMeta {
    private static final int NEXT_SEQ = 0;
    private static final int FIRST_LSN = 1;
    private static final int LIVE = 2;
    /** Absent in state written before it existed. */
    private static final int BYTES = 3;
    /** Wall-clock ms; absent in state written before it existed. */
    private static final int FIRST_ARRIVAL = 4;
    /** TimestampTz of the PREPARE record; 0 when unknown or not prepared. */
    private static final int PREPARED_AT = 5;
    private static final int LENGTH = 6;

    private final long[] v;

    private FamilyMeta(long[] v) {
        this.v = v;
    }

    /** A family whose first change, at {@code firstLsn}, arrives now. */
    static FamilyMeta first(long firstLsn) {
        long[] v = new long[LENGTH];
        v[FIRST_LSN] = firstLsn;
        v[FIRST_ARRIVAL] = System.currentTimeMillis();
        return new FamilyMeta(v);
    }

    /** The family as keyed state holds it (null: none), widened to the current layout. */
    static FamilyMeta fromState(long[] stored) {
        return stored == null ? null : new FamilyMeta(stored.length < LENGTH ? Arrays.copyOf(stored, LENGTH)
                : stored.clone());
    }

    /** The value to put in keyed state. */
    long[] toState() {
        return v.clone();
    }

    long nextSeq() {
        return v[NEXT_SEQ];
    }

    long firstLsn() {
        return v[FIRST_LSN];
    }

    long live() {
        return v[LIVE];
    }

    long bytes() {
        return v[BYTES];
    }

    long firstArrivalMs() {
        return v[FIRST_ARRIVAL];
    }

    long preparedAt() {
        return v[PREPARED_AT];
    }

    /** One more entry, at sequence number {@link #nextSeq()} before the call. */
    void added(long bytes) {
        v[NEXT_SEQ]++;
        v[LIVE]++;
        v[BYTES] += bytes;
    }

    /** Entries discarded (rolled-back subtransactions); sequence numbers are not reused. */
    void removed(long entries, long bytes) {
        v[LIVE] -= entries;
        v[BYTES] = Math.max(0, v[BYTES] - bytes);
    }

    void prepared(long preparedAt) {
        v[PREPARED_AT] = preparedAt;
    }
}
