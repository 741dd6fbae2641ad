package io.walshadow.types;

import io.walshadow.catalog.Column;
import io.walshadow.wal.Bytes;
import java.util.ArrayList;
import java.util.List;

/**
 * A composite datum: a HeapTupleHeader inside a varlena (its first word, datum_len_, is the varlena header), then
 * datum_typmod, datum_typeid, t_ctid, t_infomask2 (low 11 bits: number of attributes present), t_infomask
 * (0x0001: has a null bitmap), t_hoff (offset of the data from the start of the datum), the null bitmap, and the
 * attributes laid out as in a heap tuple: varlenas unaligned when they start with a nonzero (short-header) byte,
 * others aligned relative to the datum start. Attributes beyond the stored count (added after the value was
 * written) read as their missing value or NULL. Text output is record_out's.
 */
final class RecordCodec implements TypeCodec {
    private static final int HEAP_HASNULL = 0x0001;
    private static final int HEAP_NATTS_MASK = 0x07FF;

    private final int typeOid;
    private final String typeName;
    private final List<Column> attributes;
    /** Per attribute: its resolved type, or null for a dropped one. */
    private final ResolvedType[] types;
    private final ValueDecoder decoder;

    RecordCodec(int typeOid, String typeName, List<Column> attributes, ResolvedType[] types, ValueDecoder decoder) {
        this.typeOid = typeOid;
        this.typeName = typeName;
        this.attributes = List.copyOf(attributes);
        this.types = types.clone();
        this.decoder = decoder;
    }

    @Override
    public Object decode(byte[] b, int off, int len) {
        final int base = off - 4; // the datum (and its 4-byte header) starts just before the payload
        if (len < 19) {
            throw new MalformedDatumException(typeName + ": composite datum of " + len + " byte(s)");
        }
        int infomask2 = Bytes.uint16(b, off + 14);
        int infomask = Bytes.uint16(b, off + 16);
        int hoff = b[off + 18] & 0xFF;
        int natts = infomask2 & HEAP_NATTS_MASK;
        boolean hasNulls = (infomask & HEAP_HASNULL) != 0;
        if (natts > attributes.size()) {
            throw new MalformedDatumException(typeName + ": composite datum with " + natts + " attributes, the type "
                    + "has " + attributes.size() + " (stale catalog?)");
        }
        if (hoff < 23 + (hasNulls ? (natts + 7) / 8 : 0) || hoff > len + 4) {
            throw new MalformedDatumException(typeName + ": composite datum with t_hoff " + hoff);
        }
        int bitmap = off + 19;
        int end = off + len;
        int pos = base + hoff;
        List<PgRecord.Field> fields = new ArrayList<>(attributes.size());
        for (int i = 0; i < attributes.size(); i++) {
            Column att = attributes.get(i);
            Object value = null;
            if (i >= natts) {
                if (att.hasMissingValue() && !att.dropped()) {
                    value = decoder.decode(att.typeOid(), att.typmod(), att.missingValue(), 0,
                            att.missingValue().length);
                }
            } else if (!hasNulls || (b[bitmap + (i >> 3)] & (1 << (i & 7))) != 0) {
                int size;
                if (att.attlen() == -1) {
                    if (pos >= end) {
                        throw new MalformedDatumException(typeName + ": attribute " + att.attnum() + " past the end");
                    }
                    if (b[pos] == 0) { // a pad byte: this varlena has a 4-byte header and is aligned
                        pos = ResolvedType.align(pos, att.attalign(), base);
                    }
                    size = Varlena.sizeAny(b, pos, end - pos);
                } else if (att.attlen() == -2) {
                    size = cstringSize(b, pos, end);
                } else {
                    pos = ResolvedType.align(pos, att.attalign(), base);
                    if (att.attlen() <= 0 || pos > end || end - pos < att.attlen()) {
                        throw new MalformedDatumException(typeName + ": attribute " + att.attnum() + " ("
                                + att.attlen() + " bytes) past the end");
                    }
                    size = att.attlen();
                }
                if (types[i] != null) {
                    value = types[i].decodeDatum(b, pos, size);
                    if (value instanceof ToastPointer) {
                        throw new MalformedDatumException(typeName + ": attribute " + att.attnum()
                                + " is an external TOAST pointer");
                    }
                }
                pos += size;
            }
            if (!att.dropped()) {
                fields.add(new PgRecord.Field(att.name(), att.typeOid(), att.typmod(), value));
            }
        }
        return new PgRecord(typeOid, fields);
    }

    private int cstringSize(byte[] b, int pos, int end) {
        for (int p = pos; p < end; p++) {
            if (b[p] == 0) {
                return p - pos + 1;
            }
        }
        throw new MalformedDatumException(typeName + ": unterminated cstring attribute");
    }

    @Override
    public void appendText(StringBuilder out, Object value) {
        if (value instanceof String text) {
            out.append(text); // already record_out's text (the initial snapshot reads values as text)
            return;
        }
        PgRecord r = TypeCodec.cast(value, PgRecord.class);
        StringBuilder scratch = new StringBuilder();
        out.append('(');
        boolean first = true;
        for (PgRecord.Field f : r.fields()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            if (f.value() == null) {
                continue;
            }
            scratch.setLength(0);
            decoder.resolve(f.typeOid()).codec.appendText(scratch, f.value());
            appendQuoted(out, scratch);
        }
        out.append(')');
    }

    /** record_out's quoting: quote empty strings and values with {@code "\(),} or whitespace; double " and \. */
    private static void appendQuoted(StringBuilder out, CharSequence s) {
        boolean quote = s.length() == 0;
        for (int i = 0; i < s.length() && !quote; i++) {
            char c = s.charAt(i);
            quote = c == '"' || c == '\\' || c == '(' || c == ')' || c == ',' || c == ' ' || c == '\t'
                    || c == '\n' || c == '\r' || c == 0x0B || c == '\f';
        }
        if (!quote) {
            out.append(s);
            return;
        }
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append(c);
            }
            out.append(c);
        }
        out.append('"');
    }
}
