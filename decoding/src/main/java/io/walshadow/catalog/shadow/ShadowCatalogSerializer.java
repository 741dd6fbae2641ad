package io.walshadow.catalog.shadow;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.shadow.CatalogRow.AttributeRow;
import io.walshadow.catalog.shadow.CatalogRow.ClassRow;
import io.walshadow.catalog.shadow.CatalogRow.EnumRow;
import io.walshadow.catalog.shadow.CatalogRow.ExtensionRow;
import io.walshadow.catalog.shadow.CatalogRow.IndexRow;
import io.walshadow.catalog.shadow.CatalogRow.InheritsRow;
import io.walshadow.catalog.shadow.CatalogRow.NamespaceRow;
import io.walshadow.catalog.shadow.CatalogRow.RangeRow;
import io.walshadow.catalog.shadow.CatalogRow.TypeRow;
import io.walshadow.heap.HeapTuple;
import io.walshadow.wal.RelFileLocator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The persistent form of a {@link ShadowCatalog} (operator state, and the bootstrap shipped with a new job): an
 * explicit, versioned byte format, big-endian.
 *
 * <pre>
 *   int magic 'WSSH', int version
 *   int dbOid, int dbTablespace, long redoLsn, long startLsn, boolean reachedStart, long typesVersion
 *   int n, n x layout: int catalogOid, int m, m x column (attnum, name, typeOid, typmod, attlen, attalign,
 *       attbyval, attstorage)
 *   int n, n x mapped catalog oid;  int n, n x (oid, relfilenode) relation map
 *   int n, n x pending map update: int xid, int m, m x (oid, relfilenode)
 *   int n, n x mirror: int catalogOid, locator (spc, db, rel), int copyCreatorXid (0: current storage),
 *       int k, k x long known-page bitmap word, int t, t x tuple:
 *       long tid, int xmin, byte flags (1 committed, 2 doubtful, 4 marker, 8 bytes), int deleter,
 *       [bytes: int xmax, u16 infomask2, u16 infomask, u8 hoff, int len, len bytes] [else, not a marker: the row's columns]
 * </pre>
 *
 * Tuples with bytes are read back through the layout (their row is not stored twice). Output is deterministic.
 *
 * <p>Version 2 is version 3 without pg_inherits, and version 1 is version 2 without pg_range and pg_extension (no
 * layout, no storage: {@link SystemCatalog#sinceStateVersion}); a shadow read from an older version keeps following
 * the other catalogs, holds none of the later ones and is written back so.
 */
public final class ShadowCatalogSerializer {
    public static final int MAGIC = 0x57535348; // 'WSSH'
    public static final int VERSION = 3;
    public static final int OLDEST_READABLE_VERSION = 1;
    private static final int COMMITTED = 1;
    private static final int DOUBTFUL = 2;
    private static final int MARKER = 4;
    private static final int BYTES = 8;

    private ShadowCatalogSerializer() {}

    public static byte[] toBytes(ShadowCatalog s) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(b)) {
            write(s, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return b.toByteArray();
    }

    public static ShadowCatalog fromBytes(byte[] bytes) throws IOException {
        return read(new DataInputStream(new ByteArrayInputStream(bytes)));
    }

    /** Gzipped {@link #toBytes}: the bootstrap travels with the job graph. */
    public static byte[] toCompressed(ShadowCatalog s) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(new GZIPOutputStream(b, 1 << 16))) {
            write(s, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return b.toByteArray();
    }

    public static ShadowCatalog fromCompressed(byte[] bytes) throws IOException {
        try (DataInputStream in = new DataInputStream(new GZIPInputStream(new ByteArrayInputStream(bytes), 1 << 16))) {
            return read(in);
        }
    }

    public static void write(ShadowCatalog s, DataOutput out) throws IOException {
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        out.writeInt(s.dbOid);
        out.writeInt(s.dbTablespace);
        out.writeLong(s.redoLsn);
        out.writeLong(s.startLsn);
        out.writeBoolean(s.reachedStart);
        out.writeLong(s.typesVersion);
        out.writeInt(s.layouts.size());
        for (CatalogLayout l : s.layouts.values()) {
            out.writeInt(l.catalog().oid());
            out.writeInt(l.columns().size());
            for (Column c : l.columns()) {
                out.writeInt(c.attnum());
                str(out, c.name());
                out.writeInt(c.typeOid());
                out.writeInt(c.typmod());
                out.writeInt(c.attlen());
                out.writeChar(c.attalign());
                out.writeBoolean(c.attbyval());
                out.writeChar(c.attstorage());
            }
        }
        out.writeInt(s.mapped.size());
        for (SystemCatalog c : s.mapped) {
            out.writeInt(c.oid());
        }
        writeMap(out, new TreeMap<>(s.relmap));
        TreeMap<Integer, Map<Integer, Integer>> pendingMaps = new TreeMap<>(s.pendingRelmap);
        out.writeInt(pendingMaps.size());
        for (Map.Entry<Integer, Map<Integer, Integer>> e : pendingMaps.entrySet()) {
            out.writeInt(e.getKey());
            writeMap(out, new TreeMap<>(e.getValue()));
        }
        List<RelationMirror> mirrors = new ArrayList<>(s.mirrors.values());
        mirrors.sort(Comparator.<RelationMirror>comparingInt(m -> m.catalog.ordinal())
                .thenComparingInt(m -> m.locator.spcOid()).thenComparingInt(m -> m.locator.dbOid())
                .thenComparingInt(m -> m.locator.relNumber()));
        out.writeInt(mirrors.size());
        for (RelationMirror m : mirrors) {
            out.writeInt(m.catalog.oid());
            out.writeInt(m.locator.spcOid());
            out.writeInt(m.locator.dbOid());
            out.writeInt(m.locator.relNumber());
            Integer creator = s.copies.get(m.locator);
            out.writeInt(creator == null ? 0 : creator);
            long[] words = m.knownBlocks().toLongArray();
            out.writeInt(words.length);
            for (long w : words) {
                out.writeLong(w);
            }
            out.writeInt(m.size());
            for (Map.Entry<Long, ShadowTuple> e : m.entries()) {
                ShadowTuple t = e.getValue();
                out.writeLong(e.getKey());
                out.writeInt(t.xmin);
                int flags = (t.committed ? COMMITTED : 0) | (t.doubtful ? DOUBTFUL : 0) | (t.row == null ? MARKER : 0)
                        | (t.hasBytes() ? BYTES : 0);
                out.writeByte(flags);
                out.writeInt(t.deleter);
                if (t.hasBytes()) {
                    out.writeInt(t.xmax);
                    out.writeShort(t.infomask2);
                    out.writeShort(t.infomask);
                    out.writeByte(t.hoff);
                    out.writeInt(t.bits.length);
                    out.write(t.bits);
                } else if (t.row != null) {
                    writeRow(out, t.row);
                }
            }
        }
    }

    public static ShadowCatalog read(DataInput in) throws IOException {
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new IOException("not a catalog shadow state (magic 0x" + Integer.toHexString(magic) + ")");
        }
        int version = in.readInt();
        if (version < OLDEST_READABLE_VERSION || version > VERSION) {
            throw new IOException("catalog shadow state has format version " + version + "; this build reads "
                    + OLDEST_READABLE_VERSION + " to " + VERSION);
        }
        int dbOid = in.readInt();
        int dbTablespace = in.readInt();
        long redo = in.readLong();
        long start = in.readLong();
        boolean reached = in.readBoolean();
        long typesVersion = in.readLong();
        EnumMap<SystemCatalog, CatalogLayout> layouts = new EnumMap<>(SystemCatalog.class);
        int nl = in.readInt();
        for (int i = 0; i < nl; i++) {
            SystemCatalog c = catalog(in.readInt());
            if (c.sinceStateVersion() > version) {
                throw new IOException("catalog shadow state of version " + version + " holds " + c.relname()
                        + ", which only version " + c.sinceStateVersion() + " on has");
            }
            int m = in.readInt();
            List<Column> cols = new ArrayList<>(m);
            for (int k = 0; k < m; k++) {
                cols.add(new Column(in.readInt(), str(in), in.readInt(), in.readInt(), in.readInt(), in.readChar(),
                        in.readBoolean(), in.readChar(), false, false, null));
            }
            layouts.put(c, new CatalogLayout(c, cols));
        }
        Set<SystemCatalog> mapped = EnumSet.noneOf(SystemCatalog.class);
        int nm = in.readInt();
        for (int i = 0; i < nm; i++) {
            mapped.add(catalog(in.readInt()));
        }
        ShadowCatalog s = new ShadowCatalog(dbOid, dbTablespace, redo, start, layouts, mapped);
        s.reachedStart = reached;
        s.typesVersion = typesVersion;
        s.relmap.putAll(readMap(in));
        int np = in.readInt();
        for (int i = 0; i < np; i++) {
            int xid = in.readInt();
            s.pendingRelmap.put(xid, readMap(in));
        }
        int nmirrors = in.readInt();
        for (int i = 0; i < nmirrors; i++) {
            SystemCatalog c = catalog(in.readInt());
            RelationMirror m = new RelationMirror(c, new RelFileLocator(in.readInt(), in.readInt(), in.readInt()));
            int creator = in.readInt();
            int words = in.readInt();
            long[] w = new long[words];
            for (int k = 0; k < words; k++) {
                w[k] = in.readLong();
            }
            m.knownBlocks().or(BitSet.valueOf(w));
            int nt = in.readInt();
            CatalogLayout layout = layouts.get(c);
            for (int k = 0; k < nt; k++) {
                long tid = in.readLong();
                int xmin = in.readInt();
                int flags = in.readUnsignedByte();
                int deleter = in.readInt();
                ShadowTuple t;
                int xmax = 0;
                if ((flags & BYTES) != 0) {
                    xmax = in.readInt();
                    int im2 = in.readUnsignedShort();
                    int im = in.readUnsignedShort();
                    int hoff = in.readUnsignedByte();
                    byte[] bits = new byte[in.readInt()];
                    in.readFully(bits);
                    CatalogRow row = (flags & MARKER) != 0 ? null
                            : layout.read(HeapTuple.ofBits(bits, im2, im, hoff, 0, m.locator));
                    t = new ShadowTuple(xmin, (flags & COMMITTED) != 0, im2, im, hoff, bits, row);
                } else {
                    CatalogRow row = (flags & MARKER) != 0 ? null : readRow(in, c);
                    t = new ShadowTuple(xmin, (flags & COMMITTED) != 0, 0, 0, 0, null, row);
                }
                t.doubtful = (flags & DOUBTFUL) != 0;
                t.xmax = xmax;
                t.deleter = deleter;
                m.put(tid, t);
            }
            s.addMirror(m, creator == 0);
            if (creator != 0) {
                s.copies.put(m.locator, creator);
            }
        }
        for (SystemCatalog c : SystemCatalog.values()) {
            // a catalog added later may be missing (a state first written before it), but not half there
            if (s.mirror(c) == null && (c.sinceStateVersion() == 1 || layouts.containsKey(c))) {
                throw new IOException("catalog shadow state has no storage for " + c.relname());
            }
        }
        s.reindexPending();
        return s;
    }

    private static SystemCatalog catalog(int oid) throws IOException {
        SystemCatalog c = SystemCatalog.byOid(oid);
        if (c == null) {
            throw new IOException("catalog shadow state names unknown catalog oid " + Integer.toUnsignedString(oid));
        }
        return c;
    }

    private static void writeMap(DataOutput out, Map<Integer, Integer> map) throws IOException {
        out.writeInt(map.size());
        for (Map.Entry<Integer, Integer> e : map.entrySet()) {
            out.writeInt(e.getKey());
            out.writeInt(e.getValue());
        }
    }

    private static Map<Integer, Integer> readMap(DataInput in) throws IOException {
        int n = in.readInt();
        Map<Integer, Integer> m = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            m.put(in.readInt(), in.readInt());
        }
        return m;
    }

    static void writeRow(DataOutput out, CatalogRow row) throws IOException {
        if (row instanceof ClassRow c) {
            out.writeInt(c.oid());
            str(out, c.relname());
            out.writeInt(c.relnamespace());
            out.writeInt(c.relfilenode());
            out.writeInt(c.reltablespace());
            out.writeChar(c.relkind());
            out.writeChar(c.relpersistence());
            out.writeChar(c.relreplident());
            out.writeInt(c.relnatts());
            out.writeInt(c.reltoastrelid());
            out.writeBoolean(c.relisshared());
        } else if (row instanceof AttributeRow a) {
            out.writeInt(a.attrelid());
            out.writeInt(a.attnum());
            str(out, a.attname());
            out.writeInt(a.atttypid());
            out.writeInt(a.atttypmod());
            out.writeInt(a.attlen());
            out.writeChar(a.attalign());
            out.writeBoolean(a.attbyval());
            out.writeChar(a.attstorage());
            out.writeBoolean(a.attisdropped());
            out.writeBoolean(a.attnotnull());
            byte[] mv = a.missingValue();
            if (mv == null) {
                out.writeInt(-1);
            } else if (mv == Column.UNRESOLVED_MISSING) {
                out.writeInt(-2);
            } else {
                out.writeInt(mv.length);
                out.write(mv);
            }
        } else if (row instanceof NamespaceRow n) {
            out.writeInt(n.oid());
            str(out, n.nspname());
        } else if (row instanceof IndexRow i) {
            out.writeInt(i.indexrelid());
            out.writeInt(i.indrelid());
            out.writeBoolean(i.indisprimary());
            out.writeBoolean(i.indisreplident());
            out.writeInt(i.indkey().size());
            for (int k : i.indkey()) {
                out.writeInt(k);
            }
        } else if (row instanceof TypeRow t) {
            out.writeInt(t.oid());
            str(out, t.typname());
            out.writeInt(t.typnamespace());
            out.writeInt(t.typlen());
            out.writeBoolean(t.typbyval());
            out.writeChar(t.typalign());
            out.writeChar(t.typtype());
            out.writeChar(t.typcategory());
            out.writeInt(t.typelem());
            out.writeInt(t.typbasetype());
            out.writeInt(t.typtypmod());
            out.writeInt(t.typrelid());
        } else if (row instanceof EnumRow e) {
            out.writeInt(e.oid());
            out.writeInt(e.enumtypid());
            str(out, e.enumlabel());
        } else if (row instanceof RangeRow r) {
            out.writeInt(r.rngtypid());
            out.writeInt(r.rngsubtype());
            out.writeInt(r.rngmultitypid());
        } else if (row instanceof ExtensionRow e) {
            out.writeInt(e.oid());
            str(out, e.extname());
            out.writeInt(e.extnamespace());
        } else if (row instanceof InheritsRow i) {
            out.writeInt(i.inhrelid());
            out.writeInt(i.inhparent());
            out.writeInt(i.inhseqno());
            out.writeBoolean(i.inhdetachpending());
        }
    }

    static CatalogRow readRow(DataInput in, SystemCatalog c) throws IOException {
        return switch (c) {
            case PG_CLASS -> new ClassRow(in.readInt(), str(in), in.readInt(), in.readInt(), in.readInt(),
                    in.readChar(), in.readChar(), in.readChar(), in.readInt(), in.readInt(), in.readBoolean());
            case PG_ATTRIBUTE -> {
                int attrelid = in.readInt();
                int attnum = in.readInt();
                String name = str(in);
                int typid = in.readInt();
                int typmod = in.readInt();
                int attlen = in.readInt();
                char align = in.readChar();
                boolean byval = in.readBoolean();
                char storage = in.readChar();
                boolean dropped = in.readBoolean();
                boolean notnull = in.readBoolean();
                int n = in.readInt();
                byte[] mv;
                if (n == -1) {
                    mv = null;
                } else if (n == -2) {
                    mv = Column.UNRESOLVED_MISSING;
                } else {
                    mv = new byte[n];
                    in.readFully(mv);
                }
                yield new AttributeRow(attrelid, attnum, name, typid, typmod, attlen, align, byval, storage, dropped,
                        notnull, mv);
            }
            case PG_NAMESPACE -> new NamespaceRow(in.readInt(), str(in));
            case PG_INDEX -> {
                int indexrelid = in.readInt();
                int indrelid = in.readInt();
                boolean primary = in.readBoolean();
                boolean replident = in.readBoolean();
                int n = in.readInt();
                List<Integer> keys = new ArrayList<>(n);
                for (int k = 0; k < n; k++) {
                    keys.add(in.readInt());
                }
                yield new IndexRow(indexrelid, indrelid, primary, replident, keys);
            }
            case PG_TYPE -> new TypeRow(in.readInt(), str(in), in.readInt(), in.readInt(), in.readBoolean(),
                    in.readChar(), in.readChar(), in.readChar(), in.readInt(), in.readInt(), in.readInt(),
                    in.readInt());
            case PG_ENUM -> new EnumRow(in.readInt(), in.readInt(), str(in));
            case PG_RANGE -> new RangeRow(in.readInt(), in.readInt(), in.readInt());
            case PG_EXTENSION -> new ExtensionRow(in.readInt(), str(in), in.readInt());
            case PG_INHERITS -> new InheritsRow(in.readInt(), in.readInt(), in.readInt(), in.readBoolean());
        };
    }

    private static void str(DataOutput out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String str(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 1 << 20) {
            throw new IOException("string of " + n + " bytes in catalog shadow state");
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
