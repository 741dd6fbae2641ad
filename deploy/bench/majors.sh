#!/usr/bin/env bash
# WAL parse or decode figures of PostgreSQL majors side by side (issue 21): runs wal-parse.sh or decode.sh for each
# major of WALSHADOW_BENCH_MAJORS (default "15 18"), each on a PostgreSQL-only stack of the benchmarks' own
# (bench-module.sh: state dir /var/lib/walshadow-bNN, port 21032 + 100 x NN; 15 too, never the default stack the
# tests share), WALSHADOW_BENCH_REPEAT times (default 3) in turns (15, 18, 15, 18, ...) so that the load of a shared
# machine falls on both alike. Each run generates its own WAL with pgbench on its major and prints its medians over
# its rounds; this prints, per major and reader, the median over the repetitions of those medians, the load averages
# the runs saw, each figure's ratio to the first major's, and the ratios ours / reference per major.
#
#   deploy/bench/majors.sh wal-parse [options of wal-parse.sh]   e.g. --scale 5 --transactions 20000
#   deploy/bench/majors.sh decode [options of decode.sh]
#
# References (wal-parse): pg_waldump --stats where its major is the WAL's (Debian's 15: on 15 only) and the server's
# pg_walinspect (pg_get_wal_stats: the same xlogreader and XLogRecStoreStats in a backend) on every major; decode has
# no reference of PostgreSQL's (it sets parse+decode next to parse). Every run's full output stays in the log
# directory it names. The stacks this started are stopped at the end.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=../local/toolchain.sh
source "$ROOT/deploy/local/toolchain.sh"

bench=${1:-}
[[ $bench == wal-parse || $bench == decode ]] || { echo "usage: $0 wal-parse|decode [options]" >&2; exit 2; }
shift
MAJORS=${WALSHADOW_BENCH_MAJORS:-15 18}
REPEAT=${WALSHADOW_BENCH_REPEAT:-3}
LOGS=$(mktemp -d "/tmp/walshadow-bench-majors.XXXXXX")
log() { printf '[majors] %s\n' "$*" >&2; }

stack_vars() { # the variables bench-module.sh gives major $1's stack
  printf 'WALSHADOW_PG_MAJOR=%s WALSHADOW_STATE_DIR=/var/lib/walshadow-b%s WALSHADOW_PG_PORT=%s' "$1" "$1" \
    $((21032 + 100 * $1))
}
started=()
for m in $MAJORS; do
  [[ $m =~ ^1[4-8]$ ]] || { log "major '$m' is not 14..18"; exit 2; }
  # shellcheck disable=SC2046 # the variables, word by word
  env $(stack_vars "$m") bash "$ROOT/deploy/local/stack.sh" status 2>/dev/null | grep -q '^postgresql: running' ||
    started+=("$m") # (status exits 3 for a PostgreSQL-only stack: no ClickHouse)
done
stop_started() {
  for m in "${started[@]}"; do
    # shellcheck disable=SC2046
    env $(stack_vars "$m") bash "$ROOT/deploy/local/stack.sh" stop >/dev/null 2>&1 || true
  done
}
trap stop_started EXIT

log "building once (mvn -pl bench -am package -DskipTests); runs' logs in $LOGS"
(cd "$ROOT" && { mvn -B -q -o -pl bench -am package -DskipTests || mvn -B -q -pl bench -am package -DskipTests; })

for ((r = 1; r <= REPEAT; r++)); do
  for m in $MAJORS; do
    out=$LOGS/$bench-pg$m-$r.log
    log "repetition $r of $REPEAT, PostgreSQL $m: $bench.sh $* (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    # shellcheck disable=SC2046
    env $(stack_vars "$m") BENCH_NO_BUILD=1 bash "$HERE/$bench.sh" "$@" >"$out" 2>&1 ||
      { tail -n 30 "$out" >&2; log "PostgreSQL $m failed: $out"; exit 1; }
    sed -n '/^\(WAL parse\|Decode\) benchmark:/,/^ratio/p' "$out" | sed "s/^/  pg$m #$r | /" >&2
  done
