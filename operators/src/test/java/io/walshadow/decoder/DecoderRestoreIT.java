package io.walshadow.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.walshadow.catalog.Column;
import io.walshadow.change.ChangeEvent;
import io.walshadow.change.RowChange;
import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.source.WalSource;
import io.walshadow.source.WalSourceOptions;
import io.walshadow.testing.FlinkTestJobs;
import io.walshadow.testing.LocalPg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import io.walshadow.buffer.BufferEventSerializer;
import io.walshadow.change.BufferEvent;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;

/**
 * The decoder's catalog history lives in Flink state: after a restore, WAL written before a DDL (but after the
 * checkpoint) decodes with the shape the table had then, even though the live catalog has moved on. A decoder
 * that asked the live catalog instead would name the renamed column by its new name and invent the added one.
 */
class DecoderRestoreIT {
    /** Decoded rows of the test table by record LSN: "col=value,..." per LSN; a conflicting re-decode is kept too. */
    static final Map<String, Map<Long, List<String>>> ROWS = new ConcurrentHashMap<>();

    @Test
    void restoredHistoryDecodesPreDdlRowsWithTheirOldShape() throws Exception {
        String slot = "ws_dec_" + Long.toString(System.nanoTime(), 36);
        String table = "dec_restore_" + Long.toString(System.nanoTime(), 36);
        Path checkpoints = Files.createTempDirectory("walshadow-dec-ck");
        Map<Long, List<String>> rows = ROWS.computeIfAbsent(table, k -> new ConcurrentHashMap<>());
        try (Connection c = LocalPg.connect()) {
            LocalPg.exec(c, "CREATE TABLE " + table + " (id int PRIMARY KEY, a text)");
            JobClient first = startJob(slot, table, checkpoints, null);
            // The history starts where the decoder seeded it: probe until a row of ours comes out.
            int probe = 1000;
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (rows.values().stream().noneMatch(v -> v.get(0).contains("a=probe"))) {
                LocalPg.exec(c, "INSERT INTO " + table + " VALUES (" + probe++ + ", 'probe')");
                if (System.nanoTime() > deadline) {
                    fail("the decoder never emitted a row of " + table);
                }
                Thread.sleep(300);
            }
            Thread.sleep(1500); // let checkpoints complete past the probe rows
            first.cancel().get();
            Path restoreFrom = FlinkTestJobs.latestCheckpoint(checkpoints);

            // While the job is down: rows in the old shape, then DDL that changes the shape, then rows in the new one.
            LocalPg.exec(c, "INSERT INTO " + table + " SELECT g, 'before' FROM generate_series(1, 4) g");
            LocalPg.exec(c, "ALTER TABLE " + table + " RENAME COLUMN a TO b");
            LocalPg.exec(c, "ALTER TABLE " + table + " ADD COLUMN c int DEFAULT 7");
            LocalPg.exec(c, "INSERT INTO " + table + " SELECT g, 'after', 8 FROM generate_series(5, 7) g");
            long end = LocalPg.flushLsn(c);

            JobClient second = startJob(slot, table, checkpoints, restoreFrom);
            FlinkTestJobs.awaitTrue(() -> "the restored job decodes all rows; so far " + ROWS, Duration.ofSeconds(120), () -> rows.keySet().stream().anyMatch(l -> Long.compareUnsigned(l, end) < 0
                    && rows.get(l).get(0).contains("b=after")) && countContaining(rows, "b=after") == 3);
            second.cancel().get();
        } finally {
            try (Connection c = LocalPg.connect()) {
                FlinkTestJobs.dropSlot(c, slot);
                LocalPg.exec(c, "DROP TABLE IF EXISTS " + table);
            }
        }
        for (Map.Entry<Long, List<String>> e : rows.entrySet()) {
            assertEquals(1, e.getValue().stream().distinct().count(),
                    "record " + e.getKey() + " decoded two different ways: " + e.getValue());
        }
        List<String> before = new ArrayList<>();
        List<String> after = new ArrayList<>();
        rows.values().forEach(v -> {
            if (v.get(0).contains("before")) {
                before.add(v.get(0));
            } else if (v.get(0).contains("after")) {
                after.add(v.get(0));
            }
        });
        assertEquals(4, before.size(), "rows written before the DDL: " + before);
        for (String r : before) {
            assertTrue(r.matches("id=[1-4],a=before"), "pre-DDL row must decode with the old shape: " + r);
        }
        assertEquals(3, after.size(), "rows written after the DDL: " + after);
        for (String r : after) {
            assertTrue(r.matches("id=[5-7],b=after,c=8"), "post-DDL row must decode with the new shape: " + r);
        }
    }

    private static long countContaining(Map<Long, List<String>> rows, String s) {
        return rows.values().stream().filter(v -> v.get(0).contains(s)).count();
    }

    private static JobClient startJob(String slot, String table, Path checkpoints, Path restoreFrom) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                FlinkTestJobs.checkpointed(checkpoints, restoreFrom));
        env.setParallelism(1);
        env.getConfig().enableObjectReuse();
        PgConnectionConfig pg = FlinkTestJobs.localPg();
        env.fromSource(new WalSource(pg, WalSourceOptions.defaults(slot)), WatermarkStrategy.noWatermarks(), "wal")
                .uid("wal-source")
                .process(FlinkTestJobs.decoder(pg, slot, "public." + table, restoreFrom)).returns(BufferEventSerializer.typeInfo())
                .uid("wal-decoder")
                .map(new Collect(table)).uid("collect")
                .sinkTo(new DiscardingSink<>());
        return env.executeAsync("decoder-restore-test");
    }

    /** Records each row change of the table as "name=value,..." under its LSN. */
    static final class Collect implements MapFunction<BufferEvent, Long> {
        private final String table;

        Collect(String table) {
            this.table = table;
        }

        @Override
        public Long map(BufferEvent be) {
            ChangeEvent e = be.event();
            if (e instanceof RowChange r && r.descriptor().name().equals(table) && r.newValues() != null) {
                StringJoiner j = new StringJoiner(",");
                for (Column col : r.descriptor().columns()) {
                    if (!col.dropped()) {
                        j.add(col.name() + "=" + r.newValues()[col.attnum() - 1]);
                    }
                }
                ROWS.get(table).computeIfAbsent(r.lsn(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                        .add(j.toString());
            }
            return e.lsn();
        }
    }

}
