# Sourced by hack/cluster.sh: the local cluster's node, started when CATALOGD_NODE=1 (make: NODE=1).
#
#   kube-scheduler, a kubelet with Debian's containerd, runc and CNI plugins (a bridge network),
#   kube-proxy (nftables mode, so Service ClusterIPs work from pods and from the host) and
#   CoreDNS (`<service>.<namespace>.svc` in pods), all host processes started by PID like the
#   control plane. Pods reach the apiserver and the registry on the node's address ($NODE_IP).
#
# One node per machine: kube-proxy's nftables table, the bridge, CoreDNS's port 53 on the node's
# address and the netns directory are machine-wide, so `up` refuses while another checkout's
# node runs (the lock file names it), and clears what a dead one left (clear_dead_node) before it
# starts. Needs root (mounts, network namespaces, cgroups).
#
# Uses from cluster.sh: $state $pids $logs $local_dir, log, die, start, stop_pid, pid_alive,
# free_port, wait_for, sign (in gen_pki), write_kubeconfig.

node_components=(containerd kubelet kube-proxy kube-scheduler coredns)
node_name=local-node
pod_cidr=10.244.0.0/24
pod_gateway=10.244.0.1
bridge_name=catalogd0
node_lock=/run/catalogd-ts-node.lock
node_packages=(containerd runc containernetworking-plugins nftables)

# The address pods reach the host on: the first global IPv4 address of the default route's
# interface (the node's).
node_ip() {
  local dev
  dev=$(ip -4 route show default | awk '{for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit }}')
  [ -n "$dev" ] || return 0
  ip -4 -o addr show dev "$dev" scope global | awk '{split($4, a, "/"); print a[1]; exit}'
}

ensure_node_packages() {
  local missing=() p
  for p in "${node_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  log "installing Debian's ${missing[*]}"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 || {
    $sudo apt-get update -q >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
  }
}

node_pki() { # run inside gen_pki's directory, with its sign function
  sign kubelet "/O=system:nodes/CN=system:node:$node_name"
  sign kube-proxy "/CN=system:kube-proxy"
  sign kube-scheduler "/CN=system:kube-scheduler"
}

node_lock_free() {
  [ -f "$node_lock" ] || return 0
  local owner; owner=$(cat "$node_lock")
  [ "$owner" = "$state" ] && return 0
  # A lock whose containerd is gone is stale (a machine restart, a crashed run). Gone also when
  # its PID now names another process, or a zombie not reaped yet (kill -0 succeeds on both).
  local pid; pid=$(cat "$owner/pids/containerd.pid" 2>/dev/null) || return 0
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 0
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$owner/node/containerd.toml" && return 1
  return 0
}

write_containerd_config() {
  local n="$state/node"
  mkdir -p "$n/cni/net.d" "$n/containerd"
  cat > "$n/containerd.toml" <<TOML
version = 2
root = "$n/containerd/root"
state = "$n/containerd/state"
# The plugins that need a filesystem or device this machine lacks stay out of the log.
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$n/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  # The pause image is the local stand-in (hack/pause-image.sh): registry.k8s.io is not reachable.
  sandbox_image = "$NODE_IP:$REGISTRY_PORT/pause:local"
  # Without it every pod sandbox fails with "can't get final child's PID from pipe": a sandbox
  # in this machine's cgroup may not lower oom_score_adj to the -998 CRI asks for.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$n/cni/net.d"
  # The local registry is plain HTTP.
  [plugins."io.containerd.grpc.v1.cri".registry.mirrors."$NODE_IP:$REGISTRY_PORT"]
    endpoint = ["http://$NODE_IP:$REGISTRY_PORT"]
TOML
  cat > "$n/cni/net.d/10-catalogd.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "catalogd-local",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$bridge_name",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "$pod_cidr", "gateway": "$pod_gateway" }]],
        "routes": [{ "dst": "0.0.0.0/0" }],
        "dataDir": "$n/cni/ipam"
      }
    }
  ]
}
JSON
}

