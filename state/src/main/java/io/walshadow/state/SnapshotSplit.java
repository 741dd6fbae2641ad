package io.walshadow.state;

import io.walshadow.catalog.RelationDescriptor;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One chunk of the initial snapshot: heap pages {@code [fromBlock, toBlock)} of one table ({@code toBlock < 0}: to
 * the end), and how far it was read. Checkpointed by the reader that holds it, so a restore resumes after the
 * last row emitted before the checkpoint: {@code ctid > (resumeBlock, resumeOffset)}.
 *
 * @param descriptor the relation as the snapshot's catalog shows it (what the rows are decoded as)
 * @param version the {@code _lsn} of its rows (one below the start point the snapshot agreed on with the decoder)
 * @param resumeBlock block of the last emitted row's TID, -1 before the first row
 * @param rowsDone rows emitted so far (progress)
 */
public record SnapshotSplit(RelationDescriptor descriptor, long version, long fromBlock, long toBlock, long resumeBlock,
                            int resumeOffset, long rowsDone) implements SourceSplit {

    public static SnapshotSplit fresh(RelationDescriptor descriptor, long version, long fromBlock, long toBlock) {
        return new SnapshotSplit(descriptor, version, fromBlock, toBlock, -1, 0, 0);
    }

    @Override
    public String splitId() {
        return Integer.toUnsignedString(descriptor.relOid()) + "@" + fromBlock;
    }

    public boolean started() {
        return resumeBlock >= 0;
    }

    public SnapshotSplit advanced(long block, int offset, long rows) {
        return new SnapshotSplit(descriptor, version, fromBlock, toBlock, block, offset, rows);
    }
}
