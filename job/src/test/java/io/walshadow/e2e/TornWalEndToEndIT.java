package io.walshadow.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.walshadow.buffer.TestMetricReporter;
import io.walshadow.testing.ExpectedFaults;
import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A record torn by a crash: PostgreSQL crashes while the tail of a record that crosses into the next WAL segment was
 * never flushed, so crash recovery finds its continuation missing and writes new WAL over it, starting that segment
 * with a page flagged XLP_FIRST_IS_OVERWRITE_CONTRECORD and an XLOG_OVERWRITE_CONTRECORD record naming the record
 * given up (PostgreSQL's own test 026_overwrite_contrecord does the same: fill a segment, write a 600 kB record
 * across its end, stop with {@code -m immediate}, remove the next segment). The job had streamed the flushed head
 * of that record; it must read on past it as the server does (the record's transaction never committed), not fail
 * on the missing continuation at every restart.
 *
 * <p>Run on the second cluster of {@code stack.sh pg-wrap-start}: losing a segment file is not done to the shared
 * one. What the server wrote is checked from outside with pg_walinspect.
 */
@Tag("faults")
@ExpectedFaults("torn and corrupt WAL, PostgreSQL killed mid-write")
class TornWalEndToEndIT {

    @Test
    void recordTornByACrashAndOverwrittenByRecoveryIsSkippedAsTheServerDoes() throws Exception {
        E2e.stack("pg-wrap-start");
        try (E2e e = new E2e("e2e_torn", LocalPg.wrapPort())) {
            String s = e.schema;
            LocalPg.exec(e.pg, "CREATE TABLE " + s + ".items (id int PRIMARY KEY, note text)",
                    "CREATE TABLE " + s + ".filler (a int)",
                    "INSERT INTO " + s + ".items SELECT g, CASE WHEN g % 10 = 0 THEN repeat(md5(g::text), 300)"
                            + " ELSE 'before' END FROM generate_series(1, 100) g");
            TestMetricReporter.METRICS.clear();
            e.start(e.config("--checkpoint.interval", "1s"), null, 20);
            e.awaitCaughtUp(Duration.ofMinutes(2));

            // An open transaction: rows, then (later) the record torn by the crash; it never commits.
            Connection open = e.connectPg();
            LocalPg.exec(open, "BEGIN", "INSERT INTO " + s + ".items SELECT g, repeat(md5(g::text), 300) FROM"
                    + " generate_series(1001, 1050) g");
            // Committed rows before the torn record: they must arrive.
            LocalPg.exec(e.pg, "INSERT INTO " + s + ".items SELECT g, 'committed before' FROM generate_series(101, 200) g");
            // Fill the segment up to less than two pages from its end (as 026_overwrite_contrecord does).
            LocalPg.exec(e.pg, "DO $$DECLARE seg int := setting::int FROM pg_settings WHERE name = 'wal_segment_size';"
                    + " BEGIN LOOP INSERT INTO " + s + ".filler SELECT * FROM generate_series(1, 10);"
                    + " EXIT WHEN seg - (pg_current_wal_insert_lsn() - '0/0') % seg < 16384; END LOOP; END$$");
            String before = LocalPg.queryString(e.pg, "SELECT pg_current_wal_insert_lsn()::text");
            String startSegment = LocalPg.queryString(e.pg, "SELECT pg_walfile_name(pg_current_wal_insert_lsn())");
            // 617 kB in one record, from the end of this segment well into the next one.
            LocalPg.exec(open, "SELECT pg_logical_emit_message(true, 'walshadow torn', repeat('xyzxz', 123456))");
            String endSegment = LocalPg.queryString(e.pg, "SELECT pg_walfile_name(pg_current_wal_insert_lsn())");
            assertNotEquals(startSegment, endSegment, "the record crosses into the next segment");
            // More WAL than wal_buffers holds, after it: the server must write the record's head out to its file
            // (left in the buffers, the crash would lose the whole record, and nothing would be torn)
            LocalPg.exec(open, "SELECT count(pg_logical_emit_message(true, 'walshadow pad', repeat('p', 600000)))"
                    + " FROM generate_series(1, (SELECT 2 + setting::bigint * 8192 / 600000 FROM pg_settings"
                    + " WHERE name = 'wal_buffers'))");
            E2e.stack("pg-wrap-crash-torn", endSegment);
            open.close(); // broken by the crash
            e.reconnectPg();

            LocalPg.exec(e.pg, "INSERT INTO " + s + ".items SELECT g, 'committed after' FROM generate_series(201, 300) g",
                    "UPDATE " + s + ".items SET note = repeat(md5(id::text), 300) WHERE id % 7 = 0",
                    "CHECKPOINT");
            e.awaitCaughtUp(Duration.ofMinutes(3));
            Map<String, Integer> compared = e.assertAllTablesEqual();
            e.assertEachCommitOnce();
            assertEquals("300", LocalPg.queryString(e.pg, "SELECT count(*) FROM " + s + ".items"));

            // From outside: the server did overwrite a record, at the start of the segment it lost.
            LocalPg.exec(e.pg, "CREATE EXTENSION IF NOT EXISTS pg_walinspect");
            String overwrite = LocalPg.queryString(e.pg, "SELECT start_lsn::text || ' ' || pg_walfile_name(start_lsn)"
                    + " FROM pg_get_wal_records_info('" + before + "', pg_current_wal_flush_lsn())"
                    + " WHERE resource_manager = 'XLOG' AND record_type = 'OVERWRITE_CONTRECORD'");
            assertEquals(endSegment, overwrite == null ? null : overwrite.split(" ")[1],
                    "the server wrote OVERWRITE_CONTRECORD at the start of the lost segment: " + overwrite);
            assertEquals(1, TestMetricReporter.value("overwritten_records"),
                    "the source counts the partial record it skipped");
            System.out.printf("torn WAL: record from %s overwritten at %s; tables %s equal%n", before, overwrite,
                    compared);
        } finally {
            E2e.stack("pg-wrap-stop");
        }
    }
}
