#!/usr/bin/env bash
# Checks of the live server from outside, with PyPI tools: the OpenAPI document validates,
# REDbot finds no caching note that misleads shared caches, schemathesis finds no answer that
# breaks it, /metrics parses as Prometheus text, and the server stops cleanly (exit 0) on SIGTERM.
# Usage: scripts/check-live.sh   (after `swift build`)
# Artifacts (kept, pass or fail): artifacts/check-live-server.log, artifacts/metrics.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/services.sh
scripts/ensure-venv.sh
mkdir -p artifacts
log=artifacts/check-live-server.log
trap 'status=$?; stop_started; [ $status -eq 0 ] || echo "check-live failed; the server log: $log" >&2' EXIT

scripts/validate-openapi.sh
start_sectional "$log" --memory
scripts/redbot-check.sh "$SECTIONAL_URL"
scripts/schemathesis.sh "$SECTIONAL_URL"
curl -sSf "$SECTIONAL_URL/metrics" > artifacts/metrics.txt
.venv/bin/python - artifacts/metrics.txt <<'PY'
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
status=0
stop_sectional || status=$?
echo "server stopped with status $status"
[ "$status" -eq 0 ]
