package io.walshadow.catalog;

/**
 * The live catalog is older than the boundary being applied (it does not yet show the committing transaction, or
 * its WAL position precedes the commit): typically a standby that replays behind the WAL being decoded, or a
 * commit whose backend has not left the proc array yet after retries. Refreshing from it would silently use a
 * stale shape, so the tracker refuses.
 */
public final class CatalogBehindException extends RuntimeException {
    public CatalogBehindException(String message) {
        super(message);
    }
}
