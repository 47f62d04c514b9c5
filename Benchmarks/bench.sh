#!/usr/bin/env bash
# `make bench`: Sectional against a baseline and two peers measured in the same run, so the
# figures are ratios that survive a noisy machine.
#   C: Benchmarks/bin/mhd-fixed, the minimal libmicrohttpd C server answering a fixed body of
#      the same size as the scenario's answer — the physical limit of this stack;
#   Go: Benchmarks/bin/go-peer (Benchmarks/go-peer), net/http + encoding/json, and
#   Node: Benchmarks/node-baseline.mjs, node:http + JSON.stringify: hand-written servers holding
#      the same records in memory and building each answer per request.
# Sectional runs at the default log level (info: one request line per answer, to a file); the
# cost of those lines is measured against a second server with them off (warn).
# Scenarios run with wrk (1 thread, 32 connections, BENCH_SECONDS each, default 10) on 100,000
# records, Sectional and the C server in alternating halves (see `measure_paired`); then figures
# on 1,000,000 records: batch import rate, cold start, memory.
# Expects release builds of sectional, Benchmarks/bin/mhd-fixed and Benchmarks/bin/go-peer.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=Benchmarks/common.sh
source Benchmarks/common.sh
root=$(pwd)
seconds=${BENCH_SECONDS:-10}
# One core for wrk and the rest for the servers, in the second table.
[ "$(nproc)" -ge 2 ] || { echo "bench.sh needs two cores or more" >&2; exit 1; }
large=${BENCH_LARGE:-1000000}
begin_run bench
results="$work/results.tsv"
export SECTIONAL_JWT_SECRET=${SECTIONAL_JWT_SECRET:-sectional-demo-secret-not-for-production}
: > "$results"

port_s=18600; port_n=18601; port_c=18602; port_g=18603; port_q=18604
base="http://127.0.0.1:$port_s"
quiet="http://127.0.0.1:$port_q"  # the same service with request logs off

# The C server answering a body of BYTES on $port_c, started (its pid in `c_pid`) and stopped.
# With C_ROUTES set, some requests get bodies of other sizes (see MHD_FIXED_ROUTES in mhd_fixed.c);
# with C_CPUS set, it runs on those CPUs only (`taskset -c`).
start_c() {
  head -c "$1" /dev/zero | tr '\0' 'x' > "$work/body"
  MHD_FIXED_ROUTES="${C_ROUTES:-}" ${C_CPUS:+taskset -c "$C_CPUS"} Benchmarks/bin/mhd-fixed $port_c "$1" "$work/body" & c_pid=$!
  pids+=("$c_pid")  # stopped on every exit path (stop_c's kill then finds it gone: harmless)
  wait_ready "http://127.0.0.1:$port_c/" "$c_pid"
}
stop_c() { kill "$c_pid"; wait "$c_pid" 2>/dev/null || true; }

# Sectional and the C server (running) measured in turn, each for half the time, twice, in the
# order Sectional, C, C, Sectional: both then sample the same minutes, which on this kind of
# machine move by more than the figures differ (measured one after the other, a scenario's C
# figure came from the minute after Sectional's, and a minute moved the C server alone by ±15%).
# S_ARGS and C_ARGS are `measure`'s arguments for each (one string each, split on spaces): the
# same requests, only the server's address differs. Prints two lines "req/s p50 p99", Sectional's
# then C's: per server the mean req/s and p50 of its two halves, and the worse p99.
measure_paired() {  # S_ARGS C_ARGS
  local half=$(( (seconds + 1) / 2 )) s1 c1 c2 s2
  # shellcheck disable=SC2086
  s1=$(seconds=$half measure $1)
  # shellcheck disable=SC2086
  c1=$(seconds=$half measure $2)
  # shellcheck disable=SC2086
  c2=$(seconds=$half measure $2)
  # shellcheck disable=SC2086
  s2=$(seconds=$half measure $1)
  python3 - "$s1" "$s2" "$c1" "$c2" <<'PY'
import sys
def both(a, b):
    a, b = [float(v) for v in a.split()], [float(v) for v in b.split()]
    return f"{(a[0] + b[0]) / 2:.0f} {(a[1] + b[1]) / 2:.2f} {max(a[2], b[2]):.2f}"
print(both(sys.argv[1], sys.argv[2]))
print(both(sys.argv[3], sys.argv[4]))
PY
}