write_kubelet_config() {
  local n="$state/node"
  mkdir -p "$n/kubelet"
  cat > "$n/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This machine has cgroup v1, which the kubelet refuses by default since 1.35.
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$n/containerd.sock
address: $NODE_IP
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $state/pki/ca.crt}
authorization: {mode: Webhook}
clusterDomain: cluster.local
clusterDNS: [$NODE_IP]
# Pods get the cluster's DNS only: no search domains or upstreams of the host.
resolvConf: ""
failSwapOn: false
# A developer disk is often fuller than a node's: evict only when it is nearly full.
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
YAML
}

start_node() { # start_node <bin dir>: after the control plane and the registry are up
  local bins=$1 n="$state/node"
  node_bins=$bins
  # shellcheck disable=SC1091
  source "$state/ports.env"
  write_containerd_config
  write_kubelet_config
  start containerd containerd --config "$n/containerd.toml"
  wait_for containerd 60 test -S "$n/containerd.sock"

  "$here/pause-image.sh" "127.0.0.1:$REGISTRY_PORT" pause:local >&2

  start kube-scheduler "$bins/kube-scheduler" --kubeconfig "$state/kube-scheduler.kubeconfig" \
    --leader-elect=false --bind-address 127.0.0.1 --secure-port 0
  start kube-proxy "$bins/kube-proxy" --kubeconfig "$state/kube-proxy.kubeconfig" \
    --proxy-mode nftables --hostname-override "$node_name" --cluster-cidr "$pod_cidr" \
    --conntrack-max-per-core 0 --healthz-bind-address "127.0.0.1:$KUBE_PROXY_HEALTHZ_PORT" \
    --metrics-bind-address "127.0.0.1:$KUBE_PROXY_METRICS_PORT"
  start kubelet "$bins/kubelet" --config "$n/kubelet.yaml" --kubeconfig "$state/kubelet.kubeconfig" \
    --root-dir "$n/kubelet" --cert-dir "$n/kubelet-pki" --hostname-override "$node_name" \
    --node-ip "$NODE_IP"

  cat > "$n/Corefile" <<COREFILE
.:53 {
  bind $NODE_IP
  errors
  ready 127.0.0.1:$COREDNS_READY_PORT
  kubernetes cluster.local in-addr.arpa ip6.arpa {
    kubeconfig $local_dir/kubeconfig local
    pods insecure
    fallthrough in-addr.arpa ip6.arpa
  }
}
COREFILE
  start coredns "$bins/coredns" -conf "$n/Corefile"

  wait_for kubelet 120 node_ready
  wait_for coredns 60 curl -fsS "http://127.0.0.1:$COREDNS_READY_PORT/ready"
  wait_for kube-proxy 120 curl -fsS "http://127.0.0.1:$KUBE_PROXY_HEALTHZ_PORT/healthz"
}

node_ready() {
  "$node_bins/kubectl" --kubeconfig "$local_dir/kubeconfig" get node "$node_name" \
    -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null | grep -qx True
}

node_healthy() {
  local c
  for c in "${node_components[@]}"; do pid_alive "$c" || return 1; done
  curl -fsS --max-time 5 "http://127.0.0.1:$KUBELET_HEALTHZ_PORT/healthz" >/dev/null 2>&1
}

# Everything below undoes what the node leaves beyond its processes: containers (and their
# shims), mounts, the pods' network namespaces and veths, the bridge and kube-proxy's table.

# The processes started for this node's containerd: its shims (they outlive containerd by design)
# name its socket in their command line; each one's containers are its children.
node_shims() { # node_shims [state dir]: this checkout's by default
  local p sock="${1:-$state}/node/containerd.sock"
  for p in /proc/[0-9]*; do
    tr '\0' ' ' 2>/dev/null < "$p/cmdline" | grep -qF -- "-address $sock " && echo "${p#/proc/}"
  done
  return 0
}

kill_tree() { # kill_tree <pid>: its descendants first, then itself
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$child"; done
  kill -KILL "$1" 2>/dev/null || true
}

