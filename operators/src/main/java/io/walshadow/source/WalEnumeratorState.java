package io.walshadow.source;

import java.util.List;

/** Enumerator checkpoint: splits not currently assigned to a reader (the slot's split after a reader failure, or before the first assignment). */
public record WalEnumeratorState(List<WalSplit> unassigned) {
    public WalEnumeratorState {
        unassigned = List.copyOf(unassigned);
    }
}
