package io.walshadow.catalog;

import io.walshadow.wal.Lsn;
import io.walshadow.wal.RelFileLocator;
import java.util.List;

/**
 * A record would have to be decoded with a descriptor that is not known: the live catalog had already moved past
 * the boundary when the relation was refreshed there (the job lags behind DDL), and the earlier shape is lost.
 * Decoding fails closed instead of guessing; it succeeds again for records after the awaited commits.
 */
public final class CatalogAheadException extends RuntimeException {
    private final transient RelFileLocator locator;
    private final long lsn;
    private final Ambiguity ambiguity;

    public CatalogAheadException(RelFileLocator locator, long lsn, Ambiguity ambiguity) {
        super("catalog ahead of the stream: relation " + ambiguity.qualifiedName() + " (oid "
                + Integer.toUnsignedString(ambiguity.relOid()) + ", relfilenode " + locator + ") at LSN "
                + Lsn.format(lsn) + " has no known descriptor: when the commit at " + Lsn.format(ambiguity.since())
                + " was applied, the live catalog already held changes of xid(s) " + ambiguity.xidsText()
                + " that the stream has not reached (" + ambiguity.reason() + "); records of this relation decode "
                + "again once those commits are reached. If this persists, re-seed the catalog from a fresh snapshot");
        this.locator = locator;
        this.lsn = lsn;
        this.ambiguity = ambiguity;
    }

    public int relOid() {
        return ambiguity.relOid();
    }

    public String qualifiedName() {
        return ambiguity.qualifiedName();
    }

    public RelFileLocator locator() {
        return locator;
    }

    public long lsn() {
        return lsn;
    }

    public long since() {
        return ambiguity.since();
    }

    public List<Integer> awaitedXids() {
        return ambiguity.awaitedXids();
    }

    public Ambiguity ambiguity() {
        return ambiguity;
    }
}
