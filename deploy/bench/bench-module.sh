# Sourced by the bench-module programs' scripts (e2e.sh, buffer.sh): starts the local stack, exports its settings,
# builds the bench module and what it depends on (reactor build, nothing installed), cd's to the repository root
# and sets BENCH_CP to the programs' class path.
HERE=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=../local/toolchain.sh
source "$ROOT/deploy/local/toolchain.sh"

bash "$ROOT/deploy/local/stack.sh" start
eval "$(bash "$ROOT/deploy/local/stack.sh" env)"

cd "$ROOT"
echo "[bench] building (mvn -pl bench -am package -DskipTests)" >&2
mvn -B -q -o -pl bench -am package -DskipTests || mvn -B -q -pl bench -am package -DskipTests
BENCH_CP="bench/target/classes:$(cat bench/target/runtime.classpath)"
