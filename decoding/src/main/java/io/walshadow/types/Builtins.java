package io.walshadow.types;

import io.walshadow.wal.Bytes;
import java.nio.charset.Charset;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The built-in scalar types: on-disk layout (typlen, typalign as in pg_type.dat) and codec. Fixed-length values
 * are in the server's (little-endian) byte order, except uuid and the address/MAC types, which are byte strings.
 */
final class Builtins {
    private Builtins() {}

    static Map<Integer, ResolvedType> create(Charset cs) {
        Map<Integer, ResolvedType> m = new HashMap<>();
        TypeCodec text = textOf((b, o, l) -> new String(b, o, l, cs));

        add(m, Oids.BOOL, "bool", 1, 'c', TypeCodec.of((b, o, l) -> b[o] != 0,
                (out, v) -> out.append(TypeCodec.cast(v, Boolean.class) ? 't' : 'f')));
        add(m, Oids.INT2, "int2", 2, 's', TypeCodec.of((b, o, l) -> (short) Bytes.uint16(b, o), Short.class));
        add(m, Oids.INT4, "int4", 4, 'i', TypeCodec.of((b, o, l) -> Bytes.int32(b, o), Integer.class));
        add(m, Oids.INT8, "int8", 8, 'd', TypeCodec.of((b, o, l) -> Bytes.int64(b, o), Long.class));
        add(m, Oids.OID, "oid", 4, 'i', uint32());
        add(m, Oids.XID, "xid", 4, 'i', uint32());
        add(m, Oids.CID, "cid", 4, 'i', uint32());
        add(m, Oids.XID8, "xid8", 8, 'd', TypeCodec.of((b, o, l) -> Bytes.int64(b, o),
                (out, v) -> out.append(Long.toUnsignedString(TypeCodec.cast(v, Long.class)))));
        add(m, Oids.FLOAT4, "float4", 4, 'i', TypeCodec.of((b, o, l) -> Float.intBitsToFloat(Bytes.int32(b, o)),
                (out, v) -> out.append(FloatText.float4(TypeCodec.cast(v, Float.class)))));
        add(m, Oids.FLOAT8, "float8", 8, 'd', TypeCodec.of((b, o, l) -> Double.longBitsToDouble(Bytes.int64(b, o)),
                (out, v) -> out.append(FloatText.float8(TypeCodec.cast(v, Double.class)))));
        add(m, Oids.NUMERIC, "numeric", -1, 'i', NumericCodec.CODEC);
        add(m, Oids.MONEY, "money", 8, 'd', TypeCodec.of((b, o, l) -> new PgMoney(Bytes.int64(b, o)), PgMoney.class));
        add(m, Oids.CHAR, "char", 1, 'c', TypeCodec.of((b, o, l) -> b[o], (out, v) -> charOut(out, v)));
        add(m, Oids.NAME, "name", 64, 'c', textOf((b, o, l) -> new String(b, o, cstrlen(b, o, l), cs)));
        add(m, Oids.TEXT, "text", -1, 'i', text);
        add(m, Oids.VARCHAR, "varchar", -1, 'i', text);
        add(m, Oids.BPCHAR, "bpchar", -1, 'i', text);
        add(m, Oids.JSON, "json", -1, 'i', text);
        add(m, Oids.XML, "xml", -1, 'i', text);
        add(m, Oids.BYTEA, "bytea", -1, 'i', TypeCodec.of((b, o, l) -> Arrays.copyOfRange(b, o, o + l),
                (out, v) -> byteaOut(out, TypeCodec.cast(v, byte[].class))));
        add(m, Oids.JSONB, "jsonb", -1, 'i', new JsonbCodec(cs));
        add(m, Oids.UUID, "uuid", 16, 'c', TypeCodec.of((b, o, l) -> new UUID(bigEndian64(b, o), bigEndian64(b, o + 8)),
                (out, v) -> out.append(TypeCodec.cast(v, UUID.class))));
        add(m, Oids.DATE, "date", 4, 'i', TypeCodec.of((b, o, l) -> new PgDate(Bytes.int32(b, o)), PgDate.class));
        add(m, Oids.TIME, "time", 8, 'd', TypeCodec.of((b, o, l) -> time(Bytes.int64(b, o)), PgTime.class));
        add(m, Oids.TIMETZ, "timetz", 12, 'd', TypeCodec.of(
                (b, o, l) -> new PgTimeTz(time(Bytes.int64(b, o)).micros(), Bytes.int32(b, o + 8)), PgTimeTz.class));
        add(m, Oids.TIMESTAMP, "timestamp", 8, 'd',
                TypeCodec.of((b, o, l) -> new PgTimestamp(Bytes.int64(b, o), false), PgTimestamp.class));
        add(m, Oids.TIMESTAMPTZ, "timestamptz", 8, 'd',
                TypeCodec.of((b, o, l) -> new PgTimestamp(Bytes.int64(b, o), true), PgTimestamp.class));
        add(m, Oids.INTERVAL, "interval", 16, 'd', TypeCodec.of(
                (b, o, l) -> new PgInterval(Bytes.int32(b, o + 12), Bytes.int32(b, o + 8), Bytes.int64(b, o)),
                PgInterval.class));
        add(m, Oids.INET, "inet", -1, 'i', TypeCodec.of((b, o, l) -> inet(b, o, l, false), PgInet.class));
        add(m, Oids.CIDR, "cidr", -1, 'i', TypeCodec.of((b, o, l) -> inet(b, o, l, true), PgInet.class));
        add(m, Oids.MACADDR, "macaddr", 6, 'i',
                TypeCodec.of((b, o, l) -> new PgMacaddr(Arrays.copyOfRange(b, o, o + 6)), PgMacaddr.class));
        add(m, Oids.MACADDR8, "macaddr8", 8, 'i',
                TypeCodec.of((b, o, l) -> new PgMacaddr(Arrays.copyOfRange(b, o, o + 8)), PgMacaddr.class));
        add(m, Oids.BIT, "bit", -1, 'i', TypeCodec.of(Builtins::bits, PgBitString.class));
        add(m, Oids.VARBIT, "varbit", -1, 'i', TypeCodec.of(Builtins::bits, PgBitString.class));
        add(m, Oids.TID, "tid", 6, 's', TypeCodec.of((b, o, l) -> new PgTid(
                ((long) Bytes.uint16(b, o) << 16) | Bytes.uint16(b, o + 2), Bytes.uint16(b, o + 4)), PgTid.class));
        add(m, Oids.POINT, "point", 16, 'd', textOf(Geometric::point));
        add(m, Oids.LSEG, "lseg", 32, 'd', textOf(Geometric::lseg));
        add(m, Oids.PATH, "path", -1, 'd', textOf(Geometric::path));
        // its text holds commas: arrays of boxes use ';'
        m.put(Oids.BOX, new ResolvedType(Oids.BOX, "box", 32, 'd', textOf(Geometric::box), ';'));
        add(m, Oids.POLYGON, "polygon", -1, 'd', textOf(Geometric::polygon));
        add(m, Oids.LINE, "line", 24, 'd', textOf(Geometric::line));
        add(m, Oids.CIRCLE, "circle", 24, 'd', textOf(Geometric::circle));
        add(m, Oids.TSVECTOR, "tsvector", -1, 'i', textOf((b, o, l) -> TsVector.text(b, o, l, cs)));
        add(m, Oids.TSQUERY, "tsquery", -1, 'i', textOf((b, o, l) -> TsQuery.text(b, o, l, cs)));
        // the reg* types: an oid, printed by name as the catalog stands when read (and per search_path); the name as
        // of the change is not in the WAL, so the value is the oid number, as v::oid prints it
        add(m, Oids.REGPROC, "regproc", 4, 'i', uint32());
        add(m, Oids.REGPROCEDURE, "regprocedure", 4, 'i', uint32());
        add(m, Oids.REGOPER, "regoper", 4, 'i', uint32());
        add(m, Oids.REGOPERATOR, "regoperator", 4, 'i', uint32());
        add(m, Oids.REGCLASS, "regclass", 4, 'i', uint32());
        add(m, Oids.REGTYPE, "regtype", 4, 'i', uint32());
        add(m, Oids.REGCONFIG, "regconfig", 4, 'i', uint32());
        add(m, Oids.REGDICTIONARY, "regdictionary", 4, 'i', uint32());
        add(m, Oids.REGNAMESPACE, "regnamespace", 4, 'i', uint32());
        add(m, Oids.REGROLE, "regrole", 4, 'i', uint32());
        add(m, Oids.REGCOLLATION, "regcollation", 4, 'i', uint32());
        add(m, Oids.ACLITEM, "aclitem", AclItem.SIZE, 'i', textOf(AclItem::text));
        add(m, Oids.PG_LSN, "pg_lsn", 8, 'd', TypeCodec.of((b, o, l) -> Bytes.int64(b, o), (out, v) -> {
            long lsn = TypeCodec.cast(v, Long.class);
            out.append(Long.toHexString(lsn >>> 32).toUpperCase()).append('/')
                    .append(Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase());
        }));
        add(m, Oids.INT2VECTOR, "int2vector", -1, 'i', textOf((b, o, l) -> SystemTypes.vector(b, o, l, 2, false)));
        add(m, Oids.OIDVECTOR, "oidvector", -1, 'i', textOf((b, o, l) -> SystemTypes.vector(b, o, l, 4, true)));
        add(m, Oids.PG_SNAPSHOT, "pg_snapshot", -1, 'd', textOf(SystemTypes::snapshot));
        add(m, Oids.TXID_SNAPSHOT, "txid_snapshot", -1, 'd', textOf(SystemTypes::snapshot));
        // the built-in ranges and their multiranges (ranges of one's own resolve through pg_range: ValueDecoder)
        range(m, 3904, "int4range", 'i', Oids.INT4, 4451, "int4multirange");
        range(m, 3926, "int8range", 'd', Oids.INT8, 4536, "int8multirange");
        range(m, 3906, "numrange", 'i', Oids.NUMERIC, 4532, "nummultirange");
        range(m, 3908, "tsrange", 'd', Oids.TIMESTAMP, 4533, "tsmultirange");
        range(m, 3910, "tstzrange", 'd', Oids.TIMESTAMPTZ, 4534, "tstzmultirange");
        range(m, 3912, "daterange", 'i', Oids.DATE, 4535, "datemultirange");
        // a column written raw: a varlena's content (decompressed, detoasted by the TOAST stage), or a fixed-length
        // datum's bytes as the tuple holds them (length 0: as long as the deformer sliced it)
        add(m, Oids.RAW_VARLENA, "raw varlena", -1, 'i', textOf(Builtins::hex));
        add(m, Oids.RAW_FIXED, "raw datum", 0, 'c', textOf(Builtins::hex));
        return m;
    }

