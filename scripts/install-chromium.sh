#!/usr/bin/env bash
# Chromium from Debian's packages, for the viewer's browser tests and bench/ui-first-screen.ts (driven by
# playwright-core, which downloads no browser). Installs only when missing, and only as root with apt-get, with
# DejaVu fonts so pages and screenshots render the same text everywhere; otherwise says what to install and exits 3
# (the browser tests then skip, naming why, except under CI). Prints the browser's path on success.
set -uo pipefail
find_bin() { for candidate in /usr/bin/chromium /usr/bin/chromium-browser; do [ -x "$candidate" ] && { echo "$candidate"; return; }; done; }
bin="$(find_bin)"
if [ -z "$bin" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null 2>&1; }
  bin="$(find_bin)"
  [ -n "$bin" ] && echo "installed chromium (Debian)" >&2
fi
if [ -z "$bin" ]; then
  echo "Chromium is not installed and cannot be installed here (apt-get install chromium, as root)" >&2
  exit 3
fi
echo "$bin"
