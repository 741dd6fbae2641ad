#!/usr/bin/env bash
# WAL parsing throughput: our WalSegmentReader against `pg_waldump --stats` over the same LSN range
# (io.walshadow.bench.WalParseBenchmark, a test-scope program in the decoding module).
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
exec bash "$(dirname "${BASH_SOURCE[0]}")/run-program.sh" WalParseBenchmark "$@"
