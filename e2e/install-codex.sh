#!/usr/bin/env bash
# Install only the platform binary package of one Codex CLI release into
# .cache/codex/<version>/ (git-ignored), reusing what is already there.
#   e2e/install-codex.sh 0.169.0      (CODEX_CACHE_DIR moves the cache)
# @openai/codex publishes each platform's binary as a version of itself:
# @openai/codex@<version>-linux-x64, whose binary is vendor/<target>/bin/codex.
# Prints nothing but "<version> <binary path>" on standard output.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${CODEX_CACHE_DIR:-$root/.cache/codex}"
. "$(dirname "$0")/platform.sh"
[ "$#" -eq 1 ] || { echo "usage: $0 <codex version>" >&2; exit 2; }
version="$1"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "install-codex: not a version: $version" >&2; exit 2; }
dir="$cache/$version"
# The binary sits where the package keeps it (vendor/<target triple>/bin/codex), beside the
# helpers it runs (codex-path/rg, codex-resources/bwrap): the package is kept whole.
binary() { find "$dir/vendor" -type f -path '*/bin/codex' 2>/dev/null | head -n 1 || true; }
bin="$(binary)"
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  tmp="$(mktemp -d "$cache.tmp.XXXXXX" 2>/dev/null || { mkdir -p "$cache"; mktemp -d "$cache.tmp.XXXXXX"; })"
  trap 'rm -rf "$tmp"' EXIT
  echo "install-codex: fetching @openai/codex@$version-$platform" >&2
  tarball="$(cd "$tmp" && npm pack --silent --no-fund --no-audit "@openai/codex@$version-$platform" | tail -n 1)"
  tar -xzf "$tmp/$tarball" -C "$tmp"
  mkdir -p "$cache"
  rm -rf "$dir"
  mv "$tmp/package" "$dir"
  rm -rf "$tmp"
  trap - EXIT
  bin="$(binary)"
  [ -n "$bin" ] || { echo "install-codex: no vendor/*/bin/codex in $tarball" >&2; exit 1; }
  chmod +x "$bin"
fi
echo "$version $bin"
