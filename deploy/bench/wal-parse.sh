#!/usr/bin/env bash
# WAL parsing throughput: our WalSegmentReader against `pg_waldump --stats` over the same LSN range
# (io.walshadow.bench.wal.WalParseBenchmark, a program of the bench module).
#
#   deploy/bench/wal-parse.sh                       generate ~250 MB of WAL with pgbench on the local stack, then measure
#   deploy/bench/wal-parse.sh --rounds 9 --scale 20 more rounds / more WAL
#   deploy/bench/wal-parse.sh --wal-dir DIR --start 0/4A000000 --end 0/58000000
#                                                   measure existing segment files (no generation)
#
# Prints records, MB, records/s and MB/s for both (medians over the rounds) and the ratio ours/pg_waldump.
# While generating, a physical slot (walshadow_bench_wal_parse) keeps the range in pg_wal; it and the scratch
# database walshadow_bench are dropped at the end (--keep keeps the database). The machine should be otherwise
# idle for meaningful figures: both sides are CPU-bound once the segments are in the page cache.
set -euo pipefail
# shellcheck source=bench-module.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bench-module.sh"
# With --jfr, let the profile attribute samples to the inlined method that ran, not the nearest safepoint.
jfr_opts=()
if [[ " $* " == *" --jfr "* ]]; then
  jfr_opts=(-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints)
fi
# shellcheck disable=SC2086 # BENCH_JAVA_OPTS is a list of options
exec java ${BENCH_JAVA_OPTS:--Xmx2g} "${jfr_opts[@]}" -cp "$BENCH_CP" io.walshadow.bench.wal.WalParseBenchmark "$@"
