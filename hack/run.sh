#!/usr/bin/env bash
# `make run`: from a fresh machine to a running controller with a synced sample catalog.
#  1. a cluster: the one $KUBECONFIG names (then $REGISTRY must name a registry this host can
#     push to and pull from), else the local control plane and registry (hack/cluster.sh up);
#  2. the CRDs; the bundled sample catalog (examples/catalog) pushed as an image;
#  3. the controller in the foreground, the sample ClusterCatalog applied, its objects shown.
# Ctrl-C stops the controller; `make cluster-down` stops the local cluster.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$(hack/node.sh):$PATH"

if [ -n "${KUBECONFIG:-}" ]; then
  [ -n "${REGISTRY:-}" ] || { echo "run: KUBECONFIG is set; also set REGISTRY=host:port (a registry to push the sample to)" >&2; exit 2; }
  kubectl_bin=kubectl
  echo "run: using the cluster of KUBECONFIG=$KUBECONFIG and REGISTRY=$REGISTRY"
else
  hack/cluster.sh up
  set -a; source .local/env; set +a
  kubectl_bin="$KUBE_BIN_DIR/kubectl"
fi
k() { "$kubectl_bin" "$@"; }

k apply --server-side -f crds/ >/dev/null
k wait --for=condition=Established --timeout=60s -f crds/ >/dev/null
ref=$(node dist/src/cmd/catalogd.js push examples/catalog "$REGISTRY/catalogd-ts/sample-catalog:latest")
echo "run: pushed the sample catalog as $ref"

state="$root/.local/run"
mkdir -p "$state"
node dist/src/cmd/catalogd.js controller \
  --kubeconfig "$KUBECONFIG" --cache-dir "$state/cache" \
  --leader-election-namespace default \
  --metrics-addr 127.0.0.1:8080 --health-addr 127.0.0.1:8081 --server-addr 127.0.0.1:8090 \
  "$@" &
controller=$!
trap 'kill -TERM $controller 2>/dev/null; wait $controller 2>/dev/null; exit 0' INT TERM

k apply -f - <<YAML
apiVersion: olm.operatorframework.io/v1
kind: ClusterCatalog
metadata:
  name: sample
spec:
  source:
    type: Image
    image:
      ref: $REGISTRY/catalogd-ts/sample-catalog:latest
      pollIntervalMinutes: 1
YAML
for _ in $(seq 1 120); do
  kill -0 $controller 2>/dev/null || { echo "run: the controller exited" >&2; exit 1; }
  reason=$(k get clustercatalog sample -o jsonpath='{.status.conditions[?(@.type=="Progressing")].reason}')
  hash=$(k get clustercatalog sample -o jsonpath='{.status.contentHash}')
  [ "$reason" = Succeeded ] && [ -n "$hash" ] && break
  sleep 1
done
echo
k get clustercatalog sample
echo
k get catalogmetadata -l catalog=sample,packageOrName=example-operator
cat <<MSG

The controller runs in the foreground (Ctrl-C stops it). In another terminal:
  export KUBECONFIG=$KUBECONFIG
  $kubectl_bin get catalogmetadata -l package=example-operator
MSG
wait $controller
