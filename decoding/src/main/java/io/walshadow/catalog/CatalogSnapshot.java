package io.walshadow.catalog;

import java.util.Arrays;
import java.util.Map;

/**
 * What one {@link CatalogSource#load} read, all in one snapshot of the live catalog.
 *
 * @param lsn the server's WAL insert (or, on a standby, replay) position read inside the snapshot; every commit
 *     visible in the snapshot precedes it. 0 when unknown (test sources)
 * @param dbOid the configured database
 * @param xids the snapshot's transaction bounds, or null when unknown (test sources)
 * @param relations by relation oid
 */
public record CatalogSnapshot(long lsn, int dbOid, Xids xids, Map<Integer, LiveRelation> relations) {

    public CatalogSnapshot {
        relations = Map.copyOf(relations);
    }

    /**
     * {@code pg_current_snapshot()}: 64-bit xids (epoch in the high half). An xid is completed in the snapshot
     * when it precedes {@code xmax} and is not in {@code xip}.
     */
    public record Xids(long xmin, long xmax, long[] xip) {

        /** Parses the text form {@code xmin:xmax:xip1,xip2,...}. */
        public static Xids parse(String text) {
            String[] parts = text.split(":", -1);
            if (parts.length != 3) {
                throw new IllegalArgumentException("not a pg_snapshot: '" + text + "'");
            }
            long[] xip = parts[2].isEmpty() ? new long[0]
                    : Arrays.stream(parts[2].split(",")).mapToLong(Long::parseUnsignedLong).toArray();
            return new Xids(Long.parseUnsignedLong(parts[0]), Long.parseUnsignedLong(parts[1]), xip);
        }

        /**
         * Whether the 32-bit xid had completed: it is placed at the 64-bit xid nearest to {@code xmax} (within 2^31,
         * as {@code TransactionIdPrecedes} does), so it is in progress when at or past {@code xmax}, or in {@code xip}.
         */
        public boolean completed(int xid) {
            int diff = (int) xmax - xid;
            long x = xmax - diff;
            if (Long.compareUnsigned(x, xmax) >= 0) {
                return false;
            }
            for (long in : xip) {
                if (in == x) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder().append(Long.toUnsignedString(xmin)).append(':')
                    .append(Long.toUnsignedString(xmax)).append(':');
            for (int i = 0; i < xip.length; i++) {
                sb.append(i == 0 ? "" : ",").append(Long.toUnsignedString(xip[i]));
            }
            return sb.toString();
        }
    }
}
