package io.walshadow.codec;

import io.walshadow.testing.Samples;

import static io.walshadow.testing.Deep.assertDeepEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.types.PgArray;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** The test helper itself notices what equals would miss or hide. */
class DeepTest {
    @Test
    void detectsDifferencesEqualsWouldMissOrHide() {
        assertThrows(AssertionFailedError.class, () -> assertDeepEquals(0.0, -0.0));
        assertThrows(AssertionFailedError.class, () -> assertDeepEquals(Float.NaN, Float.intBitsToFloat(0x7fc0_0001)));
        assertThrows(AssertionFailedError.class, () -> assertDeepEquals(1, 1L));
        assertThrows(AssertionFailedError.class, () -> assertDeepEquals(new byte[] {1}, new byte[] {2}));
        assertThrows(AssertionFailedError.class, () -> assertDeepEquals(new Object[] {-0.0}, new Object[] {0.0}));
        assertThrows(AssertionFailedError.class, () -> assertDeepEquals(
                new PgArray(23, new int[] {1}, new int[] {1}, new Object[] {1}),
                new PgArray(23, new int[] {1}, new int[] {0}, new Object[] {1})));
        RelationDescriptor d = Samples.descriptor();
        List<Column> cols = new java.util.ArrayList<>(d.columns());
        Column c = cols.get(5);
        cols.set(5, new Column(c.attnum(), c.name(), c.typeOid(), c.typmod(), c.attlen(), c.attalign(), c.attbyval(),
                c.attstorage(), c.dropped(), c.notNull(), new byte[0])); // not the UNRESOLVED_MISSING instance
        RelationDescriptor d2 = new RelationDescriptor(d.relOid(), d.locator(), d.schema(), d.name(), d.relkind(),
                d.relpersistence(), d.replicaIdentity(), d.toastRelOid(), cols, d.identityAttnums());
        assertThrows(AssertionFailedError.class, () -> assertDeepEquals(d, d2));
        assertDeepEquals(d, Samples.descriptor());
    }
}
