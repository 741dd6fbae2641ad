package io.walshadow.snapshot;

import io.walshadow.catalog.RelationDescriptor;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One chunk of the initial snapshot: heap pages {@code [fromBlock, toBlock)} of one table ({@code toBlock < 0}: to
 * the end), and how far it was read. Checkpointed by the reader that holds it, so a restore resumes after the
 * last row emitted before the checkpoint: {@code ctid > (resumeBlock, resumeOffset)}.
 *
 * @param descriptor the relation as the snapshot's catalog shows it (what the rows are decoded as)
 * @param toast the chunk is of the relation's TOAST relation ({@code descriptor.toastRelOid()}), whose rows seed
 *     its ClickHouse mirror
 * @param version the {@code _lsn} of its rows (one below the start point the snapshot agreed on with the decoder)
 * @param resumeBlock block of the last emitted row's TID, -1 before the first row
 * @param rowsDone rows emitted so far (progress)
 */
public record SnapshotSplit(RelationDescriptor descriptor, boolean toast, long version, long fromBlock, long toBlock, long resumeBlock,
                            int resumeOffset, long rowsDone) implements SourceSplit {

    public static SnapshotSplit fresh(RelationDescriptor descriptor, long version, long fromBlock, long toBlock) {
        return new SnapshotSplit(descriptor, false, version, fromBlock, toBlock, -1, 0, 0);
    }

    /** A chunk of the TOAST relation of {@code owner}. */
    public static SnapshotSplit toastChunk(RelationDescriptor owner, long version, long fromBlock, long toBlock) {
        if (owner.toastRelOid() == 0) {
            throw new IllegalArgumentException(owner.qualifiedName() + " has no TOAST relation");
        }
        return new SnapshotSplit(owner, true, version, fromBlock, toBlock, -1, 0, 0);
    }

    /** The relation read: the table, or its TOAST relation. */
    public int readRelOid() {
        return toast ? descriptor.toastRelOid() : descriptor.relOid();
    }

    @Override
    public String splitId() {
        return Integer.toUnsignedString(readRelOid()) + "@" + fromBlock;
    }

    public boolean started() {
        return resumeBlock >= 0;
    }

    public SnapshotSplit advanced(long block, int offset, long rows) {
        return new SnapshotSplit(descriptor, toast, version, fromBlock, toBlock, block, offset, rows);
    }
}
