package io.walshadow.types;

/** The datum bytes do not form a valid on-disk value of the type they were decoded as. */
public class MalformedDatumException extends RuntimeException {
    public MalformedDatumException(String message) {
        super(message);
    }

    public MalformedDatumException(String message, Throwable cause) {
        super(message, cause);
    }
}
