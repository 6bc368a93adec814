#!/usr/bin/env bash
# Install Claude Code's native binary of one or more releases into
# .cache/claude-code/<version>/ (git-ignored), reusing what is already there.
#   e2e/install-claude-code.sh 2.1.328            (CLAUDE_CODE_CACHE_DIR moves the cache)
# `@anthropic-ai/claude-code` itself holds only a placeholder `bin/claude.exe` that its
# postinstall script (install.cjs) replaces with the binary of the optional dependency
# `@anthropic-ai/claude-code-<platform>`; with install scripts off that never happens. So this
# fetches the platform package alone (about 170 MB packed, 370 MB unpacked) and runs its
# `claude` directly, as the postinstall would have made `claude` do.
# Prints nothing but "<version> <binary path>" per version on standard output.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${CLAUDE_CODE_CACHE_DIR:-$root/.cache/claude-code}"
. "$(dirname "$0")/platform.sh"
[ "$#" -gt 0 ] || { echo "usage: $0 <claude code version>..." >&2; exit 2; }
for version in "$@"; do
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "install-claude-code: not a version: $version" >&2; exit 2; }
  dir="$cache/$version"
  bin="$dir/claude"
  if [ ! -x "$bin" ]; then
    mkdir -p "$cache"
    tmp="$(mktemp -d "$cache.tmp.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    echo "install-claude-code: fetching @anthropic-ai/claude-code-$platform@$version" >&2
    tarball="$(cd "$tmp" && npm pack --silent --no-fund --no-audit "@anthropic-ai/claude-code-$platform@$version" | tail -n 1)"
    tar -xzf "$tmp/$tarball" -C "$tmp"
    chmod +x "$tmp/package/claude"
    rm -rf "$dir"
    mv "$tmp/package" "$dir"
    rm -rf "$tmp"
    trap - EXIT
  fi
  echo "$version $bin"
done
