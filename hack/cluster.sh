#!/usr/bin/env bash
# The local control plane and registry: real etcd, kube-apiserver and kube-controller-manager
# (garbage collector, namespace and service-account controllers) and Debian's docker-registry,
# all on 127.0.0.1 with free ports, in the background, no Docker. With CATALOGD_NODE=1 (make: NODE=1), also a node
# (hack/cluster-node.sh): scheduler, kubelet, containerd, kube-proxy, CoreDNS; then the
# apiserver and the registry listen on all addresses and pods reach them on the node's.
#
#   hack/cluster.sh up       start (idempotent: reuses a healthy running cluster), wait healthy
#   hack/cluster.sh down     stop what `up` started, by PID, and remove its state
#   hack/cluster.sh check-clean
#                            exit 0 when no process, mount, interface or nftables table of
#                            this checkout's cluster is left (after `down`)
#   hack/cluster.sh status   exit 0 when everything `up` started is running and healthy
#   hack/cluster.sh stop|start kube-apiserver|kube-controller-manager|registry
#                            stop one component, or start it again on the same port (fault tests,
#                            benchmarks)
#
# APISERVER_EXTRA_ARGS: more kube-apiserver flags (word-split), read by `up` and `start
# kube-apiserver`, e.g. APISERVER_EXTRA_ARGS='--watch-cache-sizes=catalogmetadata.olm.operatorframework.io#0'
# (docs/deploy.md, "Control-plane price beside upstream").
#
# The apiserver runs with the aggregation layer configured as kubeadm does (front-proxy CA and
# client certificate, the requestheader flags, --enable-aggregator-routing): docs/deploy.md,
# "The local cluster's aggregation layer".
#
# Writes under .local/ (or $CATALOGD_LOCAL): kubeconfig, env (KUBECONFIG=..., REGISTRY=host:port,
# HOST_IP: where the apiserver reaches APIService backends on this host),
# cluster/ (certs, etcd data, registry storage, pids), logs/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
local_dir=${CATALOGD_LOCAL:-$root/.local}
state="$local_dir/cluster"
pids="$state/pids"
logs="$local_dir/logs"
components=(etcd kube-apiserver kube-controller-manager registry)
# shellcheck source=cluster-node.sh
source "$here/cluster-node.sh"

log() { echo "cluster: $*" >&2; }
die() { log "$*"; exit 1; }

pid_alive() { [ -f "$pids/$1.pid" ] && kill -0 "$(cat "$pids/$1.pid")" 2>/dev/null; }

# A port no socket uses, below the kernel's ephemeral range: every outgoing connection takes a
# local port from that range, so a port picked there can be taken by some client socket in the
# seconds before its server binds it (CoreDNS's ready listener then failed silently and `up`
# timed out). Below it, only a listener that asks for the number can. Each pick is noted in
# $state/ports.picked, so one `up` never hands out the same port twice.
free_port() {
  local p low
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "${low:-0}" -gt 11000 ] 2>/dev/null || low=32768
  for _ in $(seq 1 100); do
    p=$((10000 + RANDOM % (low - 10000)))
    grep -qsx "$p" "$state/ports.picked" && continue
    if ! ss -Htan "sport = :$p" | grep -q .; then echo "$p" | tee -a "$state/ports.picked"; return; fi
  done
  die "no free port found below $low"
}

healthy() {
  for c in "${components[@]}"; do pid_alive "$c" || return 1; done
  [ -f "$local_dir/env" ] || return 1
  # shellcheck disable=SC1091
  source "$state/ports.env"
  # A cluster without a node is not what CATALOGD_NODE=1 asks for (one with a node serves either).
  [ -z "${CATALOGD_NODE:-}" ] || [ -n "${NODE_IP:-}" ] || return 1
  [ -z "${NODE_IP:-}" ] || node_healthy || return 1
  curl -fsS --max-time 5 --cacert "$state/pki/ca.crt" --cert "$state/pki/admin.crt" --key "$state/pki/admin.key" \
    "https://127.0.0.1:$APISERVER_PORT/readyz" >/dev/null 2>&1 || return 1
  curl -fsS --max-time 5 "http://127.0.0.1:$REGISTRY_PORT/v2/" >/dev/null 2>&1 || return 1
}

