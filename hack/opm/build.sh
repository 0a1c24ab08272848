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
# shellcheck source=hack/go-tool.sh
. "$here/../go-tool.sh"
version=$(sed -n "s|^require github.com/operator-framework/operator-registry \(v[^ ]*\)$|\1|p" "$here/go.mod")

build() {
  (cd "$here" && go mod download && nice -n 10 go build -trimpath -tags json1,containers_image_openpgp -ldflags "-s -w" -o "$1" github.com/operator-framework/operator-registry/cmd/opm)
}
go_tool opm "$version" build
