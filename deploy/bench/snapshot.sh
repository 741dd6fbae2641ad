#!/usr/bin/env bash
# Initial-snapshot benchmark: rows/s and MB/s of a table that exists before the job, copied by the job's initial
# snapshot (to a counting sink behind the transaction buffer, and end to end into ClickHouse), next to
# COPY t TO STDOUT of the same table through pgjdbc in the same run (io.walshadow.bench.snapshot.SnapshotBenchmark).
#
#   deploy/bench/snapshot.sh                              2 M rows, 3 rounds (after a warm-up round)
#   deploy/bench/snapshot.sh --rows 500000 --rounds 1     a quick run
#   deploy/bench/snapshot.sh --parallelism 1 --chunk-pages 1024
#
# Uses schema bench_snapshot of the local database, slot walshadow_bench_snapshot and ClickHouse database
# walshadow_bench_snapshot (all recreated per run). The machine should be otherwise idle for meaningful figures.
set -euo pipefail
# shellcheck source=bench-module.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bench-module.sh"
# shellcheck disable=SC2086 # BENCH_JAVA_OPTS is a list of options
exec java ${BENCH_JAVA_OPTS:--Xmx1g} \
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
  -Dbench.logLevel="${BENCH_LOG_LEVEL:-WARN}" \
  -cp "$BENCH_CP" io.walshadow.bench.snapshot.SnapshotBenchmark "$@"
