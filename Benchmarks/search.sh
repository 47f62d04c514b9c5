#!/usr/bin/env bash
# `make bench-search`: search and filters at request time over BENCH_RECORDS people (default
# 100,000) in a list with `search` (name, email) and `filters` (team).
#   - after restart, the list's search corpus made in the background: the time from /readyz
#     answering until sectional_search_corpus_records names the list (polled, 5-minute deadline);
#   - then the first search after start (the corpus is made: no storage read);
#   - new queries after that (each materializes its own result from the corpus): p50 of 20;
#   - warm first pages: the whole list and one search result under wrk -t1 -c32, BENCH_SECONDS
#     each, two rounds alternating (list, search, list, search); every round is printed and the
#     ratio is taken from each one's best round (as Benchmarks/postgres.sh). Both pages are
#     checked to serve the same number of rows; their rows and bytes are printed;
#   - a record write (PUT, wrk -t1 -c1) with no resident search, then with 100 resident.
# Expects the release build of sectional.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=Benchmarks/common.sh
source Benchmarks/common.sh
seconds=${BENCH_SECONDS:-10}
records=${BENCH_RECORDS:-100000}
begin_run search
port_s=18630
base="http://127.0.0.1:$port_s"

cat > "$work/config.json" <<JSON
{
  "server": { "host": "127.0.0.1", "port": $port_s, "maxBodyBytes": 16777216, "perClientConnectionLimit": 0 },
  "storage": { "kind": "sqlite", "path": "$work/db.sqlite" },
  "lists": {
    "people": {
      "search": { "fields": ["name", "email"] },
      "filters": ["team"],
      "sections": [ {
        "source": "people", "groupBy": "team", "type": "team", "title": "{\$key} ({\$count})",
        "sortBy": [ { "field": "name" } ],
        "row": { "type": "person", "title": "{name}", "subtitle": "{email}", "height": 56 }
      } ]
    }
  }
}
JSON

echo "== data: $records people" >&2
start_server
load=$(python3 Benchmarks/load-people.py "$base" "$records")
echo "  $load" >&2
kill -TERM "$pid"; wait "$pid" 2>/dev/null || true

