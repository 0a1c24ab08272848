#!/usr/bin/env bash
# A CA and a serving certificate for the content server without cert-manager (docs/deploy.md,
# "HTTPS"), with openssl. Writes ca.crt, ca.key, tls.crt and tls.key into --out, puts tls.crt,
# tls.key and ca.crt into the kubernetes.io/tls Secret config/tls mounts (unless --no-secret), and
# prints the CA certificate on stdout for clients (kubectl catalog --certificate-authority FILE,
# operator-controller's --ca-certs-dir). With --api-service NAME (the served mode, config/served:
# v1.content.olm.operatorframework.io), also sets that APIService's spec.caBundle to the CA, so
# the apiserver trusts the controller's certificate; the APIService must exist.
#
#   hack/serving-cert.sh [--out DIR] [--namespace NS] [--service NAME] [--secret NAME]
#                        [--days N] [--dns NAME]... [--ip ADDR]... [--no-secret]
#                        [--api-service NAME]
#
# Run it again to rotate: an existing ca.crt/ca.key in --out is kept (clients keep trusting it)
# and only the serving certificate is new (new key, new random serial). Progress on stderr.
set -euo pipefail
out=serving-cert namespace=catalogd-system service=catalogd-ts secret=catalogd-ts-serving-cert
days=90 make_secret=1 api_service=
sans=()
while [ $# -gt 0 ]; do
  case "$1" in
  --out) out=$2; shift 2 ;;
  --namespace) namespace=$2; shift 2 ;;
  --service) service=$2; shift 2 ;;
  --secret) secret=$2; shift 2 ;;
  --days) days=$2; shift 2 ;;
  --dns) sans+=("DNS:$2"); shift 2 ;;
  --ip) sans+=("IP:$2"); shift 2 ;;
  --no-secret) make_secret=0; shift ;;
  --api-service) api_service=$2; shift 2 ;;
  -h | --help) sed -n '/^set -/q; 2,$p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "serving-cert.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
command -v openssl >/dev/null || { echo "serving-cert.sh: openssl not found" >&2; exit 1; }
mkdir -p "$out"
umask 077
if [ ! -s "$out/ca.crt" ] || [ ! -s "$out/ca.key" ]; then
  echo "serving-cert.sh: new CA in $out/ca.crt" >&2
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -days 3650 \
    -subj "/CN=$service-ca" -keyout "$out/ca.key" -out "$out/ca.crt" 2>/dev/null
fi
svc="$service.$namespace"
san="DNS:$service,DNS:$svc,DNS:$svc.svc,DNS:$svc.svc.cluster.local"
for s in ${sans[@]+"${sans[@]}"}; do san="$san,$s"; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$svc.svc" \
  -keyout "$tmp/tls.key" -out "$tmp/tls.csr" 2>/dev/null
printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' \
  "$san" >"$tmp/ext.cnf"
openssl x509 -req -in "$tmp/tls.csr" -CA "$out/ca.crt" -CAkey "$out/ca.key" -sha256 \
  -days "$days" -set_serial "0x$(openssl rand -hex 16)" -extfile "$tmp/ext.cnf" \
  -out "$tmp/tls.crt" 2>/dev/null
# Key first, then the certificate: each file is replaced whole (rename), never half written.
mv "$tmp/tls.key" "$out/tls.key"
mv "$tmp/tls.crt" "$out/tls.crt"
echo "serving-cert.sh: $out/tls.crt, serial $(openssl x509 -noout -serial -in "$out/tls.crt" | cut -d= -f2), $san" >&2
if [ "$make_secret" = 1 ]; then
  kubectl -n "$namespace" create secret generic "$secret" --type=kubernetes.io/tls \
    --from-file=tls.crt="$out/tls.crt" --from-file=tls.key="$out/tls.key" \
    --from-file=ca.crt="$out/ca.crt" --dry-run=client -o yaml | kubectl apply -f - >&2
fi
if [ -n "$api_service" ]; then
  kubectl get apiservice "$api_service" >/dev/null 2>&1 ||
    { echo "serving-cert.sh: APIService $api_service not found (apply config/served first)" >&2; exit 1; }
  # A merge patch of caBundle alone: `kubectl apply` of the manifests does not own the field, so
  # applying them again keeps it. The CA is kept on rotation, so the bundle stays valid.
  kubectl patch apiservice "$api_service" --type merge \
    -p "{\"spec\":{\"caBundle\":\"$(base64 -w0 <"$out/ca.crt")\"}}" >&2
fi
cat "$out/ca.crt"
