package io.walshadow.toast;

import io.walshadow.wal.Lsn;

/**
 * A TOAST value that cannot be delivered and must not be guessed: the job stops, naming the relation, value and LSN.
 * None of these is retryable: a replay meets the same WAL.
 */
public final class ToastResolutionException extends RuntimeException {
    public enum Kind {
        /** A gap or short run in chunks the job itself buffered (its own transaction's, or not yet committed). */
        MISSING_CHUNK,
        /** The pointer's sizes exceed the configured cap ({@code toast.value.max.bytes}). */
        TOO_LARGE,
        /** The mirror does not hold the value at the referring LSN (and filling is not allowed). */
        MISSING_VALUE,
        /** The mirror of a TOAST relation the job wrote to is gone from ClickHouse. */
        MISSING_MIRROR,
        /** The reassembled value has the pointer's length but does not decompress or decode. */
        CORRUPT
    }

    private final Kind kind;

    public ToastResolutionException(Kind kind, String relation, String column, int toastRelOid, int valueId, long lsn,
                                    String what, Throwable cause) {
        super("TOAST value " + Integer.toUnsignedString(valueId) + " of " + relation + "." + column + " (TOAST relation "
                + Integer.toUnsignedString(toastRelOid) + ") referenced at " + Lsn.format(lsn) + ": " + what, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
