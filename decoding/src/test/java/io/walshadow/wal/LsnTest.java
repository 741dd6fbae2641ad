package io.walshadow.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** LSN text as the job prints it ({@code %X/%08X}), checked against {@link String#format}, and parsed back. */
class LsnTest {
    @Test
    void formatsAsPostgresAndParsesBack() {
        assertEquals("0/00000000", Lsn.format(0));
        assertEquals("0/016B3748", Lsn.format(0x16B3748L));
        assertEquals("3/250D3C70", Lsn.format(0x3_250D3C70L));
        assertEquals("FFFFFFFF/FFFFFFFF", Lsn.format(-1L));
        SplittableRandom r = new SplittableRandom(42);
        for (int i = 0; i < 10_000; i++) {
            long lsn = i % 2 == 0 ? r.nextLong() : r.nextLong(1L << (4 * r.nextInt(1, 16)));
            String text = Lsn.format(lsn);
            assertEquals(String.format("%X/%08X", lsn >>> 32, lsn & 0xFFFFFFFFL), text);
            assertEquals(lsn, Lsn.parse(text));
        }
    }
}
