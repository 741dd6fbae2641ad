package io.walshadow.clickhouse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

class RowBinaryBufferTest {
    /** Rows encoded for a direct write and staged after all get the staging columns after each row, nothing else. */
    @Test
    void rowsCopiedWithASuffixKeepTheirBytesAndOrder() {
        RowBinaryBuffer direct = new RowBinaryBuffer(8);
        for (int i = 0; i < 200; i++) { // past the initial capacities of both the bytes and the row ends
            direct.i32(i);
            direct.string("row " + i);
            direct.endRow();
        }
        RowBinaryBuffer staged = new RowBinaryBuffer(8);
        direct.copyRowsTo(staged, b -> SinkTables.stagingSuffix(b, 7, 2, 99));

        RowBinaryBuffer expected = new RowBinaryBuffer(8);
        for (int i = 0; i < 200; i++) {
            expected.i32(i);
            expected.string("row " + i);
            SinkTables.stagingSuffix(expected, 7, 2, 99);
            expected.endRow();
        }
        assertEquals(200, staged.rows());
        assertArrayEquals(expected.toByteArray(), staged.toByteArray());

        direct.replaceWith(staged);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(200, direct.rows());
        assertArrayEquals(expected.toByteArray(), direct.toByteArray());
        direct.copyRowsTo(new RowBinaryBuffer(8), b -> out.write(1)); // the row ends came along
        assertEquals(200, out.size());
    }

    @Test
    void aDirectRowHasNoStagingColumns() {
        RowBinaryBuffer b = new RowBinaryBuffer(8);
        SinkTables.stagingSuffix(b, SinkTables.DIRECT, 3, 5);
        assertEquals(0, b.size());
        SinkTables.stagingSuffix(b, 1, 3, 5);
        assertEquals(8 + 4 + 8, b.size());
    }

    /** A row that failed half-way is rolled back with the rows it had completed (an UPDATE's tombstone). */
    @Test
    void truncateForgetsTheRowsItCuts() {
        RowBinaryBuffer b = new RowBinaryBuffer(8);
        b.i64(1);
        b.endRow();
        int start = b.size();
        b.i64(2);
        b.endRow(); // a tombstone
        b.i32(3); // the live row fails here
        b.truncate(start);
        assertEquals(1, b.rows());
        assertEquals(8, b.size());
        b.i64(4);
        b.endRow();
        RowBinaryBuffer copy = new RowBinaryBuffer(8);
        b.copyRowsTo(copy, x -> {});
        assertEquals(2, copy.rows());
        assertEquals(16, copy.size());
    }
}
