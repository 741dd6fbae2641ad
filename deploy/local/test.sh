#!/usr/bin/env bash
# The project's whole test suite: start the local PostgreSQL + ClickHouse stack, export its
# connection settings (WALSHADOW_*), install chDB (the modern ClickHouse engine in-process, for the
# newer-server code paths) and export WALSHADOW_CHDB_DIR, run `mvn -B verify` from the repo root with
# any extra arguments. Then the other PostgreSQL majors (test-majors.sh: each of WALSHADOW_TEST_PG_MAJORS,
# default "14 16 17 18", on a PostgreSQL-only stack of its own, stopped afterwards: the WAL parity test, and on the
# majors the job replicates the catalog, value and a subset of the end-to-end tests against this stack's ClickHouse;
# WALSHADOW_TEST_PG_MAJORS= skips them). Exits non-zero if either failed. The default stack is left running
# afterwards (`deploy/local/stack.sh stop` stops it).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
STACK=$HERE/stack.sh

log() { printf '[test] %s\n' "$*" >&2; }
die() { printf '[test] ERROR: %s\n' "$*" >&2; exit 1; }

# shellcheck source=toolchain.sh
source "$HERE/toolchain.sh"

bash "$STACK" start || die "local stack failed to start (see messages above)"
bash "$STACK" test-tools || die "chromium / prometheus install failed (see messages above)"
# Captured first so that a failing `env` stops the run instead of eval-ing nothing.
stack_env=$(bash "$STACK" env) || die "stack.sh env failed"
eval "$stack_env"
# After the stack env, so chdb.sh sees the same WALSHADOW_STATE_DIR.
WALSHADOW_CHDB_DIR=$(bash "$HERE/chdb.sh" path) || die "chDB install failed (see messages above)"
export WALSHADOW_CHDB_DIR

cd "$ROOT"
# Checkpoint and savepoint directories the end-to-end tests create under the temp dir go with each test; ones an
# earlier run left (killed mid-test) can hold gigabytes: those older than two hours go now.
tmp=${TMPDIR:-/tmp}
find "$tmp" -maxdepth 1 \( -name 'walshadow-*-ck*' -o -name 'walshadow-sp*' -o -name 'walshadow-upgrade-sp*' \) \
  -mmin +120 -exec rm -rf {} + 2>/dev/null || true
log "mvn -B verify $*  (in $ROOT)"
rc=0
started=$(mktemp); trap 'rm -f "$started"' EXIT
mvn -B verify "$@" || rc=$?
log "mvn exited $rc"
# each test class logs to its own file (pom.xml): show the failed ones' here
[[ $rc -eq 0 ]] || bash "$HERE/failed-test-logs.sh" --since "$started"
majors_rc=0
bash "$HERE/test-majors.sh" || majors_rc=$?
[[ $rc -ne 0 ]] || rc=$majors_rc
exit "$rc"
