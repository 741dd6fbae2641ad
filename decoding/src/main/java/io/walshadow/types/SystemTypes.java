package io.walshadow.types;

import io.walshadow.wal.Bytes;

/**
 * Built-in system types decoded to the text their output functions print, which is what the destination stores:
 * {@code int2vector} and {@code oidvector} (one-dimensional arrays without NULLs on disk, printed space-separated),
 * {@code pg_snapshot} and {@code txid_snapshot} ({@code xmin:xmax:xip,...} of full transaction ids).
 */
final class SystemTypes {
    private SystemTypes() {}

    /**
     * int2vectorout / oidvectorout: the elements separated by spaces. On disk an ArrayType: ndim, dataoffset (0: no
     * NULL bitmap), element type, then dims and lower bounds per dimension, then the elements.
     */
    static String vector(byte[] b, int o, int l, int elemSize, boolean unsigned) {
        if (l < 12) {
            throw new MalformedDatumException("vector of " + l + " bytes");
        }
        int ndim = Bytes.int32(b, o);
        int dataOffset = Bytes.int32(b, o + 4);
        if (ndim == 0) {
            return "";
        }
        if (ndim != 1 || dataOffset != 0 || l < 20) {
            throw new MalformedDatumException("vector with " + ndim + " dimensions, data offset " + dataOffset);
        }
        int n = Bytes.int32(b, o + 12);
        int data = 20; // ndim, dataoffset, elemtype, one dimension, one lower bound (payload offsets)
        if (n < 0 || data + (long) n * elemSize > l) {
            throw new MalformedDatumException("vector of " + l + " bytes claims " + n + " elements");
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                out.append(' ');
            }
            int p = o + data + i * elemSize;
            out.append(elemSize == 2 ? Short.toString((short) Bytes.uint16(b, p))
                    : unsigned ? Integer.toUnsignedString(Bytes.int32(b, p)) : Integer.toString(Bytes.int32(b, p)));
        }
        return out.toString();
    }

    /** pg_snapshot_out: {@code xmin:xmax:xip1,xip2}; on disk nxip, then xmin, xmax and the xips as 8-byte ids. */
    static String snapshot(byte[] b, int o, int l) {
        if (l < 20) {
            throw new MalformedDatumException("snapshot of " + l + " bytes");
        }
        int nxip = Bytes.int32(b, o);
        if (nxip < 0 || 20L + 8L * nxip != l) {
            throw new MalformedDatumException("snapshot of " + l + " bytes claims " + nxip + " in-progress ids");
        }
        StringBuilder out = new StringBuilder();
        out.append(Long.toUnsignedString(Bytes.int64(b, o + 4))).append(':')
                .append(Long.toUnsignedString(Bytes.int64(b, o + 12))).append(':');
        for (int i = 0; i < nxip; i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append(Long.toUnsignedString(Bytes.int64(b, o + 20 + 8 * i)));
        }
        return out.toString();
    }
}
