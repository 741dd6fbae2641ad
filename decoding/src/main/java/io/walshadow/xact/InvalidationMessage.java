package io.walshadow.xact;

import io.walshadow.wal.RelFileLocator;

/**
 * One {@code SharedInvalidationMessage} (storage/sinval.h, PostgreSQL 15): 16 bytes whose first byte, a signed
 * {@code int8 id}, says what it is. Oids and hash values are unsigned 32-bit values held in {@code int}s.
 */
public sealed interface InvalidationMessage {
    int SIZE = 16;
    /** {@code SHAREDINVALCATALOG_ID}: a whole catalog's catcaches. */
    int CATALOG_ID = -1;
    /** {@code SHAREDINVALRELCACHE_ID}. */
    int RELCACHE_ID = -2;
    /** {@code SHAREDINVALSMGR_ID}. */
    int SMGR_ID = -3;
    /** {@code SHAREDINVALRELMAP_ID}. */
    int RELMAP_ID = -4;
    /** {@code SHAREDINVALSNAPSHOT_ID}. */
    int SNAPSHOT_ID = -5;

    /** The message's {@code id} byte: a catcache id (&gt;= 0) or one of the negative kinds above. */
    int id();

    /** Database the message applies to; 0 means shared objects, applied in every database. */
    int dbId();

    /** {@code SharedInvalCatcacheMsg}: one catcache entry (by hash of its key) in syscache {@code cacheId}. */
    record Catcache(int cacheId, int dbId, int hashValue) implements InvalidationMessage {
        @Override
        public int id() {
            return cacheId;
        }
    }

    /** {@code SharedInvalCatalogMsg}: every catcache over catalog {@code catId} (VACUUM FULL / CLUSTER of it). */
    record Catalog(int dbId, int catId) implements InvalidationMessage {
        @Override
        public int id() {
            return CATALOG_ID;
        }
    }

    /** {@code SharedInvalRelcacheMsg}: relation {@code relId}'s relcache entry; relId 0 means all of them. */
    record Relcache(int dbId, int relId) implements InvalidationMessage {
        @Override
        public int id() {
            return RELCACHE_ID;
        }

        /** relId 0 ({@code CacheInvalidateRelcacheAll}): every relcache entry of the database. */
        public boolean isAllRelations() {
            return relId == 0;
        }
    }

    /**
     * {@code SharedInvalSmgrMsg}: a relation's smgr handle. {@code backend} is {@code backend_hi << 16 |
     * backend_lo}, -1 (InvalidBackendId) for non-temporary relations. Not expected in WAL (sent immediately).
     */
    record Smgr(int backend, RelFileLocator locator) implements InvalidationMessage {
        @Override
        public int id() {
            return SMGR_ID;
        }

        @Override
        public int dbId() {
            return locator.dbOid();
        }
    }

    /** {@code SharedInvalRelmapMsg}: the relation map of a database (0: the shared map). Not expected in WAL. */
    record Relmap(int dbId) implements InvalidationMessage {
        @Override
        public int id() {
            return RELMAP_ID;
        }
    }

    /** {@code SharedInvalSnapshotMsg}: catalog snapshots taken for catalog {@code relId}. */
    record Snapshot(int dbId, int relId) implements InvalidationMessage {
        @Override
        public int id() {
            return SNAPSHOT_ID;
        }
    }
}
