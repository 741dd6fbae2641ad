package io.walshadow.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.catalog.Column;
import io.walshadow.wal.XLogRecord;
import java.lang.reflect.RecordComponent;
import java.util.List;

/**
 * Structural equality for the event model, stricter than equals where equals is weak: records are compared
 * component by component (records holding arrays compare them by identity in their own equals), arrays element by
 * element, floats by raw bits (so -0.0 and NaN payloads count), XLogRecords by position and bytes, and
 * {@link Column#UNRESOLVED_MISSING} by identity.
 */
public final class Deep {
    private Deep() {}

    public static void assertDeepEquals(Object expected, Object actual) {
        check(expected, actual, "value");
    }

    private static void check(Object e, Object a, String path) {
        if (e == Column.UNRESOLVED_MISSING || a == Column.UNRESOLVED_MISSING) {
            assertSame(e, a, path + ": UNRESOLVED_MISSING marker identity");
            return;
        }
        if (e == null || a == null) {
            assertSame(e, a, path);
            return;
        }
        if (e instanceof List<?> l) {
            if (!(a instanceof List<?> other)) {
                fail(path + ": expected a list, got " + a.getClass().getName());
                return;
            }
            assertEquals(l.size(), other.size(), path + ": size");
            for (int i = 0; i < l.size(); i++) {
                check(l.get(i), other.get(i), path + "[" + i + "]");
            }
            return;
        }
        assertSame(e.getClass(), a.getClass(), path + ": class");
        if (e instanceof Float f) {
            assertEquals(Float.floatToRawIntBits(f), Float.floatToRawIntBits((Float) a), path + ": float bits");
        } else if (e instanceof Double d) {
            assertEquals(Double.doubleToRawLongBits(d), Double.doubleToRawLongBits((Double) a), path + ": double bits");
        } else if (e instanceof byte[] b) {
            assertArrayEquals(b, (byte[]) a, path);
        } else if (e instanceof int[] i) {
            assertArrayEquals(i, (int[]) a, path);
        } else if (e instanceof Object[] arr) {
            Object[] other = (Object[]) a;
            assertEquals(arr.length, other.length, path + ": length");
            for (int i = 0; i < arr.length; i++) {
                check(arr[i], other[i], path + "[" + i + "]");
            }
        } else if (e instanceof XLogRecord r) {
            XLogRecord o = (XLogRecord) a;
            assertEquals(r.format(), o.format(), path + ".format");
            assertEquals(r.lsn(), o.lsn(), path + ".lsn");
            assertEquals(r.endLsn(), o.endLsn(), path + ".endLsn");
            assertArrayEquals(r.rawBytes(), o.rawBytes(), path + ".rawBytes");
        } else if (e.getClass().isRecord()) {
            for (RecordComponent c : e.getClass().getRecordComponents()) {
                try {
                    c.getAccessor().setAccessible(true);
                    check(c.getAccessor().invoke(e), c.getAccessor().invoke(a), path + "." + c.getName());
                } catch (ReflectiveOperationException x) {
                    fail(path + "." + c.getName() + ": " + x);
                }
            }
            if (hasValueEquals(e)) {
                assertEquals(e, a, path + ": equals");
            }
        } else {
            assertEquals(e, a, path);
        }
    }

    /**
     * Whether the record's own equals is content-based: the value, transaction and WAL records are (those holding
     * arrays override equals); catalog and change records hold arrays (Column.missingValue, row values) that their
     * generated equals compares by identity.
     */
    private static boolean hasValueEquals(Object r) {
        String pkg = r.getClass().getPackageName();
        return pkg.equals("io.walshadow.types") || pkg.equals("io.walshadow.xact") || pkg.equals("io.walshadow.wal")
                || pkg.equals("io.walshadow.heap");
    }
}
