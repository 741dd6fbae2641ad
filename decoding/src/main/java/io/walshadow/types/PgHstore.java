package io.walshadow.types;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An {@code hstore} value (contrib/hstore): its pairs in stored order (hstore keeps keys sorted by length, then
 * bytes, without duplicates), a value null for SQL NULL. {@link #toString} is {@code hstore_out}'s text:
 * {@code "key"=>"value"} pairs separated by {@code ", "}, {@code NULL} unquoted, {@code "} and {@code \} escaped by a
 * backslash, the empty hstore the empty string.
 */
public final class PgHstore {
    private final List<String> keys;
    private final List<String> values;

    public PgHstore(List<String> keys, List<String> values) {
        if (keys.size() != values.size()) {
            throw new IllegalArgumentException(keys.size() + " keys, " + values.size() + " values");
        }
        this.keys = List.copyOf(keys);
        this.values = java.util.Collections.unmodifiableList(new ArrayList<>(values));
    }

    public List<String> keys() {
        return keys;
    }

    /** The values, in the keys' order; null for SQL NULL. */
    public List<String> values() {
        return values;
    }

    /**
     * Reads {@code hstore_out}'s text back (what the initial snapshot's {@code ::text} gives): every key and value
     * quoted, so only the quoted form and {@code NULL} are accepted.
     */
    public static PgHstore parseOutput(String s) {
        List<String> k = new ArrayList<>();
        List<String> v = new ArrayList<>();
        int[] pos = {0};
        while (pos[0] < s.length()) {
            k.add(quoted(s, pos));
            expect(s, pos, "=>");
            if (s.startsWith("NULL", pos[0])) {
                v.add(null);
                pos[0] += 4;
            } else {
                v.add(quoted(s, pos));
            }
            if (pos[0] < s.length()) {
                expect(s, pos, ", ");
            }
        }
        return new PgHstore(k, v);
    }

    private static void expect(String s, int[] pos, String what) {
        if (!s.startsWith(what, pos[0])) {
            throw new IllegalArgumentException("not hstore output text at " + pos[0] + ": " + s);
        }
        pos[0] += what.length();
    }

    private static String quoted(String s, int[] pos) {
        expect(s, pos, "\"");
        StringBuilder b = new StringBuilder();
        for (int i = pos[0]; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                b.append(s.charAt(++i));
            } else if (c == '"') {
                pos[0] = i + 1;
                return b.toString();
            } else {
                b.append(c);
            }
        }
        throw new IllegalArgumentException("unterminated quoted string in hstore output text: " + s);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < keys.size(); i++) {
            if (i > 0) {
                out.append(", ");
            }
            ArrayCodec.appendDoubleQuoted(out, keys.get(i));
            out.append("=>");
            if (values.get(i) == null) {
                out.append("NULL");
            } else {
                ArrayCodec.appendDoubleQuoted(out, values.get(i));
            }
        }
        return out.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PgHstore h && keys.equals(h.keys) && values.equals(h.values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(keys, values);
    }
}
