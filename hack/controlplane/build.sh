#!/usr/bin/env bash
# Prints the directory holding etcd, kube-apiserver, kube-controller-manager and kubectl, and the
# node's kube-scheduler, kubelet, kube-proxy and CoreDNS (with CATALOGD_NODE=1), for the versions pinned in hack/versions.env,
# building them from their Go modules on first use. The Kubernetes commands share almost all
# of their packages, so the missing ones are built by one `go build` (each shared package is
# compiled and linked once per run instead of once per command). CoreDNS (hack/coredns, the
# cluster DNS) is cached beside them under its own version and linked in as `coredns`.
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

build_etcd() {
  if have etcd; then ln -sf "$KUBEBUILDER_ASSETS/etcd" "$out/etcd"; return; fi
  [ -x "$out/etcd" ] && return
  echo "building etcd (first time only; cached in $out)" >&2
  local start=$SECONDS
  (cd "$here/etcd" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out/etcd.tmp" .)
  mv "$out/etcd.tmp" "$out/etcd"
  echo "built etcd in $((SECONDS - start))s" >&2
}

build_kube() { # build_kube <command>...: the missing ones, in one go build
  local name missing=()
  for name in "$@"; do
    if have "$name"; then ln -sf "$KUBEBUILDER_ASSETS/$name" "$out/$name"; continue; fi
    [ -x "$out/$name" ] || missing+=("$name")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "building ${missing[*]} (first time only; cached in $out)" >&2
  local start=$SECONDS tmp
  tmp=$(mktemp -d "$out/.build.XXXXXX")
  (cd "$here/kube" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/" \
    "${missing[@]/#/k8s.io/kubernetes/cmd/}")
  for name in "${missing[@]}"; do mv "$tmp/$name" "$out/$name"; done
  rmdir "$tmp"
  echo "built ${missing[*]} in $((SECONDS - start))s" >&2
}

build_coredns() { # build_coredns <out file>
  (cd "$here/../coredns" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$1" .)
}

build_etcd
if [ -n "${CATALOGD_NODE:-}" ]; then
  build_kube kube-apiserver kube-controller-manager kubectl kube-scheduler kubelet kube-proxy
  # shellcheck source=../go-tool.sh
  source "$here/../go-tool.sh"
  ln -sfn "$(go_tool coredns "$COREDNS_VERSION-kube-$KUBE_VERSION" build_coredns)" "$out/coredns"
else
  build_kube kube-apiserver kube-controller-manager kubectl
fi
echo "$out"