    /** A range and its multirange: both aligned as the subtype (typalign in pg_type.dat). */
    private static void range(Map<Integer, ResolvedType> m, int oid, String name, char typalign, int subtype,
                              int multiOid, String multiName) {
        RangeCodec range = new RangeCodec(name, m.get(subtype));
        add(m, oid, name, -1, typalign, range);
        add(m, multiOid, multiName, -1, typalign, new MultirangeCodec(multiName, range));
    }

    private static void add(Map<Integer, ResolvedType> m, int oid, String name, int typlen, char typalign,
                            TypeCodec codec) {
        m.put(oid, new ResolvedType(oid, name, typlen, typalign, codec));
    }

    /** A type decoded straight to its text form: the value is the String its output function prints. */
    private static TypeCodec textOf(TypeCodec.Decoder decoder) {
        return TypeCodec.of(decoder, (out, v) -> out.append(str(v)));
    }

    /** {@code \x} and two lower-case hex digits a byte, as bytea_output hex prints. */
    private static String hex(byte[] b, int o, int l) {
        return "\\x" + java.util.HexFormat.of().formatHex(b, o, o + l);
    }

    private static TypeCodec uint32() {
        return TypeCodec.of((b, o, l) -> Bytes.int32(b, o) & 0xFFFFFFFFL, Long.class);
    }

