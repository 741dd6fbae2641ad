#!/usr/bin/env bash
# Change decoding throughput: rows/s decoded by WalChangeDecoder for the pgbench tables, next to the record parse
# rate of WalSegmentReader over the same WAL (io.walshadow.bench.wal.DecodeBenchmark, a program of
# the bench module).
#
#   deploy/bench/decode.sh                          seed the catalog, generate ~250 MB of WAL with pgbench on the
#                                                   local stack (pgbench -i -s 15, 2 clients x 50000 transactions),
#                                                   then measure
#   deploy/bench/decode.sh --rounds 9 --scale 20    more rounds / more WAL
#   deploy/bench/decode.sh --seconds 60             pgbench -T 60 instead of -t
#   deploy/bench/decode.sh --jfr /tmp/decode.jfr    also record decode passes with JFR afterwards
#   WALSHADOW_PG_MAJOR=18 deploy/bench/decode.sh    on PostgreSQL 18, on a PostgreSQL-only stack of the benchmarks'
#                                                   own (/var/lib/walshadow-b18, port 22832: bench-module.sh); 15
#                                                   so runs on /var/lib/walshadow-b15
#   deploy/bench/majors.sh decode                   15 and 18 side by side (several repetitions, medians, load)
#
# Prints records, rows decoded, MB, records/s, rows/s and MB/s for parse and parse+decode (medians over the
# rounds), the ratio parse+decode/parse in records/s, peak heap used, the load average, and the same split by phase (pgbench -i's
# COPY, the TPC-B run). The first decode pass is checked against the database (row counts, sums of values).
# A temporary physical slot (walshadow_bench_decode) keeps the WAL while the program runs; the scratch database
# walshadow_bench_decode is dropped at the end (--keep keeps it). The machine should be otherwise idle for
# meaningful figures: both sides are CPU-bound once the segments are in the page cache.
set -euo pipefail
BENCH_PG_ONLY=1
# shellcheck source=bench-module.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bench-module.sh"
# With --jfr, let the profile attribute samples to the inlined method that ran, not the nearest safepoint.
jfr_opts=()
if [[ " $* " == *" --jfr "* ]]; then
  jfr_opts=(-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints)
fi
# shellcheck disable=SC2086 # BENCH_JAVA_OPTS is a list of options
exec java ${BENCH_JAVA_OPTS:--Xmx2g} "${jfr_opts[@]}" -cp "$BENCH_CP" io.walshadow.bench.wal.DecodeBenchmark "$@"