wait_for() { # wait_for <what> <seconds> <command...>
  local what=$1 secs=$2; shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || die "$what did not become ready within ${secs}s (see $logs/)"
    for c in "${components[@]}"; do
      if [ -f "$pids/$c.pid" ] && ! pid_alive "$c"; then
        tail -n 30 "$logs/$c.log" >&2 || true
        die "$c exited while waiting for $what (log: $logs/$c.log)"
      fi
    done
    sleep 0.5
  done
}

gen_pki() {
  local pki="$state/pki"
  mkdir -p "$pki"
  cd "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 \
    -subj "/CN=catalogd-ts-local-ca" 2>/dev/null
  sign() { # sign <name> <subject> [<extfile content>]
    openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
    printf '%s\n' "${3:-extendedKeyUsage=clientAuth}" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" \
      -days 3650 -extfile "$1.ext" 2>/dev/null
    rm -f "$1.csr" "$1.ext"
  }
  sign apiserver "/CN=kube-apiserver" \
    "$(printf 'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,%sDNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth' "${NODE_IP:+IP:$NODE_IP,}")"
  sign admin "/O=system:masters/CN=catalogd-ts-admin"
  sign controller-manager "/CN=system:kube-controller-manager"
  [ -z "${NODE_IP:-}" ] || node_pki
  front_proxy_pki
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  cd - >/dev/null
}

# The aggregation layer's PKI, as kubeadm makes it: a CA of its own (front-proxy-ca), not the
# cluster CA, so that the front-proxy client certificate is trusted by aggregated apiservers
# (through --requestheader-client-ca-file) and by nothing else: signed by the cluster CA, it would
# also authenticate to the apiserver itself as user front-proxy-client.
front_proxy_pki() { # run inside gen_pki's directory
  openssl req -x509 -newkey rsa:2048 -nodes -keyout front-proxy-ca.key -out front-proxy-ca.crt \
    -days 3650 -subj "/CN=front-proxy-ca" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout front-proxy-client.key -out front-proxy-client.csr \
    -subj "/CN=front-proxy-client" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' > front-proxy-client.ext
  openssl x509 -req -in front-proxy-client.csr -CA front-proxy-ca.crt -CAkey front-proxy-ca.key \
    -CAcreateserial -out front-proxy-client.crt -days 3650 -extfile front-proxy-client.ext 2>/dev/null
  rm -f front-proxy-client.csr front-proxy-client.ext
}

write_kubeconfig() { # write_kubeconfig <file> <user cert name>
  local pki="$state/pki"
  cat > "$1" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $(base64 -w0 < "$pki/ca.crt")
users:
- name: $2
  user:
    client-certificate-data: $(base64 -w0 < "$pki/$2.crt")
    client-key-data: $(base64 -w0 < "$pki/$2.key")
contexts:
- name: local
  context: {cluster: local, user: $2}
current-context: local
KUBECONFIG
}

start() { # start <name> <command...>: in its own session so it outlives this script
  local name=$1; shift
  setsid "$@" >"$logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$pids/$name.pid"
}

ensure_registry_binary() {
  command -v docker-registry >/dev/null 2>&1 && return
  log "installing Debian's docker-registry"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker-registry >&2 || {
    $sudo apt-get update -q >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker-registry >&2
  }
}

start_apiserver() { # start_apiserver <bin dir>: on the ports of ports.env; waits until ready
  local bins=$1
  local pki="$state/pki"
  # shellcheck disable=SC1091
  source "$state/ports.env"
  # With a node: the `kubernetes` Service points pods at the node's address; the kubelet
  # authorizes the apiserver's calls (logs, exec) by its admin certificate; pods get their
  # ServiceAccount token (admission) and kubelets only their own objects (Node authorizer).
  local node_args=(--bind-address 127.0.0.1 --advertise-address 127.0.0.1 --authorization-mode RBAC
    --disable-admission-plugins ServiceAccount)
  [ -z "${NODE_IP:-}" ] || node_args=(--bind-address 0.0.0.0 --advertise-address "$NODE_IP"
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction
    --kubelet-client-certificate "$pki/admin.crt" --kubelet-client-key "$pki/admin.key"
    --kubelet-preferred-address-types InternalIP)
  # The aggregation layer (APIService backends such as the served mode's), configured as kubeadm
  # does: requests proxied to a backend carry the user in X-Remote-* headers and authenticate
  # with the front-proxy client certificate; the apiserver publishes the CA and the allowed
  # names in kube-system/extension-apiserver-authentication for backends to check them.
  # --enable-aggregator-routing: the apiserver is a host process, not a pod; without a node
  # nothing routes Service ClusterIPs on this host, so it connects to the APIService's
  # endpoint addresses (EndpointSlices) rather than to the Service's ClusterIP.
  local aggregation_args=(--requestheader-client-ca-file "$pki/front-proxy-ca.crt"
    --requestheader-allowed-names front-proxy-client
    --requestheader-extra-headers-prefix X-Remote-Extra-
    --requestheader-group-headers X-Remote-Group
    --requestheader-username-headers X-Remote-User
    --proxy-client-cert-file "$pki/front-proxy-client.crt"
    --proxy-client-key-file "$pki/front-proxy-client.key"
    --enable-aggregator-routing=true)
  start kube-apiserver "$bins/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" --secure-port "$APISERVER_PORT" "${node_args[@]}" \
    --cert-dir "$state/apiserver-certs" \
    --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --client-ca-file "$pki/ca.crt" \
    --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
    --service-account-issuer https://kubernetes.default.svc \
    --service-cluster-ip-range 10.0.0.0/24 --allow-privileged=true \
    "${aggregation_args[@]}" \
    ${APISERVER_EXTRA_ARGS:-}
  wait_for kube-apiserver 120 curl -fsS --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" \
    "https://127.0.0.1:$APISERVER_PORT/readyz"
}

