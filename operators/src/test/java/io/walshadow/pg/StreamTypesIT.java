package io.walshadow.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeSet;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A type the stream sent without its extension (a TypeSet of format 1, from an earlier build's state) takes the live
 * catalog's extension when the live type is the same one; a stream type of the same oid but another name keeps
 * none.
 */
class StreamTypesIT {
    @Test
    void anEarlierBuildsTypeTakesItsExtensionFromTheLiveCatalog() throws Exception {
        int oid;
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE EXTENSION IF NOT EXISTS hstore");
            oid = Integer.parseInt(LocalPg.queryString(c, "SELECT t.oid FROM pg_type t JOIN pg_extension e"
                    + " ON e.extnamespace = t.typnamespace WHERE e.extname = 'hstore' AND t.typname = 'hstore'"));
            String schema = LocalPg.queryString(c, "SELECT typnamespace::regnamespace::text FROM pg_type WHERE oid = "
                    + oid);
            PgType old = new PgType(oid, schema, "hstore", -1, false, 'i', 'b', 'U', 0, 0, -1, 0, Map.of());
            StreamTypes types = new StreamTypes(FlinkTestJobs.localPg(), new TypeSet(Map.of(oid, old), Map.of()));
            assertEquals("hstore", types.type(oid).extension());
            assertEquals(old.schema(), types.type(oid).schema());

            PgType renamed = new PgType(oid, schema, "kv", -1, false, 'i', 'b', 'U', 0, 0, -1, 0, Map.of());
            StreamTypes other = new StreamTypes(FlinkTestJobs.localPg(), new TypeSet(Map.of(oid, renamed), Map.of()));
            assertNull(other.type(oid).extension(), "the stream's type as of its DDL wins; no name a codec knows");
        }
    }
}
