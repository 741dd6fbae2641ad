#!/usr/bin/env bash
# Shared by the benchmark scripts: start the local stack, build, and run a test-scope program of the decoding
# module (`run-program.sh <simple class name in io.walshadow.bench> [program arguments]`).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=../local/toolchain.sh
source "$ROOT/deploy/local/toolchain.sh"
program=$1
shift

bash "$ROOT/deploy/local/stack.sh" start
eval "$(bash "$ROOT/deploy/local/stack.sh" env)"

# With --jfr, let the profile attribute samples to the inlined method that ran, not the nearest safepoint.
if [[ " $* " == *" --jfr "* ]]; then
  export MAVEN_OPTS="${MAVEN_OPTS:-} -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints"
fi

cd "$ROOT"
echo "[bench] building (mvn install -DskipTests)" >&2
mvn -B -q -o install -DskipTests -pl decoding -am || mvn -B -q install -DskipTests -pl decoding -am
mvn -B -q -pl decoding test-compile exec:java \
  -Dexec.mainClass="io.walshadow.bench.$program" -Dexec.classpathScope=test -Dexec.args="$*"
