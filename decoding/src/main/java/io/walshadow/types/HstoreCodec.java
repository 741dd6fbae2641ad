package io.walshadow.types;

import io.walshadow.wal.Bytes;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code hstore} (contrib/hstore/hstore.h, hstore_io.c {@code hstore_out}) into the text {@code hstore_out} prints
 * (a String, like every text-form type: the value travels and is stored as text; the sink reads it back with {@link
 * PgHstore#parseOutput} for a Map column). After the
 * varlena header: {@code uint32 size_} (the pair count in the low 28 bits, {@code HS_FLAG_NEWVERSION} 0x80000000),
 * then 2 x count HEntry words (key, value, key, ...: the end offset of each string in the low 30 bits, 0x40000000 a
 * NULL value, 0x80000000 the first entry), then the strings back to back; an entry starts where the previous ends.
 */
final class HstoreCodec {
    private static final int NEWVERSION = 0x80000000;
    private static final int COUNT_MASK = 0x0FFFFFFF;
    private static final int ISNULL = 0x40000000;
    private static final int POS_MASK = 0x3FFFFFFF;

    private HstoreCodec() {}

    static TypeCodec codec(Charset cs) {
        return TypeCodec.of((b, o, l) -> decode(b, o, l, cs).toString(), String.class);
    }

    static PgHstore decode(byte[] b, int o, int l, Charset cs) {
        if (l < 4) {
            throw new MalformedDatumException("hstore of " + l + " bytes");
        }
        int size = Bytes.int32(b, o);
        int count = size & COUNT_MASK;
        if ((size & NEWVERSION) == 0 && count != 0) {
            // hstore_upgrade converts these in the backend; they exist only in data pg_upgraded from 8.4
            throw new MalformedDatumException("hstore in the pre-9.0 format (no HS_FLAG_NEWVERSION), " + count
                    + " pairs: not supported");
        }
        long strings = 4L + 8L * count;
        if (strings > l) {
            throw new MalformedDatumException("hstore of " + l + " bytes claims " + count + " pairs");
        }
        int area = o + (int) strings;
        int areaLen = l - (int) strings;
        List<String> keys = new ArrayList<>(count);
        List<String> values = new ArrayList<>(count);
        int start = 0;
        for (int i = 0; i < 2 * count; i++) {
            int e = Bytes.int32(b, o + 4 + 4 * i);
            int end = e & POS_MASK;
            if (end < start || end > areaLen) {
                throw new MalformedDatumException("hstore entry " + i + " spans [" + start + ", " + end
                        + ") outside its " + areaLen + "-byte string area");
            }
            String s = new String(b, area + start, end - start, cs);
            if (i % 2 == 0) {
                keys.add(s);
            } else {
                values.add((e & ISNULL) != 0 ? null : s);
            }
            start = end;
        }
        return new PgHstore(keys, values);
    }
}
