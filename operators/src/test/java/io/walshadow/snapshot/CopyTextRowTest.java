package io.walshadow.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** COPY text rows that no server sends are refused with an error naming the table and the row. */
class CopyTextRowTest {
    private static SnapshotChunkReader.Row parse(String line, int width) throws SQLException {
        return CopyTextRow.parse(line.getBytes(StandardCharsets.UTF_8), width, "s.t");
    }

    @Test
    void readsTidNullsAndEscapes() throws SQLException {
        SnapshotChunkReader.Row r = parse("(4294967295,291)\t\\N\t\t\\\\N\ta\\tb\\\\\\n\t\\101\\x41\n", 5);
        assertEquals(4294967295L, r.block());
        assertEquals(291, r.offset());
        assertArrayEquals(new String[] {null, "", "\\N", "a\tb\\\n", "AA"}, r.values());
    }

    @Test
    void malformedRowsAreNamed() {
        for (String bad : new String[] {"(1,2)\tx", "1,2\tx\n", "(1,2)\n", "(1,2)\tx\ty\n", "(1,2)\tx\\\n", "(,2)\tx\n",
                "(1,)\tx\n", "(1,2\tx\n"}) {
            SQLException e = assertThrows(SQLException.class, () -> parse(bad, 1), bad);
            assertTrue(e.getMessage().startsWith("COPY row of s.t "), e.getMessage());
        }
    }
}
