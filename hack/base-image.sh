#!/usr/bin/env bash
# Builds the one stand-in of `make image`: the Containerfile's base `node:24-bookworm-slim`,
# whose registry these machines cannot reach. Like the official image: Debian bookworm (a
# minbase mmdebstrap from the machine's apt sources), the official Node 24 binary (npm package
# NODE_PACKAGE) as /usr/local/bin/node, npm (NPM_PACKAGE) with npm and npx in /usr/local/bin, a
# `node` user (uid 1000), CMD node. Stored in buildah's storage under BASE_IMAGE, so that
# `FROM node:24-bookworm-slim` resolves to it with --pull=never.
#
# Rebuilt only when its inputs change: this script, its pins in versions.env, and the two npm tarballs'
# digests are hashed into the label org.catalogd-ts.base-inputs (Debian's packages are taken as
# of the build; rebuild with FORCE=1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"
cache=${CATALOGD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts}
tarballs="$cache/base-image"
mkdir -p "$tarballs"
PATH="$("$here/node.sh"):$PATH"

# The npm tarballs, once per version spec (npm pack prints the file name it wrote).
pack() { # pack <spec>: prints the tarball path
  local spec=$1 marker="$tarballs/${1//[@\/]/-}.tgz-name"
  if [ ! -f "$marker" ] || [ ! -f "$tarballs/$(cat "$marker")" ]; then
    (cd "$tarballs" && npm pack --silent "$spec" > "$marker.tmp") && mv "$marker.tmp" "$marker"
  fi
  echo "$tarballs/$(tail -n1 "$marker")"
}
node_tgz=$(pack "$NODE_PACKAGE")
npm_tgz=$(pack "$NPM_PACKAGE")
# Only the pins the image is made of: another tool's pin in versions.env rebuilds nothing.
inputs=$( (cat "$0" "$node_tgz" "$npm_tgz"; grep -E '^(BASE_IMAGE|BASE_SUITE|NODE_PACKAGE|NPM_PACKAGE)=' "$here/versions.env") | sha256sum | cut -c1-16)

current=$(buildah inspect --type image --format '{{index .ImageAnnotations "org.catalogd-ts.base-inputs"}}{{index .OCIv1.Config.Labels "org.catalogd-ts.base-inputs"}}' "$BASE_IMAGE" 2>/dev/null || true)
if [ "$current" = "$inputs" ] && [ -z "${FORCE:-}" ]; then
  echo "base image $BASE_IMAGE is up to date ($inputs)" >&2
  exit 0
fi

echo "building the base image stand-in $BASE_IMAGE ($inputs)" >&2
start=$SECONDS
work=$(mktemp -d)
container=""
cleanup() {
  [ -z "$container" ] || buildah rm "$container" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/node" "$work/npm"
tar -xzf "$node_tgz" -C "$work/node"
tar -xzf "$npm_tgz" -C "$work/npm"
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -s "$f" ] && sources+=("$f")
done
[ ${#sources[@]} -gt 0 ] || { echo "base-image: no apt sources on this machine" >&2; exit 1; }

# The customize hooks run on the unpacked root ($1) before it is packed.
mmdebstrap --quiet --variant=minbase --format=tar \
  --customize-hook="cp '$work/node/package/bin/node' \"\$1/usr/local/bin/node\"" \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules\" && cp -a '$work/npm/package' \"\$1/usr/local/lib/node_modules/npm\"" \
  --customize-hook="ln -s ../lib/node_modules/npm/bin/npm-cli.js \"\$1/usr/local/bin/npm\" && ln -s ../lib/node_modules/npm/bin/npx-cli.js \"\$1/usr/local/bin/npx\"" \
  --customize-hook="chroot \"\$1\" groupadd --gid 1000 node && chroot \"\$1\" useradd --uid 1000 --gid node --shell /bin/bash --create-home node" \
  --customize-hook="rm -rf \"\$1\"/var/lib/apt/lists/* \"\$1\"/var/cache/apt/*" \
  "$BASE_SUITE" "$work/rootfs.tar" "${sources[@]}" >&2

container=$(buildah from scratch)
buildah add --quiet "$container" "$work/rootfs.tar" / >/dev/null
buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$("$work/node/package/bin/node" --version | sed 's/^v//')" \
  --cmd node --label "org.catalogd-ts.base-inputs=$inputs" \
  --label "org.catalogd-ts.stand-in=node:24-bookworm-slim built by hack/base-image.sh" "$container"
buildah commit --quiet --rm "$container" "$BASE_IMAGE" >/dev/null
container=""
echo "built the base image stand-in in $((SECONDS - start))s" >&2
