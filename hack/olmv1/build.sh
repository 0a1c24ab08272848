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
#   hack/olmv1/build.sh --image   prints instead the path of an `operator-controller` alone, built
#                                 for a container image (`make operator-controller`,
#                                 hack/olmv1/image.sh): it reads containers/image's default
#                                 /etc/containers/registries.conf, which a pod mounts. It shares
#                                 every compiled package with the pair above (same flags), so
#                                 building one after the other costs only the link.
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

# go_build OUT X_FLAGS PACKAGE...: CGO_ENABLED=0 with containers_image_openpgp (the default build
# needs cgo gpgme); the version -X stands in for upstream's Makefile.
go_build() {
  local out=$1 x="-X $module/internal/shared/version.version=$version $2"
  shift 2
  (cd "$here" && go mod download &&
    CGO_ENABLED=0 nice -n 10 go build -trimpath -tags containers_image_openpgp -ldflags "-s -w $x" \
      -o "$out" "$@")
}

build() {
  local out=$1
  mkdir -p "$out"
  # One `go build` for both binaries: they share almost all packages, so one link-ready build graph
  # compiles each package once. The second -X gives the registries.conf path (see above).
  go_build "$out" \
    "-X github.com/containers/image/v5/pkg/sysregistriesv2.systemRegistriesConfPath=$(dirname "$out")/registries.conf" \
    "$module/cmd/operator-controller" "$module/cmd/catalogd"
}

build_for_image() {
  go_build "$1" "" "$module/cmd/operator-controller"
}

case "${1:-}" in
--image) go_tool operator-controller "$version" build_for_image ;;
"") go_tool olmv1 "$version" build ;;
*) echo "build.sh: unknown argument $1 (only --image)" >&2; exit 2 ;;
esac
