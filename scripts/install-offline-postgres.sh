#!/usr/bin/env bash
# Installs the PostgreSQL server packed by `scripts/pack-offline-bench.sh --with-postgres` on a machine with no
# registry, as root, where Debian's packages put it (/usr/lib/postgresql/N, /usr/share/postgresql/N), so
# scripts/start-postgres.sh finds it. Only what is missing is copied: a library the machine already has (by its
# soname) is left to the machine's own, the rest go to /opt/tokentap-postgres/libs (named in /etc/ld.so.conf.d); UTC's
# zoneinfo only when the machine has none; a `postgres` user when there is none (initdb refuses root).
#   usage: scripts/install-offline-postgres.sh POSTGRES.TAR.XZ
set -euo pipefail
archive="$(cd "$(dirname "${1:?usage: install-offline-postgres.sh POSTGRES.TAR.XZ}")" && pwd)/$(basename "$1")"
[ "$(id -u)" = "0" ] || { echo "install-offline-postgres.sh: run it as root" >&2; exit 1; }
if ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then echo "PostgreSQL is already installed" >&2; exit 0; fi
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$archive" "$stage"
for folder in "$stage"/root/usr/lib/postgresql/* "$stage"/root/usr/share/postgresql/*; do
  target="${folder#"$stage/root"}"
  mkdir -p "$(dirname "$target")" && cp -a "$folder" "$target"
done
[ -f /usr/share/zoneinfo/UTC ] || { mkdir -p /usr/share/zoneinfo && cp -a "$stage"/root/usr/share/zoneinfo/. /usr/share/zoneinfo/; }
libs=/opt/tokentap-postgres/libs
mkdir -p "$libs"
known="$(ldconfig -p | awk '{print $1}')"
for lib in "$stage"/libs/*; do
  grep -q -x -F "$(basename "$lib")" <<<"$known" || cp "$lib" "$libs/"
done
echo "$libs" >/etc/ld.so.conf.d/zz-tokentap-postgres.conf && ldconfig
for program in /usr/lib/postgresql/*/bin/{postgres,initdb,pg_ctl}; do
  if ldd "$program" | grep -q 'not found'; then echo "$program still misses: $(ldd "$program" | grep 'not found')" >&2; exit 1; fi
done
id postgres >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent postgres 2>/dev/null \
  || { grep -q '^postgres:' /etc/group || echo 'postgres:x:990:' >>/etc/group; echo 'postgres:x:990:990::/nonexistent:/bin/false' >>/etc/passwd; }
echo "installed PostgreSQL $(ls /usr/lib/postgresql | head -1) ($(ls "$libs" | wc -l) libraries carried)" >&2
