# Sourced by the bench-module programs' scripts (e2e.sh, buffer.sh, ...): starts the local stack, exports its
# settings, builds the bench module and what it depends on (reactor build, nothing installed), cd's to the repository
# root and sets BENCH_CP to the programs' class path.
# A script that needs no ClickHouse (wal-parse.sh, decode.sh) sets BENCH_PG_ONLY=1: then WALSHADOW_PG_MAJOR=NN
# (14..18, 15 included) runs it on a PostgreSQL-only stack of the benchmarks' own (stack.sh pg-start: state dir
# /var/lib/walshadow-bNN, port 21032 + 100 x NN, unless WALSHADOW_STATE_DIR / WALSHADOW_PG_PORT say otherwise),
# never on the default stack the tests share; it is left running (stack.sh stop with the same variables stops it).
# Without WALSHADOW_PG_MAJOR, the default stack (PostgreSQL 15 on 55432).
HERE=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=../local/toolchain.sh
source "$ROOT/deploy/local/toolchain.sh"

if [[ ${BENCH_PG_ONLY:-0} == 1 && -n ${WALSHADOW_PG_MAJOR:-} ]]; then
  [[ $WALSHADOW_PG_MAJOR =~ ^1[4-8]$ ]] || { echo "[bench] WALSHADOW_PG_MAJOR must be 14..18" >&2; exit 2; }
  export WALSHADOW_STATE_DIR=${WALSHADOW_STATE_DIR:-/var/lib/walshadow-b$WALSHADOW_PG_MAJOR}
  export WALSHADOW_PG_PORT=${WALSHADOW_PG_PORT:-$((21032 + 100 * WALSHADOW_PG_MAJOR))}
  bash "$ROOT/deploy/local/stack.sh" pg-start
else
  bash "$ROOT/deploy/local/stack.sh" start
fi
eval "$(bash "$ROOT/deploy/local/stack.sh" env)"

cd "$ROOT"
if [[ ${BENCH_NO_BUILD:-0} != 1 ]]; then # majors.sh builds once for all its runs
  echo "[bench] building (mvn -pl bench -am package -DskipTests)" >&2
  mvn -B -q -o -pl bench -am package -DskipTests || mvn -B -q -pl bench -am package -DskipTests
fi
# The job's unshaded classes, not its jar (the shaded one: its relocated pgjdbc would claim jdbc:postgresql URLs).
BENCH_CP="bench/target/classes:job/target/classes:$(cat bench/target/runtime.classpath)"
