package io.walshadow.xact;

/**
 * {@code xl_xact_dbinfo}: the committing backend's database and its default tablespace ({@code MyDatabaseId},
 * {@code MyDatabaseTableSpace}). Written when the record carries invalidations or wal_level is logical.
 */
public record DbInfo(int dbId, int tsId) {
    @Override
    public String toString() {
        return "DbInfo[dbId=" + Integer.toUnsignedString(dbId) + ", tsId=" + Integer.toUnsignedString(tsId) + "]";
    }
}
