#!/usr/bin/env bash
# Stops a server started by scripts/start-postgres.sh FOLDER (fast shutdown) and, with --remove, deletes FOLDER.
#   usage: scripts/stop-postgres.sh FOLDER [--remove]
set -uo pipefail
folder="${1:?usage: stop-postgres.sh FOLDER [--remove]}"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
as_owner() { if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ -n "$bin" ] && [ -d "$folder/data" ] && as_owner "$bin/pg_ctl" -D "$folder/data" -m fast -w stop >/dev/null 2>&1
[ "${2:-}" = "--remove" ] && rm -rf "$folder"
exit 0
