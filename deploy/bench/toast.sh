#!/usr/bin/env bash
# TOAST benchmark: MB/s of out-of-line values replicated end to end by our job (local MiniCluster, RocksDB,
# ClickHouse sink; visible in ClickHouse: _walshadow_visible at the job's default), with peak heap, next to references measured in the same
# run: COPY (SELECT * FROM docs) TO STDOUT through pgjdbc (text and binary) and Debezium 3.6's embedded connector
# (io.walshadow.bench.toast.ToastBenchmark in the bench module).
#
#   deploy/bench/toast.sh                           256 MiB of values of 16-256 KiB (body text pglz, blob bytea
#                                                   random) in table docs; per round: INSERT phase caught up from
#                                                   the slot (values from the transaction's own chunks), then an
#                                                   UPDATE of note on every row caught up from the job's savepoint
#                                                   (every value fetched from the ClickHouse mirror); 3 rounds
#   deploy/bench/toast.sh --mb 64 --rounds 1        a quick run (development)
#   deploy/bench/toast.sh --no-debezium             COPY as the only reference
#   deploy/bench/toast.sh --walshadow checkpoint.interval=2s   override a job setting of ours (repeatable)
#   BENCH_JAVA_OPTS=-Xmx512m deploy/bench/toast.sh  a smaller heap still
#
# Every option is described in the class comment. Prints per line (walshadow INSERT, walshadow UPDATE note,
# Debezium INSERT / UPDATE note, COPY text / binary; medians over the rounds): seconds, time to the first row,
# MB/s of the values raw (octet_length) and stored (pg_column_size), the ratio to COPY text, JVM / walsender /
# ClickHouse CPU, peak heap and RSS; then the TOAST stage's counters, buffered chunks and checkpoints per phase, the
# time per value fetched from the mirror, and how many values Debezium delivered as its unavailable-value
# placeholder. The run fails unless ClickHouse's rows equal PostgreSQL's after each phase (length and md5 of every
# value) and no value was filled.
#
# Uses the e2e contenders' slots (walshadow_bench_e2e_*: do not run next to e2e.sh) and the scratch database
# walshadow_bench_toast, dropped at the end (--keep keeps it); leftovers of an interrupted run are dropped at the
# next start. The program runs in a JVM of its own with BENCH_JAVA_OPTS (default -Xmx1g: the heap stays bounded
# with values of up to 256 KiB) and BENCH_LOG_LEVEL (default WARN). The machine should be otherwise idle for
# meaningful figures.
set -euo pipefail
# shellcheck source=bench-module.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bench-module.sh"
# shellcheck disable=SC2086 # BENCH_JAVA_OPTS is a list of options
exec java ${BENCH_JAVA_OPTS:--Xmx1g -XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=${TMPDIR:-/tmp}} \
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
  -Dbench.logLevel="${BENCH_LOG_LEVEL:-WARN}" \
  -cp "$BENCH_CP" io.walshadow.bench.toast.ToastBenchmark "$@"
