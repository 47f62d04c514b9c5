#!/usr/bin/env bash
# `make bench-search`: search and filters at request time over BENCH_RECORDS people (default
# 100,000) in a list with `search` (name, email) and `filters` (team).
#   - the first search after start (reads storage once to make the list's search corpus);
#   - new queries after that (each materializes its own result from the corpus): p50 of 20;
#   - warm first pages: the whole list and one search result under wrk -t1 -c32 (close to 1);
#   - a record write (PUT, one connection) with no resident search, then with 100 resident.
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

echo "== restart, first search, new searches, writes" >&2
start_server
# Timings over one keep-alive connection (no process start per request): milliseconds.
read -r first_ms cold_p50 matched put0_p50 put100_p50 < <(python3 - "$base" <<'PY'
import http.client, json, statistics, sys, time, urllib.parse
host = urllib.parse.urlparse(sys.argv[1]).netloc
c = http.client.HTTPConnection(host)
def get(path):
    t = time.perf_counter(); c.request("GET", path); r = c.getresponse(); body = r.read()
    assert r.status == 200, (path, r.status, body[:200]); return (time.perf_counter() - t) * 1000, body
def put(i):
    body = json.dumps({"name": f"Bench Writer {i}", "team": "Design", "email": f"w{i}@example.com"})
    t = time.perf_counter()
    c.request("PUT", f"/v1/collections/people/records/bench-w{i % 50}", body=body, headers={"Content-Type": "application/json"})
    r = c.getresponse(); r.read(); assert r.status in (200, 201), r.status
    return (time.perf_counter() - t) * 1000
first, _ = get("/v1/lists/people/rows?q=evelyn")
puts0 = [put(i) for i in range(200)]
fragments = ["ell", "son", "ber", "ann", "man", "ste", "ric", "ton", "lin", "ard",
             "ter", "mar", "der", "ley", "ver", "ing", "ros", "hal", "ken", "tin"]
cold = [get(f"/v1/lists/people/rows?q={f}")[0] for f in fragments]
counts = sorted(sum(s["rowCount"] for s in json.loads(get("/v1/lists/people?q=" + f)[1])["sections"]) for f in fragments)
matched = counts[len(counts) // 2]
for a in "abcdefghij":
    for b in "abcdefghij":
        get(f"/v1/lists/people/rows?q={a}{b}&pageSize=1")
puts100 = [put(i) for i in range(200)]
print(f"{first:.0f} {statistics.median(cold):.1f} {matched} {statistics.median(puts0):.2f} {statistics.median(puts100):.2f}")
PY
)
rss=$(awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")

echo "== warm first pages (wrk -t1 -c32 -d${seconds}s): the list, then a search" >&2
read -r all_rps all_p50 all_p99 < <(measure "$base/v1/lists/people/rows")
read -r q_rps q_p50 q_p99 < <(measure "$base/v1/lists/people/rows?q=evelyn")
ratio=$(python3 -c "print(f'{$q_rps / max($all_rps, 1):.2f}')")

cat <<TABLE
Search — $records records, search on name and email; release build; $(nproc) cores; $(date -u +%Y-%m-%d)

| figure | value |
|---|---|
| load through POST …/batch | ${load} |
| first search after start (makes the search corpus from storage), one request | ${first_ms} ms |
| a new query (materializes its result from the corpus), p50 of 20 | ${cold_p50} ms (median result ${matched} rows) |
| warm first page, whole list, wrk -c32 | ${all_rps} req/s (p50 ${all_p50} ms, p99 ${all_p99} ms) |
| warm first page, q=evelyn, wrk -c32 | ${q_rps} req/s (p50 ${q_p50} ms, p99 ${q_p99} ms); search / list = ${ratio} |
| PUT of a record, one connection, p50 of 200 | ${put0_p50} ms without searches; ${put100_p50} ms with 100 resident |

RSS after the searches: ${rss} MiB
TABLE
