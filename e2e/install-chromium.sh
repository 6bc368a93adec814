#!/usr/bin/env bash
# Install Debian's Chromium for the report's browser test (e2e/report-browser.test.ts), only
# when it is missing. Idempotent: with /usr/bin/chromium present it prints one line and exits 0.
#   e2e/install-chromium.sh            (needs root, or sudo without a password, and apt)
# CHROMIUM_PATH overrides the path checked (default /usr/bin/chromium).
set -euo pipefail
bin="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$bin" ]; then
  echo "install-chromium: $bin already installed" >&2
  exit 0
fi
command -v apt-get >/dev/null 2>&1 || { echo "install-chromium: $bin is missing and apt-get is not available; install Chromium by hand" >&2; exit 2; }
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-chromium: $bin is missing; run this script as root (apt-get install chromium)" >&2; exit 2; }
  sudo="sudo -n"
fi
start=$SECONDS
echo "install-chromium: $bin is missing; installing Debian's chromium (apt-get, a minute or two)" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
[ -x "$bin" ] || { echo "install-chromium: apt-get finished but $bin is still missing" >&2; exit 1; }
echo "install-chromium: installed $("$bin" --version 2>/dev/null || echo chromium) in $((SECONDS - start)) s" >&2
