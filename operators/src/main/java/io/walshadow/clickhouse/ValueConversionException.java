package io.walshadow.clickhouse;

/**
 * A value the destination column cannot hold exactly (a date past 2105 on a {@code Date}, NaN in a {@code Decimal},
 * a two-dimensional array, ...). Never clamped, wrapped or nulled: the job fails closed at the row, and the message
 * names the relation, column, LSN and value.
 */
public final class ValueConversionException extends RuntimeException {
    public ValueConversionException(String message) {
        super(message);
    }

    /** The same problem with the row's context in front. */
    public ValueConversionException at(String relation, String column, long lsn) {
        ValueConversionException e = new ValueConversionException("cannot write " + relation + "." + column
                + " of the change at " + io.walshadow.wal.Lsn.format(lsn) + ": " + getMessage());
        e.setStackTrace(getStackTrace());
        return e;
    }
}