start_controller_manager() { # start_controller_manager <bin dir>: with the kubeconfig up wrote
  local bins=$1
  local pki="$state/pki" controllers=garbagecollector,namespace,serviceaccount,serviceaccount-token
  # shellcheck disable=SC1091
  source "$state/ports.env"
  # A node runs Deployments and Services: their controllers, the ConfigMap with the cluster's CA
  # that every pod's token volume mounts, and the node lifecycle controller (it lifts the
  # kubelet's not-ready taint).
  [ -z "${NODE_IP:-}" ] ||
    controllers+=,deployment-controller,replicaset-controller,endpointslice-controller,root-ca-certificate-publisher-controller,node-lifecycle-controller
  # The client rate is raised from 20 QPS: deleting a 10k-object catalog would otherwise keep the
  # garbage collector busy for minutes, and every later test waits behind it.
  start kube-controller-manager "$bins/kube-controller-manager" \
    --kubeconfig "$state/controller-manager.kubeconfig" \
    --controllers "$controllers" \
    --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
    --use-service-account-credentials=true --leader-elect=false \
    --kube-api-qps 500 --kube-api-burst 1000 --concurrent-gc-syncs 50 \
    --bind-address 127.0.0.1 --secure-port 0 \
    ${CONTROLLER_MANAGER_EXTRA_ARGS:-}
}

start_registry() { # start_registry: on the port of ports.env, config written by up; waits until ready
  # shellcheck disable=SC1091
  source "$state/ports.env"
  start registry docker-registry serve "$state/registry.yml"
  wait_for registry 30 curl -fsS "http://127.0.0.1:$REGISTRY_PORT/v2/"
}

