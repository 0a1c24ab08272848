#!/usr/bin/env bash
# Prints the directory holding `operator-controller` and upstream `catalogd`, both built from
# github.com/operator-framework/operator-controller (version pinned as OPERATOR_CONTROLLER_VERSION in
# hack/versions.env, through the wrapper hack/olmv1/go.mod that carries the module's `replace`
# directives) via the Go module proxy, `olmv1-check` (hack/olmv1-check: operator-controller's
# view of a catalog from upstream catalogd and from catalogd-ts) and `informer-check`
# (hack/informer-check: a client-go shared informer printing its events, lists and watches),
# building them on first use
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
#   hack/olmv1/build.sh --image   prints instead the path of an `operator-controller` alone, linked
#                                 for a container image (`make operator-controller`,
#                                 hack/olmv1/image.sh) from the same build (same sources, flags and
#                                 -modfile, so only the link is new): it reads containers/image's
#                                 default /etc/containers/registries.conf, which a pod mounts.
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
  # One `go build` for the four binaries: they share almost all packages, so one build graph
  # compiles each package once. CGO_ENABLED=0 with containers_image_openpgp: the default build needs
  # cgo gpgme. The -X flags stand in for upstream's Makefile (version) and give the registries.conf
  # path (see above).
  local x="-X $module/internal/shared/version.version=$version"
  x+=" -X github.com/containers/image/v5/pkg/sysregistriesv2.systemRegistriesConfPath=$registries_conf"
  # The check uses operator-controller's internal packages, which only a package of that module
  # may import. `go build -overlay` cannot add it to the module as read from the module cache
  # ("Files beneath GOMODCACHE must not be replaced"), so the module (10 MB, verified by go.sum
  # when downloaded) is copied beside the binaries with hack/olmv1-check/*.go added as
  # $module/cmd/olmv1-check, and the build reads the wrapper's go.mod plus a `replace` to that
  # copy through -modfile (the committed go.mod stays as it is).
  local cache_dir src modfile
  cache_dir=$(dirname "$out")
  src="$cache_dir/src"
  modfile="$cache_dir/go.mod"
  (cd "$here" && go mod download)
  rm -rf "$src"
  cp -R "$(cd "$here" && go list -m -f '{{.Dir}}' "$module")" "$src"
  chmod -R u+w "$src"
  mkdir -p "$src/cmd/olmv1-check" "$src/cmd/informer-check"
  cp "$here"/../olmv1-check/*.go "$src/cmd/olmv1-check/"
  cp "$here"/../informer-check/*.go "$src/cmd/informer-check/"
  { cat "$here/go.mod"; echo "replace $module => $src"; } > "$modfile"
  cp "$here/go.sum" "$cache_dir/go.sum"
  (cd "$here" && CGO_ENABLED=0 nice -n 10 go build -modfile "$modfile" -trimpath \
    -tags containers_image_openpgp -ldflags "-s -w $x" \
    -o "$out" "$module/cmd/operator-controller" "$module/cmd/catalogd" "$module/cmd/olmv1-check" \
    "$module/cmd/informer-check")
}
sum=$(cat "$here"/../olmv1-check/*.go "$here"/../informer-check/*.go "$here/build.sh" | sha256sum | cut -c1-12)
case "${1:-}" in
--image)
  dir=$(go_tool olmv1 "$version-$sum" build)
  cache_dir=$(dirname "$dir")
  build_for_image() {
    (cd "$here" && CGO_ENABLED=0 nice -n 10 go build -modfile "$cache_dir/go.mod" -trimpath \
      -tags containers_image_openpgp -ldflags "-s -w -X $module/internal/shared/version.version=$version" \
      -o "$1" "$module/cmd/operator-controller")
  }
  go_tool operator-controller "$version-$sum" build_for_image
  ;;
"") go_tool olmv1 "$version-$sum" build ;;
*) echo "build.sh: unknown argument $1 (only --image)" >&2; exit 2 ;;
esac
