#!/usr/bin/env bash
# Throughput of the HTTP layer on /healthz against baseline (a), the minimal C server answering
# the same bytes. Usage: Benchmarks/http.sh [SECONDS]   (expects release builds in place)
# The server runs the demo config in memory with request logs off (SECTIONAL_LOG_LEVEL=warn).
set -euo pipefail
seconds=${1:-5}
cd "$(dirname "$0")/.."
port_swift=18080
port_c=18081
SECTIONAL_LOG_LEVEL=warn .build/release/sectional --port "$port_swift" --memory 2>/dev/null &
swift_pid=$!
Benchmarks/bin/mhd-fixed "$port_c" 15 <(printf '{"status":"ok"}') &
c_pid=$!
trap 'kill $swift_pid $c_pid 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for port in $port_swift $port_c; do
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
done
run() { wrk -t1 -c32 -d"${seconds}s" --latency "http://127.0.0.1:$1/healthz" | awk '/Requests\/sec/ {rps=$2} / 99%/ {p99=$2} END {print rps, p99}'; }
read -r c_rps c_p99 <<<"$(run $port_c)"
read -r s_rps s_p99 <<<"$(run $port_swift)"
printf '%-28s %12s %10s\n' "server (wrk -t1 -c32 -d${seconds}s)" "req/s" "p99"
printf '%-28s %12s %10s\n' "C libmicrohttpd baseline" "$c_rps" "$c_p99"
printf '%-28s %12s %10s\n' "sectional /healthz" "$s_rps" "$s_p99"
awk -v s="$s_rps" -v c="$c_rps" 'BEGIN { printf "sectional / baseline: %.0f%%\n", 100 * s / c }'
