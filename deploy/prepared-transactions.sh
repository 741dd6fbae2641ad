#!/usr/bin/env bash
# Lists the prepared transactions the job's transaction buffer holds in a savepoint or retained checkpoint,
# offline (io.walshadow.job.PreparedTransactionsTool in a local Flink MiniCluster; see docs/operations.md):
#   deploy/prepared-transactions.sh list --savepoint <savepoint dir or chk-N dir>
# Builds the reactor (no install) and runs the tool on the job module's classpath.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=local/toolchain.sh
source "$HERE/local/toolchain.sh"

cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
# test-compile: the job module's test-jar dependencies must resolve, even for its compile-scope classpath.
(cd "$ROOT" && mvn -B -q -pl job -am test-compile dependency:build-classpath \
  -DincludeScope=compile -Dmdep.outputFile="$cp_file" >&2)
java -Dlog4j.configurationFile="$HERE/local/log4j2-local.properties" -cp "$ROOT/job/target/classes:$(cat "$cp_file")" \
  io.walshadow.job.PreparedTransactionsTool "$@"
