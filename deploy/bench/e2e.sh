#!/usr/bin/env bash
# End-to-end capture benchmark: row changes/s and commit-to-capture latency of each contender on one pgbench
# workload, Debezium 3.6's embedded PostgreSQL connector (capture only, no sink) being the reference
# (io.walshadow.bench.e2e.E2eBenchmark in the bench module). Contenders: debezium, and walshadow — our job in a
# local MiniCluster (RocksDB; the job's defaults: rows written after each commit, checkpoints every 10 s) writing into
# ClickHouse, a change counting once _walshadow_visible has passed it (with clickhouse.visibility=checkpoint:
# checkpoints every 1 s, the committed watermark).
#
#   deploy/bench/e2e.sh                             pgbench -i -s 10, every contender's slot, 20000 TPC-B-like
#                                                   transactions over 4 clients (80000 row changes), then each
#                                                   contender catches up from its slot: 2 warm-ups + 3 rounds
#   deploy/bench/e2e.sh --transactions 50000 --clients 8 --rounds 5
#   deploy/bench/e2e.sh --latency --rate 500        per round, a fresh slot and a live capture while pgbench -R 500
#                                                   runs 10000 transactions: p50/p99/max commit-to-capture latency
#                                                   (1 untimed warm-up round + 3 rounds)
#   deploy/bench/e2e.sh --debezium poll.interval.ms=50    override a Debezium setting (repeatable)
#   deploy/bench/e2e.sh --walshadow checkpoint.interval=2s   override a job setting of ours (repeatable)
#   deploy/bench/e2e.sh --latency --debezium poll.interval.ms=10   the latency reference: Debezium without its
#                                                   500 ms waits (see DebeziumContender)
#   deploy/bench/e2e.sh --latency --walshadow clickhouse.visibility=checkpoint
#                                                   rows staged until the checkpoint after them (1 s apart here)
#                                                   instead of written straight after each commit (the default:
#                                                   visible as _walshadow_visible passes them, target p99 <= 250 ms)
#
# Every option is described in the class comment. Throughput prints, per contender (medians over the rounds):
# changes captured, seconds, rows/s, ratio to Debezium, time to the first change, JVM, walsender and ClickHouse
# server CPU time, peak heap; and whether walshadow met its targets (>= 2x Debezium's rows/s; p99 latency <=
# checkpoint interval + 1 s). Slots are named walshadow_bench_e2e_<contender>; they, the publication and the scratch database
# walshadow_bench_e2e are dropped at the end (--keep keeps the database), and leftovers of an interrupted run are
# dropped at the next start.
#
# The program runs in a JVM of its own (not Maven's: its heap and CPU time are measured), with
# BENCH_JAVA_OPTS (default -Xmx2g) and BENCH_LOG_LEVEL (default WARN) for the engines' logs. Built with a reactor
# build of the bench module and what it depends on; nothing is installed into the local repository. The machine
# should be otherwise idle for meaningful figures.
set -euo pipefail
# shellcheck source=bench-module.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bench-module.sh"
# shellcheck disable=SC2086 # BENCH_JAVA_OPTS is a list of options
exec java ${BENCH_JAVA_OPTS:--Xmx2g} -Dbench.logLevel="${BENCH_LOG_LEVEL:-WARN}" \
  -cp "$BENCH_CP" io.walshadow.bench.e2e.E2eBenchmark "$@"