stop_shims() {
  local pid
  for pid in $(node_shims); do kill_tree "$pid"; done
}

# Stops and removes every pod sandbox through containerd's CRI (the network is torn down by the
# CNI plugins then), while containerd still runs.
remove_pod_sandboxes() {
  local sock="$state/node/containerd.sock"
  [ -S "$sock" ] && pid_alive containerd || return 0
  command -v crictl >/dev/null 2>&1 || return 0
  local id
  for id in $(crictl --runtime-endpoint "unix://$sock" pods -q 2>/dev/null); do
    crictl --runtime-endpoint "unix://$sock" stopp "$id" >/dev/null 2>&1 || true
    crictl --runtime-endpoint "unix://$sock" rmp -f "$id" >/dev/null 2>&1 || true
  done
}

unmount_under() { # unmount_under <dir>...: every mount below, deepest first
  local d m
  for d in "$@"; do
    [ -n "$d" ] || continue
    findmnt -rn -o TARGET | awk -v d="$d" 'index($0, d "/") == 1 || $0 == d' | sort -r |
      while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
  done
}

# The network namespaces of this node's pods: containerd 1.6 bind-mounts them under /run/netns as
# cni-<uuid>; matched by the inode of the netns of each shim's children (the containers).
pod_netns_mounts() {
  local shim pid ino m inodes=()
  for shim in $(node_shims); do
    for pid in $(ps -o pid= --ppid "$shim" 2>/dev/null); do
      ino=$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null) && inodes+=("$ino")
    done
  done
  [ ${#inodes[@]} -gt 0 ] || return 0
  for m in /run/netns/*; do
    [ -e "$m" ] || continue
    ino=$(stat -L -c %i "$m" 2>/dev/null) || continue
    printf '%s\n' "${inodes[@]}" | grep -qx "$ino" && echo "$m"
  done
  return 0
}

# The kubelet's iptables chains (KUBE-FIREWALL drops non-loopback traffic to 127.0.0.0/8, and
# canaries it watches for flushes), made when the machine has iptables.
remove_kubelet_iptables() {
  local ipt t chain
  for ipt in iptables ip6tables; do
    command -v "$ipt" >/dev/null 2>&1 || continue
    while "$ipt" -w -t filter -D INPUT -j KUBE-FIREWALL 2>/dev/null; do :; done
    while "$ipt" -w -t filter -D OUTPUT -j KUBE-FIREWALL 2>/dev/null; do :; done
    for t in filter nat mangle; do
      for chain in KUBE-FIREWALL KUBE-KUBELET-CANARY KUBE-IPTABLES-HINT; do
        "$ipt" -w -t "$t" -F "$chain" 2>/dev/null && "$ipt" -w -t "$t" -X "$chain" 2>/dev/null || true
      done
    done
  done
}

# A pod network namespace's bind mount, and with it (once no process is in it) the namespace and
# its veth.
remove_netns() {
  umount "$1" 2>/dev/null || umount -l "$1" 2>/dev/null || true
  rm -f "$1"
}

# What of a node is machine-wide, one name each: the bridge, kube-proxy's nftables tables and the
# kubelet's iptables chains. Prints what it found and removed (for the log of clear_dead_node).
remove_node_network() {
  if ip link show "$bridge_name" >/dev/null 2>&1; then
    ip link delete "$bridge_name" 2>/dev/null || true
    echo "bridge $bridge_name"
  fi
  if command -v nft >/dev/null 2>&1; then
    if nft list table ip kube-proxy >/dev/null 2>&1; then
      nft delete table ip kube-proxy 2>/dev/null || true
      echo "nftables table kube-proxy"
    fi
    nft delete table ip6 kube-proxy 2>/dev/null || true
  fi
  remove_kubelet_iptables
}

# What a node that was killed without `down` (a session or CI runner ended, SIGKILL, a crash)
# leaves on the machine, removed before a new node starts: it must not inherit them. The pods'
# network namespaces outlive their processes (containerd bind-mounts them) and keep their veths
# on the bridge with their addresses; a new node's IPAM starts afresh and hands the same
# addresses out again, and the dead pod's kernel answers a connection to it with a reset: a
# Service whose endpoint has such a twin is refused. Called once the lock is known to be free
# (no node of any checkout runs), so every pod network namespace no process uses is a dead
# node's. <dead state dir>: the stale lock's owner, whose shims and mounts go too (may be empty).
clear_dead_node() {
  local dead=${1:-} pid m ino used=() cleared=()
  if [ -n "$dead" ] && [ "$dead" != "$state" ]; then
    for pid in $(node_shims "$dead"); do kill_tree "$pid"; cleared+=("shim $pid"); done
    unmount_under "$dead/node"
  fi
  for pid in /proc/[0-9]*; do
    ino=$(stat -L -c %i "$pid/ns/net" 2>/dev/null) && used+=("$ino")
  done
  for m in /run/netns/cni-*; do
    [ -e "$m" ] || continue
    ino=$(stat -L -c %i "$m" 2>/dev/null) || continue
    printf '%s\n' "${used[@]}" | grep -qx "$ino" && continue
    remove_netns "$m"
    cleared+=("netns ${m#/run/netns/}")
  done
  while read -r m; do [ -z "$m" ] || cleared+=("$m"); done < <(remove_node_network)
  [ ${#cleared[@]} -eq 0 ] || log "cleared a dead node's leftovers: ${cleared[*]}"
}

stop_node() {
  [ -f "$pids/containerd.pid" ] || [ -d "$state/node" ] || return 0
  remove_pod_sandboxes
  local c ns netns
  for c in coredns kubelet kube-proxy kube-scheduler; do stop_pid "$c"; done
  netns=$(pod_netns_mounts)
  stop_pid containerd
  stop_shims
  # A namespace goes, with the pod's veth in it, when its last process and bind mount go.
  for ns in $netns; do remove_netns "$ns"; done
  unmount_under "$state/node"
  # The kubelet's pod cgroups (cgroup v1: one tree per controller), empty once the pods are gone.
  find /sys/fs/cgroup/*/kubepods -depth -type d -exec rmdir {} + 2>/dev/null || true
  remove_node_network >/dev/null
  if [ -f "$node_lock" ] && [ "$(cat "$node_lock")" = "$state" ]; then rm -f "$node_lock"; fi
  return 0
}

# What `down` must leave behind: nothing. Prints each leftover and fails when there is one.
check_node_clean() {
  local left=0 p
  for p in /proc/[0-9]*; do
    if tr '\0' ' ' 2>/dev/null < "$p/cmdline" | grep -qF "$state/"; then
      echo "left: process ${p#/proc/}: $(tr '\0' ' ' 2>/dev/null < "$p/cmdline" | cut -c1-160)"; left=1
    fi
  done
  if findmnt -rn -o TARGET | grep -qF "$state/"; then
    findmnt -rn -o TARGET | grep -F "$state/" | sed 's/^/left: mount /'; left=1
  fi
  if ip link show "$bridge_name" >/dev/null 2>&1; then echo "left: interface $bridge_name"; left=1; fi
  # One node per machine: a pod network namespace left is this node's.
  for p in /run/netns/cni-*; do
    if [ -e "$p" ]; then echo "left: network namespace $p"; left=1; fi
  done
  if ip -o link show type veth 2>/dev/null | grep -q "master $bridge_name"; then
    echo "left: veth on $bridge_name"; left=1
  fi
  if command -v nft >/dev/null 2>&1 && nft list table ip kube-proxy >/dev/null 2>&1; then
    echo "left: nftables table ip kube-proxy"; left=1
  fi
  if command -v iptables-save >/dev/null 2>&1 && iptables-save 2>/dev/null | grep -q '^:KUBE-'; then
    echo "left: iptables chains $(iptables-save | sed -n 's/^:\(KUBE-[^ ]*\).*/\1/p' | sort -u | tr '\n' ' ')"; left=1
  fi
  return $left
}