done

# The summary: one line per run and reader from each log's table, then medians over the repetitions.
for m in $MAJORS; do
  for ((r = 1; r <= REPEAT; r++)); do
    awk -v m="$m" -v r="$r" '
      /^(WAL parse|Decode) benchmark:/ { on = 1; match($0, /load average [0-9.]+ -> [0-9.]+/);
                                         load = substr($0, RSTART + 13, RLENGTH - 13); gsub(/ /, "", load); next }
      on && /^ratio/ { exit }
      on && /^[a-z_+]/ {
        if ($6 == "|") printf "%s %s %s %s %s - %s %s - %s\n", m, r, $1, $4, $5, $8, $9, load           # wal-parse
        else printf "%s %s %s %s %s %s %s %s %s %s\n", m, r, $1, $5, $7, $6, $10, $12, $11, load        # decode
      }' "$LOGS/$bench-pg$m-$r.log"
  done
done >"$LOGS/runs.txt"

echo
echo "$bench on PostgreSQL ${MAJORS// /, }: medians over $REPEAT repetitions (each the median of its rounds), wall-clock | CPU time"
awk -v first="${MAJORS%% *}" '
  function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  {
    k = $1 SUBSEP $3
    if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
    for (c = 4; c <= 9; c++) v[k, c] = v[k, c] " " $c
    if (!(($1, $2) in lseen)) { lseen[$1, $2] = 1; loads[$1] = loads[$1] (loads[$1] == "" ? "" : ", ") $10 }
    rec[$1, $2, $3] = $4
    cpu[$1, $2, $3] = $7
    readers[$3] = 1
    reps[$1, $2] = 1
  }
  END {
    printf "%-6s %-14s %11s %8s %10s | %11s %8s %10s | %s\n", "major", "reader", "records/s", "MB/s", "rows/s",
      "records/s", "MB/s", "rows/s", "records/s vs " first " (wall | cpu)"
    for (i = 1; i <= nk; i++) {
      split(order[i], p, SUBSEP)
      for (c = 4; c <= 9; c++) med[order[i], c] = (v[order[i], c] ~ /-/) ? "-" : median(v[order[i], c])
      base = first SUBSEP p[2]
      vs = (base in seen) ? sprintf("%.2fx | %.2fx", med[order[i], 4] / med[base, 4], med[order[i], 7] / med[base, 7]) : "-"
      printf "%-6s %-14s %11.0f %8.1f %10s | %11.0f %8.1f %10s | %s\n", p[1], p[2], med[order[i], 4], med[order[i], 5],
        med[order[i], 6] == "-" ? "-" : sprintf("%.0f", med[order[i], 6]), med[order[i], 7], med[order[i], 8],
        med[order[i], 9] == "-" ? "-" : sprintf("%.0f", med[order[i], 9]), vs
    }
    # ours / each reference (wal-parse), parse+decode / parse (decode): per repetition, then the median
    for (k in reps) {
      split(k, q, SUBSEP)
      for (ref in readers) {
        if (ref == "ours" || ref == "parse+decode") continue
        num = ("ours" in readers) ? "ours" : "parse+decode"
        if ((q[1], q[2], ref) in rec && (q[1], q[2], num) in rec) {
          ratios[q[1], num "/" ref] = ratios[q[1], num "/" ref] " " rec[q[1], q[2], num] / rec[q[1], q[2], ref]
          cratios[q[1], num "/" ref] = cratios[q[1], num "/" ref] " " cpu[q[1], q[2], num] / cpu[q[1], q[2], ref]
        }
      }
    }
    for (k in ratios) {
      split(k, q, SUBSEP)
      printf "PostgreSQL %s: %s (records/s) %.2fx wall-clock, %.2fx CPU time\n", q[1], q[2], median(ratios[k]),
        median(cratios[k]) | "sort"
    }
    close("sort")
    for (m in loads) printf "PostgreSQL %s: load average during its runs (start -> end): %s\n", m, loads[m] | "sort"
  }' "$LOGS/runs.txt"
echo "(each run: $LOGS/$bench-pgNN-R.log)"
