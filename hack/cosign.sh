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
# shellcheck source=hack/go-tool.sh
. "$here/go-tool.sh"
version=$(sed -n 's/^COSIGN_VERSION=//p' "$here/versions.env")

build() {
  # `go install module@version` builds with the module's own go.mod/go.sum (checked against the
  # checksum database), independently of any go.mod here.
  local bin="$1.bin"
  GOFLAGS=-mod=mod GOBIN="$bin" nice -n 10 go install -trimpath -ldflags "-s -w" \
    "github.com/sigstore/cosign/v2/cmd/cosign@$version"
  mv "$bin/cosign" "$1"
  rmdir "$bin"
}
go_tool cosign "$version" build
