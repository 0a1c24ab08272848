#!/usr/bin/env bash
# Prints the directory holding `operator-controller` and upstream `catalogd`, both built from
# github.com/operator-framework/operator-controller (version pinned as OPERATOR_CONTROLLER_VERSION in
# hack/versions.env, through the wrapper hack/olmv1/go.mod that carries the module's `replace`
# directives) via the Go module proxy, building them on first use (`make olmv1`). Used to run OLM v1
# beside catalogd-ts and to compare catalogd-ts with upstream catalogd (docs/olmv1.md).
#
# Both binaries read their containers registries.conf from registries.conf beside them in the cache
# (printed directory/../registries.conf), not from CONTAINERS_REGISTRIES_CONF, which containers/image
# ignores there: its path is set at build time. Absent, the binaries use containers/image defaults;
# a caller that pulls from a plain-HTTP registry writes that file (`insecure = true` for it).
#
#   CATALOGD_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts).
#
# Progress goes to stderr; only the directory's path is printed on stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=hack/go-tool.sh
. "$here/../go-tool.sh"
version=$(sed -n 's/^OPERATOR_CONTROLLER_VERSION=//p' "$here/../versions.env")
module=github.com/operator-framework/operator-controller

build() {
  local out=$1
  local registries_conf
  registries_conf="$(dirname "$out")/registries.conf"
  mkdir -p "$out"
  # One `go build` for both binaries: they share almost all packages, so one link-ready build graph
  # compiles each package once. CGO_ENABLED=0 with containers_image_openpgp: the default build needs
  # cgo gpgme. The -X flags stand in for upstream's Makefile (version) and give the registries.conf
  # path (see above).
  local x="-X $module/internal/shared/version.version=$version"
  x+=" -X github.com/containers/image/v5/pkg/sysregistriesv2.systemRegistriesConfPath=$registries_conf"
  (cd "$here" && go mod download &&
    CGO_ENABLED=0 nice -n 10 go build -trimpath -tags containers_image_openpgp -ldflags "-s -w $x" \
      -o "$out" "$module/cmd/operator-controller" "$module/cmd/catalogd")
}
go_tool olmv1 "$version" build