# The bytes of the answer to URL (sets `bytes`); stops the bench unless it answers 200: a scenario
# measures answers, not refusals.
sample_bytes() {  # NAME URL
  local status
  read -r status bytes < <(curl -s -o /dev/null -w '%{http_code} %{size_download}\n' "$2")
  [ "$status" = 200 ] || { echo "$1: $2 answered $status" >&2; exit 1; }
}

# Sectional at URL (TARGET: a path, or a wrk script and its arguments) and the C server answering
# BYTES, in turn (`measure_paired`), sent the very same requests (the same path, or the same
# script with the same arguments: until 2026-12-07 the C server got `GET /` from wrk's built-in
# request while Sectional's came from a script, a cheaper client for C on the shared cores, and
# the mix's C server never saw a page or a write): sets `s` and `c`, each "req/s p50 p99". The C
# server starts and stops here, in this shell, so that an interrupted run stops it too.
against_c() {  # BYTES URL TARGET
  local c_url="http://127.0.0.1:$port_c"
  start_c "$1"
  if [[ $3 == *.lua* ]]; then
    { read -r s; read -r c; } < <(measure_paired "-s ${3%% *} $2 -- ${3#* }" "-s ${3%% *} $c_url -- ${3#* }")
  else
    { read -r s; read -r c; } < <(measure_paired "$2$3" "$c_url$3")
  fi
  stop_c
}

# One scenario: NAME, SECTIONAL_PATH_OR_SCRIPT, PEER_PATH (or -: the peers have no such
# answer), sample path for the body size, and optionally the base URL (default: logs at info).
scenario() {
  local name=$1 target=$2 peer=$3 sample=$4 url=${5:-$base}
  local status bytes s c g="- - -" n="- - -"
  sample_bytes "$name" "$url$sample"
  if [ "$peer" != "-" ]; then
    for port in $port_g $port_n; do
      status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$peer")
      [ "$status" = 200 ] || { echo "$name: the peer on port $port answered $peer with $status" >&2; exit 1; }
    done
  fi
  against_c "$bytes" "$url" "$target"
  if [ "$peer" != "-" ]; then
    g=$(measure "http://127.0.0.1:$port_g$peer")
    n=$(measure "http://127.0.0.1:$port_n$peer")
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$bytes" "$s" "$c" "$g" "$n" >> "$results"
  echo "  $name: sectional $s | C $c | go $g | node $n" >&2
}

