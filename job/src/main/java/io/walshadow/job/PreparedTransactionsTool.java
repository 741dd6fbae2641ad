package io.walshadow.job;

import io.walshadow.buffer.PreparedTransaction;
import io.walshadow.buffer.XactBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.apache.flink.util.ParameterTool;

/**
 * Lists the prepared transactions the transaction buffer holds in a savepoint or retained checkpoint, offline (Flink's
 * State Processor API in a local MiniCluster), so an operator can compare them with {@code pg_prepared_xacts} before
 * dropping a stranded one with {@code --xact.prepared.drop}:
 *
 * <pre>java -cp &lt;job classpath&gt; io.walshadow.job.PreparedTransactionsTool list --savepoint &lt;dir&gt;</pre>
 *
 * <p>{@code <dir>} is a savepoint directory or a checkpoint's {@code chk-N} directory (the one holding
 * {@code _metadata}), as a path or URI. Prints one tab-separated line per prepared transaction, oldest first LSN
 * first: gid, xid, buffered changes, first LSN, prepared at (ISO-8601 UTC, or "unknown").
 */
public final class PreparedTransactionsTool {
    private PreparedTransactionsTool() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !args[0].equals("list")) {
            usage("expected the command 'list'");
        }
        ParameterTool p = ParameterTool.fromArgs(Arrays.copyOfRange(args, 1, args.length));
        String path = p.get("savepoint");
        if (path == null || path.isBlank()) {
            usage("missing --savepoint <dir>");
        }
        List<PreparedTransaction> held;
        try {
            held = list(path);
        } catch (java.io.IOException e) { // no such directory, no _metadata, not the job's state
            System.err.println("cannot read " + path + ": " + e.getMessage());
            System.exit(1);
            return;
        }
        System.out.println("gid\txid\tchanges\tfirst_lsn\tprepared_at");
        for (PreparedTransaction t : held) {
            System.out.println(t.gid() + "\t" + Integer.toUnsignedString(t.xid()) + "\t" + t.changes() + "\t"
                    + io.walshadow.wal.Lsn.format(t.firstLsn()) + "\t"
                    + (t.preparedAt() == null ? "unknown" : t.preparedAt().toString()));
        }
        System.err.println(held.size() + " prepared transaction(s) held in " + path);
    }

    private static void usage(String problem) {
        System.err.println(problem + "\nusage: PreparedTransactionsTool list --savepoint <savepoint or chk-N dir>");
        System.exit(2);
    }

    /** The prepared transactions of the {@code xact-buffer} operator's keyed state, by first LSN. */
    public static List<PreparedTransaction> list(String path) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        // RocksDB reads both a canonical savepoint and the job's own (RocksDB) checkpoints.
        SavepointReader savepoint = SavepointReader.read(env, path, new EmbeddedRocksDBStateBackend());
        List<PreparedTransaction> out = new ArrayList<>();
        try (CloseableIterator<PreparedTransaction> it = savepoint.readKeyedState(
                        OperatorIdentifier.forUid(WalshadowJob.UID_BUFFER), new PreparedReader(), Types.INT,
                        TypeInformation.of(PreparedTransaction.class))
                .executeAndCollect("walshadow: list prepared transactions in " + path)) {
            it.forEachRemaining(out::add);
        }
        out.sort(Comparator.comparingLong(PreparedTransaction::firstLsn));
        return out;
    }

    /** Keys holding a GID; the entries themselves are not read (the meta holds their count). */
    static final class PreparedReader extends KeyedStateReaderFunction<Integer, PreparedTransaction> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<String> gid;
        private transient ValueState<long[]> meta;

        @Override
        public void open(OpenContext ctx) {
            gid = getRuntimeContext().getState(XactBuffer.gidStateDescriptor());
            meta = getRuntimeContext().getState(XactBuffer.metaStateDescriptor());
        }

        @Override
        public void readKey(Integer xid, Context ctx, Collector<PreparedTransaction> out) throws Exception {
            String g = gid.value();
            if (g != null) {
                out.collect(XactBuffer.preparedTransaction(xid, g, meta.value()));
            }
        }
    }
}
