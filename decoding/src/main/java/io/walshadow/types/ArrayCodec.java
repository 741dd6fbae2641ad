package io.walshadow.types;

import io.walshadow.wal.Bytes;
import java.util.function.IntFunction;

/**
 * ArrayType (array.h): after the 4-byte varlena header int32 ndim, int32 dataoffset (0 when there is no null
 * bitmap, else the offset of the data from the start of the datum), oid elemtype, int32 dims[ndim], int32
 * lbound[ndim], the null bitmap (bit set = present), then the elements, each aligned to the element type's typalign
 * relative to the (maximally aligned) start of the datum; without a bitmap the data begins at
 * MAXALIGN(16 + 8*ndim). Text output is array_out's.
 */
final class ArrayCodec implements TypeCodec {
    private static final int MAXDIM = 6;
    private static final int MAX_ITEMS = 0x3FFFFFFF / 16; // MaxArraySize: MaxAllocSize / sizeof(Datum)

    private final IntFunction<ResolvedType> resolver;

    /** @param resolver resolves the element type the datum names (cached by the caller) */
    ArrayCodec(IntFunction<ResolvedType> resolver) {
        this.resolver = resolver;
    }

    @Override
    public Object decode(byte[] b, int off, int len) {
        // offsets in the datum count from its 4-byte header, which sits just before the payload
        final int base = off - 4;
        if (len < 12) {
            throw new MalformedDatumException("array of " + len + " byte(s)");
        }
        int ndim = Bytes.int32(b, off);
        int dataOffset = Bytes.int32(b, off + 4);
        int elemType = Bytes.int32(b, off + 8);
        if (ndim < 0 || ndim > MAXDIM) {
            throw new MalformedDatumException("array with " + ndim + " dimensions");
        }
        ResolvedType elem = resolver.apply(elemType);
        if (ndim == 0) {
            return new PgArray(elemType, new int[0], new int[0], new Object[0]);
        }
        int headerEnd = 12 + 8 * ndim;
        if (len < headerEnd) {
            throw new MalformedDatumException("array header of " + ndim + " dimensions truncated at " + len + " bytes");
        }
        int[] dims = new int[ndim];
        int[] lbs = new int[ndim];
        long nitems = 1;
        for (int i = 0; i < ndim; i++) {
            dims[i] = Bytes.int32(b, off + 12 + 4 * i);
            lbs[i] = Bytes.int32(b, off + 12 + 4 * ndim + 4 * i);
            if (dims[i] <= 0) {
                throw new MalformedDatumException("array dimension " + (i + 1) + " of length " + dims[i]);
            }
            nitems *= dims[i];
            if (nitems > MAX_ITEMS) {
                throw new MalformedDatumException("array of more than " + MAX_ITEMS + " elements");
            }
        }
        int n = (int) nitems;
        boolean hasNulls = dataOffset != 0;
        int bitmap = off + headerEnd;
        int data = base + (hasNulls ? dataOffset : ((16 + 8 * ndim) + 7) & ~7);
        int end = off + len;
        if (hasNulls && (dataOffset < 16 + 8 * ndim + (n + 7) / 8 || dataOffset > len + 4)) {
            throw new MalformedDatumException("array dataoffset " + dataOffset + " inconsistent with " + n
                    + " elements in " + (len + 4) + " bytes");
        }
        if (data > end) {
            throw new MalformedDatumException("array data starts past its end");
        }
        Object[] items = new Object[n];
        int pos = data;
        for (int i = 0; i < n; i++) {
            if (hasNulls && (b[bitmap + (i >> 3)] & (1 << (i & 7))) == 0) {
                continue;
            }
            pos = ResolvedType.align(pos, elem.typalign, base);
            if (pos > end) {
                throw new MalformedDatumException("array element " + i + " starts past the array's end");
            }
            int size = elem.datumSize(b, pos, end - pos);
            Object v = elem.decodeDatum(b, pos, size);
            if (v instanceof ToastPointer) {
                throw new MalformedDatumException("array element " + i + " is an external TOAST pointer");
            }
            items[i] = v;
            pos += size;
        }
        return new PgArray(elemType, dims, lbs, items);
    }

    @Override
    public void appendText(StringBuilder out, Object value) {
        PgArray a = TypeCodec.cast(value, PgArray.class);
        if (a.ndim() == 0) {
            out.append("{}");
            return;
        }
        ResolvedType elem = resolver.apply(a.elementTypeOid());
        boolean needDims = false;
        for (int lb : a.lowerBounds()) {
            needDims |= lb != 1;
        }
        if (needDims) {
            for (int i = 0; i < a.ndim(); i++) {
                out.append('[').append(a.lowerBounds()[i]).append(':')
                        .append((long) a.lowerBounds()[i] + a.dims()[i] - 1).append(']');
            }
            out.append('=');
        }
        appendLevel(out, a, elem, 0, 0, new StringBuilder());
    }

    private static int appendLevel(StringBuilder out, PgArray a, ResolvedType elem, int level, int index,
                                   StringBuilder scratch) {
        out.append('{');
        for (int k = 0; k < a.dims()[level]; k++) {
            if (k > 0) {
                out.append(elem.typdelim);
            }
            if (level < a.ndim() - 1) {
                index = appendLevel(out, a, elem, level + 1, index, scratch);
            } else {
                Object v = a.elements()[index++];
                if (v == null) {
                    out.append("NULL");
                } else {
                    scratch.setLength(0);
                    elem.codec.appendText(scratch, v);
                    appendQuoted(out, scratch, elem.typdelim);
                }
            }
        }
        out.append('}');
        return index;
    }

    /**
     * array_out's quoting: quote empty strings, "NULL" in any case, and values with {@code "\{}}, the element type's
     * delimiter or whitespace.
     */
    private static void appendQuoted(StringBuilder out, CharSequence s, char delim) {
        boolean quote = s.length() == 0 || (s.length() == 4 && s.toString().equalsIgnoreCase("NULL"));
        for (int i = 0; i < s.length() && !quote; i++) {
            char c = s.charAt(i);
            quote = c == '"' || c == '\\' || c == '{' || c == '}' || c == delim || c == ' ' || c == '\t'
                    || c == '\n' || c == '\r' || c == 0x0B || c == '\f';
        }
        if (!quote) {
            out.append(s);
            return;
        }
        appendDoubleQuoted(out, s);
    }

    /** {@code s} in double quotes, {@code "} and {@code \\} backslash-escaped (array_out's and hstore_out's quoting). */
    static void appendDoubleQuoted(StringBuilder out, CharSequence s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        out.append('"');
    }
}
