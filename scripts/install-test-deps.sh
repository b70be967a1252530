#!/usr/bin/env bash
# Debian packages some tests need beyond npm: python3 + numpy for the verl loader test
# (examples/verl/load_tokentap.py). Installs only what is missing, and only as root with apt-get;
# otherwise says what to install (the loader test then skips, naming why).
set -uo pipefail
if python3 -c 'import numpy' >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 python3-numpy >/dev/null \
    && { echo "installed python3 + python3-numpy"; exit 0; }
fi
echo "python3 with numpy not available: the verl loader test will be skipped (apt-get install python3 python3-numpy)" >&2
exit 0
