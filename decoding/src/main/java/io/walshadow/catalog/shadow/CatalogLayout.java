package io.walshadow.catalog.shadow;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.heap.DeformedRow;
import io.walshadow.heap.HeapTuple;
import io.walshadow.heap.TupleDeformer;
import io.walshadow.heap.VarlenaHeader;
import io.walshadow.types.Datum;
import io.walshadow.types.Varlena;
import io.walshadow.wal.Bytes;
import io.walshadow.wal.RelFileLocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How one system catalog's tuples are laid out on this server: its own pg_attribute rows, read at bootstrap, as a
 * {@link RelationDescriptor} the ordinary {@link TupleDeformer} reads catalog tuples with. Columns differ between
 * majors (pg_attribute alone gained and lost several), so nothing here is hard-coded but the names the rows read.
 */
public final class CatalogLayout {
    private final SystemCatalog catalog;
    private final RelationDescriptor descriptor;
    private final Map<String, Integer> attnums = new HashMap<>();

    public CatalogLayout(SystemCatalog catalog, List<Column> columns) {
        this.catalog = catalog;
        this.descriptor = new RelationDescriptor(catalog.oid(), new RelFileLocator(0, 0, catalog.oid()),
                "pg_catalog", catalog.relname(), 'r', 'p', 'n', 0, List.copyOf(columns), List.of());
        for (Column c : columns) {
            attnums.put(c.name(), c.attnum());
        }
    }

    public SystemCatalog catalog() {
        return catalog;
    }

    public List<Column> columns() {
        return descriptor.columns();
    }

    /** The catalog row a tuple holds. */
    CatalogRow read(HeapTuple tuple) {
        return catalog.row(new TupleFields(TupleDeformer.deform(tuple, descriptor)));
    }

    /** Reads columns of a deformed catalog tuple by name. */
    private final class TupleFields implements CatalogRow.Fields {
        private final DeformedRow row;

        TupleFields(DeformedRow row) {
            this.row = row;
        }

        private int attnum(String column) {
            Integer a = attnums.get(column);
            if (a == null) {
                throw new ShadowCatalogException(catalog.relname() + " has no column " + column + " on this server");
            }
            return a;
        }

        private int fixed(String column, int len) {
            int a = attnum(column);
            if (row.isNull(a)) {
                throw new ShadowCatalogException(catalog.relname() + "." + column + " is NULL in a catalog tuple");
            }
            if (row.datumLength(a) != len) {
                throw new ShadowCatalogException(catalog.relname() + "." + column + " has " + row.datumLength(a)
                        + " bytes, expected " + len);
            }
            return row.datumOffset(a);
        }

        @Override
        public int oid(String column) {
            return Bytes.int32(row.buffer(attnum(column)), fixed(column, 4));
        }

        @Override
        public int int4(String column) {
            return oid(column);
        }

        @Override
        public int int2(String column) {
            return (short) Bytes.uint16(row.buffer(attnum(column)), fixed(column, 2));
        }

        @Override
        public char ch(String column) {
            return (char) Bytes.uint8(row.buffer(attnum(column)), fixed(column, 1));
        }

        @Override
        public boolean bool(String column) {
            return Bytes.uint8(row.buffer(attnum(column)), fixed(column, 1)) != 0;
        }

        @Override
        public String name(String column) {
            int a = attnum(column);
            int len = row.datumLength(a);
            int off = fixed(column, len);
            byte[] b = row.buffer(a);
            int end = off;
            while (end < off + len && b[end] != 0) {
                end++;
            }
            return new String(b, off, end - off, StandardCharsets.UTF_8);
        }

        @Override
        public List<Integer> int2vector(String column) {
            ArrayOnDisk arr = array(column);
            List<Integer> out = new ArrayList<>(arr.count);
            for (int i = 0; i < arr.count; i++) {
                out.add((int) (short) Bytes.uint16(arr.bytes, arr.dataOffset + 2 * i));
            }
            return out;
        }

        @Override
        public byte[] missingValue(String column, int attlen, char attalign) {
            int a = attnum(column);
            if (row.isNull(a)) {
                return null;
            }
            ArrayOnDisk arr = array(column);
            if (arr.ndim != 1 || arr.count != 1) {
                return Column.UNRESOLVED_MISSING;
            }
            if (arr.firstIsNull) {
                return null;
            }
            int off = arr.dataOffset;
            int avail = arr.bytes.length - off;
            int len;
            if (attlen > 0) {
                len = attlen;
            } else if (attlen == -1) {
                len = VarlenaHeader.size(arr.bytes, off, avail);
            } else {
                len = -1;
                for (int p = off; p < arr.bytes.length; p++) {
                    if (arr.bytes[p] == 0) {
                        len = p - off + 1;
                        break;
                    }
                }
            }
            if (len <= 0 || len > avail) {
                throw new ShadowCatalogException(catalog.relname() + "." + column + ": element of attlen " + attlen
                        + " does not fit the array's " + avail + " data bytes");
            }
            return Arrays.copyOfRange(arr.bytes, off, off + len);
        }

        /**
         * An array datum (ArrayType, array.h) in its 4-byte-header form, decompressed: {@code vl_len, ndim,
         * dataoffset, elemtype, dims[ndim], lbound[ndim], [null bitmap], data} with data at {@code dataoffset}, or
         * MAXALIGNed after the bounds when there is no bitmap.
         */
        private ArrayOnDisk array(String column) {
            int a = attnum(column);
            if (row.isNull(a)) {
                throw new ShadowCatalogException(catalog.relname() + "." + column + " is NULL in a catalog tuple");
            }
            Object p = Varlena.payload(row.buffer(a), row.datumOffset(a), row.datumLength(a));
            if (!(p instanceof Datum d)) {
                throw new ShadowCatalogException(catalog.relname() + "." + column + " is stored out of line");
            }
            // rebuild the 4-byte-header form so the array's own offsets apply
            byte[] b = new byte[4 + d.len()];
            System.arraycopy(d.buf(), d.off(), b, 4, d.len());
            if (b.length < 16) {
                return new ArrayOnDisk(b, 0, 0, 16, false);
            }
            int ndim = Bytes.int32(b, 4);
            int dataoffset = Bytes.int32(b, 8);
            if (ndim < 0 || ndim > 6 || 16 + 8 * ndim > b.length) {
                throw new ShadowCatalogException(catalog.relname() + "." + column + " is not an array (ndim " + ndim
                        + ")");
            }
            int count = ndim == 0 ? 0 : 1;
            for (int i = 0; i < ndim; i++) {
                count *= Bytes.int32(b, 16 + 4 * i);
            }
            boolean firstNull = false;
            int data;
            if (dataoffset != 0) {
                int bitmap = 16 + 8 * ndim;
                firstNull = count > 0 && (b[bitmap] & 1) == 0;
                data = dataoffset;
            } else {
                data = (16 + 8 * ndim + 7) & ~7;
            }
            return new ArrayOnDisk(b, ndim, count, data, firstNull);
        }
    }

    private record ArrayOnDisk(byte[] bytes, int ndim, int count, int dataOffset, boolean firstIsNull) {
    }
}
