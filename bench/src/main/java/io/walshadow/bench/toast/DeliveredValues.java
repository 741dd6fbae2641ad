package io.walshadow.bench.toast;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.connect.data.Struct;

/**
 * What Debezium delivered of the large columns ({@code body}, {@code blob}), per operation: values, their bytes, and
 * how many were the unavailable-value placeholder (an UPDATE that left a TOAST value unchanged, without
 * {@code REPLICA IDENTITY FULL}: logical decoding does not send it). The {@code DebeziumContender}'s inspector.
 */
final class DeliveredValues implements Consumer<Struct> {
    private static final byte[] PLACEHOLDER = DocsWorkload.PLACEHOLDER.getBytes(StandardCharsets.UTF_8);

    /** Counts of one operation. */
    static final class Counts {
        final AtomicLong events = new AtomicLong();
        final AtomicLong values = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong placeholders = new AtomicLong();
    }

    volatile Counts inserts = new Counts();
    volatile Counts updates = new Counts();

    void reset() {
        inserts = new Counts();
        updates = new Counts();
    }

    @Override
    public void accept(Struct v) {
        String op = v.getString("op");
        Counts c = "c".equals(op) ? inserts : "u".equals(op) ? updates : null;
        Struct after = v.getStruct("after");
        if (c == null || after == null) {
            return;
        }
        c.events.incrementAndGet();
        for (String column : new String[] {"body", "blob"}) {
            Object x = after.get(column);
            boolean placeholder;
            long n;
            if (x instanceof String s) {
                n = s.length();
                placeholder = s.equals(DocsWorkload.PLACEHOLDER);
            } else if (x instanceof byte[] b) {
                n = b.length;
                placeholder = Arrays.equals(b, PLACEHOLDER);
            } else if (x instanceof ByteBuffer b) {
                n = b.remaining();
                placeholder = b.equals(ByteBuffer.wrap(PLACEHOLDER));
            } else {
                continue; // null
            }
            c.values.incrementAndGet();
            if (placeholder) {
                c.placeholders.incrementAndGet();
            } else {
                c.bytes.addAndGet(n);
            }
        }
    }
}
