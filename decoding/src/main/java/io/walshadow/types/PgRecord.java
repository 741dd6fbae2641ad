package io.walshadow.types;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A composite value: its type and the values of its live (not dropped) attributes in attnum order, each decoded
 * as its own type (null for NULL). Never holds a {@link ToastPointer}: PostgreSQL inlines external fields before it
 * stores a composite datum.
 */
public record PgRecord(int typeOid, List<Field> fields) {
    public record Field(String name, int typeOid, int typmod, Object value) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Field f && f.name.equals(name) && f.typeOid == typeOid && f.typmod == typmod
                    && Arrays.deepEquals(new Object[] {value}, new Object[] {f.value});
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, typeOid, typmod) * 31 + Arrays.deepHashCode(new Object[] {value});
        }
    }

    public PgRecord {
        fields = List.copyOf(fields);
    }

    /** The value of the field called {@code name}; IllegalArgumentException if there is none. */
    public Object get(String name) {
        for (Field f : fields) {
            if (f.name.equals(name)) {
                return f.value;
            }
        }
        throw new IllegalArgumentException("no field " + name);
    }
}
