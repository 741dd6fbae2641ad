#!/usr/bin/env bash
# Prints the end of the log of every test class that failed in the last Maven run under the repo root (Maven's
# console holds only results: each class's log is in target/{surefire,failsafe}-reports/<class>-output.txt). Lines
# between a test's "===== TEST" and "===== END" banners belong to it; a test that injects faults says so there.
# Usage: failed-test-logs.sh [--since FILE] [lines per class, default 300]
#   --since FILE: only reports written after FILE (the run's start), not a stale one of an earlier run
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
since=
if [[ ${1:-} == --since ]]; then since=$2; shift 2; fi
lines=${1:-300}
shopt -s nullglob
for report in "$ROOT"/*/target/surefire-reports/*.txt "$ROOT"/*/target/failsafe-reports/*.txt; do
  [[ $report == *-output.txt ]] && continue
  [[ -z $since || $report -nt $since ]] || continue
  grep -qE 'FAILURE!|ERROR!' "$report" || continue
  out=${report%.txt}-output.txt
  printf '\n[test] ---- %s failed; the last %s lines of its log (%s) ----\n' \
    "$(basename "${report%.txt}")" "$lines" "${out#"$ROOT"/}" >&2
  if [[ -f $out ]]; then tail -n "$lines" "$out" >&2; else printf '[test] (no log file)\n' >&2; fi
done
exit 0
