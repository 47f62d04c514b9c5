#!/usr/bin/env bash
# `make soak`: does resident memory level off under a steady load over a fixed data set?
#
# The release server (SQLite, log level error) holds 2,000 people; wrk sends 10% writes, 10% tag
# look-ups, 10% `changes?since=1` and 70% first pages on loopback. Variants, one after another,
# each on a fresh server and database, each SOAK_MINUTES long (default 10):
#   overwrite  wrk -t1 -c4,  every write a PUT of an existing id
#   churn      wrk -t1 -c4,  writes alternate DELETE and PUT re-inserting an id deleted earlier
#   c32        wrk -t1 -c32, as overwrite
# SOAK_VARIANTS picks some (e.g. SOAK_VARIANTS=overwrite), so the default run takes about
# 3 × SOAK_MINUTES plus a minute of idle after each load.
# Each minute: the server's RSS and its own gauges of every bounded structure. After the load,
# one more sample a minute later (idle). A variant passes when no request failed and, for runs
# of 4 minutes or more, RSS grew at most 10% from minute 3 to the end of the load and not at all
# while idle (1 MB of slack). Exit status 1 when a variant fails.
# Expects a release build of sectional (`make soak` builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${SOAK_MINUTES:-10}
variants=${SOAK_VARIANTS:-overwrite churn c32}
records=2000
port=${SOAK_PORT:-18711}
binary=${SOAK_BINARY:-.build/release/sectional}
base="http://127.0.0.1:$port"
[[ $minutes =~ ^[1-9][0-9]*$ ]] || { echo "SOAK_MINUTES must be a whole number of minutes ≥ 1" >&2; exit 2; }
work=$(mktemp -d /tmp/sectional-soak.XXXXXX)
server=""; load=""
cleanup() {
  [ -n "$load" ] && kill "$load" 2>/dev/null || true
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
config = json.load(open("config/sectional.json"))
config.pop("seed")
config["storage"] = {"kind": "sqlite", "path": f"{work}/db.sqlite"}
json.dump(config, open(f"{work}/config.json", "w"))
PY

wait_ready() { for _ in $(seq 1200); do curl -sf "$base/readyz" >/dev/null 2>&1 && return 0; sleep 0.05; done; echo "server not ready" >&2; return 1; }

# One sample line: RSS MB, then requests, writes, failed requests and gauges summed over lists.
sample() {
  local rss; rss=$(awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$server/status")
  curl -s "$base/metrics" | awk -v rss="$rss" '
    /^sectional_http_requests_total/ {
      n = $NF; req += n
      if ($0 ~ /method="(PUT|DELETE)"/) wr += n
      if ($0 ~ /status="[45][0-9][0-9]"/) failed += n
    }
    /^sectional_history_versions/ { hv += $NF } /^sectional_history_rows/ { hr += $NF }
    /^sectional_answer_cache_entries/ { ce += $NF } /^sectional_answer_cache_bytes/ { cb += $NF }
    /^sectional_pending_frees/ { pf += $NF } /^sectional_queued_writes/ { qw += $NF }
    END { printf "%s %d %d %d %d %d %d %d %d %d\n", rss, req, wr, failed, hv, hr, ce, cb / 1024, pf, qw }'
}

row() {  # label, sample
  read -r rss req wr failed hv hr ce cb pf qw <<<"$2"
  printf '| %-6s | %7s | %9d | %8d | %6d | %8d | %8d | %7d | %8d | %7d | %6d |\n' "$1" "$rss" "$req" "$wr" "$failed" "$hv" "$hr" "$ce" "$cb" "$pf" "$qw"
}

status=0
for variant in $variants; do
  case $variant in
    overwrite) mode=overwrite; connections=4 ;;
    churn) mode=churn; connections=4 ;;
    c32) mode=overwrite; connections=32 ;;
    *) echo "unknown variant '$variant' (overwrite, churn, c32)" >&2; exit 2 ;;
  esac
  rm -f "$work"/db.sqlite*
  SECTIONAL_LOG_LEVEL=error "$binary" --config "$work/config.json" --port "$port" 2>"$work/server.log" &
  server=$!
  wait_ready
  python3 Benchmarks/load-people.py "$base" "$records" >/dev/null
  tags=$(curl -s "$base/v1/lists/contacts" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tagCount"])')
  # Churn keeps about 100 ids deleted: look up tags that stay in range.
  [ "$mode" = churn ] && tags=$((tags * 9 / 10))

  echo
  echo "== $variant: wrk -t1 -c$connections for $minutes min over $records records ($(date -u +%H:%M:%S) UTC)"
  echo "| min    | RSS MB  | requests  | writes   | failed | hist ver | hist rows | cache n | cache KB | pend. frees | queued |"
  echo "|--------|--------:|----------:|---------:|-------:|---------:|---------:|--------:|---------:|--------:|-------:|"
  declare -a rss_at=()
  s=$(sample)
  row 0 "$s"
  rss_at[0]=${s%% *}
  # Answers before the load (the 503s of /readyz while the server starts) are not the load's.
  failed_before=$(cut -d' ' -f4 <<<"$s")
  wrk -t1 -c"$connections" -d"${minutes}m" --timeout 10s -s Benchmarks/wrk/soak.lua "$base" -- "$mode" "$records" "$tags" \
    > "$work/wrk.txt" 2>&1 &
  load=$!
  started=$(date +%s)
  for ((m = 1; m <= minutes; m++)); do
    wait_s=$((started + 60 * m - $(date +%s)))
    [ "$wait_s" -gt 0 ] && sleep "$wait_s"
    s=$(sample)
    row "$m" "$s"
    rss_at[m]=${s%% *}
  done
  wait "$load" || true
  load=""
  sleep 60
  s=$(sample)
  row "idle" "$s"
  idle=${s%% *}
  failed=$(( $(cut -d' ' -f4 <<<"$s") - failed_before ))
  wrk_errors=$(awk '/Non-2xx|Socket errors/' "$work/wrk.txt")
  summary=$(awk '/requests in/ {print $1 " requests"} /Requests\/sec/ {print $2 " req/s"}' "$work/wrk.txt" | paste -sd, -)
  verdict=$(python3 - "$minutes" "$failed" "${rss_at[3]:-0}" "${rss_at[$minutes]}" "$idle" "$wrk_errors" <<'PY'
import sys
minutes, failed = int(sys.argv[1]), int(sys.argv[2])
at3, end, idle, wrk_errors = float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
problems = []
if failed or wrk_errors: problems.append(f"failed requests: {failed} {wrk_errors}".strip())
if minutes >= 4:
    growth = (end - at3) / at3 * 100
    if growth > 10: problems.append(f"RSS grew {growth:.1f}% from minute 3 to {minutes}")
    else: print(f"RSS minute 3 → {minutes}: {growth:+.1f}%;", end=" ")
if idle > end + 1: problems.append(f"RSS grew while idle: {end} → {idle} MB")
print("FAIL: " + "; ".join(problems) if problems else "PASS")
PY
)
  echo "wrk: ${summary:-no summary}; server log lines: $(wc -l < "$work/server.log"); $verdict"
  [[ $verdict == *PASS ]] || status=1
  kill "$server"; wait "$server" 2>/dev/null || true
  server=""
done
exit $status
