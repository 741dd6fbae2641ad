package io.walshadow.snapshot;

import io.walshadow.catalog.RelationDescriptor;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.DestinationSchema;
import io.walshadow.clickhouse.Retrier;
import io.walshadow.clickhouse.ServerCapabilities;
import io.walshadow.clickhouse.StepExecutor;
import io.walshadow.clickhouse.ToastMirror;
import io.walshadow.sink.ClickHouseSinkOptions;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table included again after a restore had excluded it: its destination (and TOAST mirror) still hold what was
 * replicated before, including rows deleted while it was excluded, which its new copy cannot remove. Every such row
 * is older than the copy ({@code _lsn} below the copy's version, which every new row is at or above), so one
 * {@code ALTER TABLE … DELETE WHERE _lsn < version} removes exactly them, in whatever order it runs relative to the
 * new rows (a mutation only touches the parts that exist when it is made).
 */
final class StaleRows {
    private static final Logger LOG = LoggerFactory.getLogger(StaleRows.class);

    private StaleRows() {}

    static void remove(ClickHouseSinkOptions sink, List<RelationDescriptor> tables, long version)
            throws InterruptedException {
        if (sink == null || tables.isEmpty()) {
            return;
        }
        try (ClickHouseConnection ch = sink.connect()) {
            Retrier retry = new Retrier(sink.retryTimeout(), () -> {});
            StepExecutor executor = new StepExecutor(ch, retry.call("SELECT version()", () -> ServerCapabilities.probe(ch)),
                    retry, sink.sinkId());
            for (RelationDescriptor d : tables) {
                List<String> names = new ArrayList<>(List.of(DestinationSchema.tableName(d)));
                if (d.toastRelOid() != 0) {
                    names.add(ToastMirror.name(d.toastRelOid()));
                }
                for (String name : names) {
                    if (!executor.exists(name)) {
                        continue;
                    }
                    String sql = "ALTER TABLE " + DestinationSchema.quote(ch.database()) + "."
                            + DestinationSchema.quote(name) + " DELETE WHERE _lsn < " + Long.toUnsignedString(version);
                    executor.sql(sql);
                    LOG.info("{} is copied again: rows {} kept from when it was replicated before are removed ({})",
                            d.qualifiedName(), name, sql);
                }
            }
        }
    }
}
