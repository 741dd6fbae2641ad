package io.walshadow.toast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.buffer.Drained;
import io.walshadow.buffer.DrainedChange;
import io.walshadow.buffer.DrainedCommit;
import io.walshadow.buffer.DrainedSerializer;
import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.RowChange;
import io.walshadow.heap.Tid;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.types.Oids;
import io.walshadow.types.ToastPointer;
import io.walshadow.wal.RelFileLocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The TOAST stage as Flink runs it (operator test harness, RocksDB keyed state, no server), with {@code toast.mode
 * disabled}: a value whose chunks the same commit wrote is reassembled from the stage's chunk state, the chunk rows
 * themselves go no further (no mirror to feed), and a later commit that refers to it without rewriting it gets the
 * pointer left for the sink to write the column's default, as documented. The resolution policy in detail is
 * {@link ToastResolverTest}'s.
 */
class ToastStageOperatorTest {
    private static final int TOAST = 9001;
    private static final RelationDescriptor DOCS = new RelationDescriptor(500, new RelFileLocator(1663, 5, 500), "s",
            "docs", 'r', 'p', 'd', TOAST, List.of(new Column(1, "id", Oids.INT4, -1, 4, 'i', true, 'p', false, true,
                    null), new Column(2, "body", Oids.TEXT, -1, -1, 'i', false, 'x', false, false, null)), List.of(1));
    private static final RelationDescriptor CHUNKS = new RelationDescriptor(TOAST, new RelFileLocator(1663, 5, TOAST),
            "pg_toast", "pg_toast_500", 't', 'p', 'n', 0, List.of(
                    new Column(1, "chunk_id", Oids.OID, -1, 4, 'i', true, 'p', false, true, null),
                    new Column(2, "chunk_seq", Oids.INT4, -1, 4, 'i', true, 'p', false, true, null),
                    new Column(3, "chunk_data", Oids.BYTEA, -1, -1, 'i', false, 'p', false, true, null)), List.of());
    private static final byte[] TEXT = "TOASTed text, long enough to be stored out of line; ".repeat(120)
            .getBytes(StandardCharsets.UTF_8);

    private final List<KeyedOneInputStreamOperatorTestHarness<Integer, Drained, Drained>> open = new ArrayList<>();
    private long lsn = 0x2_0000_0000L;

    @AfterEach
    void close() throws Exception {
        for (var h : open) {
            h.close();
        }
    }

    private KeyedOneInputStreamOperatorTestHarness<Integer, Drained, Drained> harness(ToastResolver.Missing missing)
            throws Exception {
        PgConnectionConfig noServer = new PgConnectionConfig("127.0.0.1", 1, "none", "none", "", "disable", null);
        var h = new KeyedOneInputStreamOperatorTestHarness<>(new ToastOperator(new ToastStage(
                ToastResolver.Mode.DISABLED, missing, 1 << 20, 1 << 20, null, noServer, 0)), d -> ToastStage.KEY,
                Types.INT);
        h.setStateBackend(new EmbeddedRocksDBStateBackend());
        h.setup(new DrainedSerializer());
        h.open();
        open.add(h);
        return h;
    }

    private DrainedChange chunk(long seq, int valueId, int chunkSeq, byte[] data) {
        lsn += 0x100;
        return new DrainedChange(seq, 0, 0, 0, new RowChange(lsn, 700, RowChange.Op.INSERT, CHUNKS.locator(), CHUNKS,
                new Tid(1, chunkSeq + 1), null, new Object[] {(long) valueId, chunkSeq, data}, null, false));
    }

    private DrainedChange row(long seq, int id, Object body) {
        lsn += 0x100;
        return new DrainedChange(seq, 0, 0, 0, new RowChange(lsn, 700, RowChange.Op.INSERT, DOCS.locator(), DOCS,
                new Tid(3, id), null, new Object[] {id, body}, null, false));
    }

    private static DrainedCommit commit(long seq, long changes) {
        return new DrainedCommit(seq, 0x3_0000_0000L + seq, 700, 0, null, changes, 0, List.of("s.docs"), false);
    }

    private static ToastPointer pointer(int valueId) {
        return new ToastPointer(valueId, TOAST, TEXT.length + 4, TEXT.length, ToastPointer.Compression.NONE);
    }

    private static void feed(KeyedOneInputStreamOperatorTestHarness<Integer, Drained, Drained> h, Drained... in)
            throws Exception {
        for (Drained d : in) {
            h.processElement(new StreamRecord<>(d));
        }
    }

    @Test
    void aValueWrittenInTheSameCommitIsReassembledAndItsChunksGoNoFurther() throws Exception {
        var h = harness(ToastResolver.Missing.FAIL);
        List<Drained> in = new ArrayList<>();
        for (int i = 0, s = 0; i < TEXT.length; i += 1996, s++) {
            in.add(chunk(1, 77, s, Arrays.copyOfRange(TEXT, i, Math.min(TEXT.length, i + 1996))));
        }
        in.add(row(1, 1, pointer(77)));
        in.add(commit(1, in.size()));
        feed(h, in.toArray(new Drained[0]));
        List<Drained> out = h.extractOutputValues();
        assertEquals(2, out.size(), "the row and its commit; the chunk rows are not passed on: " + out);
        RowChange r = (RowChange) ((DrainedChange) out.get(0)).change();
        assertEquals(new String(TEXT, StandardCharsets.UTF_8), r.newValues()[1]);
        assertTrue(out.get(1) instanceof DrainedCommit);
    }

    @Test
    void aValueOfAnEarlierCommitIsLeftForTheSinkToFillAndTheChunksOfACommitAreForgottenAtItsEnd() throws Exception {
        for (ToastResolver.Missing missing : ToastResolver.Missing.values()) {
            var h = harness(missing);
            // commit 1 writes value 78 (and rows of its own); commit 2 refers to it without rewriting it
            feed(h, chunk(1, 78, 0, TEXT), row(1, 1, pointer(78)), commit(1, 2), row(2, 2, pointer(78)),
                    commit(2, 1));
            List<Drained> out = h.extractOutputValues();
            assertEquals(4, out.size(), missing + ": " + out);
            RowChange first = (RowChange) ((DrainedChange) out.get(0)).change();
            RowChange later = (RowChange) ((DrainedChange) out.get(2)).change();
            assertEquals(new String(TEXT, StandardCharsets.UTF_8), first.newValues()[1]);
            // mode disabled keeps no value past its commit: the pointer stays, the sink writes the column's default
            // (toast_values_filled_default), whatever toast.missing says (it is about the mirror)
            assertTrue(later.newValues()[1] instanceof ToastPointer, missing + ": " + later.newValues()[1]);
        }
    }
}
