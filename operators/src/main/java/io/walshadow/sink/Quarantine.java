package io.walshadow.sink;

import io.walshadow.catalog.CatalogFilter;
import io.walshadow.change.RowChange;
import io.walshadow.clickhouse.ClickHouseConnection;
import io.walshadow.clickhouse.ColumnCodec;
import io.walshadow.clickhouse.DestinationSchema;
import io.walshadow.clickhouse.SinkTables;
import io.walshadow.clickhouse.Retrier;
import io.walshadow.wal.Lsn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tables whose rows the sink no longer writes ({@code clickhouse.unwritable quarantine}): a value the
 * destination cannot hold stops its table instead of the job. The destination keeps what came before the change
 * at fault; every later row of the table is skipped and counted. The list is in the writer's state and in
 * ClickHouse ({@link SinkTables#QUARANTINE}), and a table leaves it when a restore's filter excludes it (included
 * again at a later restore, it is copied anew by the on-demand snapshot).
 */
final class Quarantine {
    private static final Logger LOG = LoggerFactory.getLogger(Quarantine.class);

    private final String sinkId;
    private final ClickHouseConnection ch;
    private final Retrier retry;
    private final Map<Integer, QuarantinedTable> tables = new TreeMap<>();
    private final Counter rowsSkipped;

    Quarantine(String sinkId, ClickHouseConnection ch, Retrier retry, MetricGroup metrics) {
        this.sinkId = sinkId;
        this.ch = ch;
        this.retry = retry;
        this.rowsSkipped = metrics.counter("rows_quarantined");
        metrics.gauge("tables_quarantined", tables::size);
    }

    /**
     * Takes the restored list, releasing the tables {@code filter} no longer includes, and makes ClickHouse's list
     * say the same (rows of tables a restore from before their quarantine no longer holds are removed).
     */
    void restore(List<QuarantinedTable> restored, CatalogFilter filter) throws InterruptedException {
        for (QuarantinedTable q : restored) {
            if (filter.includes(q.schema(), q.name())) {
                tables.put(q.relOid(), q);
                LOG.warn("table {} stays quarantined since {} ({}): its rows are not written", q.qualifiedName(),
                        Lsn.format(q.lsn()), q.reason());
            } else {
                LOG.warn("table {} leaves quarantine: this restore excludes it (include it again at a later restore"
                        + " and it is copied anew)", q.qualifiedName());
            }
        }
        String where = "sink = " + ColumnCodec.quote(sinkId) + (tables.isEmpty() ? "" : " AND relation NOT IN ("
                + tables.keySet().stream().map(Integer::toUnsignedString).collect(Collectors.joining(", ")) + ")");
        String stale = "SELECT count() FROM " + table() + " WHERE " + where;
        if (!"0".equals(retry.call(stale, () -> ch.queryString(stale)))) {
            sql("ALTER TABLE " + table() + " DELETE WHERE " + where);
        }
    }

    /** Whether {@code relOid}'s rows are skipped (counting the row when they are). */
    boolean skips(int relOid) {
        if (tables.containsKey(relOid)) {
            rowsSkipped.inc();
            return true;
        }
        return false;
    }

    /** Quarantines the table of {@code r}, whose change could not be written into {@code destination}. */
    void add(RowChange r, String destination, RuntimeException cause) throws InterruptedException {
        var d = r.descriptor();
        QuarantinedTable q = new QuarantinedTable(r.relOid(), d.schema(), d.name(), r.lsn(), cause.getMessage());
        tables.put(q.relOid(), q);
        rowsSkipped.inc();
        LOG.error("table {} quarantined at {}: {}. Its changes from there on are not written to {}, the other tables"
                + " go on (--clickhouse.unwritable quarantine). To bring it back: fix the cause, restore from a"
                + " savepoint with the table excluded (--tables.exclude), then include it again at the next restore"
                + " (it is copied anew)", q.qualifiedName(), Lsn.format(q.lsn()), q.reason(), destination);
        sql("INSERT INTO " + table() + " VALUES (" + ColumnCodec.quote(sinkId) + ", "
                + Integer.toUnsignedString(q.relOid()) + ", " + ColumnCodec.quote(q.qualifiedName()) + ", "
                + ColumnCodec.quote(destination) + ", " + Long.toUnsignedString(q.lsn()) + ", "
                + ColumnCodec.quote(Lsn.format(q.lsn())) + ", " + ColumnCodec.quote(q.reason()) + ", now())");
    }

    List<QuarantinedTable> list() {
        return new ArrayList<>(tables.values());
    }

    private void sql(String sql) throws InterruptedException {
        retry.run(sql, () -> ch.execute(sql));
    }

    private String table() {
        return DestinationSchema.quote(ch.database()) + "." + DestinationSchema.quote(SinkTables.QUARANTINE);
    }
}
