#!/usr/bin/env bash
# `make bench-postgres` (part of `make bench`; run inside scripts/with-postgres.sh, with fsync on):
#   - propagation A→B: two instances on one PostgreSQL database; BENCH_PROPAGATION_WRITES
#     (default 2,000) writes on A, each timed from A's answer until B answers a read at its
#     version (Benchmarks/propagation.py); p50, p99, max;
#   - durable writes/s (PUT, committed before the 2xx; group commit) with 1 and 32 clients, on
#     PostgreSQL and on SQLite (wrk -t1, BENCH_SECONDS / 2 each, Benchmarks/wrk/upserts.lua);
#   - the first page (50 rows) of 100,000 records on a PostgreSQL-backed instance next to a
#     SQLite-backed one, same records, same wrk settings as Benchmarks/bench.sh (-t1 -c32,
#     BENCH_SECONDS, default 10), two rounds alternating; reads are served from memory, so they
#     should not depend on the store.
# Expects a release build (or SECTIONAL_BIN) and SECTIONAL_TEST_DATABASE_URL (a cluster of its own: it writes to it).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=Benchmarks/common.sh
source Benchmarks/common.sh
: "${SECTIONAL_TEST_DATABASE_URL:?run it through scripts/with-postgres.sh (make bench-postgres does)}"
seconds=${BENCH_SECONDS:-10}
writes=${BENCH_PROPAGATION_WRITES:-2000}
records=${BENCH_RECORDS:-100000}
export SECTIONAL_JWT_SECRET=${SECTIONAL_JWT_SECRET:-sectional-demo-secret-not-for-production}  # as the Makefile
begin_run bench-pg

port_a=18610; port_b=18611; port_s=18612
base_a="http://127.0.0.1:$port_a"; base_b="http://127.0.0.1:$port_b"; base_s="http://127.0.0.1:$port_s"

version_of() { curl -sf "$1/v1/lists/contacts" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])'; }

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
config = json.load(open("config/sectional.json"))
config.pop("seed")
config["storage"] = {"kind": "memory"}  # every instance names its store on the command line
config["server"]["connectionLimit"] = 4000
config["server"]["perClientConnectionLimit"] = 0  # every benchmark client is 127.0.0.1
json.dump(config, open(f"{work}/config.json", "w"))
PY
start() {  # PORT STORE-FLAGS…
  local port=$1; shift
  port_free "$port"
  env -u SECTIONAL_LOG_LEVEL "${SECTIONAL_BIN:-.build/release/sectional}" --config "$work/config.json" --port "$port" "$@" 2>>"$work/server-$port.log" &
  pids+=($!)
  wait_ready "http://127.0.0.1:$port/readyz" "$!"
}

echo "== instances: A and B on PostgreSQL (one database), S on SQLite" >&2
start $port_a --database-url "$SECTIONAL_TEST_DATABASE_URL"
start $port_b --database-url "$SECTIONAL_TEST_DATABASE_URL"
start $port_s --data "$work/db.sqlite"

echo "== data: $records people into A (PostgreSQL) and S (SQLite)" >&2
echo "  A: $(python3 Benchmarks/load-people.py "$base_a" "$records")" >&2
echo "  S: $(python3 Benchmarks/load-people.py "$base_s" "$records")" >&2
version=$(version_of "$base_a")
for _ in $(seq 60); do curl -sf "$base_b/v1/lists?minVersion=$version" >/dev/null && break; done
[ "$(version_of "$base_b")" -ge "$version" ] || { echo "B did not catch up with A's version $version" >&2; exit 1; }

page=/v1/lists/contacts/rows?pageSize=50
[ "$(curl -s "$base_a$page" | sha256sum)" = "$(curl -s "$base_s$page" | sha256sum)" ] || echo "note: the first pages differ" >&2
echo "== first page (wrk -t1 -c32 -d${seconds}s), two rounds" >&2
reads_pg=(); reads_sqlite=()
for round in 1 2; do
  reads_sqlite+=("$(wrk_figures -c32 -d"${seconds}s" "$base_s$page")")
  reads_pg+=("$(wrk_figures -c32 -d"${seconds}s" "$base_a$page")")
  echo "  round $round: PostgreSQL ${reads_pg[-1]} | SQLite ${reads_sqlite[-1]}" >&2
done

echo "== propagation A→B: $writes writes" >&2
propagation=$(python3 Benchmarks/propagation.py "$base_a" "$base_b" "$writes")

write_seconds=$(( seconds > 1 ? seconds / 2 : 1 ))
echo "== durable writes (wrk -t1 -c1 and -c32, ${write_seconds}s each)" >&2
w1_pg=$(wrk_figures -c1 -d"${write_seconds}s" -s Benchmarks/wrk/upserts.lua "$base_a")
w1_sqlite=$(wrk_figures -c1 -d"${write_seconds}s" -s Benchmarks/wrk/upserts.lua "$base_s")
w32_pg=$(wrk_figures -c32 -d"${write_seconds}s" -s Benchmarks/wrk/upserts.lua "$base_a")
w32_sqlite=$(wrk_figures -c32 -d"${write_seconds}s" -s Benchmarks/wrk/upserts.lua "$base_s")
fsync=$(psql "$SECTIONAL_TEST_DATABASE_URL" -Atc 'SHOW fsync' 2>/dev/null || echo "?")

python3 - "$seconds" "$records" "$writes" "$fsync" "$propagation" "${SECTIONAL_BIN:-.build/release/sectional}" "${reads_pg[*]}" "${reads_sqlite[*]}" \
  "$w1_pg" "$w1_sqlite" "$w32_pg" "$w32_sqlite" <<'PY'
import sys
seconds, records, writes, fsync, propagation, binary = sys.argv[1:7]
def runs(text):  # "rps p50 p99 rps p50 p99 …" → [(rps, p50, p99), …]
    v = text.split(); return [(float(v[i]), v[i + 1], v[i + 2]) for i in range(0, len(v), 3)]
reads_pg, reads_sqlite = runs(sys.argv[7]), runs(sys.argv[8])
w = [runs(t)[0] for t in sys.argv[9:13]]
cell = lambda r: f"{r[0]:,.0f} ({r[1]} / {r[2]})"
p50, p99, top = propagation.split()
print(f"Sectional on PostgreSQL — {int(records):,} records, {binary}, PostgreSQL fsync={fsync}, loopback")
print()
print("| figure | PostgreSQL | SQLite |")
print("|---|---:|---:|")
for n, (pg, sq) in enumerate(zip(reads_pg, reads_sqlite), 1):
    print(f"| first page (50 rows), round {n}: req/s (p50 / p99 ms), wrk -t1 -c32 -d{seconds}s | {cell(pg)} | {cell(sq)} |")
print(f"| durable writes/s, 1 client (p50 / p99 ms) | {cell(w[0])} | {cell(w[1])} |")
print(f"| durable writes/s, 32 clients (p50 / p99 ms) | {cell(w[2])} | {cell(w[3])} |")
print()
best_pg, best_sqlite = max(r[0] for r in reads_pg), max(r[0] for r in reads_sqlite)
ratio = best_pg / best_sqlite
print(f"- first page, best round: PostgreSQL-backed at {100 * ratio:.0f}% of SQLite-backed "
      f"({'within' if abs(1 - ratio) <= 0.10 else 'NOT within'} 10%)")
print(f"- propagation A→B over {int(writes):,} writes (A's answer → B's answer at that version): "
      f"p50 {p50} ms, p99 {p99} ms, max {top} ms ({'meets' if float(p99) <= 50 else 'MISSES'} the 50 ms p99 target)")
PY
