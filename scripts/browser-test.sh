#!/usr/bin/env bash
# Browser tests: headless Chromium driven by Selenium (Tests/browser/).
#   - the preview page (GET /) against a live demo server (`sectional serve --memory`:
#     config/sectional.json with its seeded people, in memory);
#   - cross-origin calls from a page on a second origin: Tests/browser/origin/ served by Python's
#     http.server on another free port; the demo server lists exactly that origin in
#     `server.corsOrigins` (a copy of the demo config, artifacts/browser-test-config.json).
#
#   scripts/browser-test.sh [pytest flags…]      (after `swift build`)
#
# Needs Debian's chromium + chromium-driver (installed when missing, as root) and PyPI's selenium and
# pytest (pinned in scripts/requirements.txt, into .venv). fonts-noto-color-emoji makes the icon badges
# render in screenshots. Both servers listen on ports the kernel picks and are stopped on every exit.
# Artifacts: artifacts/preview.png (1280×900), artifacts/preview-phone.png (390×844), the servers' logs.
# Exits with pytest's status.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
source scripts/lib/services.sh

scripts/ensure-packages.sh chromium chromium-driver fonts-noto-color-emoji curl
scripts/ensure-venv.sh
mkdir -p artifacts

# The second origin: a static web server for the cross-origin page.
start_service artifacts/browser-test-origin.log '^Serving HTTP on 127\.0\.0\.1 port ([0-9]+) .*' \
  .venv/bin/python -u -m http.server 0 --bind 127.0.0.1 --directory Tests/browser/origin
origin="http://127.0.0.1:$SERVICE_PORT"

config=artifacts/browser-test-config.json
.venv/bin/python - config/sectional.json "$config" "$origin" <<'PY'
import json, os, sys
source, target, origin = sys.argv[1:]
config = json.load(open(source))
config["server"]["corsOrigins"] = [origin]
folder = os.path.dirname(os.path.abspath(source))  # seed paths stay relative to the demo config
config["seed"] = {name: os.path.join(folder, path) for name, path in config.get("seed", {}).items()}
json.dump(config, open(target, "w"), indent=2)
PY

log=artifacts/browser-test-server.log
start_sectional "$log" --config "$config" --memory

status=0
SECTIONAL_BASE_URL="$SECTIONAL_URL" SECTIONAL_CORS_ORIGIN="$origin" SECTIONAL_ARTIFACTS="$root/artifacts" \
  PYTHONDONTWRITEBYTECODE=1 .venv/bin/python -m pytest -p no:cacheprovider -q Tests/browser "$@" || status=$?

server=0
stop_sectional || server=$?
[ "$server" -eq 0 ] || echo "note: the server exited with status $server after SIGTERM" >&2
[ "$status" -eq 0 ] || echo "browser tests failed; server log: $log, origin log: artifacts/browser-test-origin.log" >&2
[ -f artifacts/preview.png ] && echo "screenshots: artifacts/preview.png artifacts/preview-phone.png"
exit $status
