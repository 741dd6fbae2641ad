package io.walshadow.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.LiveRelation;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.pg.JdbcCatalogSource;
import io.walshadow.pg.TypeCatalogLoader;
import io.walshadow.testing.LocalClickHouse;
import io.walshadow.testing.LocalPg;
import io.walshadow.types.MapTypeCatalog;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Real PostgreSQL 15 descriptors to real ClickHouse 18.16 tables. The literal table below (PostgreSQL column type
 * to expected ClickHouse type) is the specification; it is written independently of {@link TypeMapping}.
 */
class DestinationSchemaIT {
    /** column name, PostgreSQL type (%s = schema), expected ClickHouse type as DESCRIBE shows it on 18.16. */
    private static final String[][] SPEC = {
            {"id", "int8 NOT NULL", "Int64"},
            {"c_bool", "bool", "Nullable(UInt8)"},
            {"c_int2", "int2 NOT NULL", "Int16"},
            {"c_int4", "int4", "Nullable(Int32)"},
            {"c_int8", "int8", "Nullable(Int64)"},
            {"c_oid", "oid", "Nullable(UInt32)"},
            {"c_float4", "float4", "Nullable(Float32)"},
            {"c_float8", "float8 NOT NULL", "Float64"},
            {"c_num", "numeric(12,3)", "Nullable(Decimal(12, 3))"},
            {"c_num38", "numeric(38,10)", "Nullable(Decimal(38, 10))"},
            {"c_num40", "numeric(40,2)", "Nullable(String)"},
            {"c_num_free", "numeric", "Nullable(String)"},
            {"c_num_negscale", "numeric(5,-2)", "Nullable(String)"},
            {"c_text", "text", "Nullable(String)"},
            {"c_text_nn", "text NOT NULL", "String"},
            {"c_varchar", "varchar(10)", "Nullable(String)"},
            {"c_bpchar", "char(3)", "Nullable(String)"},
            {"c_name", "name", "Nullable(String)"},
            {"c_json", "json", "Nullable(String)"},
            {"c_jsonb", "jsonb", "Nullable(String)"},
            {"c_xml", "xml", "Nullable(String)"},
            {"c_enum", "%s.mood", "Nullable(String)"},
            {"c_inet", "inet", "Nullable(String)"},
            {"c_cidr", "cidr", "Nullable(String)"},
            {"c_macaddr", "macaddr", "Nullable(String)"},
            {"c_interval", "interval", "Nullable(String)"},
            {"c_money", "money", "Nullable(String)"},
            {"c_timetz", "timetz", "Nullable(String)"},
            {"c_time", "time", "Nullable(String)"},
            {"c_bit", "bit(4)", "Nullable(String)"},
            {"c_varbit", "varbit", "Nullable(String)"},
            {"c_bytea", "bytea", "Nullable(String)"},
            {"c_uuid", "uuid", "Nullable(UUID)"},
            {"c_date", "date", "Nullable(Date)"},
            {"c_ts", "timestamp", "Nullable(DateTime('UTC'))"},
            {"c_tstz", "timestamptz NOT NULL", "DateTime('UTC')"},
            {"c_int4_arr", "int4[]", "Array(Nullable(Int32))"},
            {"c_text_arr", "text[]", "Array(Nullable(String))"},
            {"c_num_arr", "numeric(10,2)[]", "Array(Nullable(Decimal(10, 2)))"},
            {"c_uuid_arr", "uuid[] NOT NULL", "Array(Nullable(UUID))"},
            {"c_date_arr", "date[]", "Array(Nullable(Date))"},
            {"c_enum_arr", "%s.mood[]", "Array(Nullable(String))"},
            {"c_domain", "%s.price", "Nullable(Decimal(10, 2))"},
            {"c_domain_nn", "%s.price NOT NULL", "Decimal(10, 2)"},
            {"c_composite", "%s.pair", "Nullable(String)"},
            {"c_regclass", "regclass", "Nullable(UInt32)"},
            {"c_regrole_nn", "regrole NOT NULL", "UInt32"},
            {"c_regproc_arr", "regprocedure[]", "Array(Nullable(UInt32))"},
            {"c_tsquery", "tsquery", "Nullable(String)"},
            {"c_acl", "aclitem[]", "Array(Nullable(String))"},
            {"Mixed Case`col", "text", "Nullable(String)"},
    };

