#!/usr/bin/env bash
# Runs the README's "API by example" block, as written, against a fresh demo server. Fails when
# a command fails or any answer is a problem other than the one the block shows on purpose.
# Usage: scripts/readme-examples.sh   (after `swift build`)
set -euo pipefail
cd "$(dirname "$0")/.."
folder=$(mktemp -d)
port=18321
.build/debug/sectional serve --port $port --data "$folder/demo.sqlite" 2>"$folder/log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$folder"' EXIT
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.05; done
awk '/^## The API by example/ {on=1} on && /^```sh/ {grab=1; next} grab && /^```/ {exit} grab {print}' README.md \
  | sed "s#^B=http://127.0.0.1:8080#B=http://127.0.0.1:$port#" > "$folder/examples.sh"
if ! output=$(bash -x -euo pipefail "$folder/examples.sh" 2>"$folder/trace"); then
  echo "A README example failed; the last commands run:"; tail -n 5 "$folder/trace"; exit 1
fi
printf '%s\n' "$output" > "$folder/output"
problems=$(grep -o '"type":"/problems/[a-z-]*"' "$folder/output" || true)
lines=$(grep -c '^curl' "$folder/examples.sh")
if [ "$problems" != '"type":"/problems/tag-not-found"' ]; then
  echo "README examples answered unexpected problems:"; echo "$problems"; exit 1
fi
echo "README examples: all $lines curl commands ran; answers as expected"
