package io.walshadow.pg;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeCatalog;
import io.walshadow.catalog.TypeSet;
import io.walshadow.types.ExtensionTypes;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Function;

/**
 * Types for the stages behind the transaction buffer (the TOAST stage's value decoding, the sink's column mapping):
 * first those the stream sent with its catalog changes (as of each commit, the newest winning), so a table's columns
 * read as they were when its DDL committed even if the type was dropped or changed since; then the live catalog's,
 * for what the stream never described (tables the initial snapshot created, DDL before a restore the stage keeps no
 * types of, an earlier build's state), loaded on first need and again only when a type is missing: no connection
 * per DDL.
 */
public final class StreamTypes implements TypeCatalog {
    private final PgConnectionConfig pg;
    private TypeSet stream;
    private TypeCatalog live;
    /** The live catalog was loaded after the last miss: another miss is a type it does not have either. */
    private boolean liveFresh;

    public StreamTypes(PgConnectionConfig pg, TypeSet stream) {
        this.pg = pg;
        this.stream = stream;
    }

    /** Adds the types a commit sent along. */
    public void add(TypeSet commit) {
        stream = stream.with(commit);
        liveFresh = false; // the DDL may have created types the live catalog loaded earlier lacks
    }

    /**
     * Keeps the types {@code relations}' columns resolve to now (from the stream, else the live catalog) with the
     * stream's: a destination created from rows (the initial snapshot's, or a table's first row) maps its columns
     * with these after a restore too, even if the type is gone from the live catalog by then.
     */
    public void pin(java.util.Collection<io.walshadow.catalog.RelationDescriptor> relations) {
        stream = stream.with(TypeSet.of(relations, this));
    }

    /** The types the stream sent so far (the sink keeps them in its state). */
    public TypeSet stream() {
        return stream;
    }

    @Override
    public PgType type(int oid) {
        PgType t = find(c -> c.type(oid));
        if (t != null && lacksRangeLink(t)) {
            // sent by an earlier build, whose type sets did not carry pg_range: a range's subtype and multirange
            // never change (no ALTER TYPE does), so the live catalog's, for the same type, are the ones it had
            PgType l = liveType(oid);
            if (l != null && l.typtype() == t.typtype() && !lacksRangeLink(l)) {
                return new PgType(t.oid(), t.schema(), t.name(), t.typlen(), t.typbyval(), t.typalign(), t.typtype(),
                        t.typcategory(), t.elemOid(), t.baseTypeOid(), t.baseTypmod(), t.relOid(), t.enumLabels(),
                        l.rangeSubtype(), l.rangeType(), t.extension());
            }
        }
        if (t != null && t.extension() == null && t.typtype() == 'b' && ExtensionTypes.knownName(t.name())) {
            // an earlier build's state kept types without their extension: the live catalog's, for the same type
            PgType l = live().type(oid);
            if (l != null && l.extension() != null && l.name().equals(t.name()) && l.schema().equals(t.schema())) {
                return new PgType(t.oid(), t.schema(), t.name(), t.typlen(), t.typbyval(), t.typalign(), t.typtype(),
                        t.typcategory(), t.elemOid(), t.baseTypeOid(), t.baseTypmod(), t.relOid(), t.enumLabels(),
                        t.rangeSubtype(), t.rangeType(), l.extension());
            }
        }
        return t;
    }

    private static boolean lacksRangeLink(PgType t) {
        return (t.typtype() == 'r' && t.rangeSubtype() == 0) || (t.typtype() == 'm' && t.rangeType() == 0);
    }

    /** The live catalog's type, reloaded once if it has none since the last miss. */
    private PgType liveType(int oid) {
        PgType l = live().type(oid);
        if (l == null && !liveFresh) {
            reload();
            l = live.type(oid);
        }
        return l;
    }

    @Override
    public List<Column> compositeAttributes(int relOid) {
        return find(c -> c.compositeAttributes(relOid));
    }

    /** The stream's answer, else the live catalog's, reloaded once if it has none since the last miss. */
    private <T> T find(Function<TypeCatalog, T> lookup) {
        T v = lookup.apply(stream);
        if (v != null) {
            return v;
        }
        v = lookup.apply(live());
        if (v == null && !liveFresh) {
            reload();
            v = lookup.apply(live);
        }
        return v;
    }

    private TypeCatalog live() {
        if (live == null) {
            reload();
        }
        return live;
    }

    private void reload() {
        try (Connection c = pg.openSql()) {
            live = TypeCatalogLoader.load(c);
            liveFresh = true;
        } catch (SQLException e) {
            throw new IllegalStateException("loading PostgreSQL types: " + e.getMessage(), e);
        }
    }
}
