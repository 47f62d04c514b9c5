#!/usr/bin/env bash
# `make bench-peruser`: per-user lists at scale. BENCH_RECORDS orders (default 1,000,000) over
# BENCH_USERS users (default 10,000), a list scoped by owner, `scopes.maxResidentRows` at
# BENCH_RESIDENT_ROWS (default 200,000: a fifth of the data), user tokens minted by the client.
#   - cold partition: the first page of a partition read for the first time (p50/p99, wrk -t1 -c1,
#     each partition once: Benchmarks/wrk/cold-users.lua);
#   - warm partition: the first page of up to 100 resident partitions under wrk -t1 -c32, against the C
#     baseline (Benchmarks/bin/mhd-fixed) answering the same bytes to the same requests in the same run
#     (and, for reference, to one fixed request without a token);
#   - one write into a resident partition (PUT with the service token, durable): p50/p99 under
#     wrk -t1 -c1 (Benchmarks/wrk/peruser-writes.lua), as bench.sh measures a single durable upsert
#     (the partitions written are read first, so they are resident when the budget holds them);
#   - memory: peak RSS while every partition is read in turn (evictions keep it bounded), then
#     RSS before and after one order each for BENCH_NEWCOMERS users (default 300,000) who never
#     read (nothing of theirs is in memory, so it should not grow with them).
# Expects the release build of sectional and Benchmarks/bin/mhd-fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=Benchmarks/common.sh
source Benchmarks/common.sh
seconds=${BENCH_SECONDS:-10}
records=${BENCH_RECORDS:-1000000}
users=${BENCH_USERS:-10000}
budget=${BENCH_RESIDENT_ROWS:-200000}
cold_reads=${BENCH_COLD_READS:-1000}
newcomers=${BENCH_NEWCOMERS:-300000}
begin_run peruser
port_s=18610; port_c=18612
base="http://127.0.0.1:$port_s"
export SECTIONAL_API_TOKEN=bench-service-token
export SECTIONAL_JWT_SECRET=${SECTIONAL_JWT_SECRET:-sectional-demo-secret-not-for-production}

cat > "$work/config.json" <<JSON
{
  "server": { "host": "127.0.0.1", "port": $port_s, "maxBodyBytes": 16777216, "connectionLimit": 4000,
              "perClientConnectionLimit": 0 },
  "storage": { "kind": "sqlite", "path": "$work/db.sqlite" },
  "auth": { "tokenEnv": "SECTIONAL_API_TOKEN", "users": { "hs256SecretEnv": "SECTIONAL_JWT_SECRET" } },
  "scopes": { "maxResidentRows": $budget },
  "lists": {
    "orders": {
      "title": "My orders",
      "scope": { "field": "owner", "claim": "sub" },
      "sections": [ {
        "source": "orders", "groupBy": "status", "type": "status", "title": "{\$key} ({\$count})",
        "sectionOrder": ["Processing", "Shipped", "Delivered", "Cancelled"],
        "sortBy": [ { "field": "placedAt", "order": "desc" } ],
        "row": { "type": "order", "title": "{item}", "subtitle": "Order {id} · {placedAt|date:MMM d, yyyy}",
                 "detail": "{total|currency:USD}", "height": 56, "action": "app://orders/{id}" }
      } ]
    }
  }
}
JSON

echo "== data: $records orders over $users users" >&2
start_server
load=$(python3 Benchmarks/peruser.py load "$base" "$records" "$users")
echo "  $load" >&2
kill -TERM "$pid"; wait "$pid" 2>/dev/null || true

