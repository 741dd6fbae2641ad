package io.walshadow.bench.e2e;

import io.debezium.connector.postgresql.Module;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.walshadow.testing.LocalPg;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The reference: Debezium's PostgreSQL connector in its embedded engine, capture only (no sink).
 *
 * <p>Logical decoding with {@code pgoutput}: {@link #prepare} creates the contender's publication, limited to the
 * workload's tables, and then its logical slot (in that order: pgoutput looks the publication up as of each
 * change's WAL position, so a slot older than its publication fails with "publication does not exist"). The
 * connector uses both as they are ({@code publication.autocreate.mode=disabled}); it finds the slot existing
 * and, with no stored offset ({@code MemoryOffsetBackingStore}, new per capture), streams from the slot's
 * {@code confirmed_flush_lsn}. {@code snapshot.mode=no_data}: no initial snapshot, streaming only.
 * {@code lsn.flush.mode=manual}: the connector never confirms an LSN to the server, so the slot stays where it
 * was created and every round re-reads the same WAL. Heartbeats are off (their default, set anyway).
 *
 * <p>The cheapest consumer the 3.6 engine has: the {@link Connect} format (each {@link SourceRecord} is handed
 * over as it is, wrapped but not serialized; JSON, Avro etc. would serialize key and value) with a batch
 * {@link DebeziumEngine.ChangeConsumer} (one call per poll of the connector's queue, rather than one per record).
 * It counts the data change events (records whose value has an {@code op}), marks each processed and each batch
 * finished, as a real consumer must for the engine to track offsets. In the latency mode it also reads
 * {@code source.ts_us}, the transaction's commit time (microseconds), of each event.
 *
 * <p>Other connector settings are Debezium's defaults unless overridden with {@code --debezium key=value};
 * notably {@code max.batch.size=2048}, {@code max.queue.size=8192} and {@code poll.interval.ms=500}, which sets two
 * waits of a stream slower than a batch per 500 ms: the replication reader sleeps that long after five empty reads
 * of the stream, and the engine's poll of the queue returns only when a batch is full or that long has passed. At
 * a few hundred transactions per second they dominate the latency (hundreds of ms); {@code poll.interval.ms=10}
 * shows the connector without them.
 *
 * <p>An <em>inspector</em>, if given, sees each data change event's value (the envelope: {@code op}, {@code before},
 * {@code after}, {@code source}) as it is counted, on the engine's thread: what the TOAST benchmark reads the
 * delivered values from.
 */
public final class DebeziumContender implements Contender {
    public static final String ID = "debezium";

    private final Map<String, String> overrides;
    private final Consumer<Struct> inspector;
    private final String slot = Source.slotName(ID);
    private final String publication = Source.slotName(ID); // same name, different namespace
    private Source source;

    public DebeziumContender(Map<String, String> overrides) {
        this(overrides, null);
    }

    /** @param inspector sees each data change event's value; null for none */
    public DebeziumContender(Map<String, String> overrides, Consumer<Struct> inspector) {
        this.overrides = overrides;
        this.inspector = inspector;
    }

    @Override
    public String name() {
        return ID + "-" + Module.version();
    }

    @Override
    public String slot() {
        return slot;
    }

    @Override
    public void prepare(Source src) throws Exception {
        this.source = src;
        try (Connection c = src.connect()) {
            Source.dropSlot(c, slot);
            LocalPg.exec(c, "DROP PUBLICATION IF EXISTS " + publication,
                    "CREATE PUBLICATION " + publication + " FOR TABLE " + String.join(", ", src.tables()),
                    "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
        }
    }

    Properties config() {
        Map<String, String> p = new TreeMap<>();
        p.put("name", "walshadow-bench-" + ID);
        p.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.put("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.put("offset.flush.interval.ms", "10000");
        p.put("topic.prefix", "bench");
        p.put("database.hostname", source.host());
        p.put("database.port", String.valueOf(source.port()));
        p.put("database.user", source.user());
        p.put("database.password", source.password());
        p.put("database.dbname", source.database());
        p.put("plugin.name", "pgoutput");
        p.put("slot.name", slot);
        p.put("slot.drop.on.stop", "false"); // cleanup() drops it, after the last round
        p.put("publication.name", publication);
        p.put("publication.autocreate.mode", "disabled");
        p.put("snapshot.mode", "no_data");
        p.put("lsn.flush.mode", "manual");
        p.put("heartbeat.interval.ms", "0");
        // table.include.list entries are regular expressions: quote the dots
        p.put("table.include.list", String.join(",", source.tables().stream().map(t -> t.replace(".", "\\.")).toList()));
        // A failing start (bad setting, slot busy) ends the engine instead of retrying until the runner times out.
        p.put("errors.max.retries", "0");
        p.putAll(overrides);
        Properties props = new Properties();
        props.putAll(p);
        return props;
    }

    @Override
    public Capture start(Tally tally) {
        Counter counter = new Counter(tally, inspector);
        AtomicBoolean closing = new AtomicBoolean();
        DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                .using(config())
                .notifying(counter)
                .using((success, message, error) -> {
                    if (error != null || !closing.get()) {
                        tally.fail(error != null ? error : new IllegalStateException("engine stopped: " + message));
                    }
                })
                .build();
        ExecutorService runner = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium-engine"));
        runner.execute(engine);
        return () -> {
            closing.set(true);
            engine.close();
            runner.shutdown();
            if (!runner.awaitTermination(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the Debezium engine did not stop within 60 s");
            }
        };
    }

    @Override
    public void cleanup() throws Exception {
        if (source == null) {
            return;
        }
        try (Connection c = source.connect()) {
            Source.dropSlot(c, slot);
            LocalPg.exec(c, "DROP PUBLICATION IF EXISTS " + publication);
        }
    }

    /** Counts data change events per batch; with latency wanted, each event's commit-to-capture time. */
    private static final class Counter implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {
        private final Tally tally;
        private final boolean latency;
        private final Consumer<Struct> inspector;

        Counter(Tally tally, Consumer<Struct> inspector) {
            this.tally = tally;
            this.latency = tally.wantsLatency();
            this.inspector = inspector;
        }

        @Override
        public void handleBatch(List<RecordChangeEvent<SourceRecord>> records,
                                DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
                throws InterruptedException {
            long now = latency ? Tally.nowMicros() : 0; // the whole batch became visible to us now
            int n = 0;
            for (RecordChangeEvent<SourceRecord> e : records) {
                if (e.record().value() instanceof Struct v && v.schema().field("op") != null) {
                    n++;
                    if (latency) {
                        tally.latency(now - v.getStruct("source").getInt64("ts_us"));
                    }
                    if (inspector != null) {
                        inspector.accept(v);
                    }
                }
                committer.markProcessed(e);
            }
            committer.markBatchFinished();
            tally.changes(n);
        }
    }
}
