package io.walshadow.catalog;

/**
 * A {@link CatalogSource} could not read the catalog (the server went away, a statement failed, the wait for it was
 * interrupted). Checked, like the I/O failure it usually wraps: the tracker applies a boundary only after its load
 * succeeded, so the call that threw can be repeated. The message says what could not be read; the cause is the
 * source's own error (e.g. the JDBC driver's, with its SQLState).
 */
public class CatalogReadException extends Exception {
    private static final long serialVersionUID = 1L;

    public CatalogReadException(String message, Throwable cause) {
        super(message, cause);
    }

    public CatalogReadException(String message) {
        super(message);
    }
}
