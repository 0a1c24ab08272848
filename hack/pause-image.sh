#!/usr/bin/env bash
# Pushes the local cluster's pod sandbox ("pause") image to a registry, unless it is there:
# one layer with hack/pause (built once, cached) as /pause. The node's containerd names it as its
# sandbox_image; registry.k8s.io/pause cannot be pulled on these machines.
#
#   hack/pause-image.sh <registry host:port> <repository:tag>
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
registry=$1 name=$2
repo=${name%%:*} tag=${name#*:}
url="http://$registry/v2/$repo"

curl -fs -o /dev/null -H 'Accept: application/vnd.oci.image.manifest.v1+json' "$url/manifests/$tag" 2>/dev/null && exit 0

build_pause() { (cd "$here/pause" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$1" .); }
# shellcheck source=go-tool.sh
source "$here/go-tool.sh"
bin=$(go_tool pause "$(sha256sum "$here/pause/main.go" | cut -c1-12)" build_pause)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root"
cp "$bin" "$work/root/pause"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work/root" -cf "$work/layer.tar" pause
gzip -n -c "$work/layer.tar" > "$work/layer.tar.gz"
diff_id=sha256:$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/pause"],"User":"65535:65535"},"rootfs":{"type":"layers","diff_ids":["%s"]}}' \
  "$diff_id" > "$work/config.json"

push_blob() { # push_blob <file>: prints its digest
  local digest location
  digest=sha256:$(sha256sum "$1" | cut -d' ' -f1)
  if ! curl -fs -o /dev/null -I "$url/blobs/$digest"; then
    location=$(curl -fsS -X POST -D - -o /dev/null "$url/blobs/uploads/" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
    case "$location" in http*) ;; *) location="http://$registry$location" ;; esac
    case "$location" in *\?*) location="$location&digest=$digest" ;; *) location="$location?digest=$digest" ;; esac
    curl -fsS -X PUT -H 'Content-Type: application/octet-stream' --data-binary "@$1" "$location" >/dev/null
  fi
  echo "$digest"
}
layer=$(push_blob "$work/layer.tar.gz")
config=$(push_blob "$work/config.json")
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"%s","size":%d},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"%s","size":%d}]}' \
  "$config" "$(stat -c %s "$work/config.json")" "$layer" "$(stat -c %s "$work/layer.tar.gz")" > "$work/manifest.json"
curl -fsS -X PUT -H 'Content-Type: application/vnd.oci.image.manifest.v1+json' --data-binary "@$work/manifest.json" \
  "$url/manifests/$tag" >/dev/null
echo "pushed $registry/$name" >&2
