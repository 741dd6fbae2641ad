package io.walshadow.types;

/** Decoder and text formatter of one type's values. */
interface TypeCodec {
    /**
     * Decodes a value's content: the {@code typlen} bytes of a fixed-length type, the payload of a varlena (header
     * stripped, already decompressed), or the characters of a cstring (without its NUL).
     */
    Object decode(byte[] b, int off, int len);

    /** Appends PostgreSQL's text output (the type's output function) of a value {@link #decode} returned. */
    void appendText(StringBuilder out, Object value);

    @FunctionalInterface
    interface Decoder {
        Object decode(byte[] b, int off, int len);
    }

    @FunctionalInterface
    interface Formatter {
        void appendText(StringBuilder out, Object value);
    }

    static TypeCodec of(Decoder decoder, Formatter formatter) {
        return new TypeCodec() {
            @Override
            public Object decode(byte[] b, int off, int len) {
                return decoder.decode(b, off, len);
            }

            @Override
            public void appendText(StringBuilder out, Object value) {
                if (value instanceof String text) {
                    out.append(text); // already the type's text output (the initial snapshot reads values as text)
                } else {
                    formatter.appendText(out, value);
                }
            }
        };
    }

    /** A codec whose text is the value's {@code toString()}, for the value classes that print PostgreSQL's text. */
    static TypeCodec of(Decoder decoder, Class<?> valueClass) {
        return of(decoder, (out, v) -> out.append(cast(v, valueClass).toString()));
    }

    static <T> T cast(Object v, Class<T> c) {
        if (!c.isInstance(v)) {
            throw new IllegalArgumentException("expected a " + c.getSimpleName() + " value, got "
                    + (v == null ? "null" : v.getClass().getName()));
        }
        return c.cast(v);
    }
}
