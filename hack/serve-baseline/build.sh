#!/usr/bin/env bash
# Prints the path of the serve-baseline binary (main.go: upstream catalogd's content server's
# way of serving, for bench/serve.ts), building it on first use and after any change to it.
#
#   CATALOGD_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=hack/go-tool.sh
. "$here/../go-tool.sh"
version=$(cat "$here/main.go" "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)

build() {
  (cd "$here" && go mod download && CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags "-s -w" -o "$1" .)
}
go_tool serve-baseline "$version" build
