#!/usr/bin/env bash
# WAL parsing throughput: our WalSegmentReader against PostgreSQL's own reader over the same LSN range
# (io.walshadow.bench.wal.WalParseBenchmark, a program of the bench module): `pg_waldump --stats` where its major
# is the WAL's (Debian's 15) and the server's pg_walinspect (pg_get_wal_stats, any major from 15 on) when the WAL is
# generated here.
#
#   deploy/bench/wal-parse.sh                       generate ~250 MB of WAL with pgbench on the local stack, then measure
#   deploy/bench/wal-parse.sh --rounds 9 --scale 20 more rounds / more WAL
#   WALSHADOW_PG_MAJOR=18 deploy/bench/wal-parse.sh the WAL of PostgreSQL 18, on a PostgreSQL-only stack of the
#                                                   benchmarks' own (/var/lib/walshadow-b18, port 22832:
#                                                   bench-module.sh); 15 so runs on /var/lib/walshadow-b15
#   deploy/bench/majors.sh wal-parse                15 and 18 side by side (several repetitions, medians, load)
#   deploy/bench/wal-parse.sh --wal-dir DIR --start 0/4A000000 --end 0/58000000
#                                                   measure existing segment files (no generation; pg_waldump the
#                                                   only reference)
#
# Prints records, MB, records/s and MB/s for each (medians over the rounds), the ratio ours/reference and the load
# average. While generating, a physical slot (walshadow_bench_wal_parse) keeps the range in pg_wal; it and the
# scratch database walshadow_bench are dropped at the end (--keep keeps the database). The machine should be
# otherwise idle for meaningful figures: all are CPU-bound once the segments are in the page cache.
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
exec java ${BENCH_JAVA_OPTS:--Xmx2g} "${jfr_opts[@]}" -cp "$BENCH_CP" io.walshadow.bench.wal.WalParseBenchmark "$@"
