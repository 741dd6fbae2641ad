package io.walshadow.snapshot;

import java.util.List;

/**
 * The initial snapshot's coordinator state.
 *
 * @param startLsn the start point the snapshot agreed on with the decoder (0 before the first plan)
 * @param startXids the transactions running there ({@code pg_current_snapshot()} text; "" before the first plan)
 * @param planned whether the chunks were planned (then {@code unassigned} plus the readers' splits are all that is
 *     left); false before the first plan
 * @param unassigned chunks not handed to a reader yet
 * @param chunksTotal chunks planned
 * @param chunksDone chunks finished (their rows precede this checkpoint)
 * @param rowsDone rows of finished chunks
 * @param complete every chunk finished and a checkpoint after the last one completed
 * @param toastOutstanding split ids of TOAST chunks not known to be finished (the mirrors are seeded when empty;
 *     after a restore, chunks no reader holds any more finished before the readers' checkpoint)
 * @param coveredSpec the catalog filter (its spec) whose tables the plans so far copy, null before the first plan;
 *     a restore with another filter plans the tables it newly includes. {@link #COVERED_UNKNOWN} for a state of
 *     format version 1, which did not record it
 * @param startWaitXid the full xid every transaction that can have written WAL below the start point is below (0: not
 *     recorded, version 1; the start snapshot's xmax stands in)
 * @param copiesPlanned the copy requests ({@link io.walshadow.clickhouse.CopyRequests#key}) a round was planned for
 *     (a table attached as a partition with rows the WAL does not hold); empty before version 3
 */
public record SnapshotEnumeratorState(long startLsn, String startXids, boolean planned, List<SnapshotSplit> unassigned, int chunksTotal, int chunksDone,
                                      long rowsDone, boolean complete, List<String> toastOutstanding, String coveredSpec,
                                      long startWaitXid, List<String> copiesPlanned) {
    /** The filter the plan was made with is not recorded (state version 1). */
    public static final String COVERED_UNKNOWN = "(not recorded)";

    public SnapshotEnumeratorState {
        unassigned = List.copyOf(unassigned);
        toastOutstanding = List.copyOf(toastOutstanding);
        copiesPlanned = List.copyOf(copiesPlanned);
    }

    public SnapshotEnumeratorState(long startLsn, String startXids, boolean planned, List<SnapshotSplit> unassigned,
                                   int chunksTotal, int chunksDone, long rowsDone, boolean complete,
                                   List<String> toastOutstanding, String coveredSpec, long startWaitXid) {
        this(startLsn, startXids, planned, unassigned, chunksTotal, chunksDone, rowsDone, complete, toastOutstanding,
                coveredSpec, startWaitXid, List.of());
    }

    public static SnapshotEnumeratorState initial() {
        return new SnapshotEnumeratorState(0, "", false, List.of(), 0, 0, 0, false, List.of(), null, 0);
    }
}
