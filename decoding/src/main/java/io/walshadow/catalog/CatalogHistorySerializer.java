package io.walshadow.catalog;

import io.walshadow.catalog.DescriptorHistory.Awaits;
import io.walshadow.catalog.DescriptorHistory.Version;
import io.walshadow.catalog.Lookup.NotCoveredReason;
import io.walshadow.wal.RelFileLocator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The persistent form of a {@link DescriptorHistory} (for Flink state): an explicit, versioned byte format, so a
 * restart does not depend on the live catalog for anything the job has already seen.
 *
 * <p>Format version 4 (big-endian, {@link DataOutput} conventions; strings are an int byte length, -1 for null,
 * and UTF-8 bytes; locators are three ints spcOid, dbOid, relNumber):
 * <pre>
 *   int magic 'WSCH', int version
 *   int dbOid, string filterSpec, long historyStart, long lastBoundaryLsn
 *   bool hasHorizon, int horizon, int n, n x int committed xid (ascending unsigned),
 *   bool hasStartSnapshot [, int n, int startXmax, (n - 1) x int start xip]
 *   int n, n x version, ordered by (validFrom unsigned, relOid, locator):
 *     long validFrom, long validTo (-1 open), int relOid, locator, byte closeReason (-1 none), byte kind:
 *       kind 1 PRESENT:   descriptor, int identityIndexOid
 *       kind 2 AMBIGUOUS: int relOid, string qualifiedName, long since, int n, n x int xid, string reason
 *   int n, n x awaits: int relOid, int n, n x int xid, int m, m x locator
 *   (version 2) int n, n x pending filter change: string filterSpec, long lsn, string running (pg_snapshot text)
 *   (version 3) bool seeded: false while the history waits for the stream to reach its start (the catalog shadow
 *       it is seeded from gets there by reading the WAL below it)
 *   int end marker 'HCSW'
 * descriptor: int relOid, locator, string schema, string name, byte relkind, byte relpersistence,
 *   byte replicaIdentity, int toastRelOid, int n, n x column, int m, m x int identity attnum,
 *   (version 4) bool partition [, descriptor root, int k, k x int root attnum per column]
 * column: int attnum, string name, int typeOid, int typmod, int attlen, byte attalign, bool attbyval,
 *   byte attstorage, bool dropped, bool notNull, byte missing (0 none, 1 bytes, 2 unresolved) [, int len, bytes]
 * </pre>
 * Output is deterministic: equal histories encode to equal bytes. An unknown version or a damaged stream fails
 * with {@link StateFormatException}.
 */
public final class CatalogHistorySerializer {
    public static final int MAGIC = 0x57534348; // "WSCH"
    public static final int END_MARKER = 0x48435357; // "HCSW"
    public static final int VERSION = 4;
    /** The oldest version this build still reads (version 1 has no pending filter changes). */
    static final int OLDEST_READABLE = 1;

    private static final int KIND_PRESENT = 1;
    private static final int KIND_AMBIGUOUS = 2;
    private static final int MAX_COUNT = 50_000_000;
    private static final NotCoveredReason[] REASONS = NotCoveredReason.values();

    private CatalogHistorySerializer() {}

    /** The state cannot be read: wrong magic, unsupported version, or damaged. */
    public static final class StateFormatException extends IOException {
        public StateFormatException(String message) {
            super(message);
        }
    }

    public static byte[] toBytes(DescriptorHistory h) {
        return toBytes(h, VERSION);
    }

