package io.walshadow.codec;

import io.walshadow.buffer.BufferEventSerializer;
import io.walshadow.buffer.ChangeEventSerializer;
import io.walshadow.buffer.DrainedSerializer;
import io.walshadow.sink.DestTable;
import io.walshadow.sink.QuarantinedTable;
import io.walshadow.sink.SinkBatch;
import io.walshadow.sink.SinkBatchSerializer;
import io.walshadow.sink.SinkStep;
import io.walshadow.sink.SinkWriterState;
import io.walshadow.sink.SinkWriterStateSerializer;
import io.walshadow.snapshot.SnapshotEnumeratorState;
import io.walshadow.snapshot.SnapshotEnumeratorStateSerializer;
import io.walshadow.snapshot.SnapshotSplit;
import io.walshadow.snapshot.SnapshotSplitSerializer;
import io.walshadow.source.WalEnumeratorState;
import io.walshadow.source.WalEnumeratorStateSerializer;
import io.walshadow.source.WalSplit;
import io.walshadow.source.WalSplitSerializer;
import io.walshadow.source.XLogRecordSerializer;
import io.walshadow.testing.Samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.catalog.CatalogHistorySerializer;
import io.walshadow.catalog.DescriptorHistory;
import io.walshadow.catalog.PgType;
import io.walshadow.catalog.TypeSet;
import io.walshadow.change.BufferEvent;
import io.walshadow.change.ChangeEvent;
import io.walshadow.buffer.Drained;
import io.walshadow.buffer.DrainedCatalog;
import io.walshadow.buffer.DrainedChange;
import io.walshadow.buffer.DrainedCommit;
import io.walshadow.change.RowChange;
import io.walshadow.change.TruncateChange;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Every format this job writes into checkpoints and savepoints (or between its tasks), with its version, in one
 * table ({@link #FORMATS}), and each pinned by golden bytes that a build wrote ({@code state-formats/} in the test
 * resources):
 * <ul>
 *   <li>the golden of the current version decodes, and re-encodes to exactly the same bytes: a writer that changed
 *       without a version bump fails here;</li>
 *   <li>the goldens of older versions still decode (a savepoint of an older build restores);</li>
 *   <li>a Flink serializer's snapshot, as an older build wrote it (class name included), resolves to this build's
 *       serializer as compatible: moving or renaming a snapshot class would break every savepoint, and fails here.</li>
 * </ul>
 * A format added, or a version bumped, has no golden yet: the test says so; write it once with
 * {@code -Dwalshadow.stateFormats.write=true} (run in this module) and commit it. Never rewrite an existing golden.
 */
class StateFormatsTest {
    private static final String DIR = "state-formats";
    private static final boolean WRITE = Boolean.getBoolean("walshadow.stateFormats.write");
    /** A type of an extension (TypeSetCodec version 2). */
    private static final PgType HSTORE = new PgType(16500, "public", "hstore", -1, false, 'i', 'b', 'U', 0, 0, -1, 0,
            Map.of(), "hstore");

    /** Encodes and decodes one format; {@code read} gets the version the bytes were written as. */
    interface Codec {
        byte[] write(Object value) throws IOException;

        Object read(int version, byte[] bytes) throws IOException;
    }

    /**
     * A state format. {@code persisted}: kept in checkpoints and savepoints (else only sent between tasks, where
     * both ends are always the same build). {@code snapshot}: the Flink serializer whose snapshot a savepoint
     * stores, or null.
     */
    record Format(String name, String stage, int version, boolean persisted, Codec codec,
                  TypeSerializer<?> snapshot, List<?> samples) {
        String golden(int v) {
            return name + "-v" + v + ".bin";
        }

        String snapshotGolden() {
            return name + "-snapshot.bin";
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static Codec versioned(SimpleVersionedSerializer s) {
        return new Codec() {
            @Override
            public byte[] write(Object value) throws IOException {
                return s.serialize(value);
            }

            @Override
            public Object read(int version, byte[] bytes) throws IOException {
                return s.deserialize(version, bytes);
            }
        };
    }

    /** A Flink serializer: the format version is inside its bytes. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Codec flink(TypeSerializer s) {
        return new Codec() {
            @Override
            public byte[] write(Object value) throws IOException {
                DataOutputSerializer out = new DataOutputSerializer(256);
                s.serialize(value, out);
                return out.getCopyOfBuffer();
            }

            @Override
            public Object read(int version, byte[] bytes) throws IOException {
                DataInputDeserializer in = new DataInputDeserializer(bytes);
                Object v = s.deserialize(in);
                assertEquals(0, in.available(), "bytes left after the value");
                return v;
            }
        };
    }

    static final Codec CATALOG_HISTORY = new Codec() {
        @Override
        public byte[] write(Object value) {
            return CatalogHistorySerializer.toBytes((DescriptorHistory) value);
        }

        @Override
        public Object read(int version, byte[] bytes) throws IOException {
            return CatalogHistorySerializer.fromBytes(bytes);
        }
    };

    static final List<Format> FORMATS = List.of(
            new Format("wal-split", "source", WalSplitSerializer.INSTANCE.getVersion(), true,
                    versioned(WalSplitSerializer.INSTANCE), null,
                    List.of(new WalSplit("ws_slot", 0x1_0000_0028L, 0x1_0000_0000L, 1),
                            new WalSplit("ws_é", -1L, 0, 7))),
            new Format("wal-enumerator", "source", WalEnumeratorStateSerializer.INSTANCE.getVersion(), true,
                    versioned(WalEnumeratorStateSerializer.INSTANCE), null,
                    List.of(new WalEnumeratorState(List.of()),
                            new WalEnumeratorState(List.of(new WalSplit("ws_slot", 0x28, 0, 1))))),
            new Format("xlog-record", "source -> decoder", 1 /* no version in its bytes */, false,
                    flink(XLogRecordSerializer.INSTANCE), null,
                    List.of(Samples.walRecord(10, 0x00, 742, new byte[] {1, 2, 3}, 0x1_0000_0028L))),
            new Format("catalog-history", "decoder", CatalogHistorySerializer.VERSION, true, CATALOG_HISTORY, null,
                    List.of(new DescriptorHistory(5, "include=public.*;exclude=", 0x10))),
            new Format("buffer-event", "decoder -> buffer", BufferEventSerializer.FORMAT_VERSION, false,
                    flink(new BufferEventSerializer()), null, bufferEvents()),
            new Format("change-event", "buffer (xact-entries)", ChangeEventSerializer.FORMAT_VERSION, true,
                    flink(new ChangeEventSerializer()), new ChangeEventSerializer(), small(Samples.events())),
            new Format("drained", "buffer -> TOAST -> sink", DrainedSerializer.FORMAT_VERSION, false,
                    flink(new DrainedSerializer()), new DrainedSerializer(), drained()),
            new Format("snapshot-split", "snapshot", SnapshotSplitSerializer.INSTANCE.getVersion(), true,
                    versioned(SnapshotSplitSerializer.INSTANCE), null,
                    List.of(SnapshotSplit.fresh(Samples.descriptor(), 0x1_0000_0000L, 4096, -1).advanced(5000, 17,
                            123_456), SnapshotSplit.toastChunk(Samples.descriptor(), 99, 0, 4096))),
            new Format("snapshot-enumerator", "snapshot", SnapshotEnumeratorStateSerializer.INSTANCE.getVersion(), true,
                    versioned(SnapshotEnumeratorStateSerializer.INSTANCE), null,
                    List.of(new SnapshotEnumeratorState(0x2_0000_1000L, "834:840:835,836", true,
                            List.of(SnapshotSplit.fresh(Samples.descriptor(), 7, 0, 64),
                                    SnapshotSplit.toastChunk(Samples.descriptor(), 7, 64, -1)), 10, 8, 1_000_000,
                            false, List.of("16400@64"), "include=public.*;exclude=", 841,
                            List.of("16502@8589942784")))),
            new Format("sink-writer", "sink", SinkWriterStateSerializer.INSTANCE.getVersion(), true,
                    versioned(SinkWriterStateSerializer.INSTANCE), null, List.of(writerState())),
            new Format("sink-batch", "sink (committable)", SinkBatchSerializer.INSTANCE.getVersion(), true,
                    versioned(SinkBatchSerializer.INSTANCE), null, List.of(batch())));

    /**
     * Operator states kept in Flink's own serializers (their formats are Flink's: listed so the table is whole, and
     * their names and types are pinned, since renaming one loses it in a restore).
     */
    static final List<String> FLINK_TYPED_STATES = List.of(
            "decoder: operator list state 'catalog-history' of byte[] (envelope version "
                    + "WalDecoderFunction.STATE_VERSION around catalog-history)",
            "buffer: keyed map state 'xact-entries' Long -> change-event",
            "buffer: keyed value state 'xact-meta' long[] (the family metadata)",
            "buffer: keyed value state 'xact-gid' String",
            "buffer: operator list state 'xact-buffer-gauges' long[]",
            "buffer: operator union list state of dropped relations Tuple2<String, Integer>",
            "TOAST: keyed map states 'toast-chunks', 'toast-mirrors', 'toast-held-for-seed', value state of the held"
                    + " range",
            "TOAST: keyed map states 'toast-copy-seeds' Integer -> Tuple3<Integer, Long, Long>, 'toast-held-awaits' Integer ->"
                    + " Boolean (absent in an older build's state: empty)");

    @Test
    void everyFormatDecodesItsGoldensAndTheCurrentOneReencodesByteForByte() throws Exception {
        List<String> missing = new ArrayList<>();
        StringBuilder table = new StringBuilder();
        for (Format f : FORMATS) {
            table.append(String.format("%-20s %-24s v%-3d %s%n", f.name(), f.stage(), f.version(),
                    f.persisted() ? "checkpoints, savepoints" : "between tasks"));
            if (WRITE && resource(f.golden(f.version())) == null) {
                List<byte[]> encoded = new ArrayList<>();
                for (Object s : f.samples()) {
                    encoded.add(f.codec().write(s));
                }
                writeGolden(f.golden(f.version()), encoded);
            }
            if (WRITE && f.snapshot() != null && resource(f.snapshotGolden()) == null) {
                DataOutputSerializer out = new DataOutputSerializer(64);
                TypeSerializerSnapshot.writeVersionedSnapshot(out, f.snapshot().snapshotConfiguration());
                writeGolden(f.snapshotGolden(), List.of(out.getCopyOfBuffer()));
            }
            for (int v = 1; v <= f.version(); v++) {
                List<byte[]> golden = readGolden(f.golden(v));
                if (golden == null) {
                    if (v == f.version()) {
                        missing.add(f.golden(v));
                    }
                    continue;
                }
                for (byte[] bytes : golden) {
                    Object value = f.codec().read(v, bytes);
                    if (v == f.version()) {
                        assertArrayEquals(bytes, f.codec().write(value), f.name() + " v" + v + ": the golden"
                                + " decodes but this build writes it differently; a changed format needs a new"
                                + " version (and a new golden), the old one still read");
                    }
                }
            }
            if (f.snapshot() != null) {
                List<byte[]> golden = readGolden(f.snapshotGolden());
                if (golden == null) {
                    missing.add(f.snapshotGolden());
                } else {
                    assertSnapshotCompatible(f, golden.get(0));
                }
            }
        }
        System.out.print("state formats:\n" + table);
        if (!missing.isEmpty()) {
            fail("no golden for " + missing + ": write them once with -Dwalshadow.stateFormats.write=true"
                    + " (mvn test -pl operators -Dtest=StateFormatsTest) and commit them");
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void assertSnapshotCompatible(Format f, byte[] golden) throws IOException {
        TypeSerializerSnapshot old = TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(golden),
                StateFormatsTest.class.getClassLoader());
        TypeSerializerSnapshot now = f.snapshot().snapshotConfiguration();
        TypeSerializerSchemaCompatibility c = now.resolveSchemaCompatibility(old);
        assertTrue(c.isCompatibleAsIs(), f.name() + ": the serializer snapshot a savepoint holds ("
                + old.getClass().getName() + ") is not compatible as is with this build's: " + c);
        TypeSerializer restored = old.restoreSerializer();
        for (Object s : f.samples()) {
            assertArrayEquals(f.codec().write(s), flink(restored).write(s), f.name()
                    + ": the restored serializer writes what this build's does");
        }
    }

    @Test
    void everySerializerOfTheJobIsInTheTable() throws Exception {
        Set<String> listed = new TreeSet<>();
        for (Format f : FORMATS) {
            if (f.snapshot() != null) {
                listed.add(f.snapshot().getClass().getName());
            }
        }
        listed.addAll(List.of(XLogRecordSerializer.class.getName(), BufferEventSerializer.class.getName(),
                WalSplitSerializer.class.getName(), WalEnumeratorStateSerializer.class.getName(),
                SnapshotSplitSerializer.class.getName(), SnapshotEnumeratorStateSerializer.class.getName(),
                SinkWriterStateSerializer.class.getName(), SinkBatchSerializer.class.getName()));
        Set<String> found = new TreeSet<>();
        Path classes = Path.of(WalSplitSerializer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path p : (Iterable<Path>) files.filter(x -> x.toString().endsWith(".class"))::iterator) {
                String name = classes.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "");
                Class<?> c = Class.forName(name, false, getClass().getClassLoader());
                boolean serializer = SimpleVersionedSerializer.class.isAssignableFrom(c)
                        || TypeSerializer.class.isAssignableFrom(c);
                if (serializer && !java.lang.reflect.Modifier.isAbstract(c.getModifiers()) && !c.isAnonymousClass()) {
                    found.add(name);
                }
            }
        }
        assertEquals(listed, found, "serializers of the job and the formats table differ: a new one needs a row"
                + " (and goldens)");
    }

    // ------------------------------------------------------------------------------------------------
    // Samples the goldens were written from (used only when writing a missing golden)
    // ------------------------------------------------------------------------------------------------

    /** Samples of at most 8 kB serialized: goldens stay small. */
    private static List<?> small(List<? extends ChangeEvent> events) {
        ChangeEventSerializer s = new ChangeEventSerializer();
        List<ChangeEvent> out = new ArrayList<>();
        for (ChangeEvent e : events) {
            try {
                if (flink(s).write(e).length <= 8192) {
                    out.add(e);
                }
            } catch (IOException x) {
                throw new IllegalStateException(x);
            }
        }
        return out;
    }

    /** A range of one's own and its multirange (TypeSetCodec format 2 carries their pg_range links). */
    private static Map<Integer, PgType> floatRanges() {
        return Map.of(16410, new PgType(16410, "s", "floatrange", -1, false, 'd', 'r', 'R', 0, 0, -1, 0, Map.of(), 701,
                0), (int) 3_000_000_002L, new PgType((int) 3_000_000_002L, "s", "floatmultirange", -1, false, 'd', 'm',
                'R', 0, 0, -1, 0, Map.of(), 0, 16410));
    }

    private static Map<Integer, PgType> with(Map<Integer, PgType> types, PgType t) {
        Map<Integer, PgType> out = new java.util.HashMap<>(types);
        out.put(t.oid(), t);
        return out;
    }

    private static List<BufferEvent> bufferEvents() {
        var mood = new PgType(16400, "s", "mood", 4, true, 'i', 'e', 'E', 0, 0, -1, 0, Map.of(16401, "ok"));
        return List.of(new BufferEvent(123456, 0, 0, Samples.events().get(0), Map.of()),
                new BufferEvent(9, 3, 9, Samples.events().get(0), Map.of(Samples.LOC, Samples.descriptor()),
                        new TypeSet(with(with(floatRanges(), mood), HSTORE), Map.of())));
    }

    private static List<Drained> drained() {
        List<Drained> all = new ArrayList<>();
        for (Object e : small(Samples.events())) {
            if (e instanceof RowChange || e instanceof TruncateChange) {
                all.add(new DrainedChange(7, 0x1_0000_0000L, (3L << 32) | 42, 1234567L, (ChangeEvent) e));
            }
        }
        all.add(new DrainedCommit(7, 0x1_0000_0000L, 42, 1234567L, null, 12, 99, List.of(), false));
        all.add(new DrainedCommit(8, 5, 0xFFFF_FFFFL, -2, "gid é", 0, 0, List.of("public.a", "s.b é"), true));
        all.add(new DrainedCatalog(8, 5, 0xFFFF_FFFFL, -2, Samples.catalogChanges()));
        all.add(new DrainedCatalog(9, 6, 0xFFFF_FFFFL, -2, Samples.catalogChanges(),
                new TypeSet(with(floatRanges(), HSTORE), Map.of())));
        return all;
    }

    private static SinkWriterState writerState() {
        List<String> names = Samples.descriptor().columns().stream().map(c -> c.dropped() ? null : c.name()).toList();
        List<String> types = Samples.descriptor().columns().stream().map(c -> c.dropped() ? null : "String").toList();
        DestTable t = new DestTable("s__t", Samples.descriptor(), names, types, false, List.of(1), true);
        return new SinkWriterState("sink", 8, List.of(t), List.of("pg_toast_1", "pg_toast_2"),
                List.of(16384, (int) 3_000_000_000L),
                new TypeSet(with(with(floatRanges(), new PgType(16400, "s", "mood", 4, true, 'i', 'e', 'E', 0, 0, -1, 0,
                        Map.of(16401, "ok"))), HSTORE), Map.of()),
                List.of(new QuarantinedTable((int) 3_000_000_001L, "s", "t", 0x1_0000_0010L,
                        "cannot write s.t.d of the change at 1/10: a date past 2105")),
                Map.of(16500, 16400, (int) 3_000_000_002L, (int) 3_000_000_003L),
                Map.of(16502, 0x2_0000_2000L, (int) 3_000_000_004L, 0x1_0000_0000L),
                Map.of(16503, 16504, (int) 3_000_000_005L, (int) 3_000_000_006L), 6);
    }

    private static SinkBatch batch() {
        return new SinkBatch("sink", 12, List.of(
                new SinkStep.CreateTable("t", "CREATE TABLE t (a Int32) ENGINE = Memory"),
                new SinkStep.AddColumn("t", "b", "Nullable(String)", "'x'"), new SinkStep.DropColumn("t", "b"),
                new SinkStep.RenameColumn("t", "a", "c", "Int32"), new SinkStep.ModifyColumn("t", "c", "Int64"),
                new SinkStep.Truncate("t"), new SinkStep.DropTable("u"), new SinkStep.RenameTable("t", "t2"),
                new SinkStep.Insert("t2", "stage", List.of("c", "_lsn"), 3, 99),
                new SinkStep.ToastBarrier("pg_toast_16390", 0x1_0000_0010L, 0xFFFF_FFFF_FFFF_FFF0L),
                new SinkStep.CopyLive("t2", "t2__rekey", List.of("c", "_lsn", "_tid_block")),
                new SinkStep.PartitionBarrier("s__root", (int) 3_000_000_123L, List.of("_partition", "_tid_block",
                        "_tid_offset"), 0x1_0000_0100L, 0x1_0000_0200L),
                new SinkStep.CopyPartition("s__root", "s__leaf", 16500, false, List.of("a", "_lsn"), List.of("a", "_lsn")),
                new SinkStep.CopyPartition("s__own", "s__root", 16501, true, List.of("b", "_lsn"), List.of("b2", "_lsn")),
                new SinkStep.RequestCopy("_walshadow_copy_requests", "sink-a", 16502, 16499, 0x2_0000_2000L)),
                3, 99, 41, 0x2_0000_0000L, (1L << 32) | 7, 123456789L, 0x8000_0000_0000_0001L,
                List.of(123450000L, 123456789L, -1L));
    }

    // ------------------------------------------------------------------------------------------------
    // Golden files: a count, then each value as a length and its bytes
    // ------------------------------------------------------------------------------------------------

    private static java.net.URL resource(String name) {
        return StateFormatsTest.class.getClassLoader().getResource(DIR + "/" + name);
    }

    private static List<byte[]> readGolden(String name) throws IOException {
        if (resource(name) == null) {
            return null;
        }
        try (InputStream raw = resource(name).openStream(); DataInputStream in = new DataInputStream(raw)) {
            int n = in.readInt();
            List<byte[]> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] b = new byte[in.readInt()];
                in.readFully(b);
                out.add(b);
            }
            return out;
        }
    }

    /** Into this module's test resources (the working directory of a test run is the module). */
    private static void writeGolden(String name, List<byte[]> values) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        out.writeInt(values.size());
        for (byte[] v : values) {
            out.writeInt(v.length);
            out.write(v);
        }
        Path dir = Path.of("src", "test", "resources", DIR);
        Files.createDirectories(dir);
        Files.write(dir.resolve(name), bos.toByteArray());
        System.out.println("wrote golden " + dir.resolve(name).toAbsolutePath() + " (" + bos.size() + " bytes)");
    }
}
