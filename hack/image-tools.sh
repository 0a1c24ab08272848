#!/usr/bin/env bash
# Installs Debian's buildah and mmdebstrap when missing: the image builder of `make image`
# (hack/image.sh), of its base stand-in (hack/base-image.sh) and of hack/olmv1/image.sh.
set -euo pipefail
missing=()
for p in buildah mmdebstrap; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "image: installing Debian's ${missing[*]}" >&2
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2 || {
  $sudo apt-get update -q >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
}