up() {
  if healthy; then log "already running (KUBECONFIG=$local_dir/kubeconfig)"; return; fi
  down_quietly
  unset NODE_IP # healthy read the old cluster's ports.env
  local bins
  bins=$("$here/controlplane/build.sh")
  ensure_registry_binary
  mkdir -p "$pids" "$logs"
  APISERVER_PORT=$(free_port); ETCD_PORT=$(free_port); ETCD_PEER_PORT=$(free_port); REGISTRY_PORT=$(free_port)
  printf 'APISERVER_PORT=%s\nETCD_PORT=%s\nETCD_PEER_PORT=%s\nREGISTRY_PORT=%s\n' \
    "$APISERVER_PORT" "$ETCD_PORT" "$ETCD_PEER_PORT" "$REGISTRY_PORT" > "$state/ports.env"
  if [ -n "${CATALOGD_NODE:-}" ]; then
    ensure_node_packages
    NODE_IP=$(node_ip)
    [ -n "$NODE_IP" ] || die "no node address: the machine has no IPv4 default route"
    node_lock_free || die "another checkout's node is running ($(cat "$node_lock")): one node per machine"
    clear_dead_node "$(cat "$node_lock" 2>/dev/null || true)"
    echo "$state" > "$node_lock"
    printf 'NODE_IP=%s\nKUBELET_PORT=%s\nKUBELET_HEALTHZ_PORT=%s\nKUBE_PROXY_HEALTHZ_PORT=%s\nKUBE_PROXY_METRICS_PORT=%s\nCOREDNS_READY_PORT=%s\n' \
      "$NODE_IP" "$(free_port)" "$(free_port)" "$(free_port)" "$(free_port)" "$(free_port)" >> "$state/ports.env"
  fi
  gen_pki

  # etcd: a large backend quota, since benchmarks write catalogs of tens of MB several times.
  start etcd "$bins/etcd" --name local --data-dir "$state/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "local=http://127.0.0.1:$ETCD_PEER_PORT" --quota-backend-bytes $((8 * 1024 * 1024 * 1024)) \
    --listen-metrics-urls "" --log-level warn ${ETCD_EXTRA_ARGS:-}
  wait_for etcd 60 curl -fsS "http://127.0.0.1:$ETCD_PORT/health"

  start_apiserver "$bins"

  write_kubeconfig "$state/controller-manager.kubeconfig" controller-manager
  start_controller_manager "$bins"

  mkdir -p "$state/registry"
  # With a node, pods pull (containerd) and sync catalogs (the controller) from the node's address.
  local registry_addr=127.0.0.1
  [ -z "${NODE_IP:-}" ] || registry_addr=0.0.0.0
  cat > "$state/registry.yml" <<YAML
version: 0.1
log: {level: warn}
storage:
  filesystem: {rootdirectory: $state/registry}
  delete: {enabled: true}
http:
  addr: $registry_addr:$REGISTRY_PORT
YAML
  start_registry

  write_kubeconfig "$local_dir/kubeconfig" admin
  export KUBECONFIG="$local_dir/kubeconfig"
  # The garbage collector is the one controller the tests rely on; wait until it runs.
  wait_for kube-controller-manager 90 grep -q 'Proceeding to collect garbage' "$logs/kube-controller-manager.log"
  if [ -n "${NODE_IP:-}" ]; then
    components+=("${node_components[@]}")
    local c
    for c in kubelet kube-proxy kube-scheduler; do write_kubeconfig "$state/$c.kubeconfig" "$c"; done
    start_node "$bins"
  fi
  printf 'KUBECONFIG=%s\nREGISTRY=127.0.0.1:%s\nKUBE_BIN_DIR=%s\n' "$local_dir/kubeconfig" "$REGISTRY_PORT" "$bins" > "$local_dir/env"
  # Where the apiserver reaches a server of this host behind an APIService (test/support/served-api.ts):
  # an endpoint address may not be loopback, so the default route's address (the node's with one).
  local host_ip; host_ip=$(node_ip)
  [ -z "$host_ip" ] || printf 'HOST_IP=%s\n' "$host_ip" >> "$local_dir/env"
  # Where pods reach the registry (plain HTTP; containerd and the controller are told so).
  [ -z "${NODE_IP:-}" ] || printf 'NODE_IP=%s\nNODE_REGISTRY=%s:%s\n' "$NODE_IP" "$NODE_IP" "$REGISTRY_PORT" >> "$local_dir/env"
  log "up: KUBECONFIG=$local_dir/kubeconfig REGISTRY=127.0.0.1:$REGISTRY_PORT (logs in $logs/)"
}

stop_pid() { # stop_pid <name>: TERM, wait up to 15s, then KILL
  local f="$pids/$1.pid" pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

down_quietly() {
  # Reverse start order: the node first, and clients of etcd stop before etcd does.
  stop_node
  for c in registry kube-controller-manager kube-apiserver etcd; do stop_pid "$c"; done
  rm -rf "$state" "$local_dir/env" "$local_dir/kubeconfig"
}

case "${1:-}" in
  up) up ;;
  down) down_quietly; log "down" ;;
  status) healthy ;;
  check-clean) check_node_clean ;;
  # Fault injection for tests: stop or start one component of a running cluster, by its PID.
  stop) [ -n "${2:-}" ] || die "usage: $0 stop kube-apiserver|kube-controller-manager|registry"; stop_pid "$2" ;;
  start)
    bins=$(grep '^KUBE_BIN_DIR=' "$local_dir/env" 2>/dev/null | cut -d= -f2- || true)
    case "${2:-}" in
      kube-apiserver) pid_alive kube-apiserver || start_apiserver "$bins" ;;
      kube-controller-manager) pid_alive kube-controller-manager || start_controller_manager "$bins" ;;
      registry) pid_alive registry || start_registry ;;
      *) die "usage: $0 start kube-apiserver|kube-controller-manager|registry" ;;
    esac ;;
  *) echo "usage: $0 up|down|status|check-clean|stop NAME|start NAME" >&2; exit 2 ;;
esac