echo "== data: 100,000 people" >&2
python3 scripts/generate-people.py 100000 > "$work/people.json"
python3 Benchmarks/bench-config.py "$work"
sed "s|$work/db.sqlite|$work/quiet.sqlite|" "$work/config.json" > "$work/quiet.json"
for port in $port_s $port_q $port_n $port_g $port_c; do port_free "$port"; done
# The two servers of the load scenarios: pids[0] on $base (db.sqlite), pids[1] on $quiet
# (quiet.sqlite), each at the log level given (info: the default); each waited for until ready and
# its list's search corpus is made (work in the background after ready).
start_pair() {
  local level_s=$1 level_q=$2
  [ ${#pids[@]} -ge 2 ] && { kill "${pids[0]}" "${pids[1]}"; wait "${pids[0]}" "${pids[1]}" 2>/dev/null || true; }
  SECTIONAL_LOG_LEVEL=$level_s .build/release/sectional --config "$work/config.json" --port $port_s 2>"$work/server.log" &
  pids[0]=$!
  SECTIONAL_LOG_LEVEL=$level_q .build/release/sectional --config "$work/quiet.json" --port $port_q 2>"$work/quiet.log" &
  pids[1]=$!
  wait_ready "$base/readyz" "${pids[0]}"
  wait_ready "$quiet/readyz" "${pids[1]}"
  wait_corpus "$base" contacts
  wait_corpus "$quiet" contacts
}
start_pair info warn
# The release build allocates with jemalloc (Package.swift); measure what ships.
grep -q '"allocator":"jemalloc"' "$work/server.log" || { echo "the release build does not allocate with jemalloc" >&2; exit 1; }
python3 Benchmarks/load-people.py "$base" 100000 >&2
python3 Benchmarks/load-people.py "$quiet" 100000 >&2
node Benchmarks/node-baseline.mjs $port_n "$work/people.json" &
pids+=($!)
Benchmarks/bin/go-peer $port_g "$work/people.json" &
pids+=($!)
wait_ready "http://127.0.0.1:$port_n/outline"
wait_ready "http://127.0.0.1:$port_g/outline"

echo "== look-up targets" >&2
python3 Benchmarks/targets.py "$base" "$work"
first_tag=$(head -1 "$work/tags.txt")
first_row=$(head -1 "$work/rows.txt")
first_range=$(head -1 "$work/ranges.txt")

echo "== scenarios (wrk -t1 -c32 -d${seconds}s)" >&2
# The cost of request logs: the same answers from a server with them off, measured in turn (on,
# off, three times, 4 s each), then again with the two servers' levels swapped, and the medians
# compared. One arrangement of the pair, measured once, said little (/healthz, server CPU per
# request: 17.6 against 15.6 µs with the logs on one server, and within the hour 15.1 against
# 14.8 with them on the other), and one pair of runs moved with the machine by more than the
# lines cost. The server's CPU time per request, the direct cost, is printed beside.
log_runs() {  # PATH ON_PID ON_URL OFF_PID OFF_URL: lines "on|off req/s p50 p99 cpu_us"
  local _
  for _ in 1 2 3; do
    echo "on $(seconds=4 measure_cpu "$2" "$3$1")"
    echo "off $(seconds=4 measure_cpu "$4" "$5$1")"
  done
}
page_path="/v1/lists/contacts/rows?pageSize=50"
runs_healthz=$(log_runs /healthz "${pids[0]}" "$base" "${pids[1]}" "$quiet")
runs_page=$(log_runs "$page_path" "${pids[0]}" "$base" "${pids[1]}" "$quiet")
start_pair warn info
runs_healthz+=$'\n'$(log_runs /healthz "${pids[1]}" "$quiet" "${pids[0]}" "$base")
runs_page+=$'\n'$(log_runs "$page_path" "${pids[1]}" "$quiet" "${pids[0]}" "$base")
start_pair info warn
log_cost() {  # PATH RUNS
  python3 - "$1" "$2" <<'PY'
import statistics, sys
path, runs = sys.argv[1], [line.split() for line in sys.argv[2].splitlines() if line.strip()]
def median(side, column):
    return statistics.median(float(run[column]) for run in runs if run[0] == side)
on, off = median("on", 1), median("off", 1)
print(f"{100 * (1 - on / off):.1f}% on {path} ({on:,.0f} req/s at info, {off:,.0f} off; "
      f"server CPU {median('on', 4):.2f} µs per request at info, {median('off', 4):.2f} off)")
PY
}
log_healthz=$(log_cost /healthz "$runs_healthz")
log_page=$(log_cost "$page_path" "$runs_page")
echo "  request logs cost $log_healthz; $log_page" >&2
scenario "/healthz (HTTP layer)" "/healthz" "-" "/healthz"
scenario "outline" "/v1/lists/contacts" "/outline" "/v1/lists/contacts"
scenario "first page (50 rows)" "/v1/lists/contacts/rows?pageSize=50" "/page?pageSize=50" "/v1/lists/contacts/rows?pageSize=50"
scenario "random pages by token" "Benchmarks/wrk/paths.lua $work/pages.txt" "-" "$(head -1 "$work/pages.txt")"
scenario "section range (20 rows)" "Benchmarks/wrk/paths.lua $work/ranges.txt" "/sections/1/rows?start=100&count=20" "$first_range"
scenario "tag look-up" "Benchmarks/wrk/paths.lua $work/tags.txt" "/tags/4711" "$first_tag"
# The C server of the table places connections as Sectional does (evenly over its threads); left to
# libmicrohttpd, they go to whichever thread wakes first, and how wrk's 32 fall moves the figure
# from start to start. For reference, three starts so, 5 s each, at the tag look-up's bytes (small
# answers are where it matters most).
tag_bytes=$(curl -s -o /dev/null -w '%{size_download}' "$base$first_tag")
c_library=""
for _ in 1 2 3; do
  MHD_FIXED_ACCEPT=library start_c "$tag_bytes"
  read -r rps _ p99 < <(seconds=5 measure "http://127.0.0.1:$port_c/")
  stop_c
  c_library+="${c_library:+, }$rps req/s (p99 $p99 ms)"
done
echo "  C server placing connections as libmicrohttpd does, $tag_bytes bytes: $c_library" >&2
scenario "row-id look-up" "Benchmarks/wrk/paths.lua $work/rows.txt" "/rows/p-004711" "$first_row"

# The read scenarios again with wrk on a core of its own. In the table above wrk's thread and the
# server's (one per core) share every core, so a server thread is often preempted with a dozen
# answers waiting: that is most of both servers' p99 there. Here the servers run on the other
# cores (`taskset`; each starts a thread per core it may use, so this is still the default
# configuration) and wrk on core 0. The logs-off server's part is done: its place is taken by the
# same service at the default log level, pinned, on the same database.
echo "== read scenarios, wrk on a core of its own" >&2
server_cpus="1-$(( $(nproc) - 1 ))"
kill "${pids[1]}"; wait "${pids[1]}" 2>/dev/null || true
env -u SECTIONAL_LOG_LEVEL taskset -c "$server_cpus" .build/release/sectional --config "$work/quiet.json" --port $port_q \
  2>"$work/own-core.log" &
pids[1]=$!
wait_ready "$quiet/readyz" "${pids[1]}"
wait_corpus "$quiet" contacts
own_core_results="$work/own-core.tsv"
: > "$own_core_results"
own_core() {  # NAME TARGET SAMPLE, as for `scenario`, against the pinned server
  local name=$1 target=$2 sample=$3 bytes s c
  sample_bytes "$name (own core)" "$quiet$sample"
  WRK_CPUS=0 C_CPUS=$server_cpus against_c "$bytes" "$quiet" "$target"
  printf '%s\t%s\t%s\t%s\n' "$name" "$bytes" "$s" "$c" >> "$own_core_results"
  echo "  $name (wrk on its own core): sectional $s | C $c" >&2
}
own_core "/healthz (HTTP layer)" "/healthz" "/healthz"
own_core "outline" "/v1/lists/contacts" "/v1/lists/contacts"
own_core "first page (50 rows)" "/v1/lists/contacts/rows?pageSize=50" "/v1/lists/contacts/rows?pageSize=50"
own_core "random pages by token" "Benchmarks/wrk/paths.lua $work/pages.txt" "$(head -1 "$work/pages.txt")"
own_core "section range (20 rows)" "Benchmarks/wrk/paths.lua $work/ranges.txt" "$first_range"
own_core "tag look-up" "Benchmarks/wrk/paths.lua $work/tags.txt" "$first_tag"
own_core "row-id look-up" "Benchmarks/wrk/paths.lua $work/rows.txt" "$first_row"
since=$(curl -s "$base/v1/lists/contacts" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
python3 Benchmarks/write-changes.py "$base"
# A diff, not a reload: the scenario measures the diff it names (999 writes make some 1,000 row
# and section changes, past the default `maxChanges`, 1,000: hence 2,000).
changes_path="/v1/lists/contacts/changes?since=$since&maxChanges=2000"
curl -s "$base$changes_path" | python3 -c 'import json,sys; assert not json.load(sys.stdin)["reload"], "changes answered reload"'
scenario "changes after 999 writes" "$changes_path" "-" "$changes_path"
# The mixed scenario's C server answers as Sectional does: a page's bytes to a page by token, a
# write's to a write (sizes taken from one of each), the tag look-up's to the rest. The mix's reads
# alone first: what the mix would reach if its writes cost nothing.
mixed_page_bytes=$(curl -s -o /dev/null -w '%{size_download}' "$base$(head -1 "$work/pages.txt")")
mixed_write_bytes=$(curl -s -o /dev/null -w '%{size_download}' -X PUT -H 'Content-Type: application/json' \
  -d '{"name":"Mixed 1","team":"Sales","kind":"person","email":"m@example.com","salary":60000}' \
  "$base/v1/collections/people/records/p-000001")
export C_ROUTES="PUT=$mixed_write_bytes,/rows=$mixed_page_bytes"
scenario "mixed: its reads alone" "Benchmarks/wrk/mixed.lua $work/mixed.txt 0" "-" "$first_tag"
lines_before=$(wc -l < "$work/server.log")
store_commits() { curl -s "$base/metrics" | awk '/^sectional_store_write_seconds_count/ {print $2}'; }
commits_before=$(store_commits)
scenario "mixed 90% read / 10% write" "Benchmarks/wrk/mixed.lua $work/mixed.txt" "-" "$first_tag"
commits=$(( $(store_commits) - commits_before ))
unset C_ROUTES
# Reads and writes of the mixed run apart: p50/p99 of the server's own request lines (time from
# request line to answer sent, so without the client's share of the round trip), and how many
# writes a commit held (a commit costs far more CPU than a write: see WriteQueue).
mixed=$(tail -n +"$((lines_before + 1))" "$work/server.log" | python3 -c '
import json, sys
times = {"GET": [], "PUT": []}
for line in sys.stdin:
    if "\"msg\":\"request\"" not in line: continue
    r = json.loads(line)
    if r["method"] in times: times[r["method"]].append(r["duration_ms"])
def p(v, q): v = sorted(v); return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")
writes, commits = len(times["PUT"]), int(sys.argv[1])
print(", ".join(f"{name} {len(v):,} p50 {p(v, .5):.2f} ms p99 {p(v, .99):.2f} ms" for name, v in (("reads", times["GET"]), ("writes", times["PUT"])))
      + f" in {commits:,} commits ({writes / max(commits, 1):.1f} writes a commit)")
' "$commits")

echo "== single durable upsert (wrk -c1, 5 s)" >&2
# One write a commit: the server's CPU per write is a commit's cost and a write's together.
read -r up_rps up_p50 up_p99 up_cpu < <(seconds=5 wrk_cpu "${pids[0]}" -c1 -d5s -s Benchmarks/wrk/upsert.lua "$base")
upsert="p50 $up_p50 ms, p99 $up_p99 ms ($up_rps writes/s, ${up_cpu%.*} µs of server CPU a write)"

echo "== write latency with 1,000 open event streams" >&2
sse=$(python3 Benchmarks/sse-writes.py "$base" 1000 200)

echo "== ${large} records: import, cold start, memory" >&2
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true
python3 scripts/generate-people.py "$large" > "$work/people-large.json"
rm -f "$work"/db.sqlite*
kill "${pids[1]}"; wait "${pids[1]}" 2>/dev/null || true
env -u SECTIONAL_LOG_LEVEL .build/release/sectional --config "$work/config.json" --port $port_s 2>"$work/server.log" &
pid=$!; pids+=($pid)
wait_ready "$base/readyz" "$pid"
import=$(python3 Benchmarks/load-people.py "$base" "$large")
kill -TERM $pid; wait $pid 2>/dev/null || true
# Start to /readyz: first with the database's pages dropped from the page cache (as after a reboot,
# or on a machine whose cache holds other things), then again with them cached (a restart). Only
# the second was measured until 2026-12-07, right after the import wrote the file.
start_to_ready() {  # sets `ready_ms`; leaves the server running (`pid`)
  local start_ns
  start_ns=$(date +%s%N)
  env -u SECTIONAL_LOG_LEVEL .build/release/sectional --config "$work/config.json" --port $port_s 2>"$work/server.log" &
  pid=$!; pids+=($pid)
  wait_ready "$base/readyz" "$pid"
  ready_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
}
sync
python3 - "$work"/db.sqlite* <<'PY'
import os, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
PY
start_to_ready
cold_uncached=$ready_ms
kill -TERM $pid; wait $pid 2>/dev/null || true
start_to_ready
cold=$ready_ms
rss_kb=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
rows=$(curl -s "$base/v1/lists/contacts" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totalRowCount"])')
# Resident once the background work after start is done: the list's search corpus (made after
# ready; its log line says when), polled with a deadline.
deadline=$(( $(date +%s) + 120 ))
until grep -q '"search corpus made"' "$work/server.log" || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.2; done
steady_kb=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
corpus_state="with the search corpus made (after ready, in the background)"
grep -q '"search corpus made"' "$work/server.log" || corpus_state="120 s after ready, the search corpus NOT made yet"

python3 - "$results" "$seconds" <<PY
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
print(f"Sectional benchmark — wrk -t1 -c32, {sys.argv[2]} s a server and scenario (Sectional and C in alternating halves: S C C S) on 100,000 records; release build; logs at info unless noted; $(nproc) cores; $(date -u +%Y-%m-%d)")
print()
print("| scenario | bytes | req/s | p50 ms | p99 ms | C req/s | C p99 ms | Go req/s | Node req/s | vs C | vs Go | vs Node |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
number = lambda v: "—" if v == "-" else f"{float(v):,.0f}"
ratio = lambda a, b: "—" if b == "-" else f"{float(a) / float(b):.2f}×"
for name, size, s, c, g, n in rows:
    rps, p50, p99 = s.split(); crps, _, cp99 = c.split(); grps = g.split()[0]; nrps = n.split()[0]
    print(f"| {name} | {size} | {float(rps):,.0f} | {p50} | {p99} | {number(crps)} | {cp99} | {number(grps)} | {number(nrps)} | {ratio(rps, crps)} | {ratio(rps, grps)} | {ratio(rps, nrps)} |")
print()
print("The read scenarios with wrk on a core of its own: Sectional (logs at info) and the C server on CPUs $server_cpus, a thread per core there; wrk on CPU 0")
print()
print("| scenario | bytes | req/s | p50 ms | p99 ms | C req/s | C p99 ms | vs C |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for name, size, s, c in (line.rstrip("\n").split("\t") for line in open("$own_core_results")):
    rps, p50, p99 = s.split(); crps, _, cp99 = c.split()
    print(f"| {name} | {size} | {float(rps):,.0f} | {p50} | {p99} | {number(crps)} | {cp99} | {ratio(rps, crps)} |")
print()
print(f"- request logs at info (req/s against logs off, medians of six alternating 4 s runs each, half of them with the two servers' levels swapped): cost $log_healthz; $log_page")
print(f"- the C server letting libmicrohttpd place connections (its workers accept on a shared socket) instead of placing them evenly as Sectional does, $tag_bytes bytes (the tag look-up's), three starts: $c_library")
print(f"- mixed runs: the C server answers a page by token with $mixed_page_bytes bytes, a write with $mixed_write_bytes, other reads with the tag look-up's (the bytes column); 'its reads alone' is the mix without its writes")
print(f"- mixed run, server-side times: $mixed")
print(f"- single durable upsert (PUT, fsync before 2xx, wrk -c1): $upsert")
print(f"- event streams: $sse")
print(f"- batch import of $large records through POST …/batch: ${import#loaded }")
print(f"- cold start of $rows rows from SQLite to /readyz 200: ${cold} ms with the database in the page cache (a restart), ${cold_uncached} ms with its pages dropped from it first")
print(f"- resident memory at ready: $((rss_kb / 1024)) MiB for $rows rows = {${rss_kb} * 1024 / max($rows, 1):.0f} bytes per row, records included")
print(f"- resident memory $corpus_state: $((steady_kb / 1024)) MiB = {${steady_kb} * 1024 / max($rows, 1):.0f} bytes per row")
PY
