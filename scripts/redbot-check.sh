#!/usr/bin/env bash
# Checks HTTP caching with REDbot (PyPI `redbot`) against a live server: the outline, a page, a
# record and the preview page. Fails on the notes that matter to shared caches and proxies:
# "doesn't send Vary consistently" and "allows caches to assign their own freshness lifetimes".
# Usage: scripts/redbot-check.sh BASE_URL   (e.g. http://127.0.0.1:8080, the demo config loaded)
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/redbot-check.sh BASE_URL}
mkdir -p artifacts
failed=0
for path in /v1/lists/contacts /v1/lists/contacts/rows /v1/collections/people/records/p-0001 /; do
    out=artifacts/redbot$(echo "$path" | tr '/' '_').txt
    .venv/bin/redbot -o text_verbose "$base$path" > "$out" 2>&1 || true
    if ! grep -q '^HTTP/1.1 200' "$out"; then
        echo "redbot: $path did not answer 200 (see $out)" >&2
        failed=1
    elif grep -qiE "send Vary consistently|assign their own freshness" "$out"; then
        echo "redbot: $path:" >&2
        grep -iE "send Vary consistently|assign their own freshness" "$out" >&2
        failed=1
    else
        echo "redbot: $path: no Vary or freshness notes"
    fi
done
exit $failed
