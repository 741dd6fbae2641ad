package io.walshadow.catalog.shadow;

/**
 * The catalog shadow cannot follow the WAL any more: a record it must apply contradicts what it holds (a catalog
 * page changed without the full-page image the shadow needs, a tuple it must update is not there, a catalog rewrite
 * whose pages it did not see). Decoding on would guess the catalog, so the job stops; the message names the record's
 * LSN and the catalog. Not retried: the same WAL gives the same contradiction.
 */
public class ShadowCatalogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ShadowCatalogException(String message) {
        super(message);
    }

    public ShadowCatalogException(String message, Throwable cause) {
        super(message, cause);
    }
}
