#!/usr/bin/env bash
# Runs a check that is not a mocha suite (make verify) and records its outcome beside the mocha
# results, in .local/test-results/<name>.json ({"passed":1,...} or {"failed":1,...}), so that
# .ci/run's final `N passed, N failed` line counts a failed check as a failure.
# Usage: hack/record-check.sh <name> <command> [args...]; exits with the command's status.
set -uo pipefail
if [ "$#" -lt 2 ]; then
  echo "usage: hack/record-check.sh <name> <command> [args...]" >&2
  exit 2
fi
name=$1
shift
"$@"
status=$?
dir=.local/test-results
mkdir -p "$dir"
if [ "$status" -eq 0 ]; then
  echo '{"passed":1,"failed":0,"skipped":0}' >"$dir/$name.json"
else
  echo '{"passed":0,"failed":1,"skipped":0}' >"$dir/$name.json"
  echo "$name: failed (exit $status)" >&2
fi
exit "$status"
