package io.walshadow.catalog;

import java.util.Arrays;
import java.util.List;

/** Content comparisons of the model records ({@link Column} holds a byte[], which record equality compares by identity). */
final class Descriptors {
    private Descriptors() {}

    static boolean sameMissing(byte[] a, byte[] b) {
        if (a == Column.UNRESOLVED_MISSING || b == Column.UNRESOLVED_MISSING) {
            return a == b;
        }
        return Arrays.equals(a, b);
    }

    static boolean sameColumn(Column a, Column b) {
        return a.attnum() == b.attnum() && a.name().equals(b.name()) && a.typeOid() == b.typeOid()
                && a.typmod() == b.typmod() && a.attlen() == b.attlen() && a.attalign() == b.attalign()
                && a.attbyval() == b.attbyval() && a.attstorage() == b.attstorage() && a.dropped() == b.dropped()
                && a.notNull() == b.notNull() && sameMissing(a.missingValue(), b.missingValue());
    }

    /**
     * Same in every field that decoding or naming a value depends on (storage strategy and NOT NULL do not
     * change how a stored value reads).
     */
    static boolean sameForDecoding(Column a, Column b) {
        return a.attnum() == b.attnum() && a.name().equals(b.name()) && a.typeOid() == b.typeOid()
                && a.typmod() == b.typmod() && a.attlen() == b.attlen() && a.attalign() == b.attalign()
                && a.attbyval() == b.attbyval() && a.dropped() == b.dropped()
                && sameMissing(a.missingValue(), b.missingValue());
    }

    static boolean sameContent(RelationDescriptor a, RelationDescriptor b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null) {
            return false;
        }
        if (a.relOid() != b.relOid() || !a.locator().equals(b.locator()) || !a.schema().equals(b.schema())
                || !a.name().equals(b.name()) || a.relkind() != b.relkind()
                || a.relpersistence() != b.relpersistence() || a.replicaIdentity() != b.replicaIdentity()
                || a.toastRelOid() != b.toastRelOid() || !a.identityAttnums().equals(b.identityAttnums())) {
            return false;
        }
        if (a.partition() == null ? b.partition() != null
                : b.partition() == null || !a.partition().sameContent(b.partition())) {
            return false;
        }
        List<Column> ca = a.columns();
        List<Column> cb = b.columns();
        if (ca.size() != cb.size()) {
            return false;
        }
        for (int i = 0; i < ca.size(); i++) {
            if (!sameColumn(ca.get(i), cb.get(i))) {
                return false;
            }
        }
        return true;
    }
}
