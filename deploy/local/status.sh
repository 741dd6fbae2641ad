#!/usr/bin/env bash
# What a job run against the local stack is doing (deploy/run-local.sh's demo, or any job run from a plain JVM):
#   job        its state and uptime, from the embedded MiniCluster's REST API (the dashboard's port)
#   slot       its replication slot: active, wal_status, safe_wal_size, how far behind the server's WAL it is
#   rates      WAL lag and rows/s into ClickHouse, from its Prometheus endpoint
#   visible    the newest commit visible in ClickHouse (per sink, _walshadow_visible), its LSN and how long ago it
#              committed
#   watermark  the newest commit of the checkpointed cut (_walshadow_committed): with rows written at commit (the
#              default) behind the visible one by up to a checkpoint interval
# Settings: WALSHADOW_WEB_PORT (8081, the job's --local.web.port), WALSHADOW_METRICS_PORT (9249,
# --local.metrics.port), WALSHADOW_DEMO_SLOT (walshadow_demo, the job's --slot), WALSHADOW_DEMO_CH_DATABASE
# (walshadow_demo), and the demo's PostgreSQL as run-local.sh has it (WALSHADOW_PG_MAJOR, default 18, and that
# stack's WALSHADOW_STATE_DIR / WALSHADOW_PG_PORT).
# Exit 0 when a job answers RUNNING, 3 otherwise.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STACK=$HERE/stack.sh

WEB_PORT=${WALSHADOW_WEB_PORT:-8081}
METRICS_PORT=${WALSHADOW_METRICS_PORT:-9249}
SLOT=${WALSHADOW_DEMO_SLOT:-walshadow_demo}
DB=${WALSHADOW_DEMO_CH_DATABASE:-walshadow_demo}
# The demo's PostgreSQL as run-local.sh picks it: 18 unless WALSHADOW_PG_MAJOR says otherwise; 15 is the default
# stack's, any other major a stack of the demo's own. ClickHouse is always the default stack's.
MAJOR=${WALSHADOW_PG_MAJOR:-18}
export WALSHADOW_PG_MAJOR=$MAJOR
if [[ $MAJOR != 15 ]]; then
  export WALSHADOW_STATE_DIR=${WALSHADOW_STATE_DIR:-/var/lib/walshadow-demo$MAJOR}
  export WALSHADOW_PG_PORT=${WALSHADOW_PG_PORT:-$((23032 + 100 * MAJOR))}
fi
ch() { env -u WALSHADOW_PG_MAJOR -u WALSHADOW_STATE_DIR -u WALSHADOW_PG_PORT bash "$STACK" ch "$@"; }

rc=3
jobs=$(curl -fsS --max-time 5 "http://127.0.0.1:$WEB_PORT/jobs/overview" 2>/dev/null || true)
if [[ -z $jobs ]]; then
  printf 'job        no job answers on http://localhost:%s/ (not running, or another --local.web.port)\n' "$WEB_PORT"
else
  # one object per job: {"jid":...,"name":...,...,"duration":ms,...,"state":...}
  while IFS= read -r job; do
    name=$(sed -n 's/.*"name":"\([^"]*\)".*/\1/p' <<<"$job")
    state=$(sed -n 's/.*"state":"\([A-Z_]*\)".*/\1/p' <<<"$job")
    secs=$(( $(sed -n 's/.*"duration":\([0-9]*\).*/\1/p' <<<"$job") / 1000 ))
    printf 'job        %s: %s for %dm%02ds (dashboard http://localhost:%s/)\n' "$name" "$state" $((secs / 60)) \
      $((secs % 60)) "$WEB_PORT"
    [[ $state != RUNNING ]] || rc=0
  done < <(grep -o '{"jid":[^}]*}' <<<"$jobs")
fi

slot=$(bash "$STACK" psql -X -q -At -F ' ' -c "SELECT CASE WHEN active THEN 'active' ELSE 'inactive' END,
    coalesce(wal_status, '-'), coalesce(pg_size_pretty(safe_wal_size), 'unlimited'), restart_lsn,
    pg_current_wal_lsn(), pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn))
  FROM pg_replication_slots WHERE slot_name = '$SLOT'" 2>/dev/null || true)
if [[ -z $slot ]]; then
  printf 'slot       no slot %s on PostgreSQL %s at 127.0.0.1:%s (not started, or WALSHADOW_DEMO_SLOT names another)\n' \
    "$SLOT" "$MAJOR" "${WALSHADOW_PG_PORT:-55432}"
else
  read -r active status safe restart current behind <<<"$slot"
  printf 'slot       %s: %s, wal_status %s, safe_wal_size %s; restart_lsn %s, %s behind the server (%s)\n' \
    "$SLOT" "$active" "$status" "$safe" "$restart" "$behind" "$current"
fi

metrics=$(curl -fsS --max-time 5 "http://127.0.0.1:$METRICS_PORT/metrics" 2>/dev/null || true)
if [[ -z $metrics ]]; then
  printf 'rates      no Prometheus endpoint on http://localhost:%s/metrics\n' "$METRICS_PORT"
else
  lag=$(awk '/^flink_taskmanager_job_task_operator_wal_lag_bytes[{ ]/ {v = $NF} END {printf "%d", v}' <<<"$metrics")
  rows=$(awk '/^flink_taskmanager_job_task_operator_clickhouse_sink_rows_staged_per_second[{ ]/ {s += $NF}
    END {printf "%.1f", s}' <<<"$metrics")
  printf 'rates      WAL lag %s bytes (the server has, the job not yet read); %s rows/s into ClickHouse (http://localhost:%s/metrics)\n' \
    "$lag" "$rows" "$METRICS_PORT"
fi

# _walshadow_visible: the newest commit whose rows (and every earlier commit's) are in the tables; with rows written
# at commit (the default) ahead of the checkpointed watermark below
visible=$(ch --query "SELECT sink, argMax(commit_lsn_text, commit_seq), max(commit_seq),
    argMax(commit_time, commit_seq), dateDiff('second', argMax(commit_time, commit_seq), now())
  FROM \`$DB\`._walshadow_visible GROUP BY sink ORDER BY sink FORMAT TSV" 2>/dev/null || true)
while IFS=$'\t' read -r sink lsn seq time age; do
  [[ -n $sink ]] && printf 'visible    sink %s: visible up to %s (commit seq %s, committed %s UTC, %s s ago)\n' \
    "$sink" "$lsn" "$seq" "$time" "$age"
done <<<"$visible"

marks=$(ch --query "SELECT sink, commit_lsn_text, commit_seq, commit_time,
    dateDiff('second', commit_time, now()), commit_in_progress FROM \`$DB\`._walshadow_committed
  FORMAT TSV" 2>/dev/null || true)
if [[ -z $marks ]]; then
  printf 'watermark  none in ClickHouse database %s yet\n' "$DB"
else
  while IFS=$'\t' read -r sink lsn seq time age busy; do
    printf 'watermark  sink %s: checkpointed up to %s (commit seq %s, committed %s UTC, %s s ago)%s\n' "$sink" "$lsn" \
      "$seq" "$time" "$age" "$([[ $busy == 1 ]] && echo '; a batch is being committed' || true)"
  done <<<"$marks"
fi
exit "$rc"
