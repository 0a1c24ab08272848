#!/usr/bin/env bash
# Prints the path of upstream `catalogd` at UPSTREAM_CATALOGD_VERSION (hack/versions.env): cmd/catalogd
# of github.com/operator-framework/operator-controller at a release with the GraphQL endpoint
# (v1.9+; v1.11 has the on-disk index), building it on first use and caching it under the cache
# root (`make upstream-catalogd`). Used to compare catalogd-ts's GraphQL answers with upstream's
# (hack/graphql-compare.ts, docs/graphql.md) and in the graphql bench's peer part.
#
# Why not hack/olmv1/build.sh: from v1.6 the module requires pkg.package-operator.run/boxcutter,
# whose vanity host the Go module proxy here refuses ("module-host allowlist"), and sum.golang.org
# is not reachable. So:
#   1. operator-controller itself comes from the module proxy (`go mod download`, verified by the
#      proxy's sum database entry as any download), and is built as the main module from a copy of
#      its module directory: its own go.mod and go.sum pin every dependency, no wrapper needed
#      (v1.11's go.mod has no `replace` directives).
#   2. boxcutter is served from a file GOPROXY built here from a fetched git snapshot of
#      github.com/package-operator/boxcutter (BOXCUTTER_GIT, default the `fetch` tool's mirror):
#      the .info, .mod and module .zip of the tag operator-controller's go.mod requires. The
#      zip's hash is then checked against operator-controller's go.sum as for any module: no
#      GONOSUMDB, GOFLAGS=-mod=mod or GOINSECURE. GOPROXY=file://…,https://proxy.golang.org: every
#      other module still comes from the proxy (a file proxy miss is a 404, which falls through).
#
# CGO_ENABLED=0 with containers_image_openpgp as in hack/olmv1/build.sh. Unlike v1.5.1's
# containers/image, v1.11's go.podman.io/image reads CONTAINERS_REGISTRIES_CONF, so no path is
# linked in: a caller pulling from a plain-HTTP registry points that variable at a file (by
# convention registries.conf beside the binary, bench/lib/upstream.ts).
#
#   CATALOGD_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts).
#   BOXCUTTER_GIT   a git directory holding boxcutter's tags (default
#                   /work/.mirror/package-operator+boxcutter/repo).
#
# Progress goes to stderr; only the binary's path is printed on stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=hack/go-tool.sh
. "$here/../go-tool.sh"
upstream_version=$(sed -n 's/^UPSTREAM_CATALOGD_VERSION=//p' "$here/../versions.env")
module=github.com/operator-framework/operator-controller
boxcutter=pkg.package-operator.run/boxcutter
boxcutter_git=${BOXCUTTER_GIT:-/work/.mirror/package-operator+boxcutter/repo}

# Writes a file GOPROXY for $boxcutter at tag $2 under $1 from $boxcutter_git: the module is the
# tag's tree with what a module zip leaves out left out (symbolic links, e.g. boxcutter's
# CLAUDE.md; there are no nested modules or vendor directories at the pinned tag).
boxcutter_proxy() {
  local root=$1 tag=$2
  local dir="$root/$boxcutter/@v" tree="$root/tree"
  if ! git --git-dir "$boxcutter_git" rev-parse -q --verify "refs/tags/$tag" > /dev/null; then
    echo "build.sh: $boxcutter_git has no tag $tag (fetch github.com/package-operator/boxcutter)" >&2
    exit 1
  fi
  rm -rf "$root"
  mkdir -p "$dir" "$tree/$boxcutter@$tag"
  git --git-dir "$boxcutter_git" archive --format=tar "$tag" | tar -x -C "$tree/$boxcutter@$tag"
  find "$tree" -type l -delete
  (cd "$tree" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | zip -q -X "$dir/$tag.zip" -@)
  git --git-dir "$boxcutter_git" show "$tag:go.mod" > "$dir/$tag.mod"
  local time
  time=$(git --git-dir "$boxcutter_git" log -1 --format=%cI "$tag^{commit}")
  printf '{"Version":"%s","Time":"%s"}\n' "$tag" "$(date -u -d "$time" +%Y-%m-%dT%H:%M:%SZ)" > "$dir/$tag.info"
  echo "$tag" > "$dir/list"
  rm -rf "$tree"
}

build() {
  local out=$1
  local cache_dir
  cache_dir=$(dirname "$out")
  local src="$cache_dir/src" proxy="$cache_dir/goproxy"
  local moddir
  moddir=$(cd "$cache_dir" && go mod download -json "$module@$upstream_version" \
    | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [ -n "$moddir" ] || { echo "build.sh: go mod download $module@$upstream_version failed" >&2; exit 1; }
  rm -rf "$src"
  cp -R "$moddir" "$src"
  chmod -R u+w "$src"
  local tag
  tag=$(sed -n "s|^[[:space:]]*$boxcutter \(v[^ ]*\).*|\1|p" "$src/go.mod")
  boxcutter_proxy "$proxy" "$tag"
  local x="-X $module/internal/shared/version.version=$upstream_version"
  export GOPROXY="file://$proxy,https://proxy.golang.org" GOFLAGS=-mod=readonly CGO_ENABLED=0
  # boxcutter first and alone: go.sum holds its hash, so a zip that is not the tag's module
  # fails here ("SECURITY ERROR … checksum mismatch").
  (cd "$src" && go mod download "$boxcutter")
  # The modules cmd/catalogd needs (not the whole graph), downloaded before the timed build.
  (cd "$src" && go list -deps -tags containers_image_openpgp ./cmd/catalogd > /dev/null)
  local start=$SECONDS
  (cd "$src" && \
    nice -n 10 go build -trimpath -tags containers_image_openpgp -ldflags "-s -w $x" \
    -o "$out" ./cmd/catalogd)
  echo "go build ./cmd/catalogd: $((SECONDS - start))s" >&2
}

sum=$(sha256sum "$here/build.sh" | cut -c1-12)
go_tool upstream-catalogd "$upstream_version-$sum" build