    private static final String[][] META = {
            {"_lsn", "UInt64"}, {"_commit_lsn", "UInt64"}, {"_xid", "UInt64"}, {"_is_deleted", "UInt8"},
    };

    private String schema;
    private final List<String> chTables = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        schema = "chmap_" + Long.toHexString(System.nanoTime());
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE SCHEMA " + schema,
                    "CREATE TYPE " + schema + ".mood AS ENUM ('sad', 'ok', 'happy')",
                    "CREATE DOMAIN " + schema + ".price AS numeric(10,2) CHECK (VALUE >= 0)",
                    "CREATE TYPE " + schema + ".pair AS (a int4, b text)");
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        try (ClickHouseConnection ch = LocalClickHouse.connect()) {
            for (String t : chTables) {
                ch.execute("DROP TABLE IF EXISTS " + t);
            }
        } finally {
            try (Connection c = LocalPg.connect()) {
                LocalPg.exec(c, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    @Test
    void everyTypeMapsAsSpecifiedOn1816() throws Exception {
        StringBuilder ddl = new StringBuilder("CREATE TABLE " + schema + ".all_types (");
        for (String[] col : SPEC) {
            ddl.append('"').append(col[0].replace("\"", "\"\"")).append("\" ")
                    .append(String.format(col[1], schema)).append(", ");
        }
        ddl.append("c_dropped int4, PRIMARY KEY (id, c_int2))");
        RelationDescriptor d;
        MapTypeCatalog types;
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, ddl.toString(), "ALTER TABLE " + schema + ".all_types DROP COLUMN c_dropped");
            d = descriptor(c, "all_types");
            types = TypeCatalogLoader.load(c);
        }
        assertTrue(d.columns().stream().anyMatch(Column::dropped), "the dropped column is in the descriptor");

        try (ClickHouseConnection ch = LocalClickHouse.connect()) {
            ServerCapabilities caps = ServerCapabilities.probe(ch);
            String sql = DestinationSchema.createTableSql(d, types, caps, ch.database());
            String table = "`" + ch.database() + "`.`" + schema + "__all_types`";
            chTables.add(table);
            ch.execute(sql);
            ch.execute(sql); // IF NOT EXISTS: idempotent

            Map<String, String> expected = new LinkedHashMap<>();
            for (String[] col : SPEC) {
                expected.put(col[0], col[2]);
            }
            for (String[] m : META) {
                expected.put(m[0], m[1]);
            }
            // every row's TID, outside the key: should the table lose its primary key, it is re-keyed by it
            expected.put("_tid_block", "UInt32");
            expected.put("_tid_offset", "UInt16");
            assertEquals(expected, describe(ch, table), sql);

            String create = ch.queryString("SHOW CREATE TABLE " + table);
            assertNotNull(create);
            assertTrue(create.contains("ENGINE = ReplacingMergeTree(_lsn)"), create);
            assertTrue(create.contains("ORDER BY (id, c_int2)"), create);
        }
    }

    @Test
    void tableWithoutIdentityIsOrderedByTid() throws Exception {
        RelationDescriptor d;
        MapTypeCatalog types;
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE TABLE " + schema + ".nopk (a int4, b text NOT NULL)");
            d = descriptor(c, "nopk");
            types = TypeCatalogLoader.load(c);
        }
        assertTrue(d.identityAttnums().isEmpty());
        try (ClickHouseConnection ch = LocalClickHouse.connect()) {
            ServerCapabilities caps = ServerCapabilities.probe(ch);
            String table = "`" + ch.database() + "`.`" + schema + "__nopk`";
            chTables.add(table);
            ch.execute(DestinationSchema.createTableSql(d, types, caps, ch.database()));

            Map<String, String> expected = new LinkedHashMap<>();
            expected.put("a", "Nullable(Int32)");
            expected.put("b", "String");
            for (String[] m : META) {
                expected.put(m[0], m[1]);
            }
            expected.put("_tid_block", "UInt32");
            expected.put("_tid_offset", "UInt16");
            assertEquals(expected, describe(ch, table));
            String create = ch.queryString("SHOW CREATE TABLE " + table);
            assertTrue(create.contains("ENGINE = ReplacingMergeTree(_lsn)"), create);
            assertTrue(create.contains("ORDER BY (_tid_block, _tid_offset)"), create);
        }

        // a nullable identity column (PostgreSQL forbids it for a replica identity index; a descriptor could still
        // carry one) cannot be a ClickHouse sorting key: the TID is used
        RelationDescriptor nullableKey = new RelationDescriptor(d.relOid(), d.locator(), d.schema(), d.name(),
                d.relkind(), d.relpersistence(), 'i', d.toastRelOid(), d.columns(), List.of(1));
        assertTrue(DestinationSchema.keyedByTid(nullableKey, types, ServerCapabilities.baseline()));
        RelationDescriptor notNullKey = new RelationDescriptor(d.relOid(), d.locator(), d.schema(), d.name(),
                d.relkind(), d.relpersistence(), 'i', d.toastRelOid(), d.columns(), List.of(2));
        assertFalse(DestinationSchema.keyedByTid(notNullKey, types, ServerCapabilities.baseline()));
        assertTrue(DestinationSchema.createTableSql(notNullKey, types, ServerCapabilities.baseline(), "db")
                .endsWith("ORDER BY (`b`)"));
    }

    @Test
    void modernServerGetsDateTime64() throws Exception {
        RelationDescriptor d;
        MapTypeCatalog types;
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE TABLE " + schema + ".ts (id int4 PRIMARY KEY, t timestamptz, u timestamp[])");
            d = descriptor(c, "ts");
            types = TypeCatalogLoader.load(c);
        }
        String sql = DestinationSchema.createTableSql(d, types, ServerCapabilities.of("23.8.2.7"), "db");
        assertTrue(sql.contains("`t` Nullable(DateTime64(6, 'UTC'))"), sql);
        assertTrue(sql.contains("`u` Array(Nullable(DateTime64(6, 'UTC')))"), sql);
        assertTrue(sql.startsWith("CREATE TABLE IF NOT EXISTS `db`.`" + schema + "__ts` ("), sql);
    }

    private static Map<String, String> describe(ClickHouseConnection ch, String table) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String[] row : ch.queryTsv("DESCRIBE TABLE " + table)) {
            out.put(row[0], row[1]);
        }
        return out;
    }

    private RelationDescriptor descriptor(Connection c, String table) throws Exception {
        int relOid = Integer.parseInt(LocalPg.queryString(c, "SELECT '" + schema + "." + table + "'::regclass::oid"));
        LiveRelation live;
        try (Connection lc = LocalPg.connect()) {
            live = new JdbcCatalogSource(lc, CatalogFilter.parse(schema + ".*", null)).load(Set.of(relOid), false)
                    .relations().get(relOid);
        }
        assertNotNull(live);
        List<Column> cols = new ArrayList<>();
        for (LiveRelation.Attribute a : live.attributes()) {
            cols.add(a.column());
        }
        List<Integer> identity = List.of();
        for (LiveRelation.Index ix : live.indexes()) {
            if (ix.primary()) {
                identity = ix.attnums();
            }
        }
        return new RelationDescriptor(live.oid(), live.locator(), live.schema(), live.name(), live.relkind(),
                live.relpersistence(), live.replident(), live.toastRelOid(), cols, identity);
    }
}
