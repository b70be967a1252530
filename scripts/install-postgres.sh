#!/usr/bin/env bash
# PostgreSQL's server binaries from Debian's packages, for the PostgreSQL store's tests and benches. Installs only
# when missing, and only as root with apt-get; otherwise says what to install and exits 3 (the tests then skip,
# naming why). Prints the folder of the binaries (pg_ctl, initdb, postgres) on success.
set -uo pipefail
find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
bin="$(find_bin)"
if [ -z "$bin" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  { apt-get install -y -qq --no-install-recommends postgresql >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql >/dev/null; }; } \
    && echo "installed postgresql (Debian)" >&2
  bin="$(find_bin)"
fi
if [ -z "$bin" ] || [ ! -x "$bin/pg_ctl" ]; then
  echo "PostgreSQL is not installed and cannot be installed here (apt-get install postgresql, as root)" >&2
  exit 3
fi
echo "$bin"
