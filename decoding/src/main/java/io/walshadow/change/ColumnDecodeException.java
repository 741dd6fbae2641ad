package io.walshadow.change;

import io.walshadow.wal.Lsn;

/** A column value that could not be decoded: names the record, relation, column and type at fault. */
public final class ColumnDecodeException extends RuntimeException {
    private final long lsn;

    public ColumnDecodeException(long lsn, String relation, String column, int typeOid, Throwable cause) {
        this(lsn, relation, column, typeOid, cause, "");
    }

    /** @param hint what the user can do, appended to the message */
    public ColumnDecodeException(long lsn, String relation, String column, int typeOid, Throwable cause, String hint) {
        super("cannot decode column " + relation + "." + column + " (type oid " + Integer.toUnsignedString(typeOid)
                + ") at " + Lsn.format(lsn) + ": " + cause.getMessage() + hint, cause);
        this.lsn = lsn;
    }

    /** The column's type has no decoder (rather than a value that did not decode): the same at every restart. */
    public boolean noDecoder() {
        return getCause() instanceof io.walshadow.types.UnsupportedTypeException;
    }

    public long lsn() {
        return lsn;
    }
}
