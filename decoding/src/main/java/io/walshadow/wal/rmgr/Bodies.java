package io.walshadow.wal.rmgr;

import io.walshadow.wal.WalDecodeException;
import io.walshadow.wal.XLogRecord;
import java.nio.ByteBuffer;

/** The main data of a record, refused (naming the record) when it is shorter than its fixed part. */
final class Bodies {
    private Bodies() {}

    static ByteBuffer main(XLogRecord r, int atLeast, String struct) {
        ByteBuffer d = r.mainData();
        if (d.remaining() < atLeast) {
            throw new WalDecodeException(WalDecodeException.Kind.TRUNCATED_RECORD, r.lsn(), struct + " of "
                    + d.remaining() + " bytes, expected at least " + atLeast);
        }
        return d;
    }
}