    private static String str(Object v) {
        return TypeCodec.cast(v, String.class);
    }

    private static int cstrlen(byte[] b, int o, int l) {
        int n = 0;
        while (n < l && b[o + n] != 0) {
            n++;
        }
        return n;
    }

    private static long bigEndian64(byte[] b, int o) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[o + i] & 0xFF);
        }
        return v;
    }

    private static PgTime time(long micros) {
        if (micros < 0 || micros > PgTime.MAX) {
            throw new MalformedDatumException("time of day " + micros + " µs out of range");
        }
        return new PgTime(micros);
    }

    /** charout (PostgreSQL 15+): a high-bit byte prints as \ooo, NUL as the empty string. */
    private static void charOut(StringBuilder out, Object v) {
        int c = TypeCodec.cast(v, Byte.class) & 0xFF;
        if (c >= 0x80) {
            out.append('\\').append((char) ('0' + (c >> 6))).append((char) ('0' + ((c >> 3) & 7)))
                    .append((char) ('0' + (c & 7)));
        } else if (c != 0) {
            out.append((char) c);
        }
    }

    /** byteaout with bytea_output = hex. */
    private static void byteaOut(StringBuilder out, byte[] v) {
        out.append("\\x");
        for (byte x : v) {
            out.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
        }
    }

    /** inet_struct: family (2 = PGSQL_AF_INET, 3 = PGSQL_AF_INET6), bits, 4 or 16 address bytes. */
    private static PgInet inet(byte[] b, int o, int l, boolean cidr) {
        if (l < 2) {
            throw new MalformedDatumException("inet of " + l + " byte(s)");
        }
        int family = b[o] & 0xFF;
        int size = switch (family) {
            case 2 -> 4;
            case 3 -> 16;
            default -> throw new MalformedDatumException("inet address family " + family);
        };
        int bits = b[o + 1] & 0xFF;
        if (l != 2 + size || bits > size * 8) {
            throw new MalformedDatumException("inet of family " + family + " with /" + bits + " in " + l + " bytes");
        }
        return new PgInet(cidr, bits, Arrays.copyOfRange(b, o + 2, o + 2 + size));
    }

    /** VarBit: int32 bit_len, then the bits, most significant first. */
    private static PgBitString bits(byte[] b, int o, int l) {
        if (l < 4) {
            throw new MalformedDatumException("bit string of " + l + " byte(s)");
        }
        int n = Bytes.int32(b, o);
        if (n < 0 || (n + 7L) / 8 != l - 4) {
            throw new MalformedDatumException("bit string of " + n + " bits in " + (l - 4) + " bytes");
        }
        return new PgBitString(n, Arrays.copyOfRange(b, o + 4, o + l));
    }
}
