#!/usr/bin/env bash
# Usage: scripts/with-postgres.sh CMD [ARG…]
# Runs CMD with a throwaway PostgreSQL cluster: made with Debian's postgresql binaries (initdb,
# pg_ctl; as the postgres user when run as root) in a temporary folder, listening only on a Unix
# socket there under a random port number, with its URL in SECTIONAL_TEST_DATABASE_URL. The cluster
# and its folder are removed on every exit path; CMD's exit status is this script's.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 CMD [ARG…]" >&2; exit 2; }

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "with-postgres: no PostgreSQL server binaries under /usr/lib/postgresql (install the postgresql package)" >&2
  exit 1
fi

folder=$(mktemp -d /tmp/sectional-pg.XXXXXX)
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres: "$folder"
  as_owner=(runuser -u postgres --)
fi
data="$folder/data"
started=false

teardown() {
  local status=$?
  trap - EXIT INT TERM
  if $started; then
    "${as_owner[@]}" "$bin/pg_ctl" stop -D "$data" -m immediate -w -t 30 >/dev/null 2>&1 || true
  fi
  rm -rf "$folder"
  exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A random port number: only the socket's file name (no TCP listener), so it cannot clash.
port=$((20000 + RANDOM % 40000))
"${as_owner[@]}" "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$folder/initdb.log" 2>&1 \
  || { cat "$folder/initdb.log" >&2; exit 1; }
started=true
# pg_ctl -w polls the server until it accepts connections, up to -t seconds, and fails after that.
# fsync is off: the cluster is thrown away, and a crash of a test process does not need it
# (SECTIONAL_PG_FSYNC=on turns it on, for benchmarks of durable writes).
if ! "${as_owner[@]}" "$bin/pg_ctl" start -D "$data" -w -t 60 -l "$folder/server.log" \
     -o "-c listen_addresses='' -k $folder -p $port -c fsync=${SECTIONAL_PG_FSYNC:-off} -c max_connections=200" >/dev/null; then
  echo "with-postgres: the server did not start; its log:" >&2
  cat "$folder/server.log" >&2
  exit 1
fi

export SECTIONAL_TEST_DATABASE_URL="postgresql://postgres@localhost:$port/postgres?host=$folder"
"$@"
