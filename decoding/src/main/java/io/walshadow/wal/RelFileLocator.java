package io.walshadow.wal;

/** Physical identity of a relation fork's files: tablespace, database and relfilenode (PG 16 calls it RelFileLocator). */
public record RelFileLocator(int spcOid, int dbOid, int relNumber) {
    @Override
    public String toString() {
        return Integer.toUnsignedString(spcOid) + "/" + Integer.toUnsignedString(dbOid) + "/"
                + Integer.toUnsignedString(relNumber);
    }
}
