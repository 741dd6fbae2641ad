package io.walshadow.toast;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.RowChange;
import io.walshadow.clickhouse.ToastMirror;
import io.walshadow.types.MalformedDatumException;
import io.walshadow.types.Oids;
import io.walshadow.types.ToastPointer;
import io.walshadow.types.UnsupportedTypeException;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.Lsn;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Replaces the TOAST pointers of a drained row by their values. A value's chunks are looked up first among the
 * chunks the job buffered itself ({@link ChunkStore}: the drained transaction's own, and those of recent commits not
 * yet known to be committed in ClickHouse), then, in mode {@code clickhouse}, in the relation's ClickHouse mirror as
 * of the referring record's LSN ({@link MirrorStore}).
 *
 * <p>Failure policy: buffered chunks are the job's own record, so a gap or short run in them is a decode bug and
 * stops the job ({@link ToastResolutionException.Kind#MISSING_CHUNK}, counted {@code toast_fetch_miss}). A value the
 * mirror does not hold at the LSN (or holds in part) stops the job too ({@link ToastResolutionException.Kind#MISSING_VALUE}):
 * it was either superseded and merged away (harmless: a later version of every row that referred to it reaches
 * ClickHouse) or never mirrored (a value older than the job that no snapshot seeded: filling it would leave the row
 * wrong for good), and the mirror cannot tell the two apart. With {@link Missing#FILL} (an explicit opt-in) the value
 * is filled instead and counted ({@code toast_values_filled_superseded} / {@code _mismatch}), and a chunk row of an
 * unexpected shape is skipped and counted ({@code toast_chunks_malformed}) rather than stopping the job. A
 * full-length value that does not decompress is corrupt, never a silent chimera.
 *
 * <p>A filled value stays a {@link ToastPointer} in the row: the sink writes it NULL (or empty for a NOT NULL column).
 */
public final class ToastResolver {
    public enum Mode {
        /** Only the drained transaction's own chunks resolve; anything else is filled and counted. */
        DISABLED,
        /** Chunks are mirrored to ClickHouse; values of earlier transactions are fetched from the mirror. */
        CLICKHOUSE
    }

    /** What becomes of a value the mirror does not hold ({@code toast.missing}). */
    public enum Missing {
        /** Stop the job naming the value (the default: the mirror cannot tell superseded from never mirrored). */
        FAIL,
        /** Write NULL / empty and count it; skip (and count) malformed chunk rows. */
        FILL
    }

    /** A chunk the job buffered: the commit it came with and its record's LSN. */
    public record BufferedChunk(long commitSeq, long lsn, byte[] data) {}

    /** A chunk row of a {@code pg_toast} relation. */
    public record Chunk(int toastRelOid, int valueId, int seq, byte[] data) {}

    public interface ChunkStore {
        /** The newest buffered chunk {@code seq} of the value, or null. */
        BufferedChunk get(int toastRelOid, int valueId, int seq);
    }

    public interface MirrorStore {
        /**
         * For each value, its chunks visible at its LSN in the mirror of {@code toastRelOid}, by ascending seq, one
         * per seq (a value without any is absent); null when the mirror does not exist although the job wrote to it.
         */
        Map<ToastMirror.Need, List<ToastMirror.Chunk>> fetch(int toastRelOid, Collection<ToastMirror.Need> needs);
    }

    /** A row whose values from buffered chunks are in place and whose other pointers wait for the mirror. */
    public static final class Pending {
        final RowChange row;
        final Object[] values;
        final List<Integer> columns = new ArrayList<>();
        long rawBytes;

        Pending(RowChange row) {
            this.row = row;
            this.values = row.newValues().clone();
        }

        /** Raw (uncompressed) bytes of the values it waits for. */
        public long rawBytes() {
            return rawBytes;
        }

        /** What it needs from the mirrors, by TOAST relation. */
        void needs(Map<Integer, Set<ToastMirror.Need>> out) {
            for (int i : columns) {
                ToastPointer p = (ToastPointer) values[i];
                out.computeIfAbsent(p.toastRelOid(), k -> new HashSet<>())
                        .add(new ToastMirror.Need(p.valueId(), row.lsn()));
            }
        }
    }

    private final Mode mode;
    private final Missing missing;
    private final long valueMaxBytes;
    private final Supplier<ValueDecoder> values;
    private final ChunkStore buffered;
    private final MirrorStore mirror;
    private final ToastCounters counters;

    /**
     * @param values the decoder for reassembled values (a supplier: the operator reloads types after DDL)
     * @param mirror null in mode {@code disabled}
     */
    public ToastResolver(Mode mode, Missing missing, long valueMaxBytes, Supplier<ValueDecoder> values,
                         ChunkStore buffered, MirrorStore mirror, ToastCounters counters) {
        if (mode == Mode.CLICKHOUSE && mirror == null) {
            throw new IllegalArgumentException("mode clickhouse needs a mirror");
        }
        this.mode = mode;
        this.missing = missing;
        this.valueMaxBytes = valueMaxBytes;
        this.values = values;
        this.buffered = buffered;
        this.mirror = mirror;
        this.counters = counters;
    }

    public static boolean isToastRelation(RelationDescriptor d) {
        return d != null && d.relkind() == 't';
    }

    /**
     * The chunk a row change of a {@code pg_toast} relation inserts, or null (not an insert, or not the chunk
     * shape: counted {@code toast_chunks_malformed}, and refused unless {@link Missing#FILL}).
     */
    public Chunk chunkOf(RowChange r) {
        if (r.op() != RowChange.Op.INSERT || r.newValues() == null) {
            return null;
        }
        counters.chunks++;
        RelationDescriptor d = r.descriptor();
        Object[] v = r.newValues();
        if (d.natts() != 3 || d.column(1).typeOid() != Oids.OID || d.column(2).typeOid() != Oids.INT4
                || d.column(3).typeOid() != Oids.BYTEA || !(v[0] instanceof Long id) || !(v[1] instanceof Integer seq)
                || !(v[2] instanceof byte[] data)) {
            counters.chunksMalformed++;
            if (missing == Missing.FAIL) {
                throw new IllegalStateException("row of TOAST relation " + d.qualifiedName() + " at " + Lsn.format(
                        r.lsn()) + " is not a chunk (chunk_id oid, chunk_seq int4, chunk_data bytea); values referring"
                        + " to it could not be rebuilt (--toast.missing fill skips such rows and fills the values)");
            }
            return null;
        }
        return new Chunk(d.relOid(), (int) (long) id, seq, data);
    }

    /**
     * The row with every TOAST pointer of its new values resolved (or left in place when filled); the same object
     * when it has none. Fetches from the mirror at once; {@link #prepare} and {@link #complete} batch the fetches of
     * many rows.
     *
     * @param commitSeq the drained commit the row belongs to
     */
    public RowChange resolve(RowChange r, long commitSeq) {
        Object prepared = prepare(r, commitSeq);
        if (prepared instanceof Pending p) {
            return complete(p, fetch(List.of(p)));
        }
        return (RowChange) prepared;
    }

    /**
     * Resolves what the buffered chunks can (now: later events may remove them) and fills what mode
     * {@code disabled} cannot resolve: the row when nothing is left to fetch, else a {@link Pending} for
     * {@link #complete}.
     */
    public Object prepare(RowChange r, long commitSeq) {
        Object[] v = r.newValues();
        if (v == null) {
            return r;
        }
        Pending pending = null;
        boolean changed = false;
        for (int i = 0; i < v.length; i++) {
            if (v[i] instanceof ToastPointer p) {
                Column col = r.descriptor().column(i + 1);
                checkSize(r, col, p);
                byte[] stored = fromBuffer(r, col, p, commitSeq);
                if (stored == null && mode == Mode.DISABLED) {
                    counters.filledDefault++;
                    continue;
                }
                if (pending == null) {
                    pending = new Pending(r);
                }
                if (stored != null) {
                    counters.resolvedBuffered++;
                    pending.values[i] = decode(r, col, p, stored);
                    changed = true;
                } else {
                    pending.columns.add(i);
                    pending.rawBytes += Integer.toUnsignedLong(p.rawSize());
                }
            }
        }
        if (pending == null) {
            return r;
        }
        if (!pending.columns.isEmpty()) {
            return pending;
        }
        return changed ? withValues(r, pending.values) : r;
    }

    /** The mirrors' answers for these rows: per TOAST relation, per value (null: the mirror is gone). */
    public Map<Integer, Map<ToastMirror.Need, List<ToastMirror.Chunk>>> fetch(List<Pending> rows) {
        Map<Integer, Set<ToastMirror.Need>> needs = new HashMap<>();
        rows.forEach(p -> p.needs(needs));
        Map<Integer, Map<ToastMirror.Need, List<ToastMirror.Chunk>>> out = new HashMap<>();
        needs.forEach((rel, n) -> out.put(rel, mirror.fetch(rel, n)));
        return out;
    }

    /**
     * Whether the mirrors' answer lacks (all or part of) a value one of the rows needs: before the initial snapshot
     * has seeded the mirrors, such a value may be one written before the job, which the seed brings.
     */
    public static boolean anyIncomplete(List<Pending> rows,
                                        Map<Integer, Map<ToastMirror.Need, List<ToastMirror.Chunk>>> fetched) {
        return !incompleteRelations(rows, fetched).isEmpty();
    }

    /** The TOAST relations of the values the mirrors' answer lacks (all or part of). */
    public static Set<Integer> incompleteRelations(List<Pending> rows,
                                                   Map<Integer, Map<ToastMirror.Need, List<ToastMirror.Chunk>>> fetched) {
        Set<Integer> out = new java.util.TreeSet<>();
        for (Pending p : rows) {
            for (int i : p.columns) {
                ToastPointer ptr = (ToastPointer) p.values[i];
                Map<ToastMirror.Need, List<ToastMirror.Chunk>> rel = fetched.get(ptr.toastRelOid());
                if (rel == null) {
                    out.add(ptr.toastRelOid());
                    continue;
                }
                long have = 0;
                for (ToastMirror.Chunk c : rel.getOrDefault(new ToastMirror.Need(ptr.valueId(), p.row.lsn()), List.of())) {
                    have += c.data().length;
                }
                if (have != Integer.toUnsignedLong(ptr.externalSize())) {
                    out.add(ptr.toastRelOid());
                }
            }
        }
        return out;
    }

    /** The pending row with the mirror's values in place (or filled and counted). */
    public RowChange complete(Pending p, Map<Integer, Map<ToastMirror.Need, List<ToastMirror.Chunk>>> fetched) {
        return complete(p, fetched, Set.of());
    }

    /**
     * As {@link #complete(Pending, Map)}; {@code seededByCopy}: TOAST relations of tables attached with rows whose
     * copy round has seeded the mirror with every value the table held when the round read it. A value such a mirror
     * lacks was never in it because a later change superseded the row referring to it: the row is older than the
     * copy (which holds the table's state after it), or the value was deleted before the copy read it (a resumed
     * round reads under a later snapshot), which only a later change of that row does. So it is filled, and counted,
     * even with {@code toast.missing=fail}, whose case (a value older than the job that no copy seeded) cannot arise.
     */
    public RowChange complete(Pending p, Map<Integer, Map<ToastMirror.Need, List<ToastMirror.Chunk>>> fetched,
                              Set<Integer> seededByCopy) {
        RowChange r = p.row;
        boolean changed = p.columns.size() < countPointers(r.newValues());
        for (int i : p.columns) {
            ToastPointer ptr = (ToastPointer) p.values[i];
            Column col = r.descriptor().column(i + 1);
            Map<ToastMirror.Need, List<ToastMirror.Chunk>> rel = fetched.get(ptr.toastRelOid());
            if (rel == null) {
                throw new ToastResolutionException(ToastResolutionException.Kind.MISSING_MIRROR,
                        r.descriptor().qualifiedName(), col.name(), ptr.toastRelOid(), ptr.valueId(), r.lsn(),
                        "its ClickHouse mirror " + ToastMirror.name(ptr.toastRelOid()) + " is gone, although the job"
                        + " wrote to it (dropped by hand?); filling would overwrite current values with nothing to"
                        + " supersede them", null);
            }
            List<ToastMirror.Chunk> chunks = rel.getOrDefault(new ToastMirror.Need(ptr.valueId(), r.lsn()), List.of());
            if (seededByCopy.contains(ptr.toastRelOid()) && assemble(chunks, ptr.externalSize()) == null) {
                counters.filledAttached++; // superseded: see above
                continue;
            }
            if (chunks.isEmpty()) {
                refuseFill(r, col, ptr, "its ClickHouse mirror " + ToastMirror.name(ptr.toastRelOid())
                        + " holds no chunk of it at that LSN");
                counters.filledSuperseded++;
                continue;
            }
            byte[] stored = assemble(chunks, ptr.externalSize());
            if (stored == null) {
                refuseFill(r, col, ptr, "its ClickHouse mirror " + ToastMirror.name(ptr.toastRelOid()) + " holds "
                        + chunks.size() + " chunks that do not make up its " + Integer.toUnsignedLong(ptr.externalSize())
                        + " stored bytes at that LSN");
                counters.filledMismatch++;
                continue;
            }
            counters.resolvedMirror++;
            p.values[i] = decode(r, col, ptr, stored);
            changed = true;
        }
        return changed ? withValues(r, p.values) : r;
    }

    /**
     * Unless filling is allowed: the value was superseded and merged away, or never mirrored (older than the job,
     * not seeded by a snapshot); only the first is harmless to fill, and the mirror cannot tell which.
     */
    private void refuseFill(RowChange r, Column col, ToastPointer p, String what) {
        if (missing == Missing.FAIL) {
            throw new ToastResolutionException(ToastResolutionException.Kind.MISSING_VALUE,
                    r.descriptor().qualifiedName(), col.name(), p.toastRelOid(), p.valueId(), r.lsn(), what
                    + "; if the table's values predate the job, copy it with an initial snapshot (--snapshot.mode"
                    + " initial) or exclude it; --toast.missing fill writes such values NULL/empty and counts them",
                    null);
        }
    }

    private static int countPointers(Object[] v) {
        int n = 0;
        for (Object o : v) {
            if (o instanceof ToastPointer) {
                n++;
            }
        }
        return n;
    }

    private static RowChange withValues(RowChange r, Object[] values) {
        return new RowChange(r.lsn(), r.xid(), r.op(), r.rel(), r.descriptor(), r.newTid(), r.oldTid(), values,
                r.oldValues(), r.oldIsFullRow());
    }

    private void checkSize(RowChange r, Column col, ToastPointer p) {
        if (Integer.toUnsignedLong(p.rawSize()) > valueMaxBytes || Integer.toUnsignedLong(p.externalSize()) > valueMaxBytes) {
            throw new ToastResolutionException(ToastResolutionException.Kind.TOO_LARGE, r.descriptor().qualifiedName(),
                    col.name(), p.toastRelOid(), p.valueId(), r.lsn(), "its size (" + Integer.toUnsignedLong(p.rawSize())
                    + " bytes raw, " + p.externalSize() + " stored) exceeds toast.value.max.bytes = " + valueMaxBytes,
                    null);
        }
    }

    private Object decode(RowChange r, Column col, ToastPointer p, byte[] stored) {
        String rel = r.descriptor().qualifiedName();
        counters.resolvedBytes += stored.length;
        try {
            return values.get().decode(col.typeOid(), col.typmod(), p.toVarlena(stored), 0, stored.length + 4);
        } catch (MalformedDatumException | UnsupportedTypeException e) {
            throw new ToastResolutionException(ToastResolutionException.Kind.CORRUPT, rel, col.name(), p.toastRelOid(),
                    p.valueId(), r.lsn(), "the reassembled " + stored.length + " bytes (" + p.compression()
                    + ") do not decode: " + e.getMessage(), e);
        }
    }

    /** The value from buffered chunks, or null when the job did not buffer its first chunk (before the LSN). */
    private byte[] fromBuffer(RowChange r, Column col, ToastPointer p, long commitSeq) {
        BufferedChunk first = buffered.get(p.toastRelOid(), p.valueId(), 0);
        if (first == null || Long.compareUnsigned(first.lsn(), r.lsn()) > 0
                || (mode == Mode.DISABLED && first.commitSeq() != commitSeq)) {
            return null;
        }
        byte[] out = new byte[p.externalSize()];
        int pos = 0;
        BufferedChunk c = first;
        for (int seq = 0; pos < out.length; seq++) {
            if (seq > 0) {
                c = buffered.get(p.toastRelOid(), p.valueId(), seq);
            }
            if (c == null || c.data().length > out.length - pos || Long.compareUnsigned(c.lsn(), r.lsn()) > 0) {
                counters.fetchMiss++;
                String what = c == null ? "chunk_seq " + seq + " is missing"
                        : c.data().length > out.length - pos ? "chunk_seq " + seq + " runs past the pointer's "
                                + out.length + " stored bytes"
                        : "chunk_seq " + seq + " is newer than the referring record";
                throw new ToastResolutionException(ToastResolutionException.Kind.MISSING_CHUNK,
                        r.descriptor().qualifiedName(), col.name(), p.toastRelOid(), p.valueId(), r.lsn(),
                        what + " among the chunks buffered with it (" + pos + " of " + out.length + " bytes found)",
                        null);
            }
            System.arraycopy(c.data(), 0, out, pos, c.data().length);
            pos += c.data().length;
        }
        return out;
    }

    /** Dense seqs from 0 exactly covering {@code size} bytes (the chimera guard), else null. */
    private static byte[] assemble(List<ToastMirror.Chunk> chunks, int size) {
        long total = 0;
        for (int i = 0; i < chunks.size(); i++) {
            if (chunks.get(i).seq() != i) {
                return null;
            }
            total += chunks.get(i).data().length;
        }
        if (total != size) {
            return null;
        }
        byte[] out = new byte[size];
        int pos = 0;
        for (ToastMirror.Chunk c : chunks) {
            System.arraycopy(c.data(), 0, out, pos, c.data().length);
            pos += c.data().length;
        }
        return out;
    }
}
