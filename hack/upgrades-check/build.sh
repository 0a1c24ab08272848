#!/usr/bin/env bash
# Prints the path of the upgrades-check binary (main.go: one-step upgrades computed with
# github.com/blang/semver/v4 itself, independently of src/client), building it on first use.
# Used by src/client/upgrades-blang.test.ts and hack/upgrades-check/compare.ts.
#
#   CATALOGD_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${CATALOGD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts}
sum=$(cat "$here/main.go" "$here/go.mod" | sha256sum | cut -c1-12)
out="$cache/upgrades-check-$sum"
mkdir -p "$out"
if [ ! -x "$out/upgrades-check" ]; then
  (cd "$here" && go mod download && go build -trimpath -o "$out/upgrades-check.tmp" .)
  mv "$out/upgrades-check.tmp" "$out/upgrades-check"
fi
echo "$out/upgrades-check"
