package io.walshadow.types;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeCatalog;
import io.walshadow.wal.Bytes;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decodes values from PostgreSQL's on-disk datum format (what heap tuples hold) into Java values, and prints
 * them as PostgreSQL's text output ({@code col::text}) under DateStyle ISO, TimeZone UTC, IntervalStyle postgres,
 * extra_float_digits 1, bytea_output hex, lc_monetary C.
 *
 * <p>Built-in types need no catalog; arrays, enums, domains, composites, ranges and multiranges of one's own and the
 * contrib extensions' types ({@link ExtensionTypes}) are looked up in the {@link TypeCatalog}.
 * Resolved types are cached, so use one instance per catalog version (a type changed by ALTER TYPE needs a new
 * decoder). Thread-safe.
 */
public final class ValueDecoder {
    private final TypeCatalog catalog;
    private final Charset serverEncoding;
    private final Map<Integer, ResolvedType> builtins;
    private final Map<Integer, ResolvedType> resolved = new ConcurrentHashMap<>();

    /** A decoder for a UTF8 database. {@code catalog} may be null when only built-in types are decoded. */
    public ValueDecoder(TypeCatalog catalog) {
        this(catalog, StandardCharsets.UTF_8);
    }

    /** @param serverEncoding the database encoding, for text-like values */
    public ValueDecoder(TypeCatalog catalog, Charset serverEncoding) {
        this.catalog = catalog;
        this.serverEncoding = serverEncoding;
        this.builtins = Builtins.create(serverEncoding);
    }

    /** The type catalog non-built-in types are resolved from (null: none). */
    public TypeCatalog catalog() {
        return catalog;
    }

    /**
     * Decodes one datum.
     *
     * <p>The datum {@code buf[off, off+len)} is: the {@code attlen} bytes of a fixed-length type; the whole varlena
     * including its header (1-byte, 4-byte, inline-compressed, or an external TOAST pointer); a cstring with or
     * without its NUL.
     *
     * @param typmod the column's atttypmod; not needed by any decoder (stored values already carry it), kept for
     *     callers and future types
     * @return the Java value (see the package's mapping table), or a {@link ToastPointer} for an external varlena
     * @throws UnsupportedTypeException the type (or a type it contains) cannot be decoded
     * @throws MalformedDatumException the bytes are not a valid value of the type
     */
    public Object decode(int typeOid, int typmod, byte[] buf, int off, int len) {
        return decode(resolve(typeOid), buf, off, len);
    }

    /** Decodes one datum of a type resolved already ({@link ColumnDecoders}). */
    static Object decode(ResolvedType t, byte[] buf, int off, int len) {
        if (off < 0 || len < 0 || off > buf.length - len) {
            throw new MalformedDatumException(t + ": datum [" + off + ", +" + len + ") outside a buffer of "
                    + buf.length + " bytes");
        }
        try {
            return t.decodeDatum(buf, off, len);
        } catch (UnsupportedTypeException e) {
            throw e;
        } catch (MalformedDatumException e) {
            if (e.getMessage().startsWith(t.name + ":")) {
                throw e;
            }
            throw new MalformedDatumException(t + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // bounds checks are explicit, but keep any slip a typed error rather than a crash
            throw new MalformedDatumException(t + ": cannot decode " + len + " bytes: " + e, e);
        }
    }

    public Object decode(int typeOid, int typmod, Datum datum) {
        return decode(typeOid, typmod, datum.buf(), datum.off(), datum.len());
    }

    /**
     * Decoders for the columns of rows of one shape, each column's type resolved at its first value and kept: the
     * per-row path then does no type lookup per value.
     */
    public ColumnDecoders columnDecoders(int natts) {
        return new ColumnDecoders(this, natts);
    }

    /** Decodes a column's datum (its typeOid and typmod). */
    public Object decode(Column column, byte[] buf, int off, int len) {
        return decode(column.typeOid(), column.typmod(), buf, off, len);
    }

    /**
     * PostgreSQL's text output of a value {@link #decode} returned for this type; null for null.
     *
     * @throws IllegalArgumentException for a value of the wrong class, or an unresolved {@link ToastPointer}
     */
    public String toText(int typeOid, int typmod, Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof ToastPointer p) {
            throw new IllegalArgumentException("unresolved TOAST pointer " + p + ": fetch the value first");
        }
        StringBuilder out = new StringBuilder();
        resolve(typeOid).codec.appendText(out, value);
        return out.toString();
    }

    /** Whether values of this type can be decoded (false instead of {@link UnsupportedTypeException}). */
    public boolean supports(int typeOid) {
        try {
            resolve(typeOid);
            return true;
        } catch (UnsupportedTypeException e) {
            return false;
        }
    }

    ResolvedType resolve(int oid) {
        if (oid == Oids.ACLITEM) {
            return aclItem();
        }
        ResolvedType t = builtins.get(oid);
        if (t == null) {
            t = resolved.get(oid);
        }
        if (t == null) {
            t = resolveFromCatalog(oid);
            ResolvedType prev = resolved.putIfAbsent(oid, t);
            if (prev != null) {
                t = prev;
            }
        }
        return t;
    }

