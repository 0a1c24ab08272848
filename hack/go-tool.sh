# Sourced by the scripts that build a Go tool once and cache it (hack/cosign.sh, hack/opm/build.sh).
#
#   go_tool NAME VERSION BUILD
#
# prints the path of NAME's binary for VERSION under the cache root, calling `BUILD OUT` (a
# function that writes the binary, or a directory of binaries, to OUT) the first time only; progress
# goes to stderr.
#
#   CATALOGD_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts).
go_tool() {
  local name=$1 version=$2 build=$3
  local cache=${CATALOGD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/catalogd-ts}
  local out="$cache/$name-$version"
  mkdir -p "$out"
  if [ ! -x "$out/$name" ]; then
    echo "building $name $version (first time only; cached in $out)" >&2
    local start=$SECONDS
    "$build" "$out/$name.tmp"
    mv "$out/$name.tmp" "$out/$name"
    echo "built $name in $((SECONDS - start))s" >&2
  fi
  echo "$out/$name"
}
