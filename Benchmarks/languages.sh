#!/usr/bin/env bash
# `make bench-languages`: a list in two languages (en, de) over BENCH_RECORDS people (default
# 100,000), numbers, amounts and dates formatted per language.
#   - the first German read: the first page with `Accept-Language: de` right after start, which
#     materializes the German rows of the whole list (timed once, end to end, with curl);
#   - warm first pages: English (no header) and German (`Accept-Language: de`) under wrk -t1 -c32,
#     in the same run; German / English should be close to 1 (the German rows are resident).
# Expects the release build of sectional.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=Benchmarks/common.sh
source Benchmarks/common.sh
seconds=${BENCH_SECONDS:-10}
records=${BENCH_RECORDS:-100000}
begin_run languages
port_s=18620
base="http://127.0.0.1:$port_s"

cat > "$work/config.json" <<JSON
{
  "server": { "host": "127.0.0.1", "port": $port_s, "maxBodyBytes": 16777216, "perClientConnectionLimit": 0 },
  "storage": { "kind": "sqlite", "path": "$work/db.sqlite" },
  "lists": {
    "people": {
      "title": { "en": "People", "de": "Personen" },
      "languages": ["en", "de"],
      "sections": [ {
        "source": "people", "groupBy": "team", "type": "team", "title": "{\$key} ({\$count})",
        "sortBy": [ { "field": "name" } ],
        "row": { "type": "person", "title": "{name}",
                 "subtitle": { "en": "Since {startDate|date:MMMM d, yyyy}", "de": "Seit {startDate|date:d. MMMM yyyy}" },
                 "detail": "{salary|currency:EUR}", "badge": "{unread|number}", "height": 56 }
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

echo "== restart, then the first German read (materializes the German rows)" >&2
start_server
first_de=$(curl -s -o /dev/null -w '%{time_total}' -H 'Accept-Language: de' "$base/v1/lists/people/rows")
first_de_ms=$(python3 -c "print(f'{$first_de * 1000:.0f}')")
second_de=$(curl -s -o /dev/null -w '%{time_total}' -H 'Accept-Language: de' "$base/v1/lists/people/rows")
second_de_ms=$(python3 -c "print(f'{$second_de * 1000:.2f}')")
rss=$(awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")

echo "== warm first pages (wrk -t1 -c32 -d${seconds}s): English, then German" >&2
bytes_en=$(curl -s -o /dev/null -w '%{size_download}' "$base/v1/lists/people/rows")
bytes_de=$(curl -s -o /dev/null -w '%{size_download}' -H 'Accept-Language: de' "$base/v1/lists/people/rows")
read -r en_rps en_p50 en_p99 < <(measure "$base/v1/lists/people/rows")
read -r de_rps de_p50 de_p99 < <(measure -H 'Accept-Language: de' "$base/v1/lists/people/rows")
ratio=$(python3 -c "print(f'{$de_rps / max($en_rps, 1):.2f}')")
materialized=$(curl -s "$base/metrics" | grep -E '^sectional_language_materializations_total' | tr '\n' ';' || true)

cat <<TABLE
Languages — $records records, a list in en and de; release build; $(nproc) cores; $(date -u +%Y-%m-%d)

| figure | value |
|---|---|
| load through POST …/batch | ${load} |
| first German read after start (materializes $records rows), one request | ${first_de_ms} ms (the next: ${second_de_ms} ms); RSS after ${rss} MiB |
| warm first page, English ($bytes_en bytes), wrk -c32 | ${en_rps} req/s (p50 ${en_p50} ms, p99 ${en_p99} ms) |
| warm first page, German ($bytes_de bytes), wrk -c32 | ${de_rps} req/s (p50 ${de_p50} ms, p99 ${de_p99} ms); German / English = ${ratio} |

Language metrics at the end: ${materialized:-none}
TABLE
