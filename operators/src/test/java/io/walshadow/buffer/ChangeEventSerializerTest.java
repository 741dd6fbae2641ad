package io.walshadow.buffer;

import io.walshadow.codec.RelationDescriptorCodec;
import io.walshadow.codec.StateFormatException;
import io.walshadow.codec.ValueCodec;
import io.walshadow.codec.XactRecordCodec;
import io.walshadow.source.XLogRecordSerializer;
import io.walshadow.testing.Samples;

import static io.walshadow.testing.Deep.assertDeepEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.change.ChangeEvent;
import io.walshadow.change.DeferredRecord;
import io.walshadow.change.RowChange;
import io.walshadow.change.TruncateChange;
import io.walshadow.change.XactEvent;
import io.walshadow.heap.Tid;
import io.walshadow.wal.Rmgrs;
import io.walshadow.wal.XLogRecord;
import io.walshadow.xact.XactCommit;
import io.walshadow.xact.XactInfo;
import io.walshadow.xact.XactRecord;
import io.walshadow.xact.XactRecordParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

class ChangeEventSerializerTest {
    static byte[] serialize(TypeSerializer<ChangeEvent> s, ChangeEvent e) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(e, out);
        return out.getCopyOfBuffer();
    }

    static ChangeEvent deserialize(TypeSerializer<ChangeEvent> s, byte[] b) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(b);
        ChangeEvent e = s.deserialize(in);
        assertEquals(0, in.available(), "whole event consumed");
        return e;
    }

    @Test
    void everyEventKindRoundTrips() throws IOException {
        ChangeEventSerializer s = new ChangeEventSerializer();
        Set<Class<?>> kinds = new java.util.HashSet<>();
        Set<RowChange.Op> ops = EnumSet.noneOf(RowChange.Op.class);
        for (ChangeEvent e : Samples.events()) {
            ChangeEvent back = deserialize(s, serialize(s, e));
            assertDeepEquals(e, back);
            kinds.add(e.getClass());
            if (e instanceof RowChange r) {
                ops.add(r.op());
            }
            if (e instanceof XactEvent x && x.xact() != null) {
                assertEquals(x.xact(), ((XactEvent) back).xact()); // XactRecords have value equality
                assertEquals(e.lsn(), back.lsn());
                assertEquals(e.xid(), back.xid());
            }
        }
        assertEquals(Set.of(RowChange.class, TruncateChange.class, DeferredRecord.class, XactEvent.class), kinds);
        assertEquals(EnumSet.allOf(RowChange.Op.class), ops);
    }

    @Test
    void rowValuesOfEveryClassRoundTripInsideARowChange() throws IOException {
        RelationDescriptor d = Samples.descriptor();
        List<Object> values = new ArrayList<>(Samples.scalars());
        values.addAll(Samples.composites());
        RowChange r = new RowChange(1, 2, RowChange.Op.UPDATE, Samples.LOC, d, new Tid(1, 1), new Tid(1, 2),
                values.toArray(), values.toArray(), true);
        ChangeEventSerializer s = new ChangeEventSerializer();
        assertDeepEquals(r, deserialize(s, serialize(s, r)));
    }

    @Test
    void deferredRecordKeepsTheRawRecordAndItsBlocks() throws IOException {
        DeferredRecord d = (DeferredRecord) Samples.events().stream().filter(e -> e instanceof DeferredRecord)
                .findFirst().orElseThrow();
        ChangeEventSerializer s = new ChangeEventSerializer();
        DeferredRecord back = (DeferredRecord) deserialize(s, serialize(s, d));
        XLogRecord r = back.record();
        assertEquals(Rmgrs.RM_HEAP_ID, r.rmid());
        assertEquals(d.record().xid(), r.xid());
        assertEquals(d.record().mainDataLength(), r.mainDataLength());
        assertEquals(d.record().blocks(), r.blocks());
        // the record part is laid out exactly as XLogRecordSerializer lays it out
        DataOutputSerializer xo = new DataOutputSerializer(64);
        XLogRecordSerializer.INSTANCE.serialize(d.record(), xo);
        byte[] eventBytes = serialize(s, d);
        byte[] recordBytes = xo.getCopyOfBuffer();
        assertArrayEquals(recordBytes, java.util.Arrays.copyOfRange(eventBytes, eventBytes.length - recordBytes.length,
                eventBytes.length));
    }

    @Test
    void parsedTransactionRecordsRoundTrip() throws IOException {
        // a real COMMIT main data: xact_time, xinfo (dbinfo, subxacts, invals), dbinfo, 2 subxids, 1 relcache inval
        ByteArrayOutputStream m = new ByteArrayOutputStream();
        le(m, 725_846_400_123_456L, 8);
        le(m, XactInfo.XACT_XINFO_HAS_DBINFO | XactInfo.XACT_XINFO_HAS_SUBXACTS | XactInfo.XACT_XINFO_HAS_INVALS, 4);
        le(m, 16384, 4);
        le(m, 1663, 4);
        le(m, 2, 4);
        le(m, 1001, 4);
        le(m, 1002, 4);
        le(m, 1, 4);
        m.write(-2); // relcache
        m.write(new byte[3]);
        le(m, 16384, 4);
        le(m, 16390, 4);
        le(m, 0, 4);
        XLogRecord rec = Samples.walRecord(Rmgrs.RM_XACT_ID, XactInfo.XLOG_XACT_COMMIT | XactInfo.XLOG_XACT_HAS_INFO,
                1000, m.toByteArray(), 0x2_0000_0000L);
        XactRecord x = XactRecordParser.parse(rec);
        assertTrue(x instanceof XactCommit c && c.subxids().size() == 2 && c.invals().size() == 1, x.toString());
        XactEvent e = new XactEvent(x, Samples.catalogChanges());
        ChangeEventSerializer s = new ChangeEventSerializer();
        XactEvent back = (XactEvent) deserialize(s, serialize(s, e));
        assertEquals(x, back.xact());
        assertDeepEquals(e, back);
        assertEquals(Set.of(16390), ((XactCommit) back.xact()).invals().relcacheRelIds(16384));
    }

    private static void le(ByteArrayOutputStream o, long v, int width) {
        for (int i = 0; i < width; i++) {
            o.write((int) (v >>> (8 * i)));
        }
    }

    @Test
    void eachEventDecodesAloneWithAFreshSerializer() throws IOException {
        ChangeEventSerializer writer = new ChangeEventSerializer();
        List<byte[]> encoded = new ArrayList<>();
        for (ChangeEvent e : Samples.events()) {
            encoded.add(serialize(writer, e));
        }
        List<ChangeEvent> events = Samples.events();
        for (int i = encoded.size() - 1; i >= 0; i--) { // reverse order, new instance each time
            assertDeepEquals(events.get(i), deserialize(new ChangeEventSerializer(), encoded.get(i)));
        }
        // and encoding does not depend on what the instance encoded before
        for (int i = 0; i < events.size(); i++) {
            assertArrayEquals(encoded.get(i), serialize(new ChangeEventSerializer(), events.get(i)));
        }
    }

    @Test
    void descriptorsDecodeToOneSharedInstancePerSerializer() throws IOException {
        ChangeEventSerializer s = new ChangeEventSerializer();
        RelationDescriptor d = Samples.descriptor();
        RowChange a = new RowChange(1, 1, RowChange.Op.INSERT, Samples.LOC, d, new Tid(0, 1), null, Samples.row(1),
                null, false);
        RowChange b = new RowChange(2, 1, RowChange.Op.INSERT, Samples.LOC, d, new Tid(0, 2), null, Samples.row(2),
                null, false);
        RowChange ra = (RowChange) deserialize(s, serialize(s, a));
        RowChange rb = (RowChange) deserialize(s, serialize(s, b));
        assertSame(ra.descriptor(), rb.descriptor());
        assertSame(ra.descriptor().locator(), ra.rel());
        assertNotSame(ra.descriptor(), deserialize(new ChangeEventSerializer(), serialize(s, a)) instanceof RowChange r
                ? r.descriptor() : null);
    }

    @Test
    void copyBetweenViewsAndDuplicatesAndJavaSerialization() throws Exception {
        ChangeEventSerializer s = new ChangeEventSerializer();
        TypeSerializer<ChangeEvent> dup = s.duplicate();
        assertNotSame(s, dup);
        assertEquals(s, dup);
        assertEquals(s.hashCode(), dup.hashCode());
        assertTrue(s.isImmutableType());
        ChangeEventSerializer cloned = InstantiationUtil.clone(s, getClass().getClassLoader());
        assertEquals(s, cloned);
        for (ChangeEvent e : Samples.events()) {
            assertSame(e, s.copy(e));
            byte[] b = serialize(s, e);
            DataOutputSerializer out = new DataOutputSerializer(64);
            dup.copy(new DataInputDeserializer(b), out);
            assertArrayEquals(b, out.getCopyOfBuffer());
            assertDeepEquals(e, deserialize(cloned, serialize(cloned, e)));
        }
    }

    @Test
    void typeInfoCreatesTheSerializer() {
        TypeSerializer<ChangeEvent> s = ChangeEventTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl());
        assertTrue(s instanceof ChangeEventSerializer);
        assertEquals(ChangeEvent.class, ChangeEventTypeInfo.INSTANCE.getTypeClass());
        assertEquals(ChangeEventTypeInfo.INSTANCE, ChangeEventSerializer.typeInfo());
    }

    @Test
    void unknownVersionKindAndCodesAreClearErrors() throws IOException {
        ChangeEventSerializer s = new ChangeEventSerializer();
        StateFormatException e = assertThrows(StateFormatException.class, () -> deserialize(s, new byte[] {9, 1}));
        assertTrue(e.getMessage().contains("format version 9") && e.getMessage().contains("newer build"),
                e.getMessage());
        e = assertThrows(StateFormatException.class, () -> deserialize(s, new byte[] {0, 1}));
        assertTrue(e.getMessage().contains("format version 0"), e.getMessage());
        e = assertThrows(StateFormatException.class, () -> deserialize(s, new byte[] {1, 77}));
        assertTrue(e.getMessage().contains("unknown ChangeEvent kind 77"), e.getMessage());
        byte[] row = serialize(s, Samples.events().get(0));
        row[2 + 8 + 4] = 42; // op code
        e = assertThrows(StateFormatException.class, () -> deserialize(s, row));
        assertTrue(e.getMessage().contains("unknown operation code 42"), e.getMessage());
        byte[] xact = serialize(s, new XactEvent(Samples.xactRecords().get(1), List.of()));
        xact[3] = 66; // xact record kind
        e = assertThrows(StateFormatException.class, () -> deserialize(s, xact));
        assertTrue(e.getMessage().contains("unknown transaction record kind 66"), e.getMessage());
        for (ChangeEvent ev : Samples.events()) {
            byte[] b = serialize(s, ev);
            for (int n : new int[] {0, 1, 2, b.length / 2, b.length - 1}) {
                byte[] cut = java.util.Arrays.copyOf(b, n);
                assertThrows(IOException.class, () -> deserialize(new ChangeEventSerializer(), cut), ev + " cut " + n);
            }
        }
    }

    @Test
    void currentEventFormatEmbedsTheCodecsCurrentFormats() throws IOException {
        ChangeEventSerializer.Formats f = ChangeEventSerializer.formatsOf(ChangeEventSerializer.FORMAT_VERSION);
        assertEquals(ValueCodec.FORMAT_VERSION, f.value(), "ValueCodec format changed: add a ChangeEvent format");
        assertEquals(RelationDescriptorCodec.FORMAT_VERSION, f.descriptor(),
                "RelationDescriptorCodec format changed: add a ChangeEvent format");
        assertEquals(XactRecordCodec.FORMAT_VERSION, f.xact(), "XactRecordCodec format changed: add a ChangeEvent format");
        for (int v = ChangeEventSerializer.OLDEST_READABLE_FORMAT_VERSION; v <= ChangeEventSerializer.FORMAT_VERSION; v++) {
            ChangeEventSerializer.formatsOf(v); // every version in the readable range has a reader
        }
    }

    /**
     * Format version 1 pinned byte for byte (a change needs a new FORMAT_VERSION with the old reader kept, not a new
     * expected string).
     */
    @Test
    void formatVersion1IsStable() throws IOException {
        assertEquals(1, ChangeEventSerializer.FORMAT_VERSION);
        ChangeEventSerializer s = new ChangeEventSerializer();
        RelationDescriptor d = new RelationDescriptor(16390, Samples.LOC, "s", "t", 'r', 'p', 'd', 0,
                List.of(Samples.col(1, "a", 23, 4, 'i', true)), List.of(1));
        String desc = HexFormat.of().formatHex(RelationDescriptorCodec.toBytes(d));
        RowChange r = new RowChange(0x100, 7, RowChange.Op.UPDATE, Samples.LOC, d, new Tid(1, 2), new Tid(1, 1),
                new Object[] {5}, new Object[] {4}, false);
        assertEquals("01" + "01" + "0000000000000100" + "00000007" + "05" + "03"
                + String.format("%02x", desc.length() / 2) + desc + "0102" + "0101" + "02040a" + "020408",
                HexFormat.of().formatHex(serialize(s, r)));
        XactEvent x = new XactEvent(new io.walshadow.xact.XactAssignment(0x200, 0x50, 9, 8,
                io.walshadow.xact.XidList.of(9)), List.of());
        assertEquals("01" + "04" + "00" + "04" + "0000000000000200" + "50" + "00000009" + "00000008" + "02" + "00000009"
                + "01", HexFormat.of().formatHex(serialize(s, x)));
        TruncateChange t = new TruncateChange(0x300, 3, List.of(), true, true);
        assertEquals("01" + "02" + "0000000000000300" + "00000003" + "03" + "01",
                HexFormat.of().formatHex(serialize(s, t)));
    }
}
