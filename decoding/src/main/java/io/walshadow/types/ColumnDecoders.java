package io.walshadow.types;

import io.walshadow.catalog.Column;

/**
 * The value decoders of one row shape's columns, by attnum. A column's type is resolved when its first non-null
 * value is decoded (so a column of a type without a decoder fails only when it holds a value, as {@link
 * ValueDecoder#decode(Column, byte[], int, int)} does) and reused for every later value. Racing threads resolve the
 * same immutable decoder, so the slots need no lock.
 */
public final class ColumnDecoders {
    private final ValueDecoder values;
    private final ResolvedType[] byAttnum;

    ColumnDecoders(ValueDecoder values, int natts) {
        this.values = values;
        this.byAttnum = new ResolvedType[natts];
    }

    /** Decodes {@code col}'s datum {@code buf[off, off+len)}; see {@link ValueDecoder#decode(int, int, byte[], int, int)}. */
    public Object decode(Column col, byte[] buf, int off, int len) {
        int i = col.attnum() - 1;
        ResolvedType t = byAttnum[i];
        if (t == null) {
            t = values.resolve(col.typeOid());
            byAttnum[i] = t;
        }
        return ValueDecoder.decode(t, buf, off, len);
    }
}
