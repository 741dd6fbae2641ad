package io.walshadow.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.types.StringValue;
import org.junit.jupiter.api.Test;

/**
 * Wire's string codec writes the bytes Flink's {@link StringValue#writeString} writes (the format state and the
 * network carry) and reads them back, including what Flink wrote, leaving the stream right after the string.
 */
class WireStringTest {
    @Test
    void sameBytesAsFlinksStringValue() throws Exception {
        Random rnd = new Random(22);
        List<String> strings = new ArrayList<>(List.of("", "a", "Grüße 日本語 🎉", "\uD800 unpaired", "\u0000\u007f\u0080"));
        strings.add(null);
        for (int len : new int[] {126, 127, 128, 8190, 8191, 8192, 20000, 100000}) {
            for (int range : new int[] {0x80, 0x800, 0x10000}) {
                StringBuilder sb = new StringBuilder(len);
                for (int i = 0; i < len; i++) {
                    sb.append((char) rnd.nextInt(range));
                }
                strings.add(sb.toString());
            }
        }
        for (String s : strings) {
            DataOutputSerializer flink = new DataOutputSerializer(64);
            StringValue.writeString(s, flink);
            flink.writeInt(0x5EED);
            DataOutputSerializer ours = new DataOutputSerializer(64);
            Wire.writeString(ours, s);
            ours.writeInt(0x5EED);
            String what = s == null ? "null" : "string of " + s.length() + " chars";
            assertArrayEquals(flink.getCopyOfBuffer(), ours.getCopyOfBuffer(), what);
            DataInputDeserializer in = new DataInputDeserializer(flink.getCopyOfBuffer());
            assertEquals(s, Wire.readString(in), what);
            assertEquals(0x5EED, in.readInt(), "the stream right after the " + what);
        }
    }

    @Test
    void implausibleLengthIsRefused() {
        byte[] fiveBytesAndMore = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 1};
        assertThrows(StateFormatException.class, () -> Wire.readString(new DataInputDeserializer(fiveBytesAndMore)));
        byte[] twoGiB = {(byte) 0x82, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08}; // 2^31 + 1
        assertThrows(StateFormatException.class, () -> Wire.readString(new DataInputDeserializer(twoGiB)));
    }
}
