package io.walshadow.types;

import java.util.Objects;

/**
 * A jsonb value, held as its canonical text (jsonb_out): object keys in jsonb's storage order (shorter keys first,
 * then bytewise), {@code ", "} and {@code ": "} separators, numbers as numeric_out prints them. Parse it with any
 * JSON library; ClickHouse's JSON/String columns take it as is.
 */
public record PgJsonb(String text) {
    public PgJsonb {
        Objects.requireNonNull(text, "text");
    }

    @Override
    public String toString() {
        return text;
    }
}
