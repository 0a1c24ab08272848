#!/usr/bin/env bash
# Prints the path of a `cosign` binary built from github.com/sigstore/cosign/v2 (version pinned
# as COSIGN_VERSION in hack/versions.env) via the Go module proxy, building it on first use.
# Used only by the e2e tests of signed catalogs (test/e2e/signatures.test.ts), to sign with the
# real tool and to check that what `catalogd push --sign-key` writes is what cosign accepts.
#
#   CATALOGD_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts).
#
# Progress goes to stderr; only the binary's path is printed on stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(sed -n 's/^COSIGN_VERSION=//p' "$here/versions.env")
cache=${CATALOGD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts}
out="$cache/cosign-$version"
mkdir -p "$out"
if [ ! -x "$out/cosign" ]; then
  echo "building cosign $version (first time only; cached in $out)" >&2
  start=$SECONDS
  # `go install module@version` builds with the module's own go.mod/go.sum (checked against the
  # checksum database), independently of any go.mod here.
  GOFLAGS=-mod=mod GOBIN="$out/bin.tmp" nice -n 10 go install -trimpath -ldflags "-s -w" \
    "github.com/sigstore/cosign/v2/cmd/cosign@$version"
  mv "$out/bin.tmp/cosign" "$out/cosign"
  rmdir "$out/bin.tmp"
  echo "built cosign in $((SECONDS - start))s" >&2
fi
echo "$out/cosign"
