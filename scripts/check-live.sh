#!/usr/bin/env bash
# Checks of the live server from outside, with PyPI tools: the OpenAPI document validates,
# schemathesis finds no answer that breaks it, and /metrics parses as Prometheus text.
# Usage: scripts/check-live.sh   (after `swift build`)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
port=18340
folder=$(mktemp -d)
scripts/validate-openapi.sh
"$root/.venv/bin/pip" install -q prometheus-client==0.21.1
.build/debug/sectional serve --port $port --memory 2>"$folder/server.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$folder"' EXIT
scripts/schemathesis.sh "http://127.0.0.1:$port"
curl -sf "http://127.0.0.1:$port/metrics" > "$folder/metrics.txt"
"$root/.venv/bin/python" - "$folder/metrics.txt" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
families = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
for name in ["sectional_http_requests", "sectional_http_request_duration_seconds", "sectional_list_rows",
             "sectional_list_version", "sectional_duplicate_rows", "sectional_event_streams", "sectional_store_write_seconds"]:
    assert name in families, f"missing metric family {name}"
requests = sum(s.value for s in families["sectional_http_requests"].samples if s.name.endswith("_total"))
assert requests > 1000, f"only {requests} requests counted"
print(f"/metrics parses as Prometheus text: {len(families)} families, {int(requests)} requests counted")
PY
kill -TERM $pid
status=0
wait $pid || status=$?
echo "server stopped with status $status"
[ "$status" -eq 0 ]
