#!/usr/bin/env bash
# Sums the recorded results in a directory (default .local/test-results): every *.json there is
# {"passed":N,"failed":N,"skipped":N}, written by test/support/reporter.cjs for each mocha suite
# and by hack/record-check.sh for checks such as make verify. Prints one line: P F S.
set -euo pipefail
dir=${1:-.local/test-results}
passed=0; failed=0; skipped=0
for f in "$dir"/*.json; do
  [ -f "$f" ] || continue
  read -r p fl s < <(sed -E 's/.*"passed":([0-9]+).*"failed":([0-9]+).*"skipped":([0-9]+).*/\1 \2 \3/' "$f")
  passed=$((passed + p)); failed=$((failed + fl)); skipped=$((skipped + s))
done
echo "$passed $failed $skipped"