echo "== restart, search corpus made in the background, first search, new searches, writes" >&2
start_server
ready_ns=$(date +%s%N)
# Milliseconds from /readyz answering until the list's search corpus is made (polled).
corpus_ms=$(wait_corpus "$base" people "$ready_ns")
# Timings over one keep-alive connection (no process start per request): milliseconds. Writes
# under wrk -t1 -c1 (Benchmarks/wrk/search-writes.lua), as bench.sh times a single durable upsert:
# first with only the first search resident, then with 100 more (and the 20 new queries).
session() {
  python3 - "$base" "$1" <<'PY'
import http.client, json, statistics, sys, time, urllib.parse
host, step = urllib.parse.urlparse(sys.argv[1]).netloc, sys.argv[2]
c = http.client.HTTPConnection(host)
def get(path):
    t = time.perf_counter(); c.request("GET", path); r = c.getresponse(); body = r.read()
    assert r.status == 200, (path, r.status, body[:200]); return (time.perf_counter() - t) * 1000, body
if step == "first":
    print(f"{get('/v1/lists/people/rows?q=evelyn')[0]:.0f}")
else:
    fragments = ["ell", "son", "ber", "ann", "man", "ste", "ric", "ton", "lin", "ard",
                 "ter", "mar", "der", "ley", "ver", "ing", "ros", "hal", "ken", "tin"]
    cold = [get(f"/v1/lists/people/rows?q={f}")[0] for f in fragments]
    counts = sorted(sum(s["rowCount"] for s in json.loads(get("/v1/lists/people?q=" + f)[1])["sections"]) for f in fragments)
    for a in "abcdefghij":
        for b in "abcdefghij":
            get(f"/v1/lists/people/rows?q={a}{b}&pageSize=1")
    print(f"{statistics.median(cold):.1f} {counts[len(counts) // 2]}")
PY
}
writes() { wrk_figures -c1 -d"$((seconds / 2 + 1))s" -s Benchmarks/wrk/search-writes.lua "$base"; }
first_ms=$(session first)
read -r _ put0_p50 put0_p99 < <(writes)
read -r cold_p50 matched < <(session searches)
read -r _ put100_p50 put100_p99 < <(writes)
rss=$(awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")

list_page="$base/v1/lists/people/rows"
search_page="$base/v1/lists/people/rows?q=evelyn"
# What is compared: the rows and bytes of each first page (as wrk gets them: no compression).
read -r all_rows all_bytes q_rows q_bytes < <(python3 - "$list_page" "$search_page" <<'PY'
import json, sys, urllib.request
def page(url):
    with urllib.request.urlopen(url) as r:
        body = r.read()
    return sum(len(s.get("rows", [])) for s in json.loads(body)["sections"]), len(body)
print(*page(sys.argv[1]), *page(sys.argv[2]))
PY
)
if [ "$all_rows" = "$q_rows" ]; then same="same rows"; else same="NOT the same rows: not comparable"; echo "note: the first pages differ: $all_rows and $q_rows rows" >&2; fi

echo "== warm first pages (wrk -t1 -c32 -d${seconds}s), two rounds alternating: the list, then a search" >&2
reads_all=(); reads_q=()
for round in 1 2; do
  reads_all+=("$(measure "$list_page")")
  reads_q+=("$(measure "$search_page")")
  echo "  round $round: list ${reads_all[-1]} | search ${reads_q[-1]}" >&2
done

python3 - "$records" "$(nproc)" "$(date -u +%Y-%m-%d)" "$load" "$corpus_ms" "$first_ms" "$cold_p50" "$matched" "$put0_p50 $put0_p99" "$put100_p50 $put100_p99" "$rss" \
  "$all_rows" "$all_bytes" "$q_rows" "$q_bytes" "$same" "${reads_all[*]}" "${reads_q[*]}" <<'PY'
import sys
(records, cores, day, load, corpus_ms, first_ms, cold_p50, matched, put0, put100, rss,
 all_rows, all_bytes, q_rows, q_bytes, same, reads_all, reads_q) = sys.argv[1:19]
def runs(text):  # "rps p50 p99 rps p50 p99 …" → [(rps, p50, p99), …]
    v = text.split(); return [(float(v[i]), v[i + 1], v[i + 2]) for i in range(0, len(v), 3)]
reads_all, reads_q = runs(reads_all), runs(reads_q)
cell = lambda r: f"{r[0]:,.0f} req/s (p50 {r[1]} ms, p99 {r[2]} ms)"
print(f"Search — {records} records, search on name and email; release build; {cores} cores; {day}")
print()
print("| figure | value |")
print("|---|---|")
print(f"| load through POST …/batch | {load} |")
print(f"| search corpus made in the background at start: ready after /readyz answered (polled /metrics) | {corpus_ms} ms |")
print(f"| first search after start, corpus made in the background at start, one request | {first_ms} ms |")
print(f"| a new query (materializes its result from the corpus), p50 of 20 | {cold_p50} ms (median result {matched} rows) |")
for n, (a, q) in enumerate(zip(reads_all, reads_q), 1):
    print(f"| warm first page, whole list ({all_rows} rows, {int(all_bytes):,} bytes), wrk -c32, round {n} | {cell(a)} |")
    print(f"| warm first page, q=evelyn ({q_rows} rows, {int(q_bytes):,} bytes), wrk -c32, round {n} | {cell(q)} |")
best_all, best_q = max(r[0] for r in reads_all), max(r[0] for r in reads_q)
ratio = best_q / max(best_all, 1)
print(f"| warm first page, best round: search / list | {ratio:.2f} "
      f"({'within' if ratio >= 0.90 else 'NOT within'} 10% of the list; {same}) |")
(put0_p50, put0_p99), (put100_p50, put100_p99) = put0.split(), put100.split()
print(f"| PUT of a record, wrk -c1: p50 (p99) without searches / with 100 resident | {put0_p50} ({put0_p99}) ms / {put100_p50} ({put100_p99}) ms |")
print()
print(f"RSS after the searches: {rss} MiB")
PY
