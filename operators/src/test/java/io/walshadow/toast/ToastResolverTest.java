package io.walshadow.toast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.RowChange;
import io.walshadow.clickhouse.ToastMirror;
import io.walshadow.heap.Tid;
import io.walshadow.types.Oids;
import io.walshadow.types.ToastPointer;
import io.walshadow.types.ValueDecoder;
import io.walshadow.wal.Bytes;
import io.walshadow.wal.RelFileLocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;

/**
 * The resolution policy of {@link ToastResolver} with in-memory stores: which source a value comes from, what is
 * filled and counted, what stops the job. The real stores (RocksDB state, the ClickHouse mirror) are exercised by
 * {@code ToastEndToEndIT} and {@code ToastMirrorIT}.
 */
class ToastResolverTest {
    private static final int TOAST = 9001;
    private static final RelationDescriptor DOCS = new RelationDescriptor(500, new RelFileLocator(1663, 5, 500), "s",
            "docs", 'r', 'p', 'd', TOAST, List.of(new Column(1, "id", Oids.INT4, -1, 4, 'i', true, 'p', false, true, null),
                    new Column(2, "body", Oids.TEXT, -1, -1, 'i', false, 'x', false, false, null)), List.of(1));
    private static final RelationDescriptor CHUNKS = new RelationDescriptor(TOAST, new RelFileLocator(1663, 5, TOAST),
            "pg_toast", "pg_toast_500", 't', 'p', 'n', 0, List.of(
                    new Column(1, "chunk_id", Oids.OID, -1, 4, 'i', true, 'p', false, true, null),
                    new Column(2, "chunk_seq", Oids.INT4, -1, 4, 'i', true, 'p', false, true, null),
                    new Column(3, "chunk_data", Oids.BYTEA, -1, -1, 'i', false, 'p', false, true, null)), List.of());

    private final Map<String, ToastResolver.BufferedChunk> buffered = new HashMap<>();
    private final Map<Integer, List<ToastMirror.Chunk>> mirror = new HashMap<>();
    private final List<String> mirrorCalls = new ArrayList<>();
    private final ToastCounters counters = new ToastCounters();
    private boolean mirrorMissing;

    private ToastResolver resolver(ToastResolver.Mode mode, long max) {
        return resolver(mode, ToastResolver.Missing.FAIL, max);
    }

    private ToastResolver resolver(ToastResolver.Mode mode, ToastResolver.Missing missing, long max) {
        ValueDecoder values = new ValueDecoder(null);
        return new ToastResolver(mode, missing, max, () -> values,
                (rel, id, seq) -> buffered.get(rel + "/" + id + "/" + seq),
                (rel, needs) -> {
                    if (mirrorMissing) {
                        return null;
                    }
                    Map<ToastMirror.Need, List<ToastMirror.Chunk>> out = new HashMap<>();
                    for (ToastMirror.Need n : needs) {
                        mirrorCalls.add(n.valueId() + "@" + n.maxLsn());
                        if (mirror.containsKey(n.valueId())) {
                            out.put(n, mirror.get(n.valueId()));
                        }
                    }
                    return out;
                }, counters);
    }

    private void buffer(int valueId, long commitSeq, long lsn, byte[]... chunks) {
        for (int i = 0; i < chunks.length; i++) {
            buffered.put(TOAST + "/" + valueId + "/" + i, new ToastResolver.BufferedChunk(commitSeq, lsn, chunks[i]));
        }
    }

    private static RowChange row(long lsn, Object body) {
        return new RowChange(lsn, 700, RowChange.Op.UPDATE, DOCS.locator(), DOCS, new Tid(3, 4), new Tid(3, 1),
                new Object[] {1, body}, new Object[] {1, null}, false);
    }

    private static ToastPointer plain(int valueId, int size) {
        return new ToastPointer(valueId, TOAST, size + 4, size, ToastPointer.Compression.NONE);
    }

