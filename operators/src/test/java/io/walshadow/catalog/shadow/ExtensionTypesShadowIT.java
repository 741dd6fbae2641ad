package io.walshadow.catalog.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.PgType;
import io.walshadow.pg.CatalogBootstrap;
import io.walshadow.pg.TypeCatalogLoader;
import io.walshadow.testing.LocalPg;
import io.walshadow.types.MapTypeCatalog;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.WalSegmentReader;
import io.walshadow.wal.XLogRecord;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * Extension types recognised through the WAL-fed shadow: in a database of its own (extensions are per database,
 * and the shared one has them installed already), the shadow is bootstrapped before any contrib extension exists;
 * then extensions are created (one into another schema), with tables of their types, a domain named like an
 * extension type, and a type of the same name in a schema no extension lives in. After the shadow has read that
 * WAL (and been written to bytes and read back), its types equal {@link MapTypeCatalog#load}'s, field for field,
 * extension included, and the stored values decode to PostgreSQL's text.
 */
class ExtensionTypesShadowIT {
    private final String sfx = Long.toString(System.nanoTime(), 36);

    @Test
    void extensionCreatedAfterTheStartDecodes() throws Exception {
        String db = "ws_ext_" + sfx;
        String slot = "ws_ext_" + sfx;
        try (Connection admin = LocalPg.connect()) {
            LocalPg.exec(admin, "CREATE DATABASE " + db);
            try {
                run(db, slot);
            } finally {
                LocalPg.exec(admin, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                        + " WHERE slot_name = '" + slot + "'", "DROP DATABASE IF EXISTS " + db);
            }
        }
    }

    private static Connection connect(String db) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", LocalPg.user());
        p.setProperty("password", LocalPg.password());
        p.setProperty("socketTimeout", "300");
        return DriverManager.getConnection("jdbc:postgresql://" + LocalPg.host() + ":" + LocalPg.port() + "/" + db, p);
    }

    private void run(String db, String slot) throws Exception {
        try (Connection c = connect(db); Connection boot = connect(db)) {
            LocalPg.exec(c, "CREATE EXTENSION pageinspect",
                    "SELECT pg_create_physical_replication_slot('" + slot + "', true, true)");
            long restart = io.walshadow.wal.Lsn.parse(LocalPg.queryString(c, "SELECT restart_lsn::text FROM"
                    + " pg_replication_slots WHERE slot_name = '" + slot + "'"));
            CatalogBootstrap.Result r = new CatalogBootstrap(boot, System.out::println).take(slot);
            ShadowCatalog shadow = r.shadow();
            ShadowCatalog atStart = ShadowCatalogSerializer.fromBytes(ShadowCatalogSerializer.toBytes(shadow));
            assertTrue(shadow.rows(SystemCatalog.PG_EXTENSION).size() >= 2, "plpgsql and pageinspect");
            long before = shadow.typesVersion();

            LocalPg.exec(c, "CREATE EXTENSION hstore", "CREATE SCHEMA lt", "CREATE EXTENSION ltree SCHEMA lt",
                    "CREATE EXTENSION cube", "CREATE EXTENSION seg", "CREATE EXTENSION citext",
                    "CREATE DOMAIN public.dom_hstore AS public.hstore",
                    "CREATE SCHEMA other", "CREATE TYPE other.hstore AS (a int)", "CREATE DOMAIN other.ltree AS text",
                    "CREATE TABLE t (h hstore, l lt.ltree, q lt.lquery, cu cube, s seg, ci citext, dh dom_hstore,"
                            + " ha hstore[], oh other.hstore, ol other.ltree)",
                    "INSERT INTO t VALUES ('a=>1, \"b c\"=>NULL', 'Top.Science', '*.!x|y@{2,}', '(1,2),(3,4)',"
                            + " '~1.50 .. <2', 'MiXed', 'k=>v', ARRAY['x=>y'::hstore, NULL], ROW(5), 'plain')");
            List<String> expected = LocalPg.queryColumn(c, "SELECT x FROM t, unnest(ARRAY[h::text, l::text, q::text,"
                    + " cu::text, s::text, ci::text, dh::text, ha::text, oh::text, ol::text]) x");
            LocalPg.exec(c, "SELECT pg_switch_wal()");
            long end = LocalPg.currentLsn(c);
            try (WalSegmentReader reader = new WalSegmentReader(LocalPg.walDir(),
                    WalFormat.forServerVersionNum(LocalPg.serverVersionNum(c)), LocalPg.segmentSize(c),
                    LocalPg.timeline(c), restart, end)) {
                XLogRecord rec;
                while ((rec = reader.next()) != null) {
                    ShadowCatalogWalIT.feed(shadow, rec);
                }
            }
            shadow = ShadowCatalogSerializer.fromBytes(ShadowCatalogSerializer.toBytes(shadow));
            assertTrue(shadow.typesVersion() > before, "CREATE EXTENSION changed what type lookups answer");

            ShadowTypes types = new ShadowTypes(shadow);
            MapTypeCatalog sql;
            c.setAutoCommit(false);
            try {
                sql = TypeCatalogLoader.load(c);
            } finally {
                c.setAutoCommit(true);
            }
            int withExtension = 0;
            for (PgType t : sql.types()) {
                assertEquals(t, types.type(t.oid()), "pg_type " + t.schema() + "." + t.name());
                withExtension += t.extension() != null ? 1 : 0;
            }
            assertEquals(6, withExtension, "hstore, ltree, lquery, cube, seg, citext");

            List<Integer> typeOids = new ArrayList<>();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT atttypid::int8 FROM"
                    + " pg_attribute WHERE attrelid = 't'::regclass AND attnum > 0 ORDER BY attnum")) {
                while (rs.next()) {
                    typeOids.add((int) rs.getLong(1));
                }
            }
            assertEquals("hstore", types.type(typeOids.get(0)).extension());
            assertEquals("ltree", types.type(typeOids.get(1)).extension());
            assertEquals("lt", types.type(typeOids.get(1)).schema());
            assertNull(types.type(typeOids.get(8)).extension(), "other.hstore: no extension in that schema");
            assertNull(types.type(typeOids.get(9)).extension(), "other.ltree: a domain over text");

            ValueDecoder dec = new ValueDecoder(types);
            List<String> got = new ArrayList<>();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT d.val FROM"
                    + " heap_page_items(get_raw_page('t', 0)) h CROSS JOIN LATERAL unnest(tuple_data_split('t'::regclass,"
                    + " h.t_data, h.t_infomask, h.t_infomask2, h.t_bits)) WITH ORDINALITY d(val, ord) ORDER BY d.ord")) {
                int i = 0;
                while (rs.next()) {
                    byte[] raw = rs.getBytes(1);
                    int oid = typeOids.get(i++);
                    got.add(dec.toText(oid, -1, dec.decode(oid, -1, raw, 0, raw.length)));
                }
            }
            assertEquals(expected, got);
            assertFalse(new ValueDecoder(new ShadowTypes(atStart)).supports(typeOids.get(0)),
                    "the shadow as of the start has no hstore");
        }
    }
}
