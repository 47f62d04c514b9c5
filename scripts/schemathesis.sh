#!/usr/bin/env bash
# Property-based API tests: schemathesis checks a running server against its own /openapi.json.
#
#   scripts/schemathesis.sh http://127.0.0.1:18123 [extra schemathesis flags…]
#
# The server must already run (the script waits up to 30 s for /openapi.json and for /readyz to say 200).
# Pass SECTIONAL_API_TOKEN in the environment when the server has a token configured: it is sent as
# `Authorization: Bearer …` with every request. SCHEMA=path/to/openapi.json tests against a file instead
# of the served document (the served one is the default: it is what must match the server).
#
# Pinned: schemathesis 4.32.5, in scripts/requirements.txt (the CLI changed a lot between 3.x and 4.x;
# these flags are 4.x flags).
#
# Checks (see `schemathesis run --help`):
#   not_a_server_error            no 5xx (GET /readyz is 503 only while starting or draining; we wait for 200)
#   status_code_conformance       every status is documented (`default` documents the problem answers)
#   content_type_conformance      Content-Type matches the documented media type of that status
#   response_headers_conformance  documented required headers (ETag, Location, WWW-Authenticate) are sent
#   response_schema_conformance   bodies validate against the documented schemas
# Left out, on purpose:
#   positive_data_acceptance      schema-valid input may rightly be refused: random list/record/view names
#                                 are 404, `since` above the current version is 400 invalid-version.
#   negative_data_rejection       query values the server reads leniently (an empty `view`/`pageToken`)
#                                 cannot be expressed as schema violations without lying about them.
#   missing_required_header, ignored_auth, use_after_free, ensure_resource_availability,
#   unsupported_method, allow_header_conformance, object_level_authorization
#                                 either need a token the run may not have (ignored_auth), assume REST
#                                 resource semantics the API does not promise (a deleted view id may be
#                                 answered 404 from any route), or re-test the router's 405 handling,
#                                 which the server's own tests cover.
# Operations: every one, GET /v1/lists/{list}/events included: a Server-Sent Events stream that stays open by
# design; schemathesis reads it until its first event (or 2 s without one, see scripts/schemathesis.toml) and
# checks each event against the documented per-event schema. GET /openapi.json is the one operation left out:
# schemathesis never tests the document it loads.
# Size: 30 operations × up to 100 examples each (fuzzing), plus the examples, coverage and stateful phases:
# well over 1,000 generated cases; the summary line prints the count. The seed is fixed (--seed 1) and the
# example database is off, so a run is reproducible.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 BASE_URL [extra schemathesis flags…]   e.g. $0 http://127.0.0.1:18123" >&2
  exit 2
fi
base="${1%/}"
shift

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
version="4.32.5"

"$root/scripts/ensure-venv.sh"
installed="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))')"
[ "$installed" = "$version" ] || { echo "schemathesis $installed in .venv, these flags are for $version" >&2; exit 1; }

# Wait for the server: the schema must be served and /readyz must say 200 (503 while starting).
"$venv/bin/python" - "$base" <<'PY'
import sys, time, urllib.error, urllib.request
base = sys.argv[1]
deadline = time.monotonic() + 30
last = None
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(base + "/readyz", timeout=2) as answer:
            if answer.status == 200:
                sys.exit(0)
    except urllib.error.HTTPError as error:
        last = f"{error.code} from /readyz"
    except OSError as error:
        last = str(error)
    time.sleep(0.2)
sys.exit(f"schemathesis.sh: {base} is not ready after 30 s ({last})")
PY

location="${SCHEMA:-$base/openapi.json}"
if [ -n "${SCHEMA:-}" ]; then
  location="$(cd "$(dirname "$SCHEMA")" && pwd)/$(basename "$SCHEMA")"
fi
auth=()
if [ -n "${SECTIONAL_API_TOKEN:-}" ]; then
  auth=(--header "Authorization: Bearer $SECTIONAL_API_TOKEN")
fi

# schemathesis keeps a crash cache in ./.schemathesis (replayed by the next run) and hypothesis keeps
# ./.hypothesis: run in a scratch directory, so neither lands in the work tree and every run starts
# fresh and reproducible. (Give extra flags such as --report-dir absolute paths.)
scratch="$(mktemp -d "${TMPDIR:-/tmp}/schemathesis.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
log="$scratch/run.log"

status=0
cd "$scratch"
"$venv/bin/schemathesis" --config-file "$root/scripts/schemathesis.toml" run "$location" \
  --url "$base" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
  --max-examples 100 \
  --seed 1 \
  --generation-database none \
  --workers 1 \
  --request-timeout 10 \
  --no-color \
  "${auth[@]}" \
  "$@" 2>&1 | tee "$log" || status=$?

# The summary: how many cases ran, and schemathesis' closing line ("No issues found in …" / "N failures in …").
echo
echo "schemathesis $version against $location (seed 1, up to 100 examples per operation):"
sed -n '/^Test cases:/{n;p}' "$log"
grep -E '^=+ .* in [0-9.]+s =+$' "$log" | tail -n 1 || true
exit "$status"
