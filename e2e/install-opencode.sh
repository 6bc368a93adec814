#!/usr/bin/env bash
# Install only the platform binary package of one or more opencode releases into
# .cache/opencode/<version>/ (git-ignored), reusing what is already there.
#   e2e/install-opencode.sh 1.14.34 1.18.33      (OPENCODE_CACHE_DIR moves the cache)
# A version written cli-<version> is the "OpenCode 2.0 preview" CLI instead:
# @opencode-ai/cli-<platform>@<version> (1.18.18: linux-x64 only), whose binary is bin/lildax, in
# .cache/opencode/cli-<version>/.
# Prints nothing but "<version> <binary path>" per version on standard output.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${OPENCODE_CACHE_DIR:-$root/.cache/opencode}"
. "$(dirname "$0")/platform.sh"
[ "$#" -gt 0 ] || { echo "usage: $0 <opencode version | cli-<version>>..." >&2; exit 2; }
for spec in "$@"; do
  case "$spec" in
    cli-*) version="${spec#cli-}" package="@opencode-ai/cli-$platform" name=lildax ;;
    *) version="$spec" package="opencode-$platform" name=opencode ;;
  esac
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "install-opencode: not a version: $spec" >&2; exit 2; }
  dir="$cache/$spec"
  bin="$dir/bin/$name"
  if [ ! -x "$bin" ]; then
    tmp="$(mktemp -d "$cache.tmp.XXXXXX" 2>/dev/null || { mkdir -p "$cache"; mktemp -d "$cache.tmp.XXXXXX"; })"
    trap 'rm -rf "$tmp"' EXIT
    echo "install-opencode: fetching $package@$version" >&2
    tarball="$(cd "$tmp" && npm pack --silent --no-fund --no-audit "$package@$version" | tail -n 1)"
    tar -xzf "$tmp/$tarball" -C "$tmp"
    chmod +x "$tmp/package/bin/$name"
    mkdir -p "$cache"
    rm -rf "$dir"
    mv "$tmp/package" "$dir"
    rm -rf "$tmp"
    trap - EXIT
  fi
  echo "$spec $bin"
done
