package io.walshadow.catalog;

import java.util.List;
import java.util.Set;

/** Descriptors of relations as one consistent snapshot of the live catalog shows them (the initial snapshot's view). */
public final class LiveDescriptors {
    private LiveDescriptors() {}

    /**
     * The relation as of the catalog snapshot it was loaded in (every catalog row it shows is visible there);
     * null when its changes are not WAL-logged (unlogged, temporary).
     */
    public static RelationDescriptor of(LiveRelation live, long lsn) {
        RelationResolver.Resolution r = RelationResolver.resolve(live, List.of(),
                new RelationResolver.Boundary(lsn, xid -> true, null, Set.of(), Set.of()));
        if (r instanceof RelationResolver.Present p) {
            return p.descriptor();
        }
        if (r instanceof RelationResolver.NotLogged) {
            return null;
        }
        throw new IllegalStateException("relation " + live.qualifiedName() + " cannot be described from the catalog: "
                + ((RelationResolver.Ambiguous) r).reasons());
    }
}
