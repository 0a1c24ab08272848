#!/usr/bin/env bash
# Prints the directory holding etcd, kube-apiserver, kube-controller-manager and kubectl for
# the versions pinned in hack/versions.env, building them from their Go modules on first use.
#
#   KUBEBUILDER_ASSETS  a directory with etcd and kube-apiserver (and optionally
#                       kube-controller-manager, kubectl): used as is; missing ones are built.
#   CATALOGD_CACHE      cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts).
#
# Progress goes to stderr; only the directory is printed on stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../versions.env
source "$here/../versions.env"
cache=${CATALOGD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts}
out="$cache/controlplane/kube-$KUBE_VERSION-etcd-$ETCD_VERSION"
mkdir -p "$out"

have() { [ -n "${KUBEBUILDER_ASSETS:-}" ] && [ -x "$KUBEBUILDER_ASSETS/$1" ]; }

# The apiserver reports this version in /version; without it, it says v0.0.0 and clients warn.
kube_minor=$(echo "$KUBE_VERSION" | cut -d. -f2)
ldflags="-s -w \
 -X k8s.io/component-base/version.gitVersion=v$KUBE_VERSION \
 -X k8s.io/component-base/version.gitMajor=1 \
 -X k8s.io/component-base/version.gitMinor=$kube_minor \
 -X k8s.io/component-base/version.gitTreeState=clean \
 -X k8s.io/client-go/pkg/version.gitVersion=v$KUBE_VERSION \
 -X k8s.io/client-go/pkg/version.gitMajor=1 \
 -X k8s.io/client-go/pkg/version.gitMinor=$kube_minor"

build() { # build <module dir> <package> <binary name>
  local dir=$1 pkg=$2 name=$3
  if have "$name"; then ln -sf "$KUBEBUILDER_ASSETS/$name" "$out/$name"; return; fi
  [ -x "$out/$name" ] && return
  echo "building $name (first time only; cached in $out)" >&2
  local start=$SECONDS
  (cd "$here/$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out/$name.tmp" "$pkg")
  mv "$out/$name.tmp" "$out/$name"
  echo "built $name in $((SECONDS - start))s" >&2
}

build etcd . etcd
build kube k8s.io/kubernetes/cmd/kube-apiserver kube-apiserver
build kube k8s.io/kubernetes/cmd/kube-controller-manager kube-controller-manager
build kube k8s.io/kubernetes/cmd/kubectl kubectl
echo "$out"
