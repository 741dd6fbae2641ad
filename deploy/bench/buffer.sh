#!/usr/bin/env bash
# Transaction buffer benchmark: drained rows/s, MB/s and peak heap of the job's source -> decoder -> transaction
# buffer (RocksDB state, checkpoints) in a MiniCluster ending in a counting sink, in a JVM with a small heap
# (io.walshadow.bench.buffer.BufferBenchmark in the bench module).
#
#   deploy/bench/buffer.sh                          both workloads: 100000 pgbench TPC-B-like transactions (4 row
#                                                   changes each) caught up from the slot, then one transaction of
#                                                   2300 MiB of row values (~1.33 M rows, INSERT ... SELECT) drained
#                                                   at its commit
#   deploy/bench/buffer.sh --mode large --large-mb 200     a smaller large transaction (development)
#   deploy/bench/buffer.sh --mode small --transactions 200000 --clients 8
#   deploy/bench/buffer.sh --incremental            incremental RocksDB checkpoints (the job's default: full)
#   BENCH_JAVA_OPTS=-Xmx256m deploy/bench/buffer.sh --mode large   a smaller heap still
#
# Every option is described in the class comment. Prints per workload: rows, MB of values, drain seconds, rows/s,
# MB/s, peak heap (GC notifications) and the most in use after a GC, peak RSS, the buffer's own estimate of what it
# held, RocksDB's directory on disk, and a check that the drained rows equal what PostgreSQL says was written; the
# large transaction also the time to its commit, how far the pipeline had got at the commit, and heap by phase
# (ingest, drain).
#
# Disk: the large transaction writes about 2.5 GB of WAL, which the benchmark's slot (walshadow_bench_buffer) holds
# until the drain is checkpointed, a 2.4 GB table, ~2.7 GB of RocksDB state and, with full checkpoints, up to two
# copies of it in the checkpoint directory (under java.io.tmpdir): keep ~15 GB free. The slot, the scratch database
# walshadow_bench_buffer and the directories are dropped at the end (--keep keeps the database); leftovers of an
# interrupted run are dropped at the next start.
#
# The program runs in a JVM of its own with BENCH_JAVA_OPTS (default -Xmx400m, and a heap dump on OutOfMemoryError
# into java.io.tmpdir) and BENCH_LOG_LEVEL (default WARN). Built with a reactor build of the bench module and what it
# depends on; nothing is installed into the local repository. The machine should be otherwise idle for meaningful
# figures.
set -euo pipefail
# shellcheck source=bench-module.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bench-module.sh"
df -h "${TMPDIR:-/tmp}" >&2
status=0
# shellcheck disable=SC2086 # BENCH_JAVA_OPTS is a list of options
java ${BENCH_JAVA_OPTS:--Xmx400m -XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=${TMPDIR:-/tmp}} \
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
  -Dbench.logLevel="${BENCH_LOG_LEVEL:-WARN}" \
  -cp "$BENCH_CP" io.walshadow.bench.buffer.BufferBenchmark "$@" \
  || status=$?
df -h "${TMPDIR:-/tmp}" >&2
exit $status
