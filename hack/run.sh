#!/usr/bin/env bash
# `make run`: from a fresh machine to a running controller with a synced sample catalog.
#  1. a cluster: the one $KUBECONFIG names (then $REGISTRY must name a registry this host can
#     push to and pull from), else the local control plane and registry (hack/cluster.sh up);
#  2. the CRDs; the bundled sample catalog (examples/catalog) pushed as an image;
#  3. the controller in the foreground, the sample ClusterCatalog applied, its objects shown.
# Arguments are passed to `catalogd controller` (`make run ARGS="--log-level debug"`).
# The controller listens on 127.0.0.1:8080 (metrics), 8081 (health) and 8090 (content); a port
# already in use is replaced by a free one nearby, and said so. Logs are text on a terminal.
# Without --tls-cert-file everything is plain HTTP, /metrics too (no token needed: with a
# certificate it would be HTTPS behind authentication, unless ARGS add --no-metrics-secure).
# Ctrl-C stops the controller; `make cluster-down` stops the local cluster.
# Sourcing this file defines its functions without running anything (test/e2e/run-script.test.ts).
set -euo pipefail

# The ports the controller listens on by default, one per address flag.
declare -A DEFAULT_PORTS=([metrics-addr]=8080 [health-addr]=8081 [server-addr]=8090)
# How many ports after a taken default are tried.
RUN_PORT_TRIES=${RUN_PORT_TRIES:-20}

# Whether HOST:PORT can be listened on now: node tries to (a connect test would miss a port
# bound by a process that is not accepting, and one bound to another of the host's addresses).
port_free() {
  node -e 'const s = require("node:net").createServer();
s.once("error", () => process.exit(1));
s.listen(Number(process.argv[2]), process.argv[1], () => s.close());' "$1" "$2"
}

# pick_port FLAG HOST PORT [AVOID...]: prints PORT if free, else the first free port after it
# (skipping the AVOID ports), saying so on stderr; if none of RUN_PORT_TRIES is free, stops with
# one line naming the port and how to choose another.
pick_port() {
  local flag=$1 host=$2 port=$3
  shift 3
  if port_free "$host" "$port"; then echo "$port"; return 0; fi
  local candidate=$port tries=0
  while [ "$tries" -lt "$RUN_PORT_TRIES" ]; do
    candidate=$((candidate + 1))
    case " $* " in *" $candidate "*) continue ;; esac
    tries=$((tries + 1))
    if port_free "$host" "$candidate"; then
      echo "run: $host:$port is in use; --$flag uses $host:$candidate (choose one with make run ARGS=\"--$flag $host:PORT\")" >&2
      echo "$candidate"
      return 0
    fi
  done
  echo "run: $host:$port is in use, and so are the $RUN_PORT_TRIES ports after it; choose a port for --$flag with make run ARGS=\"--$flag $host:PORT\"" >&2
  return 1
}

# flag_given FLAG ARGS...: whether ARGS set --FLAG (as "--FLAG value" or "--FLAG=value").
flag_given() {
  local flag=$1 arg
  shift
  for arg in "$@"; do
    case "$arg" in "--$flag" | "--$flag="*) return 0 ;; esac
  done
  return 1
}

# listen_args ARGS...: --metrics-addr, --health-addr and --server-addr on free loopback ports,
# one per line, for each address flag ARGS do not set themselves (then that choice stands, and
# the controller names the port in one line if it is taken).
listen_args() {
  local flag port used=()
  for flag in metrics-addr health-addr server-addr; do
    flag_given "$flag" "$@" && continue
    port=$(pick_port "$flag" 127.0.0.1 "${DEFAULT_PORTS[$flag]}" "${DEFAULT_PORTS[@]}" "${used[@]}") || return 1
    used+=("$port")
    printf '%s\n' "--$flag" "127.0.0.1:$port"
  done
}

main() {
  root=$(cd "$(dirname "$0")/.." && pwd)
  cd "$root"
  export PATH="$(hack/node.sh):$PATH"

  local listen_lines listen=() log_format=()
  listen_lines=$(listen_args "$@") || exit 2
  [ -z "$listen_lines" ] || mapfile -t listen <<<"$listen_lines"
  # Text logs when a person reads them (stdout is a terminal); JSON, the default, otherwise.
  [ ! -t 1 ] || log_format=(--log-format text)

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
    ${listen[@]+"${listen[@]}"} ${log_format[@]+"${log_format[@]}"} "$@" &
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
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then main "$@"; fi
