#!/usr/bin/env bash
# operator-controller's image, as upstream's Dockerfile.operator-controller makes it (the static
# binary as /operator-controller, USER 65532:65532, that ENTRYPOINT) but `FROM scratch`: its
# distroless base cannot be pulled on these machines, and the static binary needs nothing of it
# (it trusts the CAs of --catalogd-cas-dir and --pull-cas-dir; registries.conf is mounted by the
# pod at containers/image's default /etc/containers/registries.conf). The binary is
# `hack/olmv1/build.sh --image`; pushes the image to the local cluster's registry and prints its
# digest reference there (pods pull it from NODE_REGISTRY, the same registry on the node's address).
#
# Built into buildah's storage once per binary (label org.catalogd-ts.binary, its sha256); pushing
# an unchanged image again uploads nothing the registry has.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
local_dir=${CATALOGD_LOCAL:-$root/.local}
version=$(sed -n 's/^OPERATOR_CONTROLLER_VERSION=//p' "$here/../versions.env")
name=localhost/operator-controller:$version

registry=$(sed -n 's/^REGISTRY=//p' "$local_dir/env" 2>/dev/null || true)
[ -n "$registry" ] || { echo "olmv1/image.sh: no local registry (run make cluster-up first)" >&2; exit 1; }
"$here/../image-tools.sh"
bin=$("$here/build.sh" --image)
sum=$(sha256sum "$bin" | cut -c1-64)

current=$(buildah inspect --type image --format '{{index .OCIv1.Config.Labels "org.catalogd-ts.binary"}}' "$name" 2>/dev/null || true)
if [ "$current" != "$sum" ]; then
  start=$SECONDS
  container=$(buildah from scratch)
  trap 'buildah rm "$container" >/dev/null 2>&1 || true' EXIT
  buildah copy --quiet --chmod 0755 "$container" "$bin" /operator-controller >/dev/null
  buildah config --workingdir / --port 8080 --user 65532:65532 --entrypoint '["/operator-controller"]' \
    --label "org.catalogd-ts.binary=$sum" \
    --label "org.catalogd-ts.origin=operator-controller $version, hack/olmv1/image.sh" "$container"
  buildah commit --quiet --rm "$container" "$name" >/dev/null
  trap - EXIT
  echo "olmv1/image.sh: built $name in $((SECONDS - start))s" >&2
fi
digestfile=$(mktemp)
trap 'rm -f "$digestfile"' EXIT
buildah push --quiet --tls-verify=false --digestfile "$digestfile" "$name" \
  "docker://$registry/operator-controller:$version" >&2
echo "$registry/operator-controller@$(cat "$digestfile")"
