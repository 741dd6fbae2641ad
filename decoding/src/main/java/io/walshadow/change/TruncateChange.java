package io.walshadow.change;

import io.walshadow.catalog.RelationDescriptor;
import java.util.List;

/** TRUNCATE of replicated relations (those of the record's relids that the history knows at this LSN). */
public record TruncateChange(long lsn, int xid, List<RelationDescriptor> relations, boolean cascade,
                             boolean restartSequences) implements ChangeEvent {
}
