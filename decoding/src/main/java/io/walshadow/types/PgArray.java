package io.walshadow.types;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * An array value (ArrayType): element type, per-dimension lengths and lower bounds, and the elements flattened in
 * row-major order (last subscript fastest), nulls as Java null. An empty array has zero dimensions. The arrays are
 * not copied: do not modify them.
 *
 * @param elementTypeOid the element type recorded in the datum (array_out prints elements with its output function)
 */
public record PgArray(int elementTypeOid, int[] dims, int[] lowerBounds, Object[] elements) {
    public PgArray {
        if (dims.length != lowerBounds.length) {
            throw new IllegalArgumentException(dims.length + " dimensions but " + lowerBounds.length + " bounds");
        }
        long n = dims.length == 0 ? 0 : 1;
        for (int d : dims) {
            n *= d;
        }
        if (n != elements.length) {
            throw new IllegalArgumentException("dimensions " + Arrays.toString(dims) + " hold " + n
                    + " elements, got " + elements.length);
        }
    }

    public int ndim() {
        return dims.length;
    }

    public int size() {
        return elements.length;
    }

    /** The elements as an unmodifiable list (a view; nulls allowed). */
    public List<Object> asList() {
        return Collections.unmodifiableList(Arrays.asList(elements));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PgArray a && a.elementTypeOid == elementTypeOid && Arrays.equals(a.dims, dims)
                && Arrays.equals(a.lowerBounds, lowerBounds) && Arrays.deepEquals(a.elements, elements);
    }

    @Override
    public int hashCode() {
        return ((elementTypeOid * 31 + Arrays.hashCode(dims)) * 31 + Arrays.hashCode(lowerBounds)) * 31
                + Arrays.deepHashCode(elements);
    }

    @Override
    public String toString() {
        return "PgArray[elementTypeOid=" + Integer.toUnsignedString(elementTypeOid) + ", dims=" + Arrays.toString(dims)
                + ", lowerBounds=" + Arrays.toString(lowerBounds) + ", elements=" + Arrays.deepToString(elements) + "]";
    }
}
