# Shell functions the benchmark scripts share (sourced, from the repository's root).

# Fails, saying so, when something already listens on 127.0.0.1:PORT: a server started there would
# exit, and what holds the port would answer the benchmark in its place.
port_free() {
  if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then echo "port $1 is in use: stop what listens there" >&2; return 1; fi
}

# Waits (up to 5 minutes: a 1,000,000-record start included) until URL answers 2xx. With PID, the
# process that is to answer: fails as soon as it has exited (its port taken, say — then whatever
# holds the port would answer, and be measured in its place).
wait_ready() {
  python3 Benchmarks/wait-ready.py "$1" "${2:-}" 300
}

# Waits (up to 5 minutes) until the server at BASE has made list LIST's search corpus, which it
# does in the background after ready on every core: a measurement started before would share the
# cores with it. With SINCE (nanoseconds, `date +%s%N`), prints the milliseconds from then until
# the corpus was seen. Polls /metrics over one keep-alive connection every 5 ms.
wait_corpus() {
  python3 - "$1" "$2" "${3:-}" <<'PY'
import http.client, sys, time, urllib.parse
url, name, since = urllib.parse.urlsplit(sys.argv[1]), sys.argv[2], sys.argv[3]
prefix = f'sectional_search_corpus_records{{list="{name}"}} '
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
deadline = time.monotonic() + 300
while time.monotonic() < deadline:
    connection.request("GET", "/metrics")
    if any(line.startswith(prefix) for line in connection.getresponse().read().decode().splitlines()):
        if since:
            print(f"{(time.time() - int(since) / 1e9) * 1000:.0f}")
        sys.exit(0)
    time.sleep(0.005)
sys.exit(f"the search corpus of {name} was not made within 5 minutes: {sys.argv[1]}")
PY
}

# "req/s p50_ms p99_ms" from one `wrk -t1 --latency` run with the given arguments. Fails, saying
# so, when wrk saw an answer other than 2xx or 3xx or a socket error: a figure measures answers,
# and a server that refuses or drops requests is not measured by them (until 2026-12-03 the C
# server dropped every write of the mixed scenario, unnoticed).
wrk_figures() {
  local out
  out=$(${WRK_CPUS:+taskset -c "$WRK_CPUS"} wrk -t1 --latency "$@" 2>/dev/null)
  if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then
    echo "wrk $*: $(grep -E 'Non-2xx|Socket errors' <<<"$out" | tr -s ' ' | paste -sd ';')" >&2
    return 1
  fi
  awk '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    /Requests\/sec/ {rps=$2} / 50%/ {p50=ms($2)} / 99%/ {p99=ms($2)} END {printf "%.0f %.2f %.2f\n", rps, p50, p99}' <<<"$out"
}

# The same for the standard load: 32 connections for $seconds (default 10).
measure() { wrk_figures -c32 -d"${seconds:-10}s" "$@"; }

# The CPU time (user + system, in clock ticks) process PID has used.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# `measure` with the rest of the arguments, and the CPU time process PID (the server) spent per
# request over the run: "req/s p50_ms p99_ms cpu_us_per_request".
measure_cpu() {
  local pid=$1
  shift
  wrk_cpu "$pid" -c32 -d"${seconds:-10}s" "$@"
}

# The same for one `wrk_figures` run with the given arguments, which must last $seconds (default 10).
wrk_cpu() {
  local pid=$1 ticks figures
  shift
  ticks=$(cpu_ticks "$pid")
  figures=$(wrk_figures "$@")
  ticks=$(( $(cpu_ticks "$pid") - ticks ))
  echo "$figures $(python3 -c "print(f'{$ticks * 1e6 / $(getconf CLK_TCK) / max(${figures%% *} * ${seconds:-10}, 1):.2f}')")"
}

# A scratch folder for the run (`$work`) and the processes it starts (`pids`): on exit each of
# them is stopped and the folder removed. NAME names the folder.
begin_run() {
  work=$(mktemp -d "/tmp/sectional-$1.XXXXXX")
  # On tmpfs every "durable" figure (an fsync before the answer, the import, a cold start) would
  # be memory's.
  if [ "$(stat -f -c %T "$work")" = tmpfs ]; then
    echo "warning: $work is on tmpfs: writes, the import and cold starts are measured without a disk" >&2
  fi
  pids=()
  trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"' EXIT
}

# Starts the release server on `$work/config.json` at `$port_s` at the default log level (info: a
# line per request, as `make bench`'s table; until 2026-12-07 these scenarios ran with request logs
# off), adds it to `pids` (its own in `pid`) and waits until it is ready.
start_server() {
  port_free "$port_s"
  env -u SECTIONAL_LOG_LEVEL .build/release/sectional --config "$work/config.json" --port "$port_s" 2>>"$work/server.log" &
  pid=$!; pids+=("$pid")
  wait_ready "http://127.0.0.1:$port_s/readyz" "$pid"
}