    /**
     * aclitem is the one built-in whose width differs between majors (12 bytes on 14/15, 16 from 16 on: acl.h's
     * AclMode). A scalar's length is its column's attlen, but an array element's is this type's: the server's own
     * pg_type row when the catalog has one (looked up on first use, not before: a catalog may load lazily).
     */
    private ResolvedType aclItem() {
        ResolvedType t = resolved.get(Oids.ACLITEM);
        if (t == null) {
            t = builtins.get(Oids.ACLITEM);
            PgType row = catalog == null ? null : catalog.type(Oids.ACLITEM);
            if (row != null && (row.typlen() != t.typlen || row.typalign() != t.typalign)) {
                t = new ResolvedType(t.oid, t.name, row.typlen(), row.typalign(), t.codec);
            }
            resolved.putIfAbsent(Oids.ACLITEM, t);
        }
        return t;
    }

    private ResolvedType resolveFromCatalog(int oid) {
        PgType t = catalog == null ? null : catalog.type(oid);
        if (t == null) {
            throw new UnsupportedTypeException(oid, null, catalog == null
                    ? "not a built-in type, and no catalog" : "unknown type oid");
        }
        String name = t.schema() + "." + t.name();
        switch (t.typtype()) {
            case 'd':
                try {
                    return resolve(t.baseTypeOid()).as(oid, name);
                } catch (UnsupportedTypeException e) {
                    throw new UnsupportedTypeException(oid, name, "(domain)", e);
                }
            case 'e':
                return new ResolvedType(oid, name, 4, 'i', enumCodec(name, t.enumLabels()));
            case 'c':
                return new ResolvedType(oid, name, -1, 'd', recordCodec(t, name));
            case 'b':
                if (isArray(t)) {
                    try {
                        resolve(t.elemOid()); // fail now, not on the first non-empty value
                    } catch (UnsupportedTypeException e) {
                        throw new UnsupportedTypeException(oid, name, "(array)", e);
                    }
                    return new ResolvedType(oid, name, -1, t.typalign(), new ArrayCodec(this::resolve));
                }
                if (ExtensionTypes.known(t.extension(), t.name())) {
                    return new ResolvedType(oid, name, t.typlen(), t.typalign(), ExtensionTypes.codec(t.extension(),
                            t.name(), serverEncoding, builtins.get(Oids.TEXT).codec), ExtensionTypes.typdelim(t.extension()));
                }
                throw new UnsupportedTypeException(oid, name, "no decoder for this base type");
            case 'r':
                return new ResolvedType(oid, name, -1, t.typalign(), rangeCodec(t, name));
            case 'm':
                return new ResolvedType(oid, name, -1, t.typalign(), multirangeCodec(t, name));
            case 'p':
                throw new UnsupportedTypeException(oid, name, "pseudo-types have no stored values");
            default:
                throw new UnsupportedTypeException(oid, name, "typtype '" + t.typtype() + "' is not supported");
        }
    }

    /** A true array type (int2vector and oidvector are arrays on disk but print differently: not supported). */
    private static boolean isArray(PgType t) {
        return t.typcategory() == 'A' && t.elemOid() != 0 && t.typlen() == -1
                && t.oid() != Oids.INT2VECTOR && t.oid() != Oids.OIDVECTOR;
    }

    private static TypeCodec enumCodec(String name, Map<Integer, String> labels) {
        return TypeCodec.of((b, o, l) -> {
            int v = Bytes.int32(b, o);
            String label = labels.get(v);
            if (label == null) {
                throw new MalformedDatumException(name + ": enum value oid " + Integer.toUnsignedString(v)
                        + " is not one of its labels (catalog older than the value?)");
            }
            return label;
        }, (out, v) -> out.append(TypeCodec.cast(v, String.class)));
    }

    /** A range of one's own: range_out over its subtype (pg_range.rngsubtype). */
    private RangeCodec rangeCodec(PgType t, String name) {
        if (t.rangeSubtype() == 0) {
            throw new UnsupportedTypeException(t.oid(), name, "its pg_range row (the subtype) is not in the catalog");
        }
        try {
            return new RangeCodec(name, resolve(t.rangeSubtype()));
        } catch (UnsupportedTypeException e) {
            throw new UnsupportedTypeException(t.oid(), name, "(range subtype)", e);
        }
    }

    /** A multirange of one's own: multirange_out over its range type (the pg_range row naming it rngmultitypid). */
    private TypeCodec multirangeCodec(PgType t, String name) {
        if (t.rangeType() == 0) {
            throw new UnsupportedTypeException(t.oid(), name, "its pg_range row (the range type) is not in the catalog");
        }
        ResolvedType range;
        try {
            range = resolve(t.rangeType());
        } catch (UnsupportedTypeException e) {
            throw new UnsupportedTypeException(t.oid(), name, "(range type)", e);
        }
        if (!(range.codec instanceof RangeCodec r)) {
            throw new UnsupportedTypeException(t.oid(), name, "its range type " + range + " is not a range");
        }
        return new MultirangeCodec(name, r);
    }

    private TypeCodec recordCodec(PgType t, String name) {
        List<Column> attrs = catalog.compositeAttributes(t.relOid());
        if (attrs == null) {
            throw new UnsupportedTypeException(t.oid(), name, "composite attributes (relation "
                    + Integer.toUnsignedString(t.relOid()) + ") not in the catalog");
        }
        ResolvedType[] types = new ResolvedType[attrs.size()];
        for (int i = 0; i < types.length; i++) {
            Column c = attrs.get(i);
            if (c.dropped()) {
                continue;
            }
            try {
                types[i] = resolve(c.typeOid());
            } catch (UnsupportedTypeException e) {
                throw new UnsupportedTypeException(t.oid(), name, "(attribute " + c.name() + ")", e);
            }
        }
        return new RecordCodec(t.oid(), name, attrs, types, this);
    }
}
