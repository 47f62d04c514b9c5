#!/usr/bin/env bash
# Browser test of the preview page (GET /): headless Chromium driven by Selenium against a live
# demo server (`sectional serve --memory`: config/sectional.json with its seeded people, in memory).
#
#   scripts/browser-test.sh [pytest flags…]      (after `swift build`)
#
# Needs Debian's chromium + chromium-driver (installed when missing, as root) and PyPI's selenium and
# pytest (pinned, into .venv). fonts-noto-color-emoji makes the icon badges render in screenshots.
# Artifacts: artifacts/preview.png (1280×900), artifacts/preview-phone.png (390×844), the server log.
# Exits with pytest's status.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
port=${SECTIONAL_BROWSER_PORT:-18350}
base="http://127.0.0.1:$port"

scripts/ensure-packages.sh chromium chromium-driver fonts-noto-color-emoji
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q selenium==4.51.0 pytest==9.2.0
[ -x .build/debug/sectional ] || { echo "no .build/debug/sectional: run 'swift build' first" >&2; exit 1; }
if curl -s -o /dev/null "$base/healthz"; then
  echo "port $port is already in use; set SECTIONAL_BROWSER_PORT to a free one" >&2
  exit 1
fi

mkdir -p artifacts
log="$root/artifacts/browser-test-server.log"
.build/debug/sectional serve --port "$port" --memory 2>"$log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT

deadline=$((SECONDS + 30))
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")" = 200 ]; do
  if ! kill -0 "$pid" 2>/dev/null; then echo "the server exited; its log:" >&2; cat "$log" >&2; exit 1; fi
  if [ $SECONDS -ge $deadline ]; then echo "the server was not ready within 30 s" >&2; exit 1; fi
  sleep 0.2
done

status=0
SECTIONAL_BASE_URL="$base" SECTIONAL_ARTIFACTS="$root/artifacts" PYTHONDONTWRITEBYTECODE=1 \
  .venv/bin/python -m pytest -p no:cacheprovider -q Tests/browser "$@" || status=$?

kill -TERM "$pid"
server=0
wait "$pid" || server=$?
trap - EXIT
[ "$server" -eq 0 ] || echo "note: the server exited with status $server after SIGTERM" >&2
[ -f artifacts/preview.png ] && echo "screenshots: artifacts/preview.png artifacts/preview-phone.png"
exit $status
