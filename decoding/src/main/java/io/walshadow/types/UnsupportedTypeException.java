package io.walshadow.types;

/**
 * A value of this type cannot be decoded: the type oid is unknown to the catalog, or the type (tsquery, aclitem,
 * an extension's base type, a range over such a type, ...) has no decoder. The caller adds the relation and column.
 */
public class UnsupportedTypeException extends RuntimeException {
    private final int typeOid;
    private final String typeName;

    public UnsupportedTypeException(int typeOid, String typeName, String reason) {
        super("type " + (typeName == null ? "" : typeName + " ") + "(oid " + Integer.toUnsignedString(typeOid) + "): "
                + reason);
        this.typeOid = typeOid;
        this.typeName = typeName;
    }

    /** Wraps {@code cause} (about a component type) with the context of the type that contains it. */
    public UnsupportedTypeException(int typeOid, String typeName, String via, UnsupportedTypeException cause) {
        super("type " + (typeName == null ? "" : typeName + " ") + "(oid " + Integer.toUnsignedString(typeOid) + ") "
                + via + ": " + cause.getMessage(), cause);
        this.typeOid = typeOid;
        this.typeName = typeName;
    }

    /** The oid of the type the caller asked for (not of the component that is unsupported). */
    public int typeOid() {
        return typeOid;
    }

    /** Its name, or null when the oid is unknown. */
    public String typeName() {
        return typeName;
    }
}
