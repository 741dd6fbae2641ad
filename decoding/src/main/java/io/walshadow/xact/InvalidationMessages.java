package io.walshadow.xact;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.RandomAccess;
import java.util.Set;

/**
 * The invalidation messages of a commit, PREPARE or INVALIDATIONS record, in WAL order, with the questions a
 * replicator asks of them. "For database d" follows {@code LocalExecuteInvalidationMessage}: a message applies in d
 * when its dbId is d or 0 (shared catalogs and relations, applied in every database).
 */
public final class InvalidationMessages extends AbstractList<InvalidationMessage> implements RandomAccess {
    private static final InvalidationMessages EMPTY = new InvalidationMessages(new InvalidationMessage[0]);

    private final InvalidationMessage[] msgs;

    private InvalidationMessages(InvalidationMessage[] msgs) {
        this.msgs = msgs;
    }

    public static InvalidationMessages of(List<? extends InvalidationMessage> msgs) {
        return msgs.isEmpty() ? EMPTY : new InvalidationMessages(msgs.toArray(new InvalidationMessage[0]));
    }

    public static InvalidationMessages empty() {
        return EMPTY;
    }

    /** Takes ownership of the array. */
    static InvalidationMessages wrap(InvalidationMessage[] msgs) {
        return msgs.length == 0 ? EMPTY : new InvalidationMessages(msgs);
    }

    @Override
    public InvalidationMessage get(int index) {
        return msgs[index];
    }

    @Override
    public int size() {
        return msgs.length;
    }

    private static boolean appliesIn(InvalidationMessage m, int dbId) {
        return m.dbId() == dbId || m.dbId() == 0;
    }

    /**
     * Oids of relations whose relcache entries are invalidated in database {@code dbId} (including shared
     * relations, whose messages carry dbId 0), in first-seen order, without duplicates. A whole-relcache message
     * (relId 0) is not listed here: see {@link #resetsAllRelations(int)}.
     */
    public Set<Integer> relcacheRelIds(int dbId) {
        Set<Integer> out = new LinkedHashSet<>();
        for (InvalidationMessage m : msgs) {
            if (m instanceof InvalidationMessage.Relcache rc && rc.relId() != 0 && appliesIn(m, dbId)) {
                out.add(rc.relId());
            }
        }
        return out;
    }

    /** Whether a relcache message with relId 0 ({@code CacheInvalidateRelcacheAll}) applies in {@code dbId}. */
    public boolean resetsAllRelations(int dbId) {
        for (InvalidationMessage m : msgs) {
            if (m instanceof InvalidationMessage.Relcache rc && rc.relId() == 0 && appliesIn(m, dbId)) {
                return true;
            }
        }
        return false;
    }

    /** Oids of catalogs whose catcaches are reset as a whole (catalog messages) in {@code dbId}. */
    public Set<Integer> catalogResetIds(int dbId) {
        Set<Integer> out = new LinkedHashSet<>();
        for (InvalidationMessage m : msgs) {
            if (m instanceof InvalidationMessage.Catalog c && appliesIn(m, dbId)) {
                out.add(c.catId());
            }
        }
        return out;
    }

    /** Whether any whole-catalog reset (catalog message) applies in {@code dbId}. */
    public boolean resetsCatalog(int dbId) {
        for (InvalidationMessage m : msgs) {
            if (m instanceof InvalidationMessage.Catalog && appliesIn(m, dbId)) {
                return true;
            }
        }
        return false;
    }

    /** Syscache ids with at least one catcache message applying in {@code dbId}. */
    public Set<Integer> catcacheIds(int dbId) {
        Set<Integer> out = new LinkedHashSet<>();
        for (InvalidationMessage m : msgs) {
            if (m instanceof InvalidationMessage.Catcache c && appliesIn(m, dbId)) {
                out.add(c.cacheId());
            }
        }
        return out;
    }

    /** Catalog oids named by snapshot messages applying in {@code dbId}. */
    public Set<Integer> snapshotRelIds(int dbId) {
        Set<Integer> out = new LinkedHashSet<>();
        for (InvalidationMessage m : msgs) {
            if (m instanceof InvalidationMessage.Snapshot s && appliesIn(m, dbId)) {
                out.add(s.relId());
            }
        }
        return out;
    }

    /** Whether a relation map message for {@code dbId}, or for the shared map (0), is present. */
    public boolean relmapChanged(int dbId) {
        for (InvalidationMessage m : msgs) {
            if (m instanceof InvalidationMessage.Relmap && appliesIn(m, dbId)) {
                return true;
            }
        }
        return false;
    }

    /** Whether any relation map message is present. */
    public boolean relmapChanged() {
        for (InvalidationMessage m : msgs) {
            if (m instanceof InvalidationMessage.Relmap) {
                return true;
            }
        }
        return false;
    }

    /** The messages of one kind, in order. */
    public <T extends InvalidationMessage> List<T> ofType(Class<T> type) {
        List<T> out = new ArrayList<>();
        for (InvalidationMessage m : msgs) {
            if (type.isInstance(m)) {
                out.add(type.cast(m));
            }
        }
        return out;
    }
}
