package io.walshadow.buffer;

import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.BufferEvent;
import io.walshadow.change.DeferredRecord;
import io.walshadow.change.RowChange;
import io.walshadow.change.RowDecoder;
import io.walshadow.change.WalChangeDecoder;
import io.walshadow.change.ColumnDecodeException;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.pg.TypeCatalogLoader;
import io.walshadow.types.ValueDecoder;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Decodes the heap records a family deferred to its commit (written after its own DDL), with the relation as of the
 * commit and the types the decoder sent along with it. A commit of an earlier build's decoder came without types:
 * those records decode with the live catalog's, loaded over JDBC on first need, as that build did.
 */
final class DeferredDecoding {
    private final PgConnectionConfig pg;
    private RowDecoder live;

    DeferredDecoding(PgConnectionConfig pg) {
        this.pg = pg;
    }

    /** The decoder of a commit's deferred records: its own types, or null when it came without them. */
    static RowDecoder forCommit(BufferEvent commit) {
        return commit.deferredDescriptors().isEmpty() || commit.types().types().isEmpty() ? null
                : new RowDecoder(new ValueDecoder(commit.types()));
    }

    /** The rows of {@code d}, a record of {@code desc}, with {@code commitTypes} (null: the live catalog's). */
    List<RowChange> decode(DeferredRecord d, RelationDescriptor desc, RowDecoder commitTypes) throws SQLException {
        if (commitTypes != null) {
            return WalChangeDecoder.rowsOf(commitTypes, d, desc);
        }
        if (live == null) {
            if (pg == null) {
                throw new IllegalStateException("deferred record at " + d.lsn() + " without its types, and the buffer"
                        + " has no catalog connection");
            }
            live = load();
        }
        try {
            return WalChangeDecoder.rowsOf(live, d, desc);
        } catch (ColumnDecodeException e) {
            // Types created after the load (an enum, a composite): retry once with the current type catalog.
            live = load();
            return WalChangeDecoder.rowsOf(live, d, desc);
        }
    }

    private RowDecoder load() throws SQLException {
        try (Connection c = pg.openSql()) {
            return new RowDecoder(new ValueDecoder(TypeCatalogLoader.load(c)));
        }
    }
}
