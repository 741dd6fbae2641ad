#!/usr/bin/env bash
# Change decoding throughput: rows/s decoded by WalChangeDecoder for the pgbench tables, next to the record parse
# rate of WalSegmentReader over the same WAL (io.walshadow.bench.DecodeBenchmark, a test-scope program in the
# decoding module).
#
#   deploy/bench/decode.sh                          seed the catalog, generate ~250 MB of WAL with pgbench on the
#                                                   local stack (pgbench -i -s 15, 2 clients x 50000 transactions),
#                                                   then measure
#   deploy/bench/decode.sh --rounds 9 --scale 20    more rounds / more WAL
#   deploy/bench/decode.sh --seconds 60             pgbench -T 60 instead of -t
#   deploy/bench/decode.sh --jfr /tmp/decode.jfr    also record decode passes with JFR afterwards
#
# Prints records, rows decoded, MB, records/s, rows/s and MB/s for parse and parse+decode (medians over the
# rounds), the ratio parse+decode/parse in records/s, peak heap used, and the same split by phase (pgbench -i's
# COPY, the TPC-B run). The first decode pass is checked against the database (row counts, sums of values).
# A temporary physical slot (walshadow_bench_decode) keeps the WAL while the program runs; the scratch database
# walshadow_bench_decode is dropped at the end (--keep keeps it). The machine should be otherwise idle for
# meaningful figures: both sides are CPU-bound once the segments are in the page cache.
exec bash "$(dirname "${BASH_SOURCE[0]}")/run-program.sh" DecodeBenchmark "$@"