    /**
     * In format version 3 or 4 (tests of older states; version 3 cannot hold a partition route, which is then
     * refused).
     */
    static byte[] toBytes(DescriptorHistory h, int version) {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bos)) {
            write(h, out, version);
        } catch (IOException e) {
            throw new IllegalStateException(e); // not from a byte array
        }
        return bos.toByteArray();
    }

    public static DescriptorHistory fromBytes(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        DescriptorHistory h = read(in);
        if (in.available() != 0) {
            throw new StateFormatException("catalog history state has " + in.available()
                    + " trailing bytes after its end marker");
        }
        return h;
    }

    public static void write(DescriptorHistory h, DataOutput out) throws IOException {
        write(h, out, VERSION);
    }

    private static void write(DescriptorHistory h, DataOutput out, int version) throws IOException {
        if (version < 3 || version > VERSION) {
            throw new IllegalArgumentException("writes versions 3 to " + VERSION + ", not " + version);
        }
        out.writeInt(MAGIC);
        out.writeInt(version);
        out.writeInt(h.dbOid());
        writeString(out, h.filterSpec());
        out.writeLong(h.historyStart());
        out.writeLong(h.lastBoundaryLsn());

        XidVisibility vis = h.visibility();
        out.writeBoolean(vis.hasHorizon());
        out.writeInt(vis.hasHorizon() ? vis.horizon() : 0);
        List<Integer> committed = new ArrayList<>(vis.committedXids());
        committed.sort(Integer::compareUnsigned);
        out.writeInt(committed.size());
        for (int x : committed) {
            out.writeInt(x);
        }
        int[] start = vis.startSnapshotXmaxAndXip();
        out.writeBoolean(start != null);
        if (start != null) {
            out.writeInt(start.length);
            for (int x : start) {
                out.writeInt(x);
            }
        }

        List<Version> versions = new ArrayList<>();
        for (List<Version> l : h.versionsByRelation().values()) {
            versions.addAll(l);
        }
        versions.sort(Comparator.<Version>comparingLong(v -> v.from ^ Long.MIN_VALUE)
                .thenComparing(v -> v.relOid, Integer::compareUnsigned)
                .thenComparing(v -> v.locator, CatalogHistorySerializer::compareLocators));
        out.writeInt(versions.size());
        for (Version v : versions) {
            out.writeLong(v.from);
            out.writeLong(v.to);
            out.writeInt(v.relOid);
            writeLocator(out, v.locator);
            out.writeByte(v.closeReason == null ? -1 : v.closeReason.ordinal());
            if (v.present()) {
                out.writeByte(KIND_PRESENT);
                writeDescriptor(out, v.descriptor, version);
                out.writeInt(v.identityIndexOid);
            } else {
                out.writeByte(KIND_AMBIGUOUS);
                Ambiguity a = v.ambiguity;
                out.writeInt(a.relOid());
                writeString(out, a.qualifiedName());
                out.writeLong(a.since());
                out.writeInt(a.awaitedXids().size());
                for (int x : a.awaitedXids()) {
                    out.writeInt(x);
                }
                writeString(out, a.reason());
            }
        }

        Map<Integer, Awaits> awaits = new TreeMap<>(Integer::compareUnsigned);
        awaits.putAll(h.awaits());
        out.writeInt(awaits.size());
        for (Map.Entry<Integer, Awaits> e : awaits.entrySet()) {
            out.writeInt(e.getKey());
            List<Integer> xids = new ArrayList<>(e.getValue().xids());
            xids.sort(Integer::compareUnsigned);
            out.writeInt(xids.size());
            for (int x : xids) {
                out.writeInt(x);
            }
            List<RelFileLocator> drops = new ArrayList<>(e.getValue().drops());
            drops.sort(CatalogHistorySerializer::compareLocators);
            out.writeInt(drops.size());
            for (RelFileLocator l : drops) {
                writeLocator(out, l);
            }
        }
        List<FilterChange> pending = h.pendingFilters();
        out.writeInt(pending.size());
        for (FilterChange f : pending) {
            writeString(out, f.filterSpec());
            out.writeLong(f.lsn());
            writeString(out, f.running().toString());
        }
        out.writeBoolean(h.seeded());
        out.writeInt(END_MARKER);
    }

    public static DescriptorHistory read(DataInput in) throws IOException {
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new StateFormatException(String.format("not a catalog history state: magic 0x%08X, expected 0x%08X",
                    magic, MAGIC));
        }
        int version = in.readInt();
        if (version < OLDEST_READABLE || version > VERSION) {
            throw new StateFormatException("catalog history state has format version " + version
                    + "; this build reads versions " + OLDEST_READABLE + " to " + VERSION + " (state written by a "
                    + (version > VERSION ? "newer" : "older") + " build: upgrade, or re-seed from a fresh snapshot)");
        }
        int dbOid = in.readInt();
        String filterSpec = readString(in);
        long historyStart = in.readLong();
        long lastBoundary = in.readLong();
        DescriptorHistory h = new DescriptorHistory(dbOid, filterSpec, historyStart);
        h.restoreBoundary(historyStart, lastBoundary);

        boolean hasHorizon = in.readBoolean();
        int horizon = in.readInt();
        int n = count(in, "committed xids");
        Set<Integer> committed = new HashSet<>();
        for (int i = 0; i < n; i++) {
            committed.add(in.readInt());
        }
        int[] start = null;
        if (in.readBoolean()) {
            start = new int[count(in, "start snapshot xids")];
            for (int i = 0; i < start.length; i++) {
                start[i] = in.readInt();
            }
            if (start.length == 0) {
                throw new StateFormatException("catalog history state: empty start snapshot");
            }
        }
        h.visibility().restore(hasHorizon, horizon, committed, start);

        n = count(in, "versions");
        try {
            for (int i = 0; i < n; i++) {
                long from = in.readLong();
                long to = in.readLong();
                int relOid = in.readInt();
                RelFileLocator loc = readLocator(in);
                int reason = in.readByte();
                int kind = in.readByte();
                Version v;
                if (kind == KIND_PRESENT) {
                    RelationDescriptor d = readDescriptor(in, version);
                    v = new Version(relOid, loc, from, d, in.readInt(), null);
                } else if (kind == KIND_AMBIGUOUS) {
                    int aRel = in.readInt();
                    String name = readString(in);
                    long since = in.readLong();
                    int nx = count(in, "awaited xids");
                    List<Integer> xids = new ArrayList<>(nx);
                    for (int j = 0; j < nx; j++) {
                        xids.add(in.readInt());
                    }
                    v = new Version(relOid, loc, from, null, 0, new Ambiguity(aRel, name, since, xids, readString(in)));
                } else {
                    throw new StateFormatException("catalog history state: unknown version kind " + kind);
                }
                v.to = to;
                if (reason != -1) {
                    if (reason < 0 || reason >= REASONS.length) {
                        throw new StateFormatException("catalog history state: unknown close reason " + reason);
                    }
                    v.closeReason = REASONS[reason];
                }
                h.restoreVersion(v);
            }
        } catch (IllegalStateException e) {
            throw new StateFormatException("catalog history state is inconsistent: " + e.getMessage());
        }

        n = count(in, "awaits");
        for (int i = 0; i < n; i++) {
            int relOid = in.readInt();
            int nx = count(in, "awaited xids");
            List<Integer> xids = new ArrayList<>(nx);
            for (int j = 0; j < nx; j++) {
                xids.add(in.readInt());
            }
            int nd = count(in, "awaited drops");
            List<RelFileLocator> drops = new ArrayList<>(nd);
            for (int j = 0; j < nd; j++) {
                drops.add(readLocator(in));
            }
            h.setAwaits(relOid, xids, drops);
        }
        if (version >= 2) {
            n = count(in, "pending filter changes");
            try {
                for (int i = 0; i < n; i++) {
                    String spec = readString(in);
                    long lsn = in.readLong();
                    h.schedule(new FilterChange(spec, lsn, CatalogSnapshot.Xids.parse(readString(in))));
                }
            } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
                throw new StateFormatException("catalog history state: bad pending filter change: " + e.getMessage());
            }
        }
        if (version >= 3 && !in.readBoolean()) {
            h.awaitSeed();
        }
        int end = in.readInt();
        if (end != END_MARKER) {
            throw new StateFormatException(String.format("catalog history state: bad end marker 0x%08X", end));
        }
        return h;
    }

    private static void writeDescriptor(DataOutput out, RelationDescriptor d, int version) throws IOException {
        out.writeInt(d.relOid());
        writeLocator(out, d.locator());
        writeString(out, d.schema());
        writeString(out, d.name());
        out.writeByte(d.relkind());
        out.writeByte(d.relpersistence());
        out.writeByte(d.replicaIdentity());
        out.writeInt(d.toastRelOid());
        out.writeInt(d.columns().size());
        for (Column c : d.columns()) {
            out.writeInt(c.attnum());
            writeString(out, c.name());
            out.writeInt(c.typeOid());
            out.writeInt(c.typmod());
            out.writeInt(c.attlen());
            out.writeByte(c.attalign());
            out.writeBoolean(c.attbyval());
            out.writeByte(c.attstorage());
            out.writeBoolean(c.dropped());
            out.writeBoolean(c.notNull());
            if (c.missingValue() == null) {
                out.writeByte(0);
            } else if (c.missingValueUnresolved()) {
                out.writeByte(2);
            } else {
                out.writeByte(1);
                out.writeInt(c.missingValue().length);
                out.write(c.missingValue());
            }
        }
        out.writeInt(d.identityAttnums().size());
        for (int a : d.identityAttnums()) {
            out.writeInt(a);
        }
        PartitionOf p = d.partition();
        if (version < 4) {
            if (p != null) {
                throw new IllegalArgumentException("format version " + version + " has no partition routes");
            }
            return;
        }
        out.writeBoolean(p != null);
        if (p != null) {
            writeDescriptor(out, p.root(), version);
            int[] map = p.rootAttnums();
            out.writeInt(map.length);
            for (int a : map) {
                out.writeInt(a);
            }
        }
    }

    private static RelationDescriptor readDescriptor(DataInput in, int version) throws IOException {
        int relOid = in.readInt();
        RelFileLocator loc = readLocator(in);
        String schema = readString(in);
        String name = readString(in);
        char relkind = (char) in.readUnsignedByte();
        char persistence = (char) in.readUnsignedByte();
        char replident = (char) in.readUnsignedByte();
        int toast = in.readInt();
        int n = count(in, "columns");
        List<Column> cols = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int attnum = in.readInt();
            String cname = readString(in);
            int typeOid = in.readInt();
            int typmod = in.readInt();
            int attlen = in.readInt();
            char align = (char) in.readUnsignedByte();
            boolean byval = in.readBoolean();
            char storage = (char) in.readUnsignedByte();
            boolean dropped = in.readBoolean();
            boolean notNull = in.readBoolean();
            int tag = in.readByte();
            byte[] missing;
            if (tag == 0) {
                missing = null;
            } else if (tag == 2) {
                missing = Column.UNRESOLVED_MISSING;
            } else if (tag == 1) {
                int len = count(in, "missing value bytes");
                missing = new byte[len];
                in.readFully(missing);
            } else {
                throw new StateFormatException("catalog history state: unknown missing-value tag " + tag);
            }
            cols.add(new Column(attnum, cname, typeOid, typmod, attlen, align, byval, storage, dropped, notNull,
                    missing));
        }
        int m = count(in, "identity attnums");
        List<Integer> ident = new ArrayList<>(m);
        for (int i = 0; i < m; i++) {
            ident.add(in.readInt());
        }
        PartitionOf partition = null;
        if (version >= 4 && in.readBoolean()) {
            RelationDescriptor root = readDescriptor(in, version);
            if (root.partition() != null) {
                throw new StateFormatException("catalog history state: partition root " + root.qualifiedName()
                        + " is itself routed through a root");
            }
            int[] map = new int[count(in, "partition column map")];
            for (int i = 0; i < map.length; i++) {
                map[i] = in.readInt();
            }
            partition = new PartitionOf(root, map);
        }
        return new RelationDescriptor(relOid, loc, schema, name, relkind, persistence, replident, toast,
                List.copyOf(cols), List.copyOf(ident), partition);
    }

    private static int count(DataInput in, String what) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_COUNT) {
            throw new StateFormatException("catalog history state: implausible count of " + what + ": " + n);
        }
        return n;
    }

    private static void writeLocator(DataOutput out, RelFileLocator l) throws IOException {
        out.writeInt(l.spcOid());
        out.writeInt(l.dbOid());
        out.writeInt(l.relNumber());
    }

    private static RelFileLocator readLocator(DataInput in) throws IOException {
        return new RelFileLocator(in.readInt(), in.readInt(), in.readInt());
    }

    private static void writeString(DataOutput out, String s) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInput in) throws IOException {
        int len = in.readInt();
        if (len == -1) {
            return null;
        }
        if (len < 0 || len > MAX_COUNT) {
            throw new StateFormatException("catalog history state: implausible string length " + len);
        }
        byte[] b = new byte[len];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static int compareLocators(RelFileLocator a, RelFileLocator b) {
        int c = Integer.compareUnsigned(a.spcOid(), b.spcOid());
        if (c == 0) {
            c = Integer.compareUnsigned(a.dbOid(), b.dbOid());
        }
        if (c == 0) {
            c = Integer.compareUnsigned(a.relNumber(), b.relNumber());
        }
        return c;
    }
}