    private static byte[][] split(byte[] data, int chunk) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < data.length; i += chunk) {
            out.add(Arrays.copyOfRange(data, i, Math.min(data.length, i + chunk)));
        }
        return out.toArray(new byte[0][]);
    }

    private static final byte[] TEXT = "The quick brown fox jumps over the lazy dog, again and again."
            .repeat(40).getBytes(StandardCharsets.UTF_8);

    @Test
    void theTransactionsOwnChunksResolveInSeqOrder() {
        buffer(77, 5, 100, split(TEXT, 1996));
        RowChange r = row(200, plain(77, TEXT.length));
        RowChange out = resolver(ToastResolver.Mode.DISABLED, 1 << 20).resolve(r, 5);
        assertEquals(new String(TEXT, StandardCharsets.UTF_8), out.newValues()[1]);
        assertEquals(1, out.newValues()[0]);
        assertTrue(r.newValues()[1] instanceof ToastPointer, "the input row is not changed");
        assertEquals(1, counters.resolvedBuffered);
        assertEquals(TEXT.length, counters.resolvedBytes);
        assertEquals(List.of(), mirrorCalls);
    }

    @Test
    void lz4CompressedValuesDecompressAndCorruptOnesStopTheJob() {
        byte[] compressed = LZ4Factory.fastestInstance().fastCompressor().compress(TEXT);
        byte[] stored = new byte[4 + compressed.length];
        Bytes.putInt32(stored, 0, TEXT.length | (1 << 30)); // va_tcinfo: raw size, method lz4
        System.arraycopy(compressed, 0, stored, 4, compressed.length);
        buffer(78, 5, 100, split(stored, 100));
        ToastPointer p = new ToastPointer(78, TOAST, TEXT.length + 4, stored.length, ToastPointer.Compression.LZ4);
        assertEquals(new String(TEXT, StandardCharsets.UTF_8),
                resolver(ToastResolver.Mode.CLICKHOUSE, 1 << 20).resolve(row(200, p), 5).newValues()[1]);

        byte[] garbage = stored.clone();
        Arrays.fill(garbage, 4, garbage.length, (byte) 0x7F);
        buffer(79, 5, 100, garbage);
        ToastResolutionException e = assertThrows(ToastResolutionException.class, () -> resolver(
                ToastResolver.Mode.CLICKHOUSE, 1 << 20).resolve(row(200, new ToastPointer(79, TOAST, TEXT.length + 4,
                        garbage.length, ToastPointer.Compression.LZ4)), 5));
        assertEquals(ToastResolutionException.Kind.CORRUPT, e.kind());
        assertTrue(e.getMessage().contains("79") && e.getMessage().contains("s.docs.body"), e.getMessage());
    }

    @Test
    void aGapInBufferedChunksStopsTheJobNamingTheMissingSeq() {
        byte[][] chunks = split(TEXT, 1000);
        buffer(80, 5, 100, chunks);
        buffered.remove(TOAST + "/80/1");
        ToastResolutionException e = assertThrows(ToastResolutionException.class,
                () -> resolver(ToastResolver.Mode.CLICKHOUSE, 1 << 20).resolve(row(0x1_0000_0200L, plain(80, TEXT.length)), 5));
        assertEquals(ToastResolutionException.Kind.MISSING_CHUNK, e.kind());
        assertTrue(e.getMessage().contains("chunk_seq 1 is missing") && e.getMessage().contains("TOAST relation 9001")
                && e.getMessage().contains(io.walshadow.wal.Lsn.format(0x1_0000_0200L)) && e.getMessage().contains("1000 of " + TEXT.length), e.getMessage());
        assertEquals(1, counters.fetchMiss);
        assertEquals(List.of(), mirrorCalls, "buffered chunks are the record: no fallback to the mirror");

        buffer(81, 5, 100, TEXT); // one chunk longer than the pointer says
        e = assertThrows(ToastResolutionException.class,
                () -> resolver(ToastResolver.Mode.CLICKHOUSE, 1 << 20).resolve(row(200, plain(81, 100)), 5));
        assertTrue(e.getMessage().contains("runs past"), e.getMessage());
    }

    @Test
    void aValueOverTheCapIsRefusedBeforeAnyLookup() {
        ToastResolutionException e = assertThrows(ToastResolutionException.class,
                () -> resolver(ToastResolver.Mode.CLICKHOUSE, 1000).resolve(row(200, plain(82, 5000)), 5));
        assertEquals(ToastResolutionException.Kind.TOO_LARGE, e.kind());
        assertTrue(e.getMessage().contains("toast.value.max.bytes = 1000"), e.getMessage());
        assertEquals(List.of(), mirrorCalls);
    }

    @Test
    void disabledModeFillsValuesOfOtherTransactionsAndCountsThem() {
        buffer(83, 4, 100, TEXT); // an earlier commit's chunks: not this transaction's
        RowChange r = row(200, plain(83, TEXT.length));
        RowChange out = resolver(ToastResolver.Mode.DISABLED, 1 << 20).resolve(r, 5);
        assertSame(r, out, "a filled value stays a pointer: the sink writes it NULL/empty");
        assertEquals(1, counters.filledDefault);
        assertEquals(0, counters.resolvedBuffered);
    }

    @Test
    void clickhouseModeUsesRecentCommitsChunksThenTheMirrorAsOfTheReferrer() {
        ToastResolver res = resolver(ToastResolver.Mode.CLICKHOUSE, 1 << 20);
        buffer(84, 4, 100, TEXT);
        assertEquals(new String(TEXT, StandardCharsets.UTF_8), res.resolve(row(200, plain(84, TEXT.length)), 5).newValues()[1]);
        // a buffered chunk newer than the referring record is another generation: ask the mirror as of the record
        buffer(85, 4, 300, TEXT);
        mirror.put(85, List.of(new ToastMirror.Chunk(0, Arrays.copyOf(TEXT, 10)), new ToastMirror.Chunk(1,
                Arrays.copyOfRange(TEXT, 10, TEXT.length))));
        assertEquals(new String(TEXT, StandardCharsets.UTF_8), res.resolve(row(200, plain(85, TEXT.length)), 5).newValues()[1]);
        assertEquals(List.of("85@200"), mirrorCalls);
        assertEquals(1, counters.resolvedMirror);
        assertEquals(1, counters.resolvedBuffered);
    }

    @Test
    void mirrorMissesStopTheJobUnlessFillingIsAllowed() {
        ToastResolver strict = resolver(ToastResolver.Mode.CLICKHOUSE, 1 << 20);
        ToastResolutionException absent = assertThrows(ToastResolutionException.class,
                () -> strict.resolve(row(200, plain(90, TEXT.length)), 5));
        assertEquals(ToastResolutionException.Kind.MISSING_VALUE, absent.kind());
        assertTrue(absent.getMessage().startsWith("TOAST value 90 of s.docs.body (TOAST relation 9001) referenced at"
                + " 0/000000C8: its ClickHouse mirror pg_toast_9001 holds no chunk of it at that LSN;"), absent.getMessage());
        assertTrue(absent.getMessage().contains("--toast.missing fill"), absent.getMessage());
        mirror.put(91, List.of(new ToastMirror.Chunk(0, Arrays.copyOf(TEXT, 10)), new ToastMirror.Chunk(2,
                Arrays.copyOfRange(TEXT, 10, TEXT.length)))); // seq 1 merged away
        ToastResolutionException partial = assertThrows(ToastResolutionException.class,
                () -> strict.resolve(row(200, plain(91, TEXT.length)), 5));
        assertTrue(partial.getMessage().contains("holds 2 chunks that do not make up its " + TEXT.length
                + " stored bytes"), partial.getMessage());
        assertEquals(0, counters.filledSuperseded + counters.filledMismatch, "nothing filled");

        ToastResolver res = resolver(ToastResolver.Mode.CLICKHOUSE, ToastResolver.Missing.FILL, 1 << 20);
        RowChange none = row(200, plain(90, TEXT.length));
        assertSame(none, res.resolve(none, 5));
        assertEquals(1, counters.filledSuperseded);

        mirror.put(91, List.of(new ToastMirror.Chunk(0, Arrays.copyOf(TEXT, 10)), new ToastMirror.Chunk(2,
                Arrays.copyOfRange(TEXT, 10, TEXT.length)))); // seq 1 merged away
        mirror.put(92, List.of(new ToastMirror.Chunk(0, Arrays.copyOf(TEXT, 10)))); // short: the chimera guard
        assertTrue(res.resolve(row(200, plain(91, TEXT.length)), 5).newValues()[1] instanceof ToastPointer);
        assertTrue(res.resolve(row(200, plain(92, TEXT.length)), 5).newValues()[1] instanceof ToastPointer);
        assertEquals(2, counters.filledMismatch);

        mirrorMissing = true;
        ToastResolutionException e = assertThrows(ToastResolutionException.class,
                () -> res.resolve(row(200, plain(93, TEXT.length)), 5));
        assertEquals(ToastResolutionException.Kind.MISSING_MIRROR, e.kind());
        assertTrue(e.getMessage().contains("pg_toast_9001"), e.getMessage());
    }

    @Test
    void pendingRowsFetchTogetherAndKeepTheirBufferedValues() {
        ToastResolver res = resolver(ToastResolver.Mode.CLICKHOUSE, 1 << 20);
        RelationDescriptor two = new RelationDescriptor(501, new RelFileLocator(1663, 5, 501), "s", "two", 'r', 'p', 'd',
                TOAST, List.of(DOCS.column(1), DOCS.column(2), new Column(3, "more", Oids.TEXT, -1, -1, 'i', false, 'x',
                        false, false, null)), List.of(1));
        buffer(95, 5, 100, TEXT);
        byte[] other = "x".repeat(3000).getBytes(StandardCharsets.UTF_8);
        mirror.put(96, List.of(new ToastMirror.Chunk(0, other)));
        mirror.put(97, List.of(new ToastMirror.Chunk(0, TEXT)));
        RowChange both = new RowChange(300, 700, RowChange.Op.UPDATE, two.locator(), two, new Tid(1, 1), new Tid(1, 2),
                new Object[] {1, plain(95, TEXT.length), plain(96, other.length)}, new Object[] {1, null, null}, false);
        RowChange one = row(310, plain(97, TEXT.length));
        ToastResolver.Pending p1 = (ToastResolver.Pending) res.prepare(both, 6);
        ToastResolver.Pending p2 = (ToastResolver.Pending) res.prepare(one, 6);
        assertEquals(other.length + 4 + TEXT.length + 4, p1.rawBytes() + p2.rawBytes(), "waiting for 96 and 97 only");
        var fetched = res.fetch(List.of(p1, p2));
        assertEquals(List.of("96@300", "97@310"), mirrorCalls.stream().sorted().toList(), "one call, both values");
        RowChange r1 = res.complete(p1, fetched);
        RowChange r2 = res.complete(p2, fetched);
        assertEquals(new String(TEXT, StandardCharsets.UTF_8), r1.newValues()[1]);
        assertEquals("x".repeat(3000), r1.newValues()[2]);
        assertEquals(new String(TEXT, StandardCharsets.UTF_8), r2.newValues()[1]);
        assertEquals(1, counters.resolvedBuffered);
        assertEquals(2, counters.resolvedMirror);
    }

    @Test
    void chunkRowsAreRecognisedByShape() {
        ToastResolver res = resolver(ToastResolver.Mode.CLICKHOUSE, 1 << 20);
        byte[] data = {1, 2, 3};
        RowChange chunk = new RowChange(100, 700, RowChange.Op.INSERT, CHUNKS.locator(), CHUNKS, new Tid(0, 1), null,
                new Object[] {0xFFFF_FFF0L, 3, data}, null, false);
        ToastResolver.Chunk c = res.chunkOf(chunk);
        assertEquals(0xFFFF_FFF0, c.valueId());
        assertEquals(3, c.seq());
        assertEquals(TOAST, c.toastRelOid());
        assertArrayEquals(data, c.data());
        RowChange wrong = new RowChange(100, 700, RowChange.Op.INSERT, CHUNKS.locator(), CHUNKS, new Tid(0, 2), null,
                new Object[] {1L, "3", data}, null, false);
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> res.chunkOf(wrong));
        assertEquals("row of TOAST relation pg_toast.pg_toast_500 at 0/00000064 is not a chunk (chunk_id oid, chunk_seq"
                + " int4, chunk_data bytea); values referring to it could not be rebuilt (--toast.missing fill"
                + " skips such rows and fills the values)", refused.getMessage());
        assertNull(resolver(ToastResolver.Mode.CLICKHOUSE, ToastResolver.Missing.FILL, 1 << 20).chunkOf(wrong));
        assertEquals(2, counters.chunksMalformed);
        assertEquals(3, counters.chunks);
        assertTrue(ToastResolver.isToastRelation(CHUNKS) && !ToastResolver.isToastRelation(DOCS));
    }
}
