#!/usr/bin/env bash
# `make profile`: where one scenario's CPU time goes, per request — the profile behind a figure of
# `make bench`. The release server runs on CPU 1 with one thread (`taskset`: a thread per core it
# may use, so still the default configuration) and request logs at info, over the benchmark's
# 100,000 people; wrk (-t1 -c32) loads it from CPU 0 while `perf record -g` samples the server.
# Prints wrk's figures and the server's CPU a request (common.sh's `wrk_cpu`), and perf-summary.py's
# tables (own and inclusive time a request). For `import`, the batch import of PROFILE_RECORDS
# (default 400,000) into an empty list on both cores, per record.
#
#   Benchmarks/profile.sh SCENARIO     SCENARIO: healthz, outline, first-page, pages, ranges, tags,
#                                      rows, mixed, mixed-reads or import; PROFILE_SECONDS (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=Benchmarks/common.sh
source /tmp/common-keep.sh
scenario=${1:-first-page}
seconds=${PROFILE_SECONDS:-10}
records=${PROFILE_RECORDS:-400000}
port=18650
base="http://127.0.0.1:$port"
case $scenario in
  healthz|outline|first-page|pages|ranges|tags|rows|mixed|mixed-reads|import) ;;
  *) echo "usage: Benchmarks/profile.sh healthz|outline|first-page|pages|ranges|tags|rows|mixed|mixed-reads|import" >&2; exit 2 ;;
esac
begin_run profile
case $scenario in
  healthz) target=("$base/healthz") ;;
  outline) target=("$base/v1/lists/contacts") ;;
  first-page) target=("$base/v1/lists/contacts/rows?pageSize=50") ;;
  pages|ranges|tags|rows) target=(-s Benchmarks/wrk/paths.lua "$base" -- "$work/$scenario.txt") ;;
  mixed) target=(-s Benchmarks/wrk/mixed.lua "$base" -- "$work/mixed.txt") ;;
  mixed-reads) target=(-s Benchmarks/wrk/mixed.lua "$base" -- "$work/mixed.txt" 0) ;;
esac
export SECTIONAL_JWT_SECRET=${SECTIONAL_JWT_SECRET:-sectional-demo-secret-not-for-production}
port_free $port
python3 Benchmarks/bench-config.py "$work"

# The server: pinned to CPU 1 for a scenario (wrk on CPU 0), on both cores for an import.
cpus=1
[ "$scenario" = import ] && cpus=0-1
env -u SECTIONAL_LOG_LEVEL taskset -c "$cpus" .build/release/sectional --config "$work/config.json" --port $port 2>"$work/server.log" &
pid=$!; pids+=("$pid")
wait_ready "$base/readyz" "$pid"

# Samples the server from now until `stop_perf`.
start_perf() {
  perf record -F 999 -g -p "$pid" -o "$work/perf.data" >/dev/null 2>"$work/perf.log" &
  perf_pid=$!
  pids+=("$perf_pid")
  # Until perf has attached (it writes its file's header then), at most 10 s.
  local deadline=$((SECONDS + 10))
  until [ -s "$work/perf.data" ] || [ $SECONDS -ge $deadline ]; do sleep 0.05; done
}
stop_perf() { kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true; }

if [ "$scenario" = import ]; then
  before=$(cpu_ticks "$pid")
  start_perf
  python3 Benchmarks/load-people.py "$base" "$records"
  stop_perf
  echo "server CPU a record: $(python3 -c "print(f'{($(cpu_ticks "$pid") - $before) * 1e6 / $(getconf CLK_TCK) / $records:.2f}')") µs"
  python3 Benchmarks/perf-summary.py "$work/perf.data" "$records" record
  exit 0
fi

python3 scripts/generate-people.py 100000 > "$work/people.json"  # for targets.py: the same people
python3 Benchmarks/load-people.py "$base" 100000 >&2
wait_corpus "$base" contacts
python3 Benchmarks/targets.py "$base" "$work"
start_perf
figures=$(WRK_CPUS=0 wrk_cpu "$pid" -c32 -d"${seconds}s" "${target[@]}")  # fails on any error answer
stop_perf
read -r rps p50 p99 cpu <<<"$figures"
echo "$scenario: $rps req/s, p50 $p50 ms, p99 $p99 ms; server CPU a request (user and system): $cpu µs"
python3 Benchmarks/perf-summary.py "$work/perf.data" "$((rps * seconds))" request
