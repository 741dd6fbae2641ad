package io.walshadow.codec;

import static io.walshadow.testing.Deep.assertDeepEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeCatalog;
import io.walshadow.types.Oids;
import io.walshadow.types.PgArray;
import io.walshadow.types.PgNumeric;
import io.walshadow.types.PgRecord;
import io.walshadow.types.ValueDecoder;
import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Values produced by the real type decoders from on-disk datums round trip exactly, and print the same. */
class DecodedValuesTest {
    static final int INT4_ARRAY = 1007;
    static final int PAIR = 70001;
    static final int PAIR_REL = 70000;

    static final TypeCatalog CATALOG = new TypeCatalog() {
        @Override
        public PgType type(int oid) {
            return switch (oid) {
                case INT4_ARRAY -> new PgType(INT4_ARRAY, "pg_catalog", "_int4", -1, false, 'i', 'b', 'A', Oids.INT4, 0,
                        -1, 0, Map.of());
                case PAIR -> new PgType(PAIR, "public", "pair", -1, false, 'd', 'c', 'C', 0, 0, -1, PAIR_REL, Map.of());
                default -> null;
            };
        }

        @Override
        public List<Column> compositeAttributes(int relOid) {
            return relOid == PAIR_REL ? List.of(
                    new Column(1, "a", Oids.INT4, -1, 4, 'i', true, 'p', false, false, null),
                    new Column(2, "b", Oids.TEXT, -1, -1, 'i', false, 'x', false, false, null)) : null;
        }
    };

    /** (type oid, datum hex, expected text output). */
    static final Object[][] DATUMS = {
        {Oids.BOOL, "01", "t"},
        {Oids.INT2, "0080", "-32768"},
        {Oids.INT4, "2a000000", "42"},
        {Oids.INT8, "ffffffffffffffff", "-1"},
        {Oids.OID, "ffffffff", "4294967295"},
        {Oids.FLOAT4, "0000c07f", "NaN"},
        {Oids.FLOAT8, "0000000000000080", "-0"},
        {Oids.FLOAT8, "000000000000f0ff", "-Infinity"},
        {Oids.TEXT, "0f68c3a96c6c6f", "héllo"},
        {Oids.BYTEA, "09010203", "\\x010203"},
        {Oids.CHAR, "80", "\\200"},
        {Oids.NUMERIC, "30000000" + "0200" + "0000" + "0100" + "8813", "1.50"},
        {Oids.NUMERIC, "0700c0", "NaN"},
        {Oids.NUMERIC, "0700f0", "-Infinity"},
        {Oids.UUID, "123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-426614174000"},
        {Oids.DATE, "ffffffff", "1999-12-31"},
        {Oids.DATE, "ffffff7f", "infinity"},
        {Oids.TIMESTAMPTZ, "0000000000000000", "2000-01-01 00:00:00+00"},
        {Oids.INTERVAL, "40420f0000000000" + "fdffffff" + "0e000000", "1 year 2 mons -3 days +00:00:01"},
        {Oids.INET, "0f" + "0218" + "c0a80100", "192.168.1.0/24"},
        {INT4_ARRAY, "a0000000" + "01000000" + "20000000" + "17000000" + "03000000" + "01000000" + "05" + "00000000000000"
                + "01000000" + "03000000", "{1,NULL,3}"},
        {PAIR, "70000000" + "ffffffff" + "71110100" + "000000000000" + "0200" + "0100" + "18" + "01" + "07000000",
            "(7,)"},
        {PAIR, "7c000000" + "ffffffff" + "71110100" + "000000000000" + "0200" + "0000" + "18" + "00" + "07000000"
                + "076869", "(7,hi)"},
    };

    @Test
    void decodedDatumsRoundTrip() throws IOException {
        ValueDecoder decoder = new ValueDecoder(CATALOG);
        for (Object[] d : DATUMS) {
            int type = (Integer) d[0];
            byte[] datum = HexFormat.of().parseHex((String) d[1]);
            Object value = decoder.decode(type, -1, datum, 0, datum.length);
            assertEquals(d[2], decoder.toText(type, -1, value), "decoder sanity for " + d[1]);
            DataOutputSerializer out = new DataOutputSerializer(32);
            ValueCodec.write(out, value);
            Object back = ValueCodec.read(new DataInputDeserializer(out.getCopyOfBuffer()));
            assertDeepEquals(value, back);
            assertEquals(d[2], decoder.toText(type, -1, back), "text output after the round trip");
        }
    }

    @Test
    void decodedCompositesAndArraysKeepTheirShape() throws IOException {
        ValueDecoder decoder = new ValueDecoder(CATALOG);
        byte[] arr = HexFormat.of().parseHex((String) DATUMS[20][1]);
        PgArray a = (PgArray) decoder.decode(INT4_ARRAY, -1, arr, 0, arr.length);
        byte[] rec = HexFormat.of().parseHex((String) DATUMS[22][1]);
        PgRecord r = (PgRecord) decoder.decode(PAIR, -1, rec, 0, rec.length);
        byte[] num = HexFormat.of().parseHex((String) DATUMS[11][1]);
        PgNumeric n = (PgNumeric) decoder.decode(Oids.NUMERIC, -1, num, 0, num.length);
        Object[] row = {a, r, n};
        DataOutputSerializer out = new DataOutputSerializer(32);
        ValueCodec.writeRow(out, row);
        Object[] back = ValueCodec.readRow(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertDeepEquals(row, back);
        assertInstanceOf(Integer.class, ((PgArray) back[0]).elements()[0]);
        assertEquals(2, ((PgNumeric) back[2]).value().scale());
        assertEquals("hi", ((PgRecord) back[1]).get("b"));
    }
}
