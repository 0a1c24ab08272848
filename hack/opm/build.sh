#!/usr/bin/env bash
# Prints the path of an `opm` binary built from github.com/operator-framework/operator-registry
# (version pinned in hack/opm/go.mod) via the Go module proxy, building it on first use.
# Used only to compare our FBC parsing with upstream's `opm render` (tests and bench).
#
#   CATALOGD_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts).
#
# Progress goes to stderr; only the binary's path is printed on stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(sed -n "s|^require github.com/operator-framework/operator-registry \(v[^ ]*\)$|\1|p" "$here/go.mod")
cache=${CATALOGD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts}
out="$cache/opm-$version"
mkdir -p "$out"
if [ ! -x "$out/opm" ]; then
  echo "building opm $version (first time only; cached in $out)" >&2
  start=$SECONDS
  (cd "$here" && go mod download && nice -n 10 go build -trimpath -tags json1,containers_image_openpgp -ldflags "-s -w" -o "$out/opm.tmp" github.com/operator-framework/operator-registry/cmd/opm)
  mv "$out/opm.tmp" "$out/opm"
  echo "built opm in $((SECONDS - start))s" >&2
fi
echo "$out/opm"
