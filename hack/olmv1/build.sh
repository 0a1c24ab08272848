#!/usr/bin/env bash
# Prints the directory holding `operator-controller` and upstream `catalogd`, both built from
# github.com/operator-framework/operator-controller (version pinned as OPERATOR_CONTROLLER_VERSION in
# hack/versions.env, through the wrapper hack/olmv1/go.mod that carries the module's `replace`
# directives) via the Go module proxy, and `olmv1-check` (hack/olmv1-check: operator-controller's
# view of a catalog from upstream catalogd and from catalogd-ts), building them on first use
# (`make olmv1`). Used to run OLM v1 beside catalogd-ts and to compare catalogd-ts with upstream
# catalogd (docs/olmv1.md). The cache directory's name includes a hash of the check's sources and
# of this script, so a change to either builds again (the Go build cache keeps that to the
# check's own package and the links).
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
  # One `go build` for the three binaries: they share almost all packages, so one build graph
  # compiles each package once. CGO_ENABLED=0 with containers_image_openpgp: the default build needs
  # cgo gpgme. The -X flags stand in for upstream's Makefile (version) and give the registries.conf
  # path (see above).
  local x="-X $module/internal/shared/version.version=$version"
  x+=" -X github.com/containers/image/v5/pkg/sysregistriesv2.systemRegistriesConfPath=$registries_conf"
  # The check uses operator-controller's internal packages, which only a package of that module
  # may import: -overlay adds hack/olmv1-check/*.go (outside any Go module) to the module as read
  # from the module cache, as the package $module/cmd/olmv1-check, without copying the module.
  local dir overlay
  (cd "$here" && go mod download)
  dir=$(cd "$here" && go list -m -f '{{.Dir}}' "$module")
  overlay="$(dirname "$out")/overlay.json"
  {
    echo '{"Replace": {'
    local sep=''
    for f in "$here"/../olmv1-check/*.go; do
      printf '%s"%s": "%s"' "$sep" "$dir/cmd/olmv1-check/$(basename "$f")" "$f"
      sep=$',\n'
    done
    echo '}}'
  } > "$overlay"
  (cd "$here" && CGO_ENABLED=0 nice -n 10 go build -trimpath -tags containers_image_openpgp \
    -ldflags "-s -w $x" -overlay "$overlay" \
    -o "$out" "$module/cmd/operator-controller" "$module/cmd/catalogd" "$module/cmd/olmv1-check")
}
sum=$(cat "$here"/../olmv1-check/*.go "$here/build.sh" | sha256sum | cut -c1-12)
go_tool olmv1 "$version-$sum" build
