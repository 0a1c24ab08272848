#!/usr/bin/env bash
# `make image`: builds the Containerfile, unchanged, with buildah (Debian's, no daemon) on the base
# image stand-in (hack/base-image.sh), and pushes it to the local cluster's registry.
#
#   hack/image.sh [TAG]   (default: local) pushes <REGISTRY>/catalogd-ts:TAG and prints that name
#
# The registry is the one in .local/env (`make cluster-up`); pods pull the same image from
# NODE_REGISTRY. Builds cache their layers (--layers), so an unchanged tree rebuilds in seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
local_dir=${CATALOGD_LOCAL:-$root/.local}
tag=${1:-local}

registry=$(sed -n 's/^REGISTRY=//p' "$local_dir/env" 2>/dev/null || true)
[ -n "$registry" ] || { echo "image: no local registry (run make cluster-up first)" >&2; exit 1; }
"$here/image-tools.sh"
"$here/base-image.sh"

start=$SECONDS
# --network=host: `npm ci` in the builder stage reaches the npm registry as the host does, and
# trusts what the host trusts: the host's CA bundle and an npmrc naming it are mounted for the
# RUN steps only (a machine whose traffic passes a TLS-inspecting proxy needs its CA; neither
# file ends up in the image).
mounts=()
host_ca=/etc/ssl/certs/ca-certificates.crt
if [ -f "$host_ca" ]; then
  npmrc=$(mktemp)
  trap 'rm -f "$npmrc"' EXIT
  echo "cafile=/run/host-ca.crt" > "$npmrc"
  mounts=(--volume "$host_ca:/run/host-ca.crt:ro" --volume "$npmrc:/usr/local/etc/npmrc:ro")
fi
buildah bud --quiet --layers --pull=never --network=host "${mounts[@]}" -f "$root/Containerfile" \
  -t "catalogd-ts:$tag" "$root" >&2
# The pushed digest goes to .local/image-TAG.digest: hack/deploy.sh puts it in the pod template,
# so a rebuild under the same tag rolls the pods (and they pull it: imagePullPolicy Always there).
buildah push --quiet --tls-verify=false --digestfile "$local_dir/image-$tag.digest" \
  "catalogd-ts:$tag" "docker://$registry/catalogd-ts:$tag" >&2
echo "image: built and pushed $registry/catalogd-ts:$tag in $((SECONDS - start))s" >&2
echo "$registry/catalogd-ts:$tag"