echo "== restart: no partition resident" >&2
start_ns=$(date +%s%N)
start_server
start_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
rss_start=$(awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")

echo "== cold partitions: first page of $cold_reads partitions read for the first time" >&2
# One wrk connection reads each partition once (tokens minted before, each user's own); wrk's
# client costs less than Python's, whose share was ~0.3 ms of a read. The run stops after the
# last read; wrk itself ends after twice BENCH_SECONDS (a shortfall fails the run).
python3 Benchmarks/peruser.py cold "$base" "$users" "$cold_reads" "$work/cold.txt"
wrk -t1 -c1 -d"$((seconds * 2))s" --latency -s Benchmarks/wrk/cold-users.lua "$base" -- "$work/cold.txt" > "$work/cold-wrk.txt"
read -r cold_done cold_p50 cold_p99 < <(awk '
  function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
  /^completed/ {n=$2} / 50%/ {p50=ms($2)} / 99%/ {p99=ms($2)} END {printf "%d %.2f %.2f\n", n, p50, p99}' "$work/cold-wrk.txt")
[ "$cold_done" -eq "$cold_reads" ] || { echo "cold reads: $cold_done of $cold_reads answered" >&2; exit 1; }

# As many warm partitions as fit half the budget (at most 100), so none is evicted while measured.
warm_users=$(( budget / 2 / (records / users) )); [ "$warm_users" -gt 100 ] && warm_users=100; [ "$warm_users" -lt 1 ] && warm_users=1
echo "== warm partitions: first page of $warm_users resident partitions (wrk -t1 -c32 -d${seconds}s) vs C" >&2
bytes=$(python3 Benchmarks/peruser.py warm "$base" "$users" "$warm_users" "$work/warm.txt")
read -r warm_rps warm_p50 warm_p99 warm_cpu < <(measure_cpu "$pid" -s Benchmarks/wrk/users.lua "$base" -- "$work/warm.txt")
head -c "$bytes" /dev/zero | tr '\0' 'x' > "$work/body"
Benchmarks/bin/mhd-fixed $port_c "$bytes" "$work/body" & cpid=$!; pids+=($cpid)
wait_ready "http://127.0.0.1:$port_c/" "$cpid"
# The C server gets the very requests Sectional got (the same script: paths, tokens, the client's
# cost of making each request), so only the servers differ; and, for reference, one fixed request
# without a token (wrk's cheapest client, which let C answer more than its share of the 2 cores).
read -r c_rps c_p50 c_p99 c_cpu < <(measure_cpu "$cpid" -s Benchmarks/wrk/users.lua "http://127.0.0.1:$port_c" -- "$work/warm.txt")
read -r c_plain_rps _ _ c_plain_cpu < <(measure_cpu "$cpid" "http://127.0.0.1:$port_c/")
kill "$cpid"; wait "$cpid" 2>/dev/null || true

echo "== one write into a resident partition (wrk -t1 -c1 -d${seconds}s)" >&2
python3 Benchmarks/peruser.py resident "$base" 10
read -r _ write_p50 write_p99 < <(wrk_figures -c1 -d"${seconds}s" -s Benchmarks/wrk/peruser-writes.lua "$base" -- \
  "$users" "$records" "$SECTIONAL_API_TOKEN")

echo "== every partition read in turn (budget $budget rows)" >&2
read -r rss_peak rss_end sweep_s < <(python3 Benchmarks/peruser.py sweep "$base" "$users" "$pid")
partitions=$(curl -s "$base/metrics" | grep -E '^sectional_partition' | grep -v _bucket | tr '\n' ';' || true)

echo "== one order each for $newcomers new users, who never read" >&2
read -r new_before new_after new_s < <(python3 Benchmarks/peruser.py newcomers "$base" "$newcomers" "$pid")

ratio=$(python3 -c "print(f'{$warm_rps / max($c_rps, 1):.2f}')")
plain_ratio=$(python3 -c "print(f'{$warm_rps / max($c_plain_rps, 1):.2f}')")
cat <<TABLE
Per-user lists — $records records over $users users ($((records / users)) each); scopes.maxResidentRows $budget; release build; $(nproc) cores; $(date -u +%Y-%m-%d)

| figure | value |
|---|---|
| load through POST …/batch | ${load} |
| restart to /readyz 200 (no partition resident) | ${start_ms} ms, RSS ${rss_start} MiB |
| cold partition, first page (50 rows), $cold_reads partitions, wrk -c1 | p50 ${cold_p50} ms, p99 ${cold_p99} ms |
| warm partition, first page ($bytes bytes), $warm_users partitions, wrk -c32 | ${warm_rps} req/s (p50 ${warm_p50} ms, p99 ${warm_p99} ms); server CPU ${warm_cpu} µs/request |
| C baseline, same bytes, same requests, same run | ${c_rps} req/s; warm / C = ${ratio}; server CPU ${c_cpu} µs/request |
| C baseline, same bytes, one fixed request without a token | ${c_plain_rps} req/s; warm / C = ${plain_ratio}; server CPU ${c_plain_cpu} µs/request |
| one write into a resident partition (durable PUT, wrk -c1) | p50 ${write_p50} ms, p99 ${write_p99} ms |
| all $users partitions read in turn (${sweep_s} s) | peak RSS ${rss_peak} MiB, at the end ${rss_end} MiB |
| one order each for $newcomers new users, none of them read (${new_s} s) | RSS ${new_before} MiB before, ${new_after} MiB after |

Partition metrics at the end: ${partitions:-none}
TABLE
