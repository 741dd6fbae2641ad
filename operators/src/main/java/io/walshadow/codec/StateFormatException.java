package io.walshadow.codec;

import java.io.IOException;

/**
 * Serialized state or stream data this build cannot read: an unknown format version or tag, an implausible length,
 * or bytes that do not form a valid value. Always names what was being read.
 */
public final class StateFormatException extends IOException {
    public StateFormatException(String message) {
        super(message);
    }

    public StateFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
