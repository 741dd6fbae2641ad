package io.walshadow.codec;

import io.walshadow.testing.Samples;

import static io.walshadow.testing.Deep.assertDeepEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walshadow.catalog.Column;
import io.walshadow.catalog.RelationDescriptor;
import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class RelationDescriptorCodecTest {
    static RelationDescriptor roundTrip(RelationDescriptor d) throws IOException {
        return RelationDescriptorCodec.fromBytes(RelationDescriptorCodec.toBytes(d), RelationDescriptorCodec.FORMAT_VERSION);
    }

    @Test
    void roundTripIsExactIncludingMissingValuesAndDroppedColumns() throws IOException {
        for (RelationDescriptor d : List.of(Samples.descriptor(), Samples.descriptor2())) {
            RelationDescriptor back = roundTrip(d);
            assertDeepEquals(d, back);
            assertEquals(d.qualifiedName(), back.qualifiedName());
        }
        RelationDescriptor back = roundTrip(Samples.descriptor());
        assertSame(Column.UNRESOLVED_MISSING, back.column(6).missingValue());
        assertTrue(back.column(6).missingValueUnresolved());
        assertArrayEquals(new byte[0], back.column(7).missingValue()); // an empty missing value is not "unresolved"
        assertTrue(back.column(7).hasMissingValue() && !back.column(7).missingValueUnresolved());
        assertNull(back.column(1).missingValue());
        assertTrue(back.column(3).dropped());
    }

    @Test
    void oddValuesSurvive() throws IOException {
        Column c = new Column(-1, null, 0xFFFF_FFFF, Integer.MIN_VALUE, -2, '\u00ff', true, '\u1234', true, true, null);
        RelationDescriptor d = new RelationDescriptor(-1, Samples.LOC2, null, "", '\0', 'ü', '\uffff', -1,
                List.of(c), List.of(Integer.MAX_VALUE, -3));
        assertDeepEquals(d, roundTrip(d));
    }

    @Test
    void aPartitionRouteIsAnOptionalSectionThatKeepsOtherDescriptorsAsTheyWere() throws IOException {
        RelationDescriptor leaf = Samples.descriptor2();
        RelationDescriptor root = new RelationDescriptor(4242, io.walshadow.catalog.PartitionOf.rootLocator(5, 4242),
                "s", "root", 'p', 'p', 'd', 0, leaf.columns(), List.of());
        RelationDescriptor routed = leaf.withPartition(io.walshadow.catalog.PartitionOf.of(root, leaf));
        RelationDescriptor back = roundTrip(routed);
        assertDeepEquals(routed, back);
        assertEquals("root", back.partition().root().name());
        byte[] plain = RelationDescriptorCodec.toBytes(leaf);
        byte[] withRoute = RelationDescriptorCodec.toBytes(routed);
        assertTrue(withRoute.length > plain.length);
        assertArrayEquals(plain, RelationDescriptorCodec.toBytes(back.withPartition(null)));
        // a build before the section refused its relkind as not a char instead of misreading the bytes after it
        StateFormatException e = assertThrows(StateFormatException.class, () -> RelationDescriptorCodec.readChar(
                new java.io.DataInputStream(new java.io.ByteArrayInputStream(varint('r' | 0x10000))), "relkind"));
        assertTrue(e.getMessage().contains("is not a char"), e.getMessage());
    }

    private static byte[] varint(int v) throws IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        Wire.writeUVarInt(new java.io.DataOutputStream(b), v);
        return b.toByteArray();
    }

    @Test
    void encodingIsDeterministicAndCompact() {
        RelationDescriptor d = Samples.descriptor();
        byte[] a = RelationDescriptorCodec.toBytes(d);
        assertArrayEquals(a, RelationDescriptorCodec.toBytes(Samples.descriptor()));
        assertTrue(a.length < 200, "7 columns in " + a.length + " bytes");
    }

    @Test
    void damagedInputIsRefused() {
        byte[] good = RelationDescriptorCodec.toBytes(Samples.descriptor2());
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        StateFormatException e = assertThrows(StateFormatException.class,
                () -> RelationDescriptorCodec.fromBytes(trailing, 1));
        assertTrue(e.getMessage().contains("1 unread bytes"), e.getMessage());
        byte[] badFlags = good.clone();
        badFlags[good.length - 2] = (byte) 0x40; // the only column's flags byte (then an empty identity list)
        e = assertThrows(StateFormatException.class, () -> RelationDescriptorCodec.fromBytes(badFlags, 1));
        assertTrue(e.getMessage().contains("unknown flags 0x40"), e.getMessage());
        e = assertThrows(StateFormatException.class, () -> RelationDescriptorCodec.fromBytes(good, 2));
        assertTrue(e.getMessage().contains("relation descriptor format version 2"), e.getMessage());
        for (int n = 0; n < good.length; n++) {
            byte[] cut = Arrays.copyOf(good, n);
            assertThrows(IOException.class, () -> RelationDescriptorCodec.fromBytes(cut, 1));
        }
    }

    /** Format version 1 pinned byte for byte (a change needs a new FORMAT_VERSION, not a new expected string). */
    @Test
    void formatVersion1IsStable() {
        assertEquals(1, RelationDescriptorCodec.FORMAT_VERSION);
        RelationDescriptor d = new RelationDescriptor(16390, new io.walshadow.wal.RelFileLocator(1663, 5, 16391),
                "s", "t", 'r', 'p', 'd', 0,
                List.of(new Column(1, "a", 23, -1, 4, 'i', true, 'p', false, true, null),
                        new Column(2, "b", 25, -1, -1, 'i', false, 'x', false, false, new byte[] {7})),
                List.of(1));
        assertEquals("868001" + "ff0c" + "05" + "878001" + "0273" + "0274" + "72" + "70" + "64" + "00"
                + "02"
                + "02" + "0261" + "17" + "01" + "08" + "69" + "70" + "05"
                + "04" + "0262" + "19" + "01" + "01" + "69" + "78" + "08" + "0107"
                + "01" + "02", HexFormat.of().formatHex(RelationDescriptorCodec.toBytes(d)));
    }
}
