#!/usr/bin/env bash
# Starts a throw-away PostgreSQL server for tests and benches: a new cluster in FOLDER (created), on 127.0.0.1 at a
# free port, trust authentication for loopback only, owned by the `postgres` user when run as root (initdb refuses
# root). A FOLDER that already holds a cluster made here, stopped, is started again on its port (the restart tests:
# the gateways keep their URL). Prints the server's URL (postgres://postgres@127.0.0.1:PORT/postgres) and exits;
# stop it with scripts/stop-postgres.sh FOLDER. Exit 3: PostgreSQL cannot be had here (install-postgres.sh says why).
#   usage: scripts/start-postgres.sh FOLDER
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
folder="${1:?usage: start-postgres.sh FOLDER}"
bin="$(bash "$here/install-postgres.sh")" || exit 3
mkdir -p "$folder" && folder="$(cd "$folder" && pwd)"
as_owner() { if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = "0" ] && chown postgres: "$folder"
if [ -f "$folder/data/PG_VERSION" ] && [ -f "$folder/port" ]; then
  port="$(cat "$folder/port")"
else
  port="$(node -e 'const s=require("node:net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  as_owner "$bin/initdb" -D "$folder/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$folder/initdb.log" 2>&1 \
    || as_owner "$bin/initdb" -D "$folder/data" -U postgres --auth=trust --encoding=UTF8 --no-locale >"$folder/initdb.log" 2>&1 \
    || { echo "initdb failed: $(tail -3 "$folder/initdb.log")" >&2; exit 1; }
fi
# fsync stays on: the durability tests kill servers and gateways and count what survived
as_owner "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$folder -c max_connections=200" start >/dev/null \
  || { echo "PostgreSQL did not start: $(tail -5 "$folder/server.log")" >&2; exit 1; }
echo "$port" >"$folder/port"
echo "postgres://postgres@127.0.0.1:$port/postgres"
