#!/usr/bin/env bash
# The embedded default: start the local PostgreSQL 15 + ClickHouse (deploy/local/stack.sh), run the job in a local
# Flink MiniCluster (RocksDB state, checkpoints under the stack's state directory) replicating into ClickHouse, and a
# demo workload once the job streams. Stop with Ctrl-C. Extra arguments go to the job (see docs/configuration.md).
# Each run starts the demo afresh: table demo_orders is recreated in PostgreSQL and the ClickHouse database
# ($WALSHADOW_CH_DATABASE) is dropped and created again, so what ClickHouse shows is exactly what this run
# replicated (the job refuses a fresh start into a database holding its sink id's commits from an earlier run).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=local/toolchain.sh
source "$HERE/local/toolchain.sh"

bash "$HERE/local/stack.sh" start
eval "$(bash "$HERE/local/stack.sh" env)"
SLOT=${WALSHADOW_DEMO_SLOT:-walshadow_demo}
# Replicated tables: the demo's (set WALSHADOW_DEMO_TABLES, e.g. "public.*", to replicate your own too).

echo "[run] building (mvn install -DskipTests)" >&2
(cd "$ROOT" && mvn -B -q install -DskipTests)

psql_() { PGPASSWORD=$WALSHADOW_PG_PASSWORD "$WALSHADOW_PG_BIN/psql" -X -q -At -h "$WALSHADOW_PG_HOST" \
  -p "$WALSHADOW_PG_PORT" -U "$WALSHADOW_PG_USER" -d "$WALSHADOW_PG_DATABASE" "$@"; }
ch_() { bash "$HERE/local/stack.sh" ch "$@"; }
psql_ -c "DROP TABLE IF EXISTS demo_orders"
ch_ --query "DROP DATABASE IF EXISTS $WALSHADOW_CH_DATABASE"
ch_ --query "CREATE DATABASE $WALSHADOW_CH_DATABASE"

# The workload starts once the job streams from its slot. (Tables that already hold rows when the job first starts
# are copied by its initial snapshot: WALSHADOW_DEMO_TABLES="public.*" shows that with your own tables.)
(
  for _ in $(seq 1 240); do
    [[ $(psql_ -c "SELECT active FROM pg_replication_slots WHERE slot_name = '$SLOT'" 2>/dev/null) == t ]] && break
    sleep 0.5
  done
  sleep 3
  echo "[run] demo workload running; watch the rows arrive in ClickHouse:" >&2
  echo "[run]   bash deploy/local/stack.sh ch --query \"SELECT status, count(), max(id), sum(length(notes)) FROM $WALSHADOW_CH_DATABASE.public__demo_orders__live GROUP BY status\"" >&2
  echo "[run]   bash deploy/local/stack.sh ch --query \"SELECT * FROM $WALSHADOW_CH_DATABASE._walshadow_committed\"" >&2
  exec bash "$HERE/local/demo-workload.sh"
) &
workload=$!
cleanup() {
  pkill -P "$workload" 2>/dev/null || true
  kill "$workload" 2>/dev/null || true
  # The demo's slot would keep WAL forever once nobody reads it (a real deployment keeps its slot): give the
  # stopping job a moment to let go of it, then end its walsender if needed, and drop it.
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
}
trap cleanup EXIT

echo "[run] job: slot $SLOT on $WALSHADOW_PG_HOST:$WALSHADOW_PG_PORT/$WALSHADOW_PG_DATABASE (Ctrl-C stops)" >&2
cd "$ROOT/job"
# --tables.allow.unmatched: the workload creates demo_orders only once the job streams
mvn -B -q exec:exec -Dexec.executable=java -Dexec.classpathScope=compile \
  -Dexec.args="-Dlog4j.configurationFile=$HERE/local/log4j2-local.properties -cp %classpath io.walshadow.job.WalshadowJob \
    --pg.host $WALSHADOW_PG_HOST --pg.port $WALSHADOW_PG_PORT --pg.database $WALSHADOW_PG_DATABASE \
    --pg.user $WALSHADOW_PG_USER --pg.sslmode disable --slot $SLOT \
    --tables.include ${WALSHADOW_DEMO_TABLES:-public.demo_*} --tables.allow.unmatched true \
    --clickhouse.url $WALSHADOW_CH_URL --clickhouse.user $WALSHADOW_CH_USER --clickhouse.database $WALSHADOW_CH_DATABASE \
    --checkpoint.interval 2s --checkpoint.dir file://$WALSHADOW_STATE_DIR/demo-checkpoints $*"
