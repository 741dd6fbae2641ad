package io.walshadow.source;

import io.walshadow.pg.PgConnectionConfig;
import io.walshadow.wal.Lsn;
import io.walshadow.wal.WalDecodeException;
import io.walshadow.wal.WalFormat;
import io.walshadow.wal.XLogRecord;
import io.walshadow.wal.XLogStreamReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs in the source's fetcher thread: owns the walsender connection, turns XLogData messages into verified
 * records, and reports the confirmed position back to the server.
 *
 * <p>The slot only ever learns positions that a completed checkpoint can restore from ({@link SlotFeedback}); pgjdbc's
 * automatic flush is turned off for that reason, since it would confirm WAL the job has not checkpointed.
 *
 * <p>Under backpressure the fetcher thread waits in Flink's hand-over queue, outside {@link #fetch}, for as long as
 * the stages behind are slow; a status message goes out from a timer meanwhile (confirming only checkpointed
 * positions), or the server would end the walsender after {@code wal_sender_timeout} of silence and the job would
 * restart for nothing. The stream is used under {@link #streamLock} by either thread.
 */
final class WalSplitReader implements SplitReader<XLogRecord, WalSplit> {
    private static final Logger LOG = LoggerFactory.getLogger(WalSplitReader.class);
    private static final long IDLE_SLEEP_MS = 10;
    private static final long MAX_FETCH_WAIT_MS = 100;

    private final PgConnectionConfig pg;
    private final WalSourceOptions options;
    private final SlotFeedback feedback;

    private WalSplit split;
    private Connection replicationConnection;
    /** For {@link #pollServerPosition}. */
    private Connection positionSql;
    private long nextServerPoll;
    private PGReplicationStream stream;
    private XLogStreamReader reader;
    private volatile boolean wakeUp;
    /** Set when the reader is closed: the stream's failure that follows (its socket closed under it) is expected. */
    private volatile boolean closing;
    private final Object streamLock = new Object();
    private java.util.concurrent.ScheduledExecutorService keepalive;
    /** When {@link #fetch} last talked to the server (nanoTime). */
    private volatile long lastFetchNanos;
    private long overwrittenSeen;

    WalSplitReader(PgConnectionConfig pg, WalSourceOptions options, SlotFeedback feedback) {
        this.pg = pg;
        this.options = options;
        this.feedback = feedback;
    }

    @Override
    public RecordsWithSplitIds<XLogRecord> fetch() throws IOException {
        RecordsBySplits.Builder<XLogRecord> batch = new RecordsBySplits.Builder<>();
        if (split == null) {
            return batch.build();
        }
        synchronized (streamLock) {
            return fetchLocked(batch);
        }
    }

    private RecordsWithSplitIds<XLogRecord> fetchLocked(RecordsBySplits.Builder<XLogRecord> batch) throws IOException {
        try {
            if (stream == null) {
                start();
            }
            lastFetchNanos = System.nanoTime();
            reportConfirmed();
            pollServerPosition();
            String id = split.splitId();
            int n = 0;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_FETCH_WAIT_MS);
            while (n < options.maxRecordsPerFetch() && !wakeUp) {
                XLogRecord r = reader.next();
                if (r != null) {
                    if (reader.overwrittenRecords() != overwrittenSeen) {
                        noteOverwritten(r);
                    }
                    batch.add(id, r);
                    n++;
                    continue;
                }
                ByteBuffer data = stream.readPending();
                if (data == null) {
                    if (n > 0 || System.nanoTime() > deadline) {
                        break;
                    }
                    reportConfirmed();
                    Thread.sleep(IDLE_SLEEP_MS);
                    continue;
                }
                // pgjdbc reports the end of a physical XLogData message; the payload ends there.
                long end = stream.getLastReceiveLSN().asLong();
                reader.feed(end - data.remaining(), data);
                feedback.receivedLsn = end;
            }
            wakeUp = false;
            return batch.build();
        } catch (WalDecodeException e) {
            if (DecodeFailures.exhausted(options.slotName(), e)) {
                throw withoutRestart(new IllegalStateException(e.getMessage() + " (failed the same way at this LSN "
                        + DecodeFailures.LIMIT + " times: the job stops instead of restarting; look at the WAL with"
                        + " pg_waldump -s " + Lsn.format(e.lsn()) + " on the server's pg_wal)", e));
            }
            throw e;
        } catch (SQLException e) {
            if (closing) {
                // the task is cancelled or the job stops: close() shut the connection under this read
                LOG.debug("replication stream of slot {} closed while reading: {}", options.slotName(), e.toString());
                return batch.build();
            }
            throw new IOException("replication stream of slot " + options.slotName() + " failed at "
                    + Lsn.format(reader == null ? Lsn.INVALID : reader.feedLsn()) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return batch.build();
        }
    }

    /** A partial record the server's crash recovery wrote over: skipped, as the server does; said and counted. */
    private void noteOverwritten(XLogRecord overwrite) {
        overwrittenSeen = reader.overwrittenRecords();
        feedback.overwrittenRecords++;
        LOG.warn("WAL at {}: the partial record at {} was never completed (the server crashed before the rest was"
                + " flushed) and was overwritten by its crash recovery; reading on, as the server does (its"
                + " transaction did not commit)", Lsn.format(overwrite.lsn()), Lsn.format(reader.lastOverwrittenLsn()));
    }

    private void start() throws SQLException {
        WalFormat format;
        int segmentSize;
        long restartLsn;
        try (Connection sql = pg.openSql()) {
            try {
                // a major whose WAL can be read but whose rows are not decoded yet stops the job at once, by name
                format = WalFormat.forReplication(intQuery(sql, "SHOW server_version_num"));
            } catch (WalFormat.UnsupportedServerVersionException e) {
                throw withoutRestart(new IllegalStateException(e.getMessage(), e));
            }
            segmentSize = intQuery(sql, "SELECT setting::int * CASE unit WHEN 'B' THEN 1 WHEN 'kB' THEN 1024"
                    + " WHEN 'MB' THEN 1048576 END FROM pg_settings WHERE name = 'wal_segment_size'");
            try {
                restartLsn = ReplicationSlots.ensure(sql, options.slotName(), options.createSlot());
            } catch (ReplicationSlots.SlotInvalidatedException e) {
                throw withoutRestart(e);
            }
        }
        replicationConnection = pg.openReplication();
        int timeline = identifyTimeline(replicationConnection);
        if (split.timeline() != 0 && split.timeline() != timeline) {
            throw new WalDecodeException(WalDecodeException.Kind.TIMELINE_CHANGE, split.resumeLsn(),
                    "checkpoint was taken on timeline " + split.timeline() + " but the server is on timeline "
                            + timeline + "; following a timeline switch is not supported yet");
        }
        long start = split.resumeLsn();
        if (start == Lsn.INVALID) {
            start = restartLsn;
        } else if (Long.compareUnsigned(start, restartLsn) < 0) {
            throw withoutRestart(new IllegalStateException("slot " + options.slotName() + " was advanced to "
                    + Lsn.format(restartLsn) + " past this restore's position " + Lsn.format(start) + ": the WAL this"
                    + " checkpoint needs may be gone (restoring an older checkpoint or savepoint than the slot has"
                    + " confirmed?)"));
        }
        feedback.timeline = timeline;
        reader = new XLogStreamReader(format, segmentSize, start, split.lastRecordLsn(), false);
        overwrittenSeen = 0;
        stream = replicationConnection.unwrap(PGConnection.class).getReplicationAPI().replicationStream().physical()
                .withSlotName(options.slotName())
                .withStartPosition(LogSequenceNumber.valueOf(start))
                .withStatusInterval(options.statusIntervalMs(), TimeUnit.MILLISECONDS)
                .withAutomaticFlush(false)
                .start();
        startKeepalive();
        LOG.info("streaming WAL from slot {} at {} (timeline {}, PostgreSQL {}, segment size {})",
                options.slotName(), Lsn.format(start), timeline, format.major, segmentSize);
    }

    /** An error every restart would meet again: logged once, and Flink is told not to restart. */
    private static RuntimeException withoutRestart(IllegalStateException e) {
        LOG.error("{}", e.getMessage());
        return new org.apache.flink.runtime.execution.SuppressRestartsException(e);
    }

    private static int identifyTimeline(Connection replication) throws SQLException {
        try (Statement st = replication.createStatement(); ResultSet rs = st.executeQuery("IDENTIFY_SYSTEM")) {
            rs.next();
            return rs.getInt("timeline");
        }
    }

    private static int intQuery(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * Polls the server's current WAL position (for the lag metric) about once a second, on a SQL connection of its
     * own. A failure only costs the metric: logged, the connection reopened next time.
     */
    private void pollServerPosition() {
        long now = System.nanoTime();
        if (now < nextServerPoll) {
            return;
        }
        nextServerPoll = now + TimeUnit.SECONDS.toNanos(1);
        try {
            if (positionSql == null || positionSql.isClosed()) {
                positionSql = pg.openSql();
            }
            try (java.sql.Statement st = positionSql.createStatement();
                 java.sql.ResultSet rs = st.executeQuery("SELECT CASE WHEN pg_is_in_recovery()"
                         + " THEN pg_last_wal_receive_lsn() ELSE pg_current_wal_lsn() END, s.wal_status,"
                         + " s.safe_wal_size, s.restart_lsn FROM (SELECT 1) one LEFT JOIN pg_replication_slots s"
                         + " ON s.slot_name = '" + options.slotName() + "'")) {
                if (rs.next() && rs.getString(1) != null) {
                    feedback.serverWalEnd = Lsn.parse(rs.getString(1));
                    feedback.slotWalStatus = SlotFeedback.walStatusCode(rs.getString(2));
                    long safe = rs.getLong(3);
                    feedback.slotSafeWalSize = rs.wasNull() ? -1 : safe;
                    String restart = rs.getString(4);
                    feedback.slotRestartLsn = restart == null ? 0 : Lsn.parse(restart);
                }
            }
        } catch (SQLException | RuntimeException e) {
            LOG.debug("polling the server's WAL position failed: {}", e.toString());
            try {
                if (positionSql != null) {
                    positionSql.close();
                }
            } catch (SQLException ignored) {
                // closing a broken connection
            }
            positionSql = null;
        }
    }

    /**
     * Every status interval: when {@link #fetch} has not run for that long (the fetcher waits behind a full queue),
     * report the confirmed position and a keepalive. A failure is left for the next fetch to meet.
     */
    private void startKeepalive() {
        if (keepalive != null) {
            return;
        }
        long interval = Math.max(100, options.statusIntervalMs());
        keepalive = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "walsender keepalive " + options.slotName());
            t.setDaemon(true);
            return t;
        });
        keepalive.scheduleWithFixedDelay(() -> {
            if (System.nanoTime() - lastFetchNanos < TimeUnit.MILLISECONDS.toNanos(interval)) {
                return;
            }
            synchronized (streamLock) {
                if (stream == null || System.nanoTime() - lastFetchNanos < TimeUnit.MILLISECONDS.toNanos(interval)) {
                    return;
                }
                try {
                    reportConfirmed();
                    stream.forceUpdateStatus();
                    feedback.keepalivesWhileBackpressured++;
                } catch (SQLException | RuntimeException e) {
                    LOG.debug("keepalive to slot {} failed: {}", options.slotName(), e.toString());
                }
            }
        }, interval, interval, TimeUnit.MILLISECONDS);
    }

    /** Sends the confirmed position when a checkpoint completed since the last report. */
    private void reportConfirmed() throws SQLException {
        long confirmed = feedback.confirmed();
        if (confirmed != Lsn.INVALID && confirmed != feedback.reportedLsn) {
            LogSequenceNumber lsn = LogSequenceNumber.valueOf(confirmed);
            stream.setFlushedLSN(lsn);
            stream.setAppliedLSN(lsn);
            stream.forceUpdateStatus();
            feedback.reportedLsn = confirmed;
            LOG.debug("confirmed {} to slot {}", Lsn.format(confirmed), options.slotName());
        }
    }

    @Override
    public void handleSplitsChanges(SplitsChange<WalSplit> change) {
        if (!(change instanceof SplitsAddition)) {
            throw new UnsupportedOperationException("unsupported split change " + change);
        }
        for (WalSplit s : change.splits()) {
            if (split != null) {
                throw new IllegalStateException("a WAL reader takes one slot; got " + s + " while reading " + split);
            }
            split = s;
        }
    }

    @Override
    public void wakeUp() {
        wakeUp = true;
    }

    @Override
    public void close() throws Exception {
        closing = true;
        if (keepalive != null) {
            keepalive.shutdownNow();
        }
        // Closing the socket is enough to end the walsender; PGReplicationStream.close() would first wait for
        // the server to drain the copy stream, which can stall a cancelling task.
        if (replicationConnection != null) {
            try {
                replicationConnection.close();
            } catch (SQLException e) {
                // the driver cancels the copy stream it is in the middle of ("canceling statement due to user
                // request"): the walsender ends either way, and a stopping job has nothing to learn from it
                LOG.debug("closing the replication connection of slot {}: {}", options.slotName(), e.toString());
            }
        }
        if (positionSql != null) {
            positionSql.close();
        }
    }
}
